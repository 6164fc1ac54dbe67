#include "detect/annotate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#if NETWRIGHT_WITH_OPENCV
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

#if NETWRIGHT_WITH_OPENCV
void drawBoxes(cv::Mat& frame, const std::vector<LabeledBox>& boxes)
{
    const int thickness = std::max(1, frame.rows / 300);
    for (const LabeledBox* drawn : drawingOrder(boxes)) {
        const LabeledBox& box = *drawn;
        int r, g, b;
        classColor(box.classId, r, g, b);
        const cv::Scalar color(b, g, r);
        const cv::Rect rect(int(box.left), int(box.top), int(box.width), int(box.height));
        cv::rectangle(frame, rect, color, thickness);
        char label[160];
        std::snprintf(label, sizeof label, "%s %.0f%%", box.name.c_str(), box.confidence * 100);
        int baseline = 0;
        const double scale = std::max(0.4, frame.rows / 1000.0);
        const cv::Size size = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, scale, 1, &baseline);
        const int tagWidth = size.width + 4, tagHeight = size.height + baseline + 2;
        const LabelPlace place = placeLabel(box, tagWidth, tagHeight, frame.cols, frame.rows);
        const int x = int(place.x), top = int(place.y);
        cv::rectangle(frame, cv::Rect(x, top, tagWidth, tagHeight), color, cv::FILLED);
        const cv::Scalar ink = whiteTextOn(r, g, b) ? cv::Scalar(255, 255, 255) : cv::Scalar(0, 0, 0);
        cv::putText(frame, label, cv::Point(x + 2, top + size.height + 1), cv::FONT_HERSHEY_SIMPLEX, scale,
                    ink, 1, cv::LINE_AA);
    }
}
#endif

} // namespace nw
