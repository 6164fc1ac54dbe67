#include "cfg/reference_text.h"

#include "cfg/section_reader.h"

#include <algorithm>
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
    // The numbers of the value only: a comment after it ("layers = -1, 8  # 2 inputs") stays as written.
    std::size_t valueEnd = std::min(line.text.find_first_of("#;", pos), line.text.size());
    while (pos < valueEnd) {
        while (pos < valueEnd && line.text[pos] != '-' && !isDigit(pos))
            ++pos;
        if (pos >= valueEnd)
            break;
        std::size_t end = pos + (line.text[pos] == '-' ? 1 : 0);
        while (end < valueEnd && isDigit(end))
            ++end;
        std::string replacement = line.text.substr(pos, end - pos);
        if (const auto written = parseInt(replacement))
            if (const auto updated = rewrite(*written))
                replacement = std::to_string(*updated);
        line.text.replace(pos, end - pos, replacement);
        valueEnd = valueEnd + replacement.size() - (end - pos);
        pos += std::max<std::size_t>(1, replacement.size());
    }
    line.value = darknetStrip(line.text.substr(eq + 1));
}

} // namespace nw::cfg
