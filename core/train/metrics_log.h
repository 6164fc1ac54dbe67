#pragma once
// metrics.csv while a run writes it: one row an iteration, appended. A row that cannot be written (a
// full disk, a folder made read-only for a while) is kept and written with the next one, so a short
// spell without room loses no row — the resume check and _best.weights read this file.
#include <optional>
#include <string>

namespace nw {

class MetricsLog {
public:
    explicit MetricsLog(std::string path) : path_(std::move(path)) {}
    // Appends `row` (with those still waiting). Returns a message when rows start waiting, and again when
    // they are written; nullopt otherwise.
    std::optional<std::string> append(const std::string& row);
    // How many rows wait to be written.
    int waitingRows() const { return waitingRows_; }

private:
    std::string path_;
    std::string waiting_; // rows not yet in the file
    int waitingRows_ = 0;
};

} // namespace nw
