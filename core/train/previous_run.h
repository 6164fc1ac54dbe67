#pragma once
// A fresh run (no --resume) into a folder that holds an earlier run's files: they are moved into
// <folder>/previous-<date>-<time>/ first, so starting over never overwrites a checkpoint that took hours.
#include <optional>
#include <string>

namespace nw {

struct SetAside {
    std::string folder; // where the files went; empty when there were none
    std::optional<std::string> error;
};

// The run `name`'s files in `folder`: its checkpoint (_last.weights, _last.state), _final.weights and
// metrics.csv. Call with the folder's lock held.
SetAside setAsidePreviousRun(const std::string& folder, const std::string& name);

} // namespace nw
