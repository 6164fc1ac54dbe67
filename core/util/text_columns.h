#pragma once
// Padding UTF-8 text to terminal columns: printf's %-16s counts bytes, so "Stern ä" (8 bytes, 7
// columns) and "四角形" (9 bytes, 6 columns) put the next column out of line with ASCII names.
#include <string>
#include <string_view>

namespace nw {

// The columns `text` takes on a terminal: one per character, two for East Asian wide ones, none for
// combining marks; a byte that is not UTF-8 counts one.
int terminalColumns(std::string_view text);
// `text` followed by spaces up to `columns` (as printf's %-Ns, by columns instead of bytes).
std::string paddedToColumns(const std::string& text, int columns);
// `text` in exactly `columns` columns: padded, or cut at a character with "…" as its last column.
std::string fittedToColumns(const std::string& text, int columns);

} // namespace nw
