#pragma once
// metrics.csv while a run writes it: one row an iteration, appended. A row that cannot be written (a
// full disk, a folder made read-only for a while) is kept and written with the next one, so a short
// spell without room loses no row — the resume check and _best.weights read this file.
#include "train/checkpoint.h"

#include <optional>
#include <string>

namespace nw {

// The `column`th comma-separated cell of a metrics.csv row (empty past its end).
std::string metricsCell(const std::string& line, int column);
// Whether metrics.csv has the checkpoint's row, with its average loss (written with 6 digits): a file
// another run wrote (two cfgs sharing Darknet's backup/) does not. A missing file is fine.
bool metricsReachCheckpoint(const std::string& path, const TrainState& state);

class MetricsLog {
public:
    explicit MetricsLog(std::string path) : path_(std::move(path)) {}
    // Appends `row` (with those still waiting). Returns a message when rows start waiting, and again when
    // they are written; nullopt otherwise.
    std::optional<std::string> append(const std::string& row);
    // Tries once more to write the rows that wait (before a checkpoint, whose row must be in the file
    // for a resume to know it as its own); the same messages as append.
    std::optional<std::string> flush();
    // How many rows wait to be written.
    int waitingRows() const { return waitingRows_; }

private:
    std::string path_;
    std::string waiting_; // rows not yet in the file
    int waitingRows_ = 0;
    bool warned_ = false; // the rows' wait was said (and their writing will be)
    std::optional<std::string> write(bool force);
};

} // namespace nw
