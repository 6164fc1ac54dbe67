#pragma once
// How each class fared at a run's latest validation — a classifier's confusion matrix, a detector's AP
// per class — as JSON: kept in the run folder as <name>_classes.json (so the studio shows a run's last
// figures again after a restart) and sent in `train --progress json` lines. One format for both:
//   {"iteration":400, "names":[…], "confusion":[[…], …], "undecided":[…]}               a classifier
//   {"iteration":400, "names":[…], "class_aps":[{"ap50","ap50_95","truths","detections","tp","fp"}, …]}
#include "detect/map.h"
#include "train/confusion_matrix.h"

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw {

struct ClassResults {
    int iteration = 0;
    std::vector<std::string> names;                       // the data set's, as the run read them (or none)
    std::shared_ptr<const ConfusionMatrix> confusion;     // a classifier's
    std::shared_ptr<const std::vector<ClassAp>> classAps; // a detector's
    bool empty() const { return !confusion && !classAps; }
};

// Adds "confusion" and "undecided" (a matrix that keeps its cells) and "class_aps" to `out`.
void addClassResults(nlohmann::json& out, const ConfusionMatrix* confusion,
                     const std::vector<ClassAp>* classAps);
// A JSON object's text read whole: "iteration", "names" and the figures. nullopt with `error` when it is
// not such an object.
std::optional<ClassResults> parseClassResults(std::string_view text, std::string& error);

// <outDir>/<name>_classes.json
std::string classResultsPath(const std::string& outDir, const std::string& name);
// Written atomically; an error naming the file otherwise.
std::optional<std::string> saveClassResults(const std::string& path, const ClassResults& results);
// nullopt with `error` ("PATH: …") when it is missing, unreadable or not such a file.
std::optional<ClassResults> loadClassResults(const std::string& path, std::string& error);

} // namespace nw
