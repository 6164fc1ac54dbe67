#include "report/training_chart.h"

#include "image/draw_text.h"
#include "image/media_codecs.h"
#include "util/atomic_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace nw {

namespace {

struct Row {
    int iteration = 0;
    float loss = 0, averageLoss = 0;
    std::optional<float> validation; // top-1 or mAP@0.5, 0..1
    double elapsed = 0;
};

std::optional<float> numberIn(const std::string& field)
{
    if (field.empty())
        return std::nullopt;
    char* end = nullptr;
    const float value = std::strtof(field.c_str(), &end);
    return end && *end == '\0' && std::isfinite(value) ? std::optional<float>(value) : std::nullopt;
}

// metrics.csv: iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50 (rows that do not
// read are left out: a NaN loss, a line cut by a kill).
std::vector<Row> readMetrics(std::istream& in, bool& detector)
{
    std::vector<Row> rows;
    std::string line;
    std::getline(in, line); // the header
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::stringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');)
            fields.push_back(cell);
        fields.resize(8);
        const auto iteration = numberIn(fields[0]), loss = numberIn(fields[1]), average = numberIn(fields[2]);
        if (!iteration || !loss || !average)
            continue;
        Row row{int(*iteration), *loss, *average, std::nullopt, numberIn(fields[5]).value_or(0)};
        if (const auto map = numberIn(fields[7])) {
            row.validation = map;
            detector = true;
        } else if (const auto top1 = numberIn(fields[6])) {
            row.validation = top1;
        }
        rows.push_back(row);
    }
    return rows;
}

// The axis top at or above `value` whose tenths read well: 10 × (1, 2, 2.5 or 5) × 10^k.
float niceTop(float value)
{
    const double raw = value / 10.0, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / magnitude;
    const double step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10) * magnitude;
    return float(10 * step);
}

cv::Scalar color(const unsigned char (&bgr)[3])
{
    return cv::Scalar(bgr[0], bgr[1], bgr[2]);
}

void text(cv::Mat& image, const std::string& words, cv::Point at, double scale = 0.5,
          cv::Scalar ink = cv::Scalar(40, 40, 40))
{
    drawText(image, words, at, scale, ink);
}

std::string figure(double value, const char* format)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

} // namespace

std::optional<std::string> writeTrainingChart(const std::string& metricsCsv, const std::string& png,
                                              const std::string& title, int maxBatches, float maxLoss)
{
    std::ifstream in(metricsCsv);
    if (!in)
        return metricsCsv + ": cannot read it (the run's metrics, for chart.png)";
    bool detector = false;
    const std::vector<Row> rows = readMetrics(in, detector);
    using L = TrainingChartLayout;
    cv::Mat image(L::kHeight, L::kWidth, CV_8UC3, cv::Scalar(255, 255, 255));
    const int lastIteration = rows.empty() ? 0 : rows.back().iteration;
    const int xMax = std::max({1, maxBatches, lastIteration});
    float yMax = maxLoss;
    if (!(yMax > 0)) { // the largest average loss past the first 2 % of the rows
        for (std::size_t i = rows.size() / 50; i < rows.size(); ++i)
            yMax = std::max(yMax, rows[i].averageLoss);
        yMax = yMax > 0 ? niceTop(yMax * 1.05f) : 1.0f;
    }
    const auto x = [&](double iteration) { return L::kLeft + (L::kRight - L::kLeft) * iteration / xMax; };
    const auto yLoss = [&](double loss) {
        return L::kBottom - (L::kBottom - L::kTop) * std::clamp(loss / yMax, 0.0, 1.0);
    };
    const auto yValid = [&](double fraction) {
        return L::kBottom - (L::kBottom - L::kTop) * std::clamp(fraction, 0.0, 1.0);
    };
    const auto point = [](double px, double py) {
        return cv::Point(int(std::lround(px)), int(std::lround(py)));
    };

    // Grid and axes: ten steps each way, the loss on the left, validation (%) on the right.
    const cv::Scalar grid(225, 225, 225), axis(90, 90, 90);
    for (int k = 0; k <= 10; ++k) {
        const int gx = int(std::lround(x(xMax * k / 10.0))), gy = int(std::lround(yValid(k / 10.0)));
        cv::line(image, {gx, L::kTop}, {gx, L::kBottom}, grid);
        cv::line(image, {L::kLeft, gy}, {L::kRight, gy}, grid);
        // (under ten iterations a tenth is no whole iteration: only the whole ones are numbered, as 0, 3, 6
        // for six, not 0, 1, 1, 2, 2, …)
        if (const double tick = xMax * k / 10.0; xMax >= 10 || tick == std::round(tick))
            text(image, std::to_string(int(std::lround(tick))), {gx - 14, L::kBottom + 20}, 0.4);
        text(image, figure(yMax * k / 10.0, yMax * k / 10.0 < 10 ? "%.2f" : "%.1f"), {8, gy + 4}, 0.4);
        text(image, std::to_string(k * 10) + "%", {L::kRight + 8, gy + 4}, 0.4,
             color(TrainingChartColors::kValidation));
    }
    cv::rectangle(image, {L::kLeft, L::kTop}, {L::kRight, L::kBottom}, axis);
    text(image, "iteration", {(L::kLeft + L::kRight) / 2 - 30, L::kBottom + 45}, 0.5);

    // Loss (thin, light), then the average loss over it, then the validation points joined.
    for (std::size_t i = 1; i < rows.size(); ++i)
        cv::line(image, point(x(rows[i - 1].iteration), yLoss(rows[i - 1].loss)),
                 point(x(rows[i].iteration), yLoss(rows[i].loss)), color(TrainingChartColors::kLoss), 1,
                 cv::LINE_AA);
    for (std::size_t i = 1; i < rows.size(); ++i)
        cv::line(image, point(x(rows[i - 1].iteration), yLoss(rows[i - 1].averageLoss)),
                 point(x(rows[i].iteration), yLoss(rows[i].averageLoss)),
                 color(TrainingChartColors::kAverageLoss), 2, cv::LINE_AA);
    std::optional<cv::Point> previous;
    std::optional<int> labelledX;
    std::optional<Row> best;
    for (const Row& row : rows) {
        if (!row.validation)
            continue;
        const cv::Point at = point(x(row.iteration), yValid(*row.validation));
        if (previous)
            cv::line(image, *previous, at, color(TrainingChartColors::kValidation), 2, cv::LINE_AA);
        cv::circle(image, at, 4, color(TrainingChartColors::kValidation), cv::FILLED, cv::LINE_AA);
        if (!labelledX || at.x - *labelledX >= 48) { // dense points: a figure where it has room (best below)
            // Centred over its point, but inside the plot: the last point sits on the right edge.
            const std::string label = figure(*row.validation * 100, "%.1f%%");
            const int width = textSize(label, 0.4).width;
            text(image, label, {std::clamp(at.x - width / 2, L::kLeft, L::kRight - width), at.y - 10}, 0.4,
                 color(TrainingChartColors::kValidation));
            labelledX = at.x;
        }
        previous = at;
        if (!best || *row.validation >= *best->validation)
            best = row;
    }

    // The heading: where the run is, as Darknet's window title and chart say it.
    std::string heading =
        title + ": iteration " + std::to_string(lastIteration) + " / " + std::to_string(xMax);
    if (!rows.empty()) {
        heading += ", avg loss " + figure(rows.back().averageLoss, "%.4f");
        if (rows.back().iteration > rows.front().iteration && lastIteration < xMax) {
            const double perIteration = (rows.back().elapsed - rows.front().elapsed) /
                                        (rows.back().iteration - rows.front().iteration);
            const int left = int(perIteration * (xMax - lastIteration)), minutes = left / 60 % 60;
            heading += left >= 3600 ? ", about " + std::to_string(left / 3600) + " h " +
                                          figure(minutes, "%02.0f") + " min left"
                                    : ", about " + std::to_string(std::max(1, minutes)) + " min left";
        }
    }
    text(image, heading, {L::kLeft, 25}, 0.55, cv::Scalar(0, 0, 0));
    std::string legend = "avg loss (dark), loss (light)";
    if (best)
        legend += std::string(", ") + (detector ? "mAP@0.5" : "top-1") + " (orange), best " +
                  figure(*best->validation * 100, "%.2f%%") + " at " + std::to_string(best->iteration);
    text(image, legend, {L::kLeft, 48}, 0.45, cv::Scalar(60, 60, 60));

    std::string unloadable;
    const media::Codecs* codecs = media::codecs(unloadable);
    if (!codecs)
        return png + ": cannot encode the chart: " + unloadable;
    std::vector<uchar> bytes;
    if (!codecs->encodeImage(".png", image, {}, bytes))
        return png + ": cannot encode the chart";
    return writeFileAtomically(png,
                               std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

} // namespace nw
