#pragma once
// A cfg edited as text in a plain-text editor (the studio's Source view) goes back into the file's bytes
// line by line: the lines the editor did not change keep their bytes (CRLF or LF, a byte-order mark,
// bytes that are not UTF-8), so Save still writes only what changed.
//
// An editor shows the text with '\n' between lines; the characters inside a line that Darknet reads as
// part of it but a Qt text widget would start a new line at are shown otherwise and written back: a
// lone CR as U+240D '␍', U+2029 (paragraph separator) as U+2424 '␤'; U+FDD0/U+FDD1, which Qt keeps for
// itself, as U+FFFD. Lines the editor did not change keep their bytes whatever they hold.
#include <string>
#include <string_view>
#include <vector>

namespace nw::cfg {

// The text as an editor shows it: no byte-order mark, '\n' line ends, the characters above replaced.
std::string editorText(std::string_view fileText);
// Splits editor text at '\n' (a final '\n' gives a last empty line, as an editor shows it).
std::vector<std::string> editorLines(std::string_view text);

struct EditedLines {
    int first = 0; // 1-based number of the first changed line in the edited text
    int last = 0;  // its last changed line (first − 1 when lines were only deleted)
};

// `fileText` with the editor's lines `before` (as shown for it) replaced by `after`: lines equal at the
// start and at the end keep their file bytes, the lines between are written with `eol`. When `before`
// does not have the file's line count (an editor that split a line differently), the whole text is
// `after` joined with `eol`. `changed` (optional) receives the changed line range.
std::string mergeEditedLines(std::string_view fileText, const std::vector<std::string>& before,
                             const std::vector<std::string>& after, std::string_view eol,
                             EditedLines* changed = nullptr);

} // namespace nw::cfg
