#include "data/data_file.h"

#include "cfg/document.h"
#include "data/class_names.h"
#include "util/closest_name.h"
#include "util/file_check.h"
#include "util/relative_path.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

namespace nw {

std::string DataFile::get(const std::string& key, const std::string& fallback) const
{
    const auto found = values.find(key);
    return found == values.end() ? fallback : found->second;
}

int DataFile::classes() const
{
    try {
        return std::stoi(get("classes", "0"));
    } catch (...) {
        return 0;
    }
}

std::string DataFile::missingEntry(const std::string& key) const
{
    const auto line = lines.find(key);
    return line == lines.end() ? path + ": no " + key + "= entry"
                               : path + ":" + std::to_string(line->second) + ": " + key + "= is empty";
}

std::string DataFile::resolve(const std::string& relative) const
{
    return findRelativePath(relative, std::filesystem::path(path).parent_path()).value_or(relative);
}

std::string DataFile::outputFolder(const std::string& key, const std::string& fallback) const
{
    namespace fs = std::filesystem;
    const std::string value = get(key, fallback);
    if (value.empty() || fs::path(value).is_absolute())
        return value;
    std::error_code ec;
    const fs::path dataFolder = fs::path(path).parent_path();
    if (const fs::path beside = dataFolder / value; fs::is_directory(beside, ec))
        return beside.string();
    if (fs::is_directory(value, ec))
        return value;
    // An AlexeyAB project (darknet/data/obj.data with train=data/train.txt, run from darknet/): its
    // train= was found from a folder above the .data, and its backup= is read from there too once it
    // exists. Only that folder: another one above that holds a folder of that name is no project's.
    const std::string train = get("train");
    if (!train.empty() && !fs::path(train).is_absolute() && !fs::exists(dataFolder / train, ec) &&
        !fs::exists(train, ec)) {
        fs::path above = fs::absolute(dataFolder, ec).lexically_normal();
        if (!above.has_filename())
            above = above.parent_path();
        for (int level = 0; level < 3 && above.has_relative_path(); ++level) {
            above = above.parent_path();
            if (fs::exists(above / train, ec))
                return fs::is_directory(above / value, ec) ? (above / value).lexically_normal().string()
                                                           : value;
        }
    }
    return value;
}

std::optional<std::string> DataFile::workingFolderNote(const std::string& key) const
{
    namespace fs = std::filesystem;
    const std::string value = get(key);
    std::error_code ec;
    if (value.empty() || fs::path(value).is_absolute())
        return std::nullopt;
    const fs::path beside = fs::path(path).parent_path() / value;
    if (!fs::is_regular_file(beside, ec) || !fs::is_regular_file(value, ec) ||
        fs::equivalent(beside, value, ec) || ec)
        return std::nullopt;
    const auto line = lines.find(key);
    return path + (line == lines.end() ? std::string() : ":" + std::to_string(line->second)) + ": " + key +
           "=" + value + " is read beside the .data file (" + beside.lexically_normal().string() +
           "); the working folder holds another " + value +
           ", which Darknet would read: write the path of the "
           "one you mean from the .data file's folder, or absolute";
}

std::optional<std::string> DataFile::existingFile(const std::string& key, std::string& error) const
{
    const std::string value = get(key);
    const std::string resolved = resolve(value);
    std::error_code ec;
    // (a path the system refuses, too long say, goes on: the reader says why it cannot be read)
    if (!value.empty() && (std::filesystem::exists(resolved, ec) || ec))
        return resolved;
    const auto line = lines.find(key);
    const std::string where =
        path + (line == lines.end() ? std::string() : ":" + std::to_string(line->second));
    if (value.empty()) {
        error = missingEntry(key);
        return std::nullopt;
    }
    const std::filesystem::path relative(value);
    error = where + ": " + key + "=" + value + ": no such file";
    // (a quoted path read as a relative one: "beside the .data file (data/\"/home/…\")" said nothing)
    const bool quoted =
        value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front();
    if (quoted)
        error += ": the quotes are read as part of the path, as Darknet reads them: write it without quotes";
    else if (!relative.is_absolute()) {
        const std::string here = std::filesystem::current_path(ec).string();
        error +=
            ", neither beside the .data file (" +
            (std::filesystem::path(path).parent_path() / relative).lexically_normal().string() +
            "), in the working folder (" + (here.empty() ? value : here + "/" + value) +
            ") nor in the three folders above the .data file: write the path from one of them, or absolute";
    }
    if (value.starts_with("/usr/share/datasets/fashion-mnist/")) // (the bundled network's data)
        error += " (Debian's dataset-fashion-mnist package holds it: sudo apt install dataset-fashion-mnist)";
    if (value.find('\\') != std::string::npos) // (as image lists say it)
        error +=
            "; the path is written with '\\', Windows' separator: write '/' (Darknet on Linux reads '\\' "
            "as part of a name too)";
    const auto raw = written.find(key);
    if (raw != written.end() && raw->second != value)
        error += "; Darknet's .data format removes spaces, so \"" + raw->second + "\" reads as \"" + value +
                 "\": rename without spaces (or put a comment on a line of its own)";
    return std::nullopt;
}

std::optional<DataFile> loadDataFile(const std::string& path, std::string& error)
{
    if (auto reason = unreadableFileReason(path, "a .data file")) {
        error = *reason;
        return std::nullopt;
    }
    const auto text = readSmallTextFile(path, kSmallTextFileLimit, "a .data file", error);
    if (!text)
        return std::nullopt;
    if (const auto kind = binaryKindOf(*text)) {
        error = path + ": " + *kind + ", not a .data file (key=value lines: classes, train, valid, names)";
        return std::nullopt;
    }
    if (auto problem = loneCrProblem(*text, path)) { // (it said "no train= entry" of a file that has one)
        error = *problem;
        return std::nullopt;
    }
    std::istringstream in(text->starts_with(kUtf8ByteOrderMark) ? text->substr(kUtf8ByteOrderMark.size())
                                                                : *text);
    DataFile data;
    data.path = path;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        const std::string stripped = cfg::darknetStrip(line);
        if (stripped.empty() || stripped[0] == '#' || stripped[0] == ';')
            continue;
        if (stripped.front() == '[') { // Darknet's order is DATA CFG: the cfg came first
            error = path + ":" + std::to_string(number) + ": this is a network cfg (" +
                    shortened(stripped, 40) +
                    "), not a .data file: the .data file comes first (train DATA CFG, map DATA CFG WEIGHTS)";
            return std::nullopt;
        }
        const auto eq = stripped.find('=');
        if (eq == std::string::npos || eq == 0) {
            error = path + ":" + std::to_string(number) + ": expected key=value, found '" +
                    shortened(stripped) + "'";
            return std::nullopt;
        }
        const std::string key = stripped.substr(0, eq);
        if (data.values.emplace(key, stripped.substr(eq + 1)).second) { // the first one wins
            data.lines[key] = number;
            std::string_view raw = line;
            raw.remove_prefix(std::min(raw.size(), raw.find('=') + 1));
            while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front())))
                raw.remove_prefix(1);
            while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back())))
                raw.remove_suffix(1);
            data.written[key] = std::string(raw);
        }
    }
    if (data.classes() <= 0) {
        const auto line = data.lines.find("classes");
        // (a present value is quoted: classes=99999999999 is positive, but too large for Darknet's int)
        error = line == data.lines.end() ? path + ": classes= is missing or not a positive number"
                                         : path + ":" + std::to_string(line->second) +
                                               ": classes=" + shortened(data.get("classes")) +
                                               " is not a whole number from 1 to 2147483647";
        // A misspelt key is named with its line (clases=5 read as no classes at all).
        if (line == data.lines.end())
            for (const auto& [key, keyLine] : data.lines)
                if (closestName(key, {"classes"}) == "classes") {
                    error +=
                        " (line " + std::to_string(keyLine) + " says " + key + "=: did you mean classes?)";
                    break;
                }
        return std::nullopt;
    }
    return data;
}

std::unique_ptr<ClassificationDataset> openClassificationSet(const DataFile& data, const std::string& which,
                                                             const NetConfig& net, unsigned seed,
                                                             std::string& error,
                                                             std::vector<std::string>* warnings)
{
    const std::string images = data.get(which);
    if (images.empty()) {
        error = data.missingEntry(which);
        return nullptr;
    }
    const auto imagesPath = data.existingFile(which, error);
    if (!imagesPath)
        return nullptr;
    const std::string labels = data.get(which + "_labels");
    if (!labels.empty()) {
        const auto labelsPath = data.existingFile(which + "_labels", error);
        return labelsPath ? loadIdxDataset(*imagesPath, *labelsPath, data.classes(), error) : nullptr;
    }
    if (const auto kind = binaryFileKind(*imagesPath)) { // IDX images, their labels not named
        error = data.path + ": " + which + "=" + images + " is " + *kind + ": name its labels file with " +
                which + "_labels= (as cfg/fashion-mnist.data does), or give a list of image paths";
        return nullptr;
    }
    const std::string names = data.get("labels", data.get("names"));
    if (names.empty()) {
        error = data.path + ": " + which + "=" + images +
                " is an image list, which needs labels= (or names=): the class names its paths contain";
        return nullptr;
    }
    Augmentation augmentation;
    augmentation.enabled = which == "train";
    augmentation.minCrop = net.minCrop;
    augmentation.maxCrop = net.maxCrop;
    augmentation.aspect = net.aspect;
    augmentation.angle = net.angle;
    augmentation.hue = net.hue;
    augmentation.saturation = net.saturation;
    augmentation.exposure = net.exposure;
    augmentation.flip = net.flip;
    std::vector<std::string> ignored;
    const auto namesPath = data.existingFile(data.values.count("labels") ? "labels" : "names", error);
    if (!namesPath)
        return nullptr;
    // (a labels count that differs named no .data: which classes= it disagreed with, and where, was a guess)
    const auto line = data.lines.find("classes");
    const std::string classesFrom =
        data.path +
        (line != data.lines.end() ? " (line " + std::to_string(line->second) + ")" : std::string());
    return loadImageListDataset(*imagesPath, *namesPath, data.classes(), net.width, net.height, net.channels,
                                augmentation, seed, error, warnings ? *warnings : ignored, classesFrom);
}

std::optional<std::vector<std::string>> classNamesOf(const DataFile& data, bool detector, std::string& error,
                                                     std::string* path)
{
    const std::string key = !detector && !data.get("labels").empty() ? "labels" : "names";
    if (data.get(key).empty())
        return std::vector<std::string>();
    const auto file = data.existingFile(key, error);
    if (!file)
        return std::nullopt;
    if (path)
        *path = *file;
    return loadNames(*file, error, key == "labels" ? "a labels file" : "a names file");
}

} // namespace nw
