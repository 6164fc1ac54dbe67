#pragma once
// chart.png for a run on a server, as Darknet's: drawn from the run's metrics.csv (loss, average loss,
// validation top-1 or mAP@0.5 against the iteration), so a resumed run's chart holds its whole history.
// Only in builds with OpenCV (it draws and encodes the PNG); the CLI writes it beside metrics.csv.
#include <optional>
#include <string>

namespace nw {

// Where the plot area lies in the 1000 × 600 image: the loss axis on the left (0 at the bottom), the
// validation axis (0–100 %) on the right, iterations 0..maxBatches from left to right.
struct TrainingChartLayout {
    static constexpr int kWidth = 1000, kHeight = 600;
    static constexpr int kLeft = 70, kRight = 930, kTop = 60, kBottom = 540;
};

// The chart's colours (BGR), for the curves and for tests that find them in the image.
struct TrainingChartColors {
    static constexpr unsigned char kAverageLoss[3] = {170, 60, 20}; // dark blue
    static constexpr unsigned char kLoss[3] = {235, 200, 160};      // light blue
    static constexpr unsigned char kValidation[3] = {0, 120, 240};  // orange
};

// Draws metrics.csv (the trainer's columns) into `png`, written atomically. `title` heads it (the cfg's
// name); `maxBatches` sets the iteration axis; `maxLoss` > 0 tops the loss axis (the cfg's
// max_chart_loss), else the largest average loss after the first 2 % of the rows, so the first
// iterations' huge losses do not flatten the rest. nullopt on success, else why (naming the file).
std::optional<std::string> writeTrainingChart(const std::string& metricsCsv, const std::string& png,
                                              const std::string& title, int maxBatches, float maxLoss = 0);

} // namespace nw
