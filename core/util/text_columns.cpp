#include "util/text_columns.h"

namespace nw {

namespace {

// The next code point of UTF-8 `text` from `i` (advanced past it); -1 for a byte that starts none.
long nextCodePoint(std::string_view text, std::size_t& i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    const int length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
    if (length == 0 || i + std::size_t(length) > text.size()) {
        ++i;
        return -1;
    }
    long point = length == 1 ? lead : lead & (0x7F >> length);
    for (int k = 1; k < length; ++k) {
        if ((byte(i + std::size_t(k)) & 0xC0) != 0x80) {
            ++i;
            return -1;
        }
        point = (point << 6) | (byte(i + std::size_t(k)) & 0x3F);
    }
    i += std::size_t(length);
    return point;
}

// Unicode's East Asian Wide and Fullwidth blocks (Hangul, CJK, kana, fullwidth forms, emoji): two columns.
bool isWide(long c)
{
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
           (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
           (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
           (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD);
}

bool isCombining(long c)
{
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
           (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200B || c == 0x200D;
}

} // namespace

int terminalColumns(std::string_view text)
{
    int columns = 0;
    for (std::size_t i = 0; i < text.size();) {
        const long c = nextCodePoint(text, i);
        columns += c < 0 ? 1 : isCombining(c) ? 0 : isWide(c) ? 2 : 1;
    }
    return columns;
}

std::string paddedToColumns(const std::string& text, int columns)
{
    const int used = terminalColumns(text);
    return used >= columns ? text : text + std::string(std::size_t(columns - used), ' ');
}

std::string fittedToColumns(const std::string& text, int columns)
{
    if (terminalColumns(text) <= columns)
        return paddedToColumns(text, columns);
    std::string cut;
    int used = 0;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t start = i;
        const long c = nextCodePoint(text, i);
        const int width = c < 0 ? 1 : isCombining(c) ? 0 : isWide(c) ? 2 : 1;
        if (used + width > columns - 1) // (room for the ellipsis)
            break;
        cut.append(text, start, i - start);
        used += width;
    }
    return paddedToColumns(cut + "…", columns);
}

} // namespace nw
