#pragma once
// JSON as text for output, bytes that are not UTF-8 (a Latin-1 names file, a file name) replaced by
// U+FFFD: nlohmann's plain dump throws on them, and a whole --json output was lost.
#include <nlohmann/json.hpp>
#include <string>

namespace nw {

// One line with `indent` < 0; otherwise indented, where an array of numbers stays on one line (a
// confusion matrix row, a box's corners: one number per line made a 10-class matrix 120 lines long).
std::string jsonText(const nlohmann::json& value, int indent = -1);

} // namespace nw
