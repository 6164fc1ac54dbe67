#pragma once
// JSON as text for output, bytes that are not UTF-8 (a Latin-1 names file, a file name) replaced by
// U+FFFD: nlohmann's plain dump throws on them, and a whole --json output was lost.
#include <nlohmann/json.hpp>
#include <string>

namespace nw {

inline std::string jsonText(const nlohmann::json& value, int indent = -1)
{
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace nw
