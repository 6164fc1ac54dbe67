#include "detect/annotate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#if NETWRIGHT_WITH_OPENCV
#include "image/draw_text.h"

#include <opencv2/imgproc.hpp>
#endif

namespace nw {

void classColor(int classId, int& r, int& g, int& b)
{
    // Golden-ratio hue steps give neighbouring classes clearly different colours.
    const double hue = std::fmod(0.61803398875 * double(classId) + 0.1, 1.0) * 6.0;
    const int sector = int(hue);
    const double f = hue - sector;
    const double v = 230, s = 0.75, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    const double rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    r = int(rgb[sector % 6][0]);
    g = int(rgb[sector % 6][1]);
    b = int(rgb[sector % 6][2]);
}

bool whiteTextOn(int r, int g, int b)
{
    const auto linear = [](int channel) {
        const double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    const double luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    // Contrast with white (1.05 / (L + 0.05)) beats contrast with black ((L + 0.05) / 0.05).
    return (luminance + 0.05) * (luminance + 0.05) < 1.05 * 0.05;
}

LabelPlace placeLabel(const LabeledBox& box, double width, double height, double imageWidth,
                      double imageHeight)
{
    LabelPlace place;
    place.x = std::max(0.0, std::min(double(box.left), imageWidth - width));
    const double above = double(box.top) - height;
    place.y = above >= 0 ? above : std::max(0.0, std::min(double(box.top), imageHeight - height));
    return place;
}

std::vector<const LabeledBox*> drawingOrder(const std::vector<LabeledBox>& boxes)
{
    std::vector<const LabeledBox*> order;
    for (const LabeledBox& box : boxes)
        order.push_back(&box);
    std::stable_sort(order.begin(), order.end(),
                     [](const LabeledBox* a, const LabeledBox* b) { return a->confidence < b->confidence; });
    return order;
}

std::vector<LabelPlace> placeLabels(const std::vector<const LabeledBox*>& order,
                                    const std::vector<LabelSize>& sizes, double imageWidth,
                                    double imageHeight)
{
    std::vector<LabelPlace> places(order.size());
    // The free-place search compares each label with those placed before it; past the most confident
    // kSearched the rest take the usual place (an untrained network's 70,000 boxes took minutes a frame).
    constexpr std::size_t kSearched = 256;
    const std::size_t searchedFrom = order.size() > kSearched ? order.size() - kSearched : 0;
    const auto covered = [&](const LabelPlace& p, const LabelSize& size, std::size_t placedFrom) {
        double area = 0;
        for (std::size_t j = std::max(placedFrom, searchedFrom); j < order.size(); ++j) {
            const double w =
                std::min(p.x + size.width, places[j].x + sizes[j].width) - std::max(p.x, places[j].x);
            const double h =
                std::min(p.y + size.height, places[j].y + sizes[j].height) - std::max(p.y, places[j].y);
            if (w > 0 && h > 0)
                area += w * h;
        }
        return area;
    };
    for (std::size_t i = order.size(); i-- > 0;) { // the most confident first: it keeps the usual place
        const LabeledBox& box = *order[i];
        const LabelSize size = sizes[i];
        if (i < searchedFrom) {
            places[i] = placeLabel(box, size.width, size.height, imageWidth, imageHeight);
            continue;
        }
        const auto inside = [&](double x, double y) {
            return LabelPlace{std::max(0.0, std::min(x, imageWidth - size.width)),
                              std::max(0.0, std::min(y, imageHeight - size.height))};
        };
        const double right = double(box.left) + box.width, bottom = double(box.top) + box.height;
        const LabelPlace candidates[] = {
            placeLabel(box, size.width, size.height, imageWidth, imageHeight),
            inside(box.left, box.top),
            inside(box.left, bottom),
            inside(right - size.width, double(box.top) - size.height),
            inside(box.left, bottom - size.height),
        };
        double least = -1;
        for (const LabelPlace& candidate : candidates) {
            const double area = covered(candidate, size, i + 1);
            if (least < 0 || area < least) {
                least = area;
                places[i] = candidate;
            }
            if (area == 0)
                break;
        }
    }
    return places;
}

#if NETWRIGHT_WITH_OPENCV
void drawBoxes(cv::Mat& frame, const std::vector<LabeledBox>& boxes)
{
    const int thickness = std::max(1, frame.rows / 300);
    const double scale = std::max(0.4, frame.rows / 1000.0);
    const std::vector<const LabeledBox*> order = drawingOrder(boxes);
    // The name and the score are drawn as two runs: one string laid out right to left for a Hebrew or
    // Arabic name reversed its digits too ("%19" for 91 %).
    std::vector<std::string> scores;
    std::vector<int> nameWidths;
    std::vector<LabelSize> sizes;
    std::vector<int> textHeights;
    for (const LabeledBox* box : order) {
        char score[32];
        std::snprintf(score, sizeof score, " %.0f%%", box->confidence * 100);
        int nameBaseline = 0, scoreBaseline = 0;
        const cv::Size name = textSize(box->name, scale, &nameBaseline);
        const cv::Size number = textSize(score, scale, &scoreBaseline, box->name); // (in the name's font)
        scores.emplace_back(score);
        nameWidths.push_back(box->name.empty() ? 0 : name.width);
        const int height = std::max(name.height, number.height);
        sizes.push_back({double(nameWidths.back() + number.width + 4),
                         double(height + std::max(nameBaseline, scoreBaseline) + 2)});
        textHeights.push_back(height);
    }
    const std::vector<LabelPlace> places = placeLabels(order, sizes, frame.cols, frame.rows);
    for (std::size_t i = 0; i < order.size(); ++i) { // every box first: no frame crosses a label
        int r, g, b;
        classColor(order[i]->classId, r, g, b);
        const LabeledBox& box = *order[i];
        cv::rectangle(frame, cv::Rect(int(box.left), int(box.top), int(box.width), int(box.height)),
                      cv::Scalar(b, g, r), thickness);
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
        int r, g, b;
        classColor(order[i]->classId, r, g, b);
        const int x = int(places[i].x), top = int(places[i].y);
        cv::rectangle(frame, cv::Rect(x, top, int(sizes[i].width), int(sizes[i].height)), cv::Scalar(b, g, r),
                      cv::FILLED);
        const cv::Scalar ink = whiteTextOn(r, g, b) ? cv::Scalar(255, 255, 255) : cv::Scalar(0, 0, 0);
        const int baseline = top + textHeights[i] + 1;
        if (!order[i]->name.empty())
            drawText(frame, order[i]->name, cv::Point(x + 2, baseline), scale, ink);
        drawText(frame, scores[i], cv::Point(x + 2 + nameWidths[i], baseline), scale, ink, order[i]->name);
    }
}
#endif

} // namespace nw
