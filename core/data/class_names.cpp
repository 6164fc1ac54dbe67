#include "data/class_names.h"

#include "cfg/document.h"
#include "util/file_check.h"

#include <filesystem>
#include <sstream>

namespace nw {

std::optional<std::vector<std::string>> loadNames(const std::string& path, std::string& error,
                                                  const char* what)
{
    if (auto reason = unreadableFileReason(path, what)) { // a folder opens as an empty stream
        error = *reason;
        return std::nullopt;
    }
    const auto text = readSmallTextFile(path, kSmallTextFileLimit, what, error);
    if (!text)
        return std::nullopt;
    if (auto problem = loneCrProblem(*text, path)) { // (it said "has 1 names" of five)
        error = *problem;
        return std::nullopt;
    }
    std::istringstream in(text->starts_with(kUtf8ByteOrderMark) ? text->substr(kUtf8ByteOrderMark.size())
                                                                : *text);
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        names.push_back(line);
    }
    while (!names.empty() && names.back().empty()) // an editor's trailing newlines
        names.pop_back();
    // What Darknet users hand over by habit: a .data file (one "name" per key=value line), an image.
    const auto keyOf = [](const std::string& line) {
        const auto equals = line.find('=');
        return equals == std::string::npos ? std::string() : cfg::darknetStrip(line.substr(0, equals));
    };
    std::string dataKey, namesValue;
    for (const std::string& line : names) {
        if (line.find('\0') != std::string::npos) {
            error = path + ": this is not a text file: a names file has one class name per line";
            return std::nullopt;
        }
        const std::string key = keyOf(line);
        if (cfg::isDataFileKey(key) && dataKey.empty())
            dataKey = key;
        if (key == "names")
            namesValue = cfg::darknetStrip(line.substr(line.find('=') + 1));
    }
    if (!dataKey.empty()) {
        error = path + ": this is a .data file (" + dataKey + "=), not " + std::string(what) +
                ": give the file of one class "
                "name per line" +
                (namesValue.empty() ? std::string() : " that its names= names (" + namesValue + ")");
        return std::nullopt;
    }
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i].empty()) {
            error = path + ":" + std::to_string(i + 1) +
                    ": a blank line among the class names: Darknet counts it as a class without a name, and "
                    "every class after it moves by one; remove the line";
            return std::nullopt;
        }
    return names;
}

namespace {

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
bool isUtf8(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        const std::size_t length = byte < 0x80           ? 1
                                   : (byte >> 5) == 0x6  ? 2
                                   : (byte >> 4) == 0xE  ? 3
                                   : (byte >> 3) == 0x1E ? 4
                                                         : 0;
        if (length == 0 || i + length > text.size())
            return false;
        char32_t code = length == 1 ? byte : byte & (0x7F >> length);
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next >> 6) != 0x2)
                return false;
            code = (code << 6) | (next & 0x3F);
        }
        const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
            return false;
        i += length;
    }
    return true;
}

} // namespace

std::optional<std::string> namesEncodingWarning(const std::vector<std::string>& names,
                                                const std::string& path)
{
    std::size_t first = names.size(), count = 0;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (!isUtf8(names[i]) && count++ == 0)
            first = i;
    if (count == 0)
        return std::nullopt;
    return path + ":" + std::to_string(first + 1) + ": " +
           (count == 1 ? std::string("this name is")
                       : std::to_string(count) + " names (the first here) are") +
           " not UTF-8 text (Latin-1, or another old encoding?): " + (count == 1 ? "its" : "their") +
           " letters show as \xEF\xBF\xBD in labels and JSON; save the file as UTF-8";
}

std::optional<std::string> namesBesideCfg(const std::string& cfgPath)
{
    const std::filesystem::path beside = std::filesystem::path(cfgPath).replace_extension(".names");
    if (std::error_code ec; std::filesystem::is_regular_file(beside, ec))
        return beside.string();
    return std::nullopt;
}

} // namespace nw
