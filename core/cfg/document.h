#pragma once
// cfg::Document: Darknet .cfg text as a lossless, editable list of sections.
//
// It keeps every byte it read (comments, blank lines, spacing, key order, unknown keys, line endings),
// so toText() of an unedited document equals the input, and an edit rewrites only the lines it touches.
// It knows text, not networks: which sections are layers and what keys mean is graph/'s job.
#include "cfg/diagnostic.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw::cfg {

// Darknet's strip(): removes every space, tab, CR and LF anywhere in the text, not only at the ends.
std::string darknetStrip(std::string_view text);
// A value without a comment written after it ("255#3*(80+5)" once stripped: Darknet's atoi/atof stop at
// the comment, so numbers read as "255" and edits keep the comment).
inline std::string_view valueBeforeComment(std::string_view value)
{
    return value.substr(0, value.find_first_of("#;"));
}
// Whether a (stripped) key is one of a .data file's (classes, train, valid, names, backup): what tells a
// .data file handed over where a cfg or a names file belongs.
bool isDataFileKey(std::string_view key);

struct Line {
    enum class Kind { Blank, Comment, Header, Entry, Invalid };
    Kind kind = Kind::Blank;
    std::string text;  // the raw line, without its line ending
    std::string eol;   // "\n", "\r\n" or "" (last line without a newline)
    int number = 0;    // 1-based line number in the text it was read from; 0 for lines added by edits
    std::string key;   // Entry: key as Darknet sees it (stripped)
    std::string value; // Entry: value as Darknet sees it (stripped)
    // Blank: added by an edit to set a moved label apart, so it goes again when the label moves on.
    bool labelSeparator = false;

    // Entry: the value with the spaces the user wrote inside it ("10,14,  23,27" where `value` has
    // "10,14,23,27"), without a trailing comment; what an editor shows and a paste keeps.
    std::string writtenValue() const;
};

struct Section {
    std::string type;        // header without brackets as written, stripped: "conv", "net", "yolo"
    std::vector<Line> lines; // lines[0] is the header; then entries, comments and blank lines

    int headerLine() const { return lines.empty() ? 0 : lines.front().number; }
    // The first entry with this key (Darknet: first one wins), or nullptr.
    const Line* find(std::string_view key) const;
    std::vector<const Line*> entries() const;
    // Changes the value of the first entry with this key, keeping the line's spacing; appends a new
    // "key=value" line after the last entry when the key is absent. A comment after the value stays
    // unless `keepComment` is false (Darknet reads "activation=leaky # x" as the name "leaky#x").
    void set(std::string_view key, std::string_view value, std::string_view eol = "\n",
             bool keepComment = true);
    // Removes every entry with this key; returns whether one existed.
    bool remove(std::string_view key);
};

class Document {
public:
    // Parses cfg text. Syntax problems (a key outside any section, a line without '=', an empty value,
    // text after a section header) are reported in diagnostics() with file:line; the text is kept.
    static Document parse(std::string_view text, std::string fileName = {});
    // More sections than this end the read with an error on the first one past it.
    static constexpr std::size_t kMaxSections = 100000;
    // Reads and parses a file; a read failure is an error diagnostic naming the file.
    static Document load(const std::string& path);
    // This document's text parsed again (the line numbers of the text Save writes, its syntax checked
    // as a reload would), still knowing which blank lines edits added to set a label apart
    // (Line::labelSeparator), so that a layer moved and moved back gives back the bytes.
    Document reread() const;

    std::string toText() const;
    // Writes atomically (temporary file, fsync, rename); returns an error message or nullopt.
    std::optional<std::string> save(const std::string& path) const;

    const std::string& fileName() const { return fileName_; }
    void setFileName(std::string name) { fileName_ = std::move(name); }
    const Diagnostics& diagnostics() const { return diagnostics_; }
    bool readFailed() const { return readFailed_; }

    // Lines before the first section (comments, blank lines, or stray entries reported as errors).
    const std::vector<Line>& preamble() const { return preamble_; }
    const std::vector<Section>& sections() const { return sections_; }
    Section& section(std::size_t index) { return sections_.at(index); }

    // The line ending new lines should use: the one most lines of the file already use.
    std::string preferredEol() const;
    // Inserts a new section "[type]" with the given entries before position `index` (at the end when
    // index == sections().size()), followed by a blank line.
    void insertSection(std::size_t index, std::string_view type,
                       const std::vector<std::pair<std::string, std::string>>& entries);
    void removeSection(std::size_t index);
    void moveSection(std::size_t from, std::size_t to);

private:
    // A comment block that labels a section ("# Downsample" above a layer) is written at the end of the
    // section before it; edits take each section's label off (labels[i] for section i, empty for the
    // first; labels[size] the comments after the last section's lines) and put it back in front of the
    // same section, so it moves and goes with that section, and the file's closing comments stay last.
    // `formerLast`: where the section that ended the file is now (size when it was removed).
    std::vector<std::vector<Line>> detachLabels();
    void attachLabels(std::vector<std::vector<Line>> labels, std::size_t formerLast);
    // A document that holds only one error (the file could not be read as a cfg).
    static Document failedRead(const std::string& path, int line, std::string message);
    std::string fileName_;
    std::vector<Line> preamble_;
    std::vector<Section> sections_;
    Diagnostics diagnostics_;
    bool readFailed_ = false;
    bool byteOrderMark_ = false; // the text began with a UTF-8 BOM (Notepad's habit): written back as read
    bool endedWithoutNewline_ = false; // (set by detachLabels for attachLabels: the last line had no ending)
};

// A cfg's sections and values as Darknet reads them, one "[type]" or "key=value" line each (comments,
// spacing and blank lines left out): two texts of one network compare equal. Keys of the first
// section named in `leftOutOfNet` are left out when it is [net] (a run's schedule, say).
std::string valuesText(std::string_view text, const std::vector<std::string_view>& leftOutOfNet = {});

} // namespace nw::cfg
