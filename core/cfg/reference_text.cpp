#include "cfg/reference_text.h"

#include "cfg/section_reader.h"

#include <cctype>
#include <string>

namespace nw::cfg {

void rewriteReferenceNumbers(Line& line, const std::function<std::optional<int>(int written)>& rewrite)
{
    const auto eq = line.text.find('=');
    if (eq == std::string::npos)
        return;
    auto isDigit = [&](std::size_t i) { return std::isdigit(static_cast<unsigned char>(line.text[i])) != 0; };
    std::size_t pos = eq + 1;
    while (pos < line.text.size()) {
        while (pos < line.text.size() && line.text[pos] != '-' && !isDigit(pos))
            ++pos;
        if (pos >= line.text.size())
            break;
        std::size_t end = pos + (line.text[pos] == '-' ? 1 : 0);
        while (end < line.text.size() && isDigit(end))
            ++end;
        std::string replacement = line.text.substr(pos, end - pos);
        if (const auto written = parseInt(replacement))
            if (const auto updated = rewrite(*written))
                replacement = std::to_string(*updated);
        line.text.replace(pos, end - pos, replacement);
        pos += std::max<std::size_t>(1, replacement.size());
    }
    line.value = darknetStrip(line.text.substr(eq + 1));
}

} // namespace nw::cfg
