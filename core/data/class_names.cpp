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

std::optional<std::string> namesBesideCfg(const std::string& cfgPath)
{
    const std::filesystem::path beside = std::filesystem::path(cfgPath).replace_extension(".names");
    if (std::error_code ec; std::filesystem::is_regular_file(beside, ec))
        return beside.string();
    return std::nullopt;
}

} // namespace nw
