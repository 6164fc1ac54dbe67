#pragma once
// A fresh run (no --resume) into a folder that holds an earlier run's files: they are moved into
// <folder>/previous-<date>-<time>/ first, so starting over never overwrites a checkpoint that took hours.
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct SetAside {
    std::string folder;             // where the files went; empty when there were none
    std::vector<std::string> files; // their names
    std::optional<std::string> error;
};

// The run `name`'s files in `folder`: its checkpoint (_last.weights, _last.state), _final.weights and
// metrics.csv. Call with the folder's lock held. All or nothing: a move that fails puts back the others.
SetAside setAsidePreviousRun(const std::string& folder, const std::string& name);

// Whether the run `name` in `folder` ended: its _final.weights is there and its checkpoint is not
// newer, or there is none (a stopped run's checkpoint is newer; a resumed one that finished wrote its
// final again).
bool runFinished(const std::string& folder, const std::string& name);

// For a run stopped in its first iteration: deletes the run's files that `aside` does not hold (what
// this run wrote), then restorePreviousRun.
std::optional<std::string> bringPreviousRunBack(const SetAside& aside, const std::string& folder,
                                                const std::string& name);

// The newest previous-… folder in `folder` that holds `file` (as "previous-…/file"), or nullopt: where to
// point a --resume that finds nothing, after a fresh run set the checkpoint aside and then died.
std::optional<std::string> newestSetAside(const std::string& folder, const std::string& file);

// Moves them back (over what the new run wrote) and removes the emptied previous-… folder; the error,
// naming both folders, when it cannot.
std::optional<std::string> restorePreviousRun(const SetAside& aside, const std::string& folder);

} // namespace nw
