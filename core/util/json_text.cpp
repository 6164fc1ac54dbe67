#include "util/json_text.h"

#include <algorithm>

namespace nw {

namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

bool isNumberRow(const nlohmann::json& value)
{
    return value.is_array() && !value.empty() &&
           std::all_of(value.begin(), value.end(), [](const nlohmann::json& v) { return v.is_number(); });
}

void append(std::string& out, const nlohmann::json& value, int indent, int depth)
{
    const bool object = value.is_object();
    if ((!object && !value.is_array()) || value.empty()) {
        out += value.dump(-1, ' ', false, kReplace);
        return;
    }
    if (isNumberRow(value)) {
        out += '[';
        for (std::size_t k = 0; k < value.size(); ++k)
            out += (k ? ", " : "") + value[k].dump(-1, ' ', false, kReplace);
        out += ']';
        return;
    }
    const std::string inner(std::size_t(indent * (depth + 1)), ' ');
    out += object ? "{\n" : "[\n";
    bool first = true;
    for (auto item = value.begin(); item != value.end(); ++item) {
        out += first ? "" : ",\n";
        first = false;
        out += inner;
        if (object)
            out += nlohmann::json(item.key()).dump(-1, ' ', false, kReplace) + ": ";
        append(out, item.value(), indent, depth + 1);
    }
    out += '\n' + std::string(std::size_t(indent * depth), ' ') + (object ? '}' : ']');
}

} // namespace

std::string jsonText(const nlohmann::json& value, int indent)
{
    if (indent < 0)
        return value.dump(-1, ' ', false, kReplace);
    std::string out;
    append(out, value, indent, 0);
    return out;
}

} // namespace nw
