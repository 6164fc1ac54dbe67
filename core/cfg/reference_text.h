#pragma once
// Internal to core/cfg: rewriting the numbers of a reference entry (route `layers=`, `from=`) in place
// in its raw text, so spacing such as "-1, 23" survives an edit.
#include "cfg/document.h"

#include <functional>
#include <optional>

namespace nw::cfg {

// Calls `rewrite` with each number written in the entry's value; a returned number replaces it.
// The line's stripped value is refreshed afterwards.
void rewriteReferenceNumbers(Line& line, const std::function<std::optional<int>(int written)>& rewrite);

} // namespace nw::cfg
