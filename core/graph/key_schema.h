#pragma once
// The keys of each section type for editors: kind, default, fixed choices, a one-line description
// and, for [net], a group. Taken from the parsers themselves (run on an empty section with a
// recorder), so the editor offers exactly what the description reads.
#include "cfg/section_reader.h"

#include <string>
#include <string_view>
#include <vector>

namespace nw {

struct KeySpec {
    std::string key;
    cfg::KeyInfo::Kind kind = cfg::KeyInfo::Kind::Other;
    std::string fallback;             // the default as cfg text ("" when none)
    std::vector<std::string> choices; // activation, policy, iou_loss, ...: the values allowed
    std::string description;          // one line ("" when none is written)
    std::string group;                // [net]: "Input", "Batch", "Solver", "Policy", "Augmentation"
};

// [net]/[network] and every layer type (by long name or alias); empty for an unknown type.
std::vector<KeySpec> keySchema(std::string_view sectionType);
// The same keys, with the defaults this section's own values give: stride_x follows stride, so a
// [maxpool] with stride=2 has stride_x 2 by default, not the type's 1.
std::vector<KeySpec> keySchema(const cfg::Section& section);

} // namespace nw
