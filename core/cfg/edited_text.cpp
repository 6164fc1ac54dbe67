#include "cfg/edited_text.h"

#include <algorithm>

namespace nw::cfg {
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr std::string_view kShownCarriageReturn = "\xE2\x90\x8D"; // U+240D SYMBOL FOR CARRIAGE RETURN
constexpr std::string_view kParagraphSeparator = "\xE2\x80\xA9";  // U+2029
constexpr std::string_view kShownParagraph = "\xE2\x90\xA4";      // U+2424 SYMBOL FOR NEWLINE
constexpr std::string_view kQtFrameStart = "\xEF\xB7\x90";        // U+FDD0
constexpr std::string_view kQtFrameEnd = "\xEF\xB7\x91";          // U+FDD1
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";         // U+FFFD

struct FileLine {
    std::string_view text; // without its line end
    std::string_view eol;  // "\n", "\r\n" or "" (the last line)
};

std::vector<FileLine> fileLines(std::string_view text)
{
    std::vector<FileLine> lines;
    std::size_t pos = 0;
    while (true) {
        const std::size_t newline = text.find('\n', pos);
        if (newline == std::string_view::npos) {
            lines.push_back({text.substr(pos), {}});
            return lines;
        }
        std::string_view line = text.substr(pos, newline - pos);
        std::string_view eol = text.substr(newline, 1);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
            eol = text.substr(newline - 1, 2);
        }
        lines.push_back({line, eol});
        pos = newline + 1;
    }
}

void replaceAll(std::string& text, std::string_view from, std::string_view to)
{
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

std::string shownLine(std::string_view fileLine)
{
    std::string shown(fileLine);
    replaceAll(shown, "\r", kShownCarriageReturn);
    replaceAll(shown, kParagraphSeparator, kShownParagraph);
    replaceAll(shown, kQtFrameStart, kReplacement);
    replaceAll(shown, kQtFrameEnd, kReplacement);
    return shown;
}

std::string fileLine(std::string_view shown)
{
    std::string line(shown);
    replaceAll(line, kShownCarriageReturn, "\r");
    replaceAll(line, kShownParagraph, kParagraphSeparator);
    return line;
}

} // namespace

std::string editorText(std::string_view fileText)
{
    if (fileText.starts_with(kByteOrderMark))
        fileText.remove_prefix(kByteOrderMark.size());
    std::string shown;
    shown.reserve(fileText.size());
    for (const FileLine& line : fileLines(fileText)) {
        shown += shownLine(line.text);
        if (!line.eol.empty())
            shown += '\n';
    }
    return shown;
}

std::vector<std::string> editorLines(std::string_view text)
{
    std::vector<std::string> lines;
    std::size_t pos = 0;
    for (std::size_t newline = text.find('\n'); newline != std::string_view::npos;
         pos = newline + 1, newline = text.find('\n', pos))
        lines.emplace_back(text.substr(pos, newline - pos));
    lines.emplace_back(text.substr(pos));
    return lines;
}

std::string mergeEditedLines(std::string_view fileText, const std::vector<std::string>& before,
                             const std::vector<std::string>& after, std::string_view eol,
                             EditedLines* changed)
{
    const bool byteOrderMark = fileText.starts_with(kByteOrderMark);
    if (byteOrderMark)
        fileText.remove_prefix(kByteOrderMark.size());
    std::vector<FileLine> file = fileLines(fileText);
    // Lines the editor left as they were, at the start and at the end.
    std::size_t prefix = 0, suffix = 0;
    if (before.size() == file.size()) {
        const std::size_t common = std::min(before.size(), after.size());
        while (prefix < common && before[prefix] == after[prefix])
            ++prefix;
        while (suffix < common - prefix &&
               before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
            ++suffix;
    } else {
        file.clear(); // (no line can be matched to its bytes: every line is written anew)
    }
    if (changed)
        *changed = {int(prefix) + 1, int(after.size() - suffix)};

    // Each line with its own line end; the last line has none, every other one has one.
    std::vector<std::pair<std::string, std::string_view>> lines;
    lines.reserve(after.size());
    for (std::size_t i = 0; i < prefix; ++i)
        lines.emplace_back(std::string(file[i].text), file[i].eol);
    for (std::size_t i = prefix; i < after.size() - suffix; ++i)
        lines.emplace_back(fileLine(after[i]), eol);
    for (std::size_t i = file.size() - suffix; i < file.size(); ++i)
        lines.emplace_back(std::string(file[i].text), file[i].eol);

    std::string text = byteOrderMark ? std::string(kByteOrderMark) : std::string();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        text += lines[i].first;
        if (i + 1 < lines.size())
            text += lines[i].second.empty() ? eol : lines[i].second;
    }
    return text;
}

} // namespace nw::cfg
