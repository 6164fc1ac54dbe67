#include "cfg/reference_text.h"

#include "cfg/section_reader.h"

#include <algorithm>
#include <string>

namespace nw::cfg {

void rewriteReferenceNumbers(Line& line, const std::function<std::optional<int>(int written)>& rewrite)
{
    const auto eq = line.text.find('=');
    if (eq == std::string::npos)
        return;
    // The numbers of the value only: a comment after it ("layers = -1, 8  # 2 inputs") stays as written.
    const std::size_t begin = eq + 1, end = std::min(line.text.find_first_of("#;", begin), line.text.size());
    const std::string value = line.text.substr(begin, end - begin);
    // Item by item between the commas, each read as Darknet reads it, once stripped: "- 2" is -2 and
    // "6 1" is 61 (a number found in the raw text took "- 2" for 2, an absolute layer).
    std::string rebuilt;
    for (std::size_t pos = 0;;) {
        const std::size_t comma = std::min(value.find(',', pos), value.size());
        std::string item = value.substr(pos, comma - pos);
        const std::size_t first = item.find_first_not_of(" \t\r"), last = item.find_last_not_of(" \t\r");
        if (first != std::string::npos)
            if (const auto written = parseInt(darknetStrip(item)))
                if (const auto updated = rewrite(*written); updated && *updated != *written)
                    item.replace(first, last + 1 - first, std::to_string(*updated));
        rebuilt += item;
        if (comma == value.size())
            break;
        rebuilt += ',';
        pos = comma + 1;
    }
    line.text.replace(begin, end - begin, rebuilt);
    line.value = darknetStrip(line.text.substr(eq + 1));
}

} // namespace nw::cfg
