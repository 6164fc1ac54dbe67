#pragma once
// SectionReader: typed, checked reads of one section's keys, with Darknet's defaults and its rules
// (first duplicate wins), that remembers which keys were read so the rest can be reported as unused.
#include "cfg/diagnostic.h"
#include "cfg/document.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nw::cfg {

// A key a section type reads, as its parser asked for it: the editor's schema (typed editors,
// defaults) comes from running a parser on an empty section with a recorder attached.
struct KeyInfo {
    enum class Kind { Int, Float, Flag, Text, IntList, FloatList, Other };
    std::string key;
    Kind kind = Kind::Other;
    std::string fallback; // the default as cfg text ("" when the key has none)
};

class SectionReader {
public:
    SectionReader(const Section& section, std::string file, int layer, Diagnostics& diagnostics);

    bool has(std::string_view key) const { return section_.find(key) != nullptr; }
    // The value as written (Darknet-stripped), empty when absent; reads nothing (no schema, not "used").
    std::string_view peek(std::string_view key) const
    {
        const Line* line = section_.find(key);
        return line ? std::string_view(line->value) : std::string_view();
    }
    // Keys of AlexeyAB's that change what a layer computes or stores and that Netwright does not
    // implement: each one set (present and not 0) is a warning on its line: "… is not implemented: " and
    // `consequence`.
    void warnUnimplemented(std::initializer_list<std::string_view> keys, std::string_view consequence);
    int getInt(std::string_view key, int fallback);
    float getFloat(std::string_view key, float fallback);
    // A 0/1 switch (any non-zero integer is on, as in Darknet).
    bool getFlag(std::string_view key, bool fallback);
    std::string getString(std::string_view key, std::string fallback);
    // Comma-separated lists; empty when the key is absent.
    std::vector<int> getIntList(std::string_view key);
    std::vector<float> getFloatList(std::string_view key);
    // Marks keys as known without reading them (keys every layer accepts, keys used elsewhere).
    void accept(std::initializer_list<std::string_view> keys);

    // The line of the key's entry, or the header's line when the key is absent.
    int lineOf(std::string_view key) const;
    int headerLine() const { return section_.headerLine(); }
    // `specific` when the section writes it, else `general` (stride_x, or stride that stands for both):
    // the key an error about the value names.
    std::string_view writtenKey(std::string_view specific, std::string_view general) const
    {
        return lineOf(specific) != headerLine() ? specific : general;
    }
    void error(std::string_view key, std::string message);
    // Each (key, value) below 1 is an error on that key's line ("stride must be at least 1"); one
    // message for several said the first key's line only. False when any was.
    bool requirePositive(std::initializer_list<std::pair<std::string_view, int>> values);
    // An error for a value that is not of its kind ("filters=abc"): the layer's shape is then made from
    // the default in its place, which says nothing (hasUnreadableValue tells so).
    void unreadableValue(std::string_view key, std::string message);
    bool hasUnreadableValue() const { return !unreadable_.empty(); }
    bool unreadable(std::string_view key) const { return unreadable_.contains(key); }
    void warning(std::string_view key, std::string message);
    // One warning per entry that was never read, like Darknet's "Unused field", and per key given again
    // (Darknet reads the first).
    void reportUnused();

    const std::string& file() const { return file_; }
    // Every key read from now on is appended (once) to `schema`.
    void recordKeys(std::vector<KeyInfo>* schema) { schema_ = schema; }
    int layer() const { return layer_; }

private:
    const Line* entry(std::string_view key);
    // A comment after a list that holds a comma ("layers=-1 # not -2, 0"): Darknet reads comments only
    // on lines of their own, so it counts another entry (layer 0 here); a warning says so.
    void warnCommaInComment(std::string_view key, const Line& line);
    void record(std::string_view key, KeyInfo::Kind kind, std::string fallback);

    const Section& section_;
    std::string file_;
    int layer_;
    Diagnostics& diagnostics_;
    std::set<std::string, std::less<>> used_;
    std::vector<KeyInfo>* schema_ = nullptr;
    std::set<std::string, std::less<>> unreadable_; // keys whose values are not of their kind
};

// Strict number parsing (the whole text must be the number); nullopt when it is not one.
std::optional<int> parseInt(std::string_view text);
std::optional<float> parseFloat(std::string_view text);

} // namespace nw::cfg
