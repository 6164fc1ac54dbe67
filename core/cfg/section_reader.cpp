#include "cfg/section_reader.h"

#include "util/closest_name.h"
#include "util/file_check.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace nw::cfg {

std::optional<int> parseInt(std::string_view text)
{
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

std::optional<float> parseFloat(std::string_view text)
{
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    float value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

SectionReader::SectionReader(const Section& section, std::string file, int layer, Diagnostics& diagnostics)
    : section_(section), file_(std::move(file)), layer_(layer), diagnostics_(diagnostics)
{
}

const Line* SectionReader::entry(std::string_view key)
{
    used_.insert(std::string(key));
    return section_.find(key);
}

int SectionReader::lineOf(std::string_view key) const
{
    const Line* line = section_.find(key);
    return line ? line->number : section_.headerLine();
}

void SectionReader::error(std::string_view key, std::string message)
{
    diagnostics_.push_back({Severity::Error, file_, lineOf(key), layer_, std::move(message)});
}

bool SectionReader::requirePositive(std::initializer_list<std::pair<std::string_view, int>> values)
{
    bool all = true;
    for (const auto& [key, value] : values)
        if (value < 1) {
            error(key, std::string(key) + "=" + std::to_string(value) + ": must be at least 1");
            all = false;
        }
    return all;
}

void SectionReader::unreadableValue(std::string_view key, std::string message)
{
    unreadable_.emplace(key);
    error(key, std::move(message));
}

void SectionReader::warning(std::string_view key, std::string message)
{
    diagnostics_.push_back({Severity::Warning, file_, lineOf(key), layer_, std::move(message)});
}

void SectionReader::record(std::string_view key, KeyInfo::Kind kind, std::string fallback)
{
    if (!schema_)
        return;
    for (KeyInfo& known : *schema_)
        if (known.key == key) {
            if (known.kind == KeyInfo::Kind::Other)
                known = {std::string(key), kind, std::move(fallback)};
            return;
        }
    schema_->push_back({std::string(key), kind, std::move(fallback)});
}

namespace {

std::string numberText(float value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

} // namespace

int SectionReader::getInt(std::string_view key, int fallback)
{
    record(key, KeyInfo::Kind::Int, std::to_string(fallback));
    const Line* line = entry(key);
    if (!line)
        return fallback;
    if (auto value = parseInt(valueBeforeComment(line->value)))
        return *value;
    unreadableValue(key, "bad number for '" + std::string(key) + "': expected an integer, found '" +
                             shortened(line->value) + "'");
    return fallback;
}

bool SectionReader::getFlag(std::string_view key, bool fallback)
{
    record(key, KeyInfo::Kind::Flag, fallback ? "1" : "0");
    const Line* line = entry(key);
    if (!line)
        return fallback;
    if (auto value = parseInt(valueBeforeComment(line->value)))
        return *value != 0;
    unreadableValue(key, "bad value for '" + std::string(key) + "': expected 0 or 1, found '" +
                             shortened(line->value) + "'");
    return fallback;
}

float SectionReader::getFloat(std::string_view key, float fallback)
{
    record(key, KeyInfo::Kind::Float, numberText(fallback));
    const Line* line = entry(key);
    if (!line)
        return fallback;
    if (auto value = parseFloat(valueBeforeComment(line->value)))
        return *value;
    unreadableValue(key, "bad number for '" + std::string(key) + "': expected a number, found '" +
                             shortened(line->value) + "'");
    return fallback;
}

std::string SectionReader::getString(std::string_view key, std::string fallback)
{
    record(key, KeyInfo::Kind::Text, fallback);
    const Line* line = entry(key);
    return line ? line->value : std::move(fallback);
}

namespace {

template <typename T, typename Parse>
std::vector<T> parseList(SectionReader& reader, std::string_view key, const std::string& text, Parse parse,
                         const char* expected)
{
    std::vector<T> values;
    std::size_t pos = 0;
    while (true) {
        const auto comma = text.find(',', pos);
        const std::string item =
            text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (auto value = parse(item)) {
            values.push_back(*value);
        } else {
            reader.unreadableValue(key, "bad list for '" + std::string(key) + "': element " +
                                            std::to_string(values.size() + 1) + " is '" + shortened(item) +
                                            "', expected " + expected + " (write values as 1,2,3)");
            return {};
        }
        if (comma == std::string::npos)
            return values;
        pos = comma + 1;
    }
}

} // namespace

void SectionReader::warnCommaInComment(std::string_view key, const Line& line)
{
    const std::string_view value = line.value, kept = valueBeforeComment(value);
    if (kept.size() == value.size() || value.find(',', kept.size()) == std::string_view::npos)
        return;
    const auto count = [](std::string_view text) { return std::count(text.begin(), text.end(), ',') + 1; };
    warning(key, std::string(key) + "=" + shortened(line.value) +
                     ": the comment after the list holds a ','; " +
                     "Darknet reads no comment there and counts " + std::to_string(count(value)) +
                     " entries, Netwright " + std::to_string(count(kept)) +
                     ": put the comment on a line of its own");
}

std::vector<int> SectionReader::getIntList(std::string_view key)
{
    record(key, KeyInfo::Kind::IntList, "");
    const Line* line = entry(key);
    if (line)
        warnCommaInComment(key, *line);
    return line ? parseList<int>(*this, key, std::string(valueBeforeComment(line->value)), parseInt,
                                 "an integer")
                : std::vector<int>{};
}

std::vector<float> SectionReader::getFloatList(std::string_view key)
{
    record(key, KeyInfo::Kind::FloatList, "");
    const Line* line = entry(key);
    if (line)
        warnCommaInComment(key, *line);
    return line ? parseList<float>(*this, key, std::string(valueBeforeComment(line->value)), parseFloat,
                                   "a number")
                : std::vector<float>{};
}

void SectionReader::accept(std::initializer_list<std::string_view> keys)
{
    for (auto key : keys) {
        record(key, KeyInfo::Kind::Other, "");
        used_.insert(std::string(key));
    }
}

void SectionReader::warnUnimplemented(std::initializer_list<std::string_view> keys,
                                      std::string_view consequence)
{
    accept(keys);
    for (std::string_view key : keys)
        if (const std::string_view value = peek(key); has(key) && value != "0")
            warning(key, std::string(key) + "=" + std::string(value) + " (AlexeyAB's) is not implemented: " +
                             std::string(consequence) + " (pjreddie's Darknet ignores the key too)");
}

void SectionReader::reportUnused()
{
    // A key given twice: Darknet reads the first (filters=4 … filters=8 trains 4 filters), silently.
    std::map<std::string, int, std::less<>> firstLine;
    for (const Line* line : section_.entries())
        if (const auto [first, inserted] = firstLine.emplace(line->key, line->number); !inserted)
            diagnostics_.push_back({Severity::Warning, file_, line->number, layer_,
                                    "'" + shortened(line->key) + "' is given again (first on line " +
                                        std::to_string(first->second) +
                                        "): Darknet reads the first, so this line is ignored"});
    const std::vector<std::string> known(used_.begin(), used_.end()); // the keys this type reads
    for (const Line* line : section_.entries())
        if (!used_.contains(line->key)) {
            const std::string closest = closestName(line->key, known);
            diagnostics_.push_back({Severity::Warning, file_, line->number, layer_,
                                    "unused key '" + shortened(line->key + "=" + line->value) + "' in [" +
                                        section_.type + "]: Darknet ignores it " +
                                        (closest.empty() ? "(misspelt, or meant for another layer type?)"
                                                         : "(did you mean " + closest + "?)")});
        }
}

} // namespace nw::cfg
