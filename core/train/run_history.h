#pragma once
// The runs a training folder holds, for comparing them: the run there now and the earlier ones a fresh
// start set aside (previous-<date>-<time>/, train/previous_run.h), each read from its metrics.csv. The
// studio's Compare menu draws their curves beside a run's; `netwright-cli runs` lists them.
#include <optional>
#include <string>
#include <vector>

namespace nw {

// One row of metrics.csv (the trainer's columns; validation figures as fractions).
struct MetricsRow {
    int iteration = 0;
    double loss = 0, averageLoss = 0, learningRate = 0, imagesPerSecond = 0, elapsedSeconds = 0;
    std::optional<double> validTop1, map50;
};

// Its rows in order; rows that are not numbers (a header, a cut-off last line) are left out. An empty
// list when the file cannot be read.
std::vector<MetricsRow> readMetrics(const std::string& path);

struct RunSummary {
    std::string name;                  // "." for the folder's own run, else the previous-… folder's name
    std::string folder;                // where its files are
    std::string metricsPath;           // its metrics.csv
    std::vector<std::string> networks; // the cfg names of the checkpoints or weights it holds
    int iterations = 0;                // the last row's
    double averageLoss = 0;            // the last row's
    double elapsedSeconds = 0;
    // The best validation figure and where: mAP@0.5 for a detector, else top-1 (nullopt: none).
    std::optional<double> best;
    bool bestIsMap = false;
    int bestIteration = 0;
    bool finished = false; // a _final.weights as new as its checkpoint
};

// What `metricsPath`'s rows say of a run (nullopt without rows).
std::optional<RunSummary> summarizeRun(const std::string& folder, const std::string& metricsPath);
// The folder's own run first (when it has metrics.csv rows), then its previous-… runs, newest first.
std::vector<RunSummary> runsIn(const std::string& folder);

} // namespace nw
