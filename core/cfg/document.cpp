#include "cfg/document.h"

#include "util/atomic_file.h"
#include "util/file_check.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace nw::cfg {

std::string darknetStrip(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char ch : text)
        if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
            out += ch;
    return out;
}

namespace {

bool isSpace(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

std::string quoted(std::string_view text)
{
    constexpr std::size_t kMax = 60;
    std::string shown(text.substr(0, kMax));
    if (text.size() > kMax)
        shown += "...";
    return "'" + shown + "'";
}

// Classifies one raw line the way Darknet's read_cfg does, adding a diagnostic for syntax errors.
Line classify(std::string text, std::string eol, int number, const std::string& file,
              Diagnostics& diagnostics)
{
    Line line;
    line.text = std::move(text);
    line.eol = std::move(eol);
    line.number = number;
    const std::string stripped = darknetStrip(line.text);
    // Quoted as the user wrote it (Darknet reads it without any spaces: "this line" was 'thisline').
    const auto first = line.text.find_first_not_of(" \t\r"), last = line.text.find_last_not_of(" \t\r");
    const std::string asWritten =
        first == std::string::npos ? std::string() : line.text.substr(first, last - first + 1);
    auto error = [&](std::string message) {
        diagnostics.push_back({Severity::Error, file, number, -1, std::move(message)});
    };
    if (stripped.empty()) {
        line.kind = Line::Kind::Blank;
    } else if (stripped[0] == '#' || stripped[0] == ';') {
        line.kind = Line::Kind::Comment;
    } else if (stripped[0] == '[') {
        line.kind = Line::Kind::Header;
        const auto close = stripped.find(']');
        line.key = stripped.substr(1, close == std::string::npos ? std::string::npos : close - 1);
        if (close == std::string::npos)
            error("section header " + quoted(asWritten) + " has no closing ']'");
        else if (close + 1 != stripped.size())
            error("text after the section header " + quoted(asWritten) +
                  ": Darknet has no inline comments; put the comment on its own line starting with '#'");
        else if (line.key.empty())
            error("empty section header '[]': expected a layer type such as [convolutional]");
    } else {
        const auto eq = stripped.find('=');
        if (eq == std::string::npos) {
            line.kind = Line::Kind::Invalid;
            error("expected key=value, found " + quoted(asWritten) + " (no '=')");
        } else if (eq == 0) {
            line.kind = Line::Kind::Invalid;
            error("expected key=value, found " + quoted(asWritten) + " (no key before '=')");
        } else if (eq + 1 == stripped.size()) {
            line.kind = Line::Kind::Invalid;
            error("key '" + shortened(stripped.substr(0, eq)) + "' has no value after '='");
        } else {
            line.kind = Line::Kind::Entry;
            line.key = stripped.substr(0, eq);
            line.value = stripped.substr(eq + 1);
        }
    }
    return line;
}

// Where an entry's value is written: after '=' and its spaces, before a trailing comment and its spaces.
std::pair<std::size_t, std::size_t> writtenValueSpan(std::string_view text)
{
    auto begin = text.find('=') + 1;
    while (begin < text.size() && isSpace(text[begin]))
        ++begin;
    auto end = std::min(text.find_first_of("#;", begin), text.size());
    while (end > begin && isSpace(text[end - 1]))
        --end;
    return {begin, end};
}

} // namespace

std::string Line::writtenValue() const
{
    if (kind != Kind::Entry)
        return std::string();
    const auto [begin, end] = writtenValueSpan(text);
    return text.substr(begin, end - begin);
}

const Line* Section::find(std::string_view key) const
{
    for (const Line& line : lines)
        if (line.kind == Line::Kind::Entry && line.key == key)
            return &line;
    return nullptr;
}

std::vector<const Line*> Section::entries() const
{
    std::vector<const Line*> result;
    for (const Line& line : lines)
        if (line.kind == Line::Kind::Entry)
            result.push_back(&line);
    return result;
}

void Section::set(std::string_view key, std::string_view value, std::string_view eol, bool keepComment)
{
    for (Line& line : lines) {
        if (line.kind != Line::Kind::Entry || line.key != key)
            continue;
        // Replace only the value's characters so the line's own spacing survives the edit, and a comment
        // after the value ("filters=255  # 3*(80+5)"; Darknet's number parsing stops there) stays.
        const auto [begin, end] = writtenValueSpan(line.text);
        line.text.replace(begin, (keepComment ? end : line.text.size()) - begin, value);
        line.value = darknetStrip(std::string_view(line.text).substr(line.text.find('=') + 1));
        return;
    }
    std::size_t insertAt = 1;
    for (std::size_t i = 1; i < lines.size(); ++i)
        if (lines[i].kind == Line::Kind::Entry)
            insertAt = i + 1;
    Line added;
    added.kind = Line::Kind::Entry;
    added.key = std::string(key);
    added.value = darknetStrip(value);
    added.text = std::string(key) + "=" + std::string(value);
    added.eol = std::string(eol);
    if (!lines.empty() && lines[insertAt - 1].eol.empty()) {
        lines[insertAt - 1].eol = std::string(eol);
        added.eol.clear();
    }
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(insertAt), std::move(added));
}

bool Section::remove(std::string_view key)
{
    const auto before = lines.size();
    std::erase_if(lines, [&](const Line& line) { return line.kind == Line::Kind::Entry && line.key == key; });
    return lines.size() != before;
}

namespace {

// A cfg is text: a NUL byte, or control characters on more than 1 % of the first 64 KB, mean a binary
// file (weights, an image, a program) given by mistake. Returns the line of the first such byte.
std::optional<int> binaryLine(std::string_view text)
{
    const std::string_view head = text.substr(0, 65536);
    std::size_t controls = 0;
    int line = 1;
    std::optional<int> first;
    for (const char ch : head) {
        const auto byte = static_cast<unsigned char>(ch);
        if (byte == '\n')
            ++line;
        const bool control =
            byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t' && byte != '\f' && byte != '\v';
        if (control && !first)
            first = line;
        if (byte == 0)
            return line;
        controls += control;
    }
    if (controls * 100 > head.size())
        return first;
    return std::nullopt;
}

} // namespace

Document Document::parse(std::string_view text, std::string fileName)
{
    // A cfg saved as "Unicode" (Notepad's UTF-16): its text is there, in another encoding.
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
        return failedRead(fileName, 1,
                          "this cfg is UTF-16 text (Windows' \"Unicode\"): save it as UTF-8 (or ANSI), as "
                          "Darknet reads it");
    if (auto line = binaryLine(text)) {
        // A .cfg holding binary data is damaged or misnamed; another file was likely opened by mistake.
        std::string suffix = fileName.size() >= 4 ? fileName.substr(fileName.size() - 4) : std::string();
        for (char& c : suffix)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        const bool namedCfg = suffix == ".cfg";
        return failedRead(fileName, *line,
                          namedCfg
                              ? "this is not a text cfg (binary data on this line): the file is damaged, "
                                "or other data (weights, an image) was saved under a .cfg name"
                              : "this is not a text cfg (binary data on this line): did you mean to open a "
                                ".cfg file? Weights (.weights) and images are opened beside a cfg, not "
                                "as one");
    }
    Document doc;
    doc.fileName_ = std::move(fileName);
    int number = 0;
    std::size_t pos = 0;
    if (text.starts_with(kUtf8ByteOrderMark)) { // invisible in an editor, and Darknet fails on its line 1
        doc.byteOrderMark_ = true;
        pos = kUtf8ByteOrderMark.size();
        doc.diagnostics_.push_back(
            {Severity::Warning, doc.fileName_, 1, -1,
             "the file starts with a UTF-8 byte-order mark (BOM), read past here; Darknet "
             "would not read this line: save the file without a BOM for it"});
    }
    while (pos < text.size()) {
        ++number;
        const auto newline = text.find('\n', pos);
        std::string raw(
            text.substr(pos, newline == std::string_view::npos ? std::string_view::npos : newline - pos));
        std::string eol;
        if (newline != std::string_view::npos) {
            eol = "\n";
            if (!raw.empty() && raw.back() == '\r') {
                raw.pop_back();
                eol = "\r\n";
            }
        }
        pos = newline == std::string_view::npos ? text.size() : newline + 1;
        Line line = classify(std::move(raw), std::move(eol), number, doc.fileName_, doc.diagnostics_);
        if (line.kind == Line::Kind::Header) {
            Section section;
            section.type = line.key;
            section.lines.push_back(std::move(line));
            doc.sections_.push_back(std::move(section));
            // Millions of sections (a generated or damaged file) took gigabytes before any check.
            if (doc.sections_.size() > kMaxSections)
                return failedRead(doc.fileName_, number,
                                  "more than " + std::to_string(kMaxSections) +
                                      " sections: no network Darknet runs has so many (the largest have "
                                      "about 1,000 layers); is it the right file?");
        } else if (!doc.sections_.empty()) {
            doc.sections_.back().lines.push_back(std::move(line));
        } else {
            if (line.kind == Line::Kind::Entry)
                doc.diagnostics_.push_back({Severity::Error, doc.fileName_, number, -1,
                                            "'" + shortened(line.key + "=" + line.value) +
                                                "' is outside any section: start the file with [net]"});
            doc.preamble_.push_back(std::move(line));
        }
    }
    // A .data file where a cfg was expected (Darknet's `detector test DATA CFG …` order): one error that
    // says so, not one "outside any section" per line.
    if (doc.sections_.empty())
        for (const Line& line : doc.preamble_)
            if (line.kind == Line::Kind::Entry && isDataFileKey(line.key))
                return failedRead(
                    doc.fileName_, line.number,
                    "this is a .data file (" + line.key +
                        "=…), not a network cfg: give the .cfg here (Darknet's commands take the "
                        ".data first; see netwright-cli --help for each command's order)");
    // Not a cfg at all (an image list, a .names file given by mistake): one error, not one "expected
    // key=value" per line followed by an empty network.
    if (doc.sections_.empty() &&
        std::ranges::any_of(doc.preamble_,
                            [](const Line& line) { return line.kind == Line::Kind::Invalid; }) &&
        std::ranges::none_of(doc.preamble_,
                             [](const Line& line) { return line.kind == Line::Kind::Entry; })) {
        const auto first = std::ranges::find(doc.preamble_, Line::Kind::Invalid, &Line::kind);
        const std::string stripped = darknetStrip(first->text);
        const bool path = stripped.find('/') != std::string::npos || stripped.find('.') != std::string::npos;
        return failedRead(
            doc.fileName_, first->number,
            std::string("no section and no key=value line: this is no network cfg (") +
                (path ? "a list of files, such as train.txt?" : "a .names file, one class per line?") +
                "); a cfg starts with [net]");
    }
    return doc;
}

bool isDataFileKey(std::string_view key)
{
    return key == "classes" || key == "train" || key == "valid" || key == "names" || key == "backup";
}

Document Document::failedRead(const std::string& path, int line, std::string message)
{
    Document doc;
    doc.fileName_ = path;
    doc.readFailed_ = true;
    doc.diagnostics_.push_back({Severity::Error, path, line, -1, std::move(message)});
    return doc;
}

Document Document::load(const std::string& path)
{
    if (auto reason = unreadableFileReason(path, "a cfg file")) {
        // The reason starts with the path, which the diagnostic already names.
        const std::string prefix = path + ": ";
        return failedRead(path, 0, reason->starts_with(prefix) ? reason->substr(prefix.size()) : *reason);
    }
    std::string error;
    const auto text = readSmallTextFile(path, kSmallTextFileLimit, "a cfg file", error);
    if (!text) // (the message starts with the path, which the diagnostic already names)
        return failedRead(path, 0, error.substr(error.starts_with(path + ": ") ? path.size() + 2 : 0));
    return parse(*text, path);
}

std::string Document::toText() const
{
    std::string text(byteOrderMark_ ? kUtf8ByteOrderMark : std::string_view());
    auto append = [&](const std::vector<Line>& lines) {
        for (const Line& line : lines)
            text += line.text + line.eol;
    };
    append(preamble_);
    for (const Section& section : sections_)
        append(section.lines);
    return text;
}

std::optional<std::string> Document::save(const std::string& path) const
{
    return writeFileAtomically(path, toText());
}

std::string Document::preferredEol() const
{
    std::size_t crlf = 0;
    std::size_t lf = 0;
    auto count = [&](const std::vector<Line>& lines) {
        for (const Line& line : lines) {
            crlf += line.eol == "\r\n";
            lf += line.eol == "\n";
        }
    };
    count(preamble_);
    for (const Section& section : sections_)
        count(section.lines);
    return crlf > lf ? "\r\n" : "\n";
}

namespace {

// After structural edits every line but the very last needs a line ending.
void terminateLines(std::vector<Line>& preamble, std::vector<Section>& sections, const std::string& eol)
{
    std::vector<Line*> all;
    for (Line& line : preamble)
        all.push_back(&line);
    for (Section& section : sections)
        for (Line& line : section.lines)
            all.push_back(&line);
    for (std::size_t i = 0; i + 1 < all.size(); ++i)
        if (all[i]->eol.empty())
            all[i]->eol = eol;
}

} // namespace

Document Document::reread() const
{
    Document again = parse(toText(), fileName_);
    bool same = preamble_.size() == again.preamble_.size() && sections_.size() == again.sections_.size();
    for (std::size_t s = 0; same && s < sections_.size(); ++s)
        same = sections_[s].lines.size() == again.sections_[s].lines.size();
    if (!same) // (the text reads as other sections: nothing to carry over)
        return again;
    for (std::size_t s = 0; s < sections_.size(); ++s)
        for (std::size_t l = 0; l < sections_[s].lines.size(); ++l) {
            Line& line = again.sections_[s].lines[l];
            line.labelSeparator = sections_[s].lines[l].labelSeparator && line.kind == Line::Kind::Blank;
        }
    return again;
}

namespace {

// "#random=1", "; mosaic = 1": a key commented out, which belongs to the section it sits in.
bool commentsOutAKey(const Line& line)
{
    const std::string text = darknetStrip(line.text);
    const std::size_t key = text.find_first_not_of("#;"), eq = text.find('=');
    if (key == std::string::npos || eq == std::string::npos || eq == key)
        return false;
    return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(key),
                       text.begin() + static_cast<std::ptrdiff_t>(eq),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

} // namespace

std::vector<std::vector<Line>> Document::detachLabels()
{
    // labels[i] for section i, and labels[size] for the comments after the last section's own lines.
    std::vector<std::vector<Line>> labels(sections_.size() + 1);
    endedWithoutNewline_ =
        !sections_.empty() && !sections_.back().lines.empty() && sections_.back().lines.back().eol.empty();
    for (std::size_t s = 1; s <= sections_.size(); ++s) {
        std::vector<Line>& before = sections_[s - 1].lines;
        std::size_t end = before.size();
        while (end > 1 && before[end - 1].kind == Line::Kind::Blank)
            --end;
        std::size_t first = end;
        while (first > 1 && before[first - 1].kind == Line::Kind::Comment)
            --first;
        if (first == end)
            continue;
        const bool setApart = before[first - 1].kind == Line::Kind::Blank;
        // Not set apart: a label only right above the next header (a file without blank lines), and
        // only the comments after the last key commented out. (A comment under a section's entries with
        // a blank line after it, yolov4's "### End SPP ###", is that section's own.)
        const bool rightAbove = end == before.size();
        if (!setApart && s >= 2 && s < sections_.size())
            while (first < end &&
                   std::any_of(before.begin() + static_cast<std::ptrdiff_t>(first),
                               before.begin() + static_cast<std::ptrdiff_t>(end), commentsOutAKey))
                ++first;
        if (first == end)
            continue;
        const bool keys = std::any_of(before.begin() + static_cast<std::ptrdiff_t>(first),
                                      before.begin() + static_cast<std::ptrdiff_t>(end), commentsOutAKey);
        // A label: comments set apart from the section's own lines by a blank line, or right above the
        // next header in a file without blank lines when none of them is a key commented out ("#random=1"
        // under the entries stays with its section). [net]'s own comments (AlexeyAB's cfgs keep options
        // there, commented out) label the first layer only when set apart and no key. After the last
        // section, comments set apart are the file's end: they stay there whatever moves.
        const bool label = s == sections_.size() ? setApart && s >= 2
                           : s == 1              ? setApart && !keys
                                                 : setApart || (rightAbove && !keys);
        if (!label)
            continue;
        labels[s].assign(before.begin() + static_cast<std::ptrdiff_t>(first), before.end());
        // A blank line an earlier edit put there to set the label apart goes too, and comes back only
        // where needed: a layer moved and moved back gives back the very bytes. (Not any blank line an
        // edit added: a layer inserted before a label ends with one of its own, which stays.)
        const bool added = first >= 2 && before[first - 1].labelSeparator;
        before.erase(before.begin() + static_cast<std::ptrdiff_t>(first - (added ? 1 : 0)), before.end());
    }
    return labels;
}

void Document::attachLabels(std::vector<std::vector<Line>> labels, std::size_t formerLast)
{
    const auto setApart = [this](std::vector<Line>& lines) {
        if (!lines.empty() && lines.back().kind != Line::Kind::Blank)
            lines.push_back(Line{Line::Kind::Blank, "", preferredEol(), 0, "", "", true});
    };
    // The section that ended the file, now followed by another: a blank line sets it apart (a file's
    // last section seldom ends with one, and the next header was glued to it). The one that ends it now
    // loses such a line an edit gave it (a layer moved from the end and back gives back the bytes).
    // (only where the file sets its sections apart so, among the sections the edit did not end with: a
    // file without blank lines gets none)
    const bool blankLines = std::any_of(sections_.begin(), sections_.end(), [&](const Section& section) {
        return &section != &sections_[std::min(formerLast, sections_.size() - 1)] &&
               &section != &sections_.back() && section.lines.size() > 1 &&
               section.lines.back().kind == Line::Kind::Blank && !section.lines.back().labelSeparator;
    });
    if (formerLast + 1 < sections_.size() && blankLines)
        setApart(sections_[formerLast].lines);
    if (!sections_.empty())
        for (std::vector<Line>& last = sections_.back().lines;
             last.size() > 1 && last.back().kind == Line::Kind::Blank && last.back().labelSeparator;)
            last.pop_back();
    for (std::size_t s = 1; s < sections_.size() && s < labels.size(); ++s) {
        // (set apart where it would not read as a label without the blank line: a file written without
        // blank lines keeps its labels right under the section before)
        std::vector<Line>& before = sections_[s - 1].lines;
        if (!labels[s].empty() && (s == 1 || labels[s].back().kind == Line::Kind::Blank ||
                                   std::any_of(labels[s].begin(), labels[s].end(), commentsOutAKey)))
            setApart(before);
        before.insert(before.end(), labels[s].begin(), labels[s].end());
    }
    // The file's end stays the file's end.
    if (!sections_.empty() && labels.size() > sections_.size() && !labels[sections_.size()].empty()) {
        setApart(sections_.back().lines);
        sections_.back().lines.insert(sections_.back().lines.end(), labels[sections_.size()].begin(),
                                      labels[sections_.size()].end());
    }
    // (a label of a section now first has no section before it: it goes to the preamble's end)
    if (!labels.empty() && !labels[0].empty())
        preamble_.insert(preamble_.end(), labels[0].begin(), labels[0].end());
    terminateLines(preamble_, sections_, preferredEol());
    // A file that ended without a line ending still does (a last layer moved up and back left one): its
    // last line is no blank one (a blank line without an ending is no line when the text is read again).
    if (endedWithoutNewline_ && !sections_.empty()) {
        std::vector<Line>& last = sections_.back().lines;
        while (last.size() > 1 && last.back().kind == Line::Kind::Blank)
            last.pop_back();
        last.back().eol.clear();
    }
}

void Document::insertSection(std::size_t index, std::string_view type,
                             const std::vector<std::pair<std::string, std::string>>& entries)
{
    const std::string eol = preferredEol();
    Section section;
    section.type = std::string(type);
    Line header;
    header.kind = Line::Kind::Header;
    header.key = section.type;
    header.text = "[" + section.type + "]";
    header.eol = eol;
    section.lines.push_back(std::move(header));
    for (const auto& [key, value] : entries)
        section.set(key, value, eol);
    section.lines.push_back(Line{Line::Kind::Blank, "", eol, 0, "", ""});
    index = std::min(index, sections_.size());
    // Before the label of the section at `index`: the label stays right above its section.
    auto labels = detachLabels();
    const std::size_t last = sections_.size() - 1; // (there is always [net]: callers insert after it)
    sections_.insert(sections_.begin() + static_cast<std::ptrdiff_t>(index), std::move(section));
    labels.insert(labels.begin() + static_cast<std::ptrdiff_t>(index), std::vector<Line>{});
    attachLabels(std::move(labels), index <= last ? last + 1 : last);
}

void Document::removeSection(std::size_t index)
{
    if (index >= sections_.size())
        return;
    auto labels = detachLabels(); // the removed section's label goes with it
    const std::size_t last = sections_.size() - 1;
    sections_.erase(sections_.begin() + static_cast<std::ptrdiff_t>(index));
    labels.erase(labels.begin() + static_cast<std::ptrdiff_t>(index));
    attachLabels(std::move(labels), index < last ? last - 1 : sections_.size());
}

void Document::moveSection(std::size_t from, std::size_t to)
{
    if (from >= sections_.size() || to >= sections_.size() || from == to)
        return;
    auto labels = detachLabels(); // and moves with it
    const std::size_t last = sections_.size() - 1;
    const std::size_t formerLast = from == last ? to : to == last ? last - 1 : last;
    Section moving = std::move(sections_[from]);
    std::vector<Line> label = std::move(labels[from]);
    sections_.erase(sections_.begin() + static_cast<std::ptrdiff_t>(from));
    labels.erase(labels.begin() + static_cast<std::ptrdiff_t>(from));
    sections_.insert(sections_.begin() + static_cast<std::ptrdiff_t>(to), std::move(moving));
    labels.insert(labels.begin() + static_cast<std::ptrdiff_t>(to), std::move(label));
    attachLabels(std::move(labels), formerLast);
}

std::string valuesText(std::string_view text, const std::vector<std::string_view>& leftOutOfNet)
{
    const Document document = Document::parse(text);
    std::string values;
    for (std::size_t s = 0; s < document.sections().size(); ++s) {
        const Section& section = document.sections()[s];
        const bool net = s == 0 && (section.type == "net" || section.type == "network");
        values += "[" + section.type + "]\n";
        for (const Line* line : section.entries())
            if (!net || std::find(leftOutOfNet.begin(), leftOutOfNet.end(), line->key) == leftOutOfNet.end())
                values += line->key + "=" + line->value + "\n";
    }
    return values;
}

} // namespace nw::cfg
