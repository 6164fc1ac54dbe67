#pragma once
// The runs a training folder holds, for comparing them: the run there now and the earlier ones a fresh
// start set aside (previous-<date>-<time>/, train/previous_run.h), each read from its metrics.csv. The
// studio's Compare menu draws their curves beside a run's; `netwright-cli runs` lists them.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nw {

// One row of metrics.csv (the trainer's columns; validation figures as fractions).
struct MetricsRow {
    int iteration = 0;
    double loss = 0, averageLoss = 0, learningRate = 0, imagesPerSecond = 0, elapsedSeconds = 0;
    std::optional<double> validTop1, map50;
};

// Its rows in order. Left out: rows that are not the trainer's (a header, text, an iteration that is
// not a whole number from 1, a loss that is not finite), a last line without its newline (cut off), and
// lines over 4 KB; a validation cell that is not a finite number counts as empty. Only a regular file
// is read (a pipe or /dev/zero named metrics.csv would never end); `problem` (optional) gets why none is.
std::vector<MetricsRow> readMetrics(const std::string& path, std::string* problem = nullptr);

struct RunSummary {
    std::string name;                  // "." for the folder's own run, else the previous-… folder's name
    std::string folder;                // where its files are
    std::string metricsPath;           // its metrics.csv
    std::vector<std::string> networks; // the cfg names of the checkpoints or weights it holds
    int iterations = 0;                // the latest row's (the highest iteration)
    double averageLoss = 0;            // the latest row's
    double elapsedSeconds = 0;
    // The best validation figure and where: mAP@0.5 for a detector, else top-1 (nullopt: none).
    std::optional<double> best;
    bool bestIsMap = false;
    int bestIteration = 0;
    bool finished = false; // a _final.weights as new as its checkpoint
    bool training = false; // a run holds the folder's lock now
    // It ended before its first checkpoint (a NaN loss, an error): its networks are its _trained.cfg's.
    bool withoutCheckpoint = false;
};

// What `metricsPath`'s rows say of a run (nullopt without rows; `problem` says why when the file could
// not be read). The rows are read one at a time: a metrics.csv of millions of rows takes no memory.
std::optional<RunSummary> summarizeRun(const std::string& folder, const std::string& metricsPath,
                                       std::string* problem = nullptr);
// The time a previous-… folder's name gives and its copy number: previous-20261130-101200-3 →
// ("20261130-101200", 3); nullopt for other names. (Newest first by the names' times: a copied folder's
// files all have the copy's time.)
std::optional<std::pair<std::string, int>> setAsideStamp(const std::string& name);
// The folder's own run first (when it has metrics.csv rows), then its previous-<date>-<time>[-N] runs,
// newest first by the time in their names. `problems` (optional) gets what could not be read.
std::vector<RunSummary> runsIn(const std::string& folder, std::vector<std::string>* problems = nullptr);

} // namespace nw
