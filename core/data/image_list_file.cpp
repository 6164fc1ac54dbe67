#include "data/image_list_file.h"

#include "util/file_check.h"
#include "util/relative_path.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

namespace nw {

bool isRegularFile(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

namespace {

// Whether a text file's first non-blank character is a digit (a YOLO label line: "0 0.5 0.5 0.2 0.2").
bool startsWithANumber(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char c = 0;
    while (in.get(c) && std::isspace(static_cast<unsigned char>(c)))
        ;
    return in && std::isdigit(static_cast<unsigned char>(c));
}

} // namespace

bool looksLikeYoloLabels(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(in.gcount()));
    std::istringstream lines(head);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string classId, coordinate;
        if (!(words >> classId))
            continue; // (a blank line)
        char* end = nullptr;
        return (words >> coordinate) &&
               std::all_of(classId.begin(), classId.end(),
                           [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }) &&
               (std::strtof(coordinate.c_str(), &end), end != coordinate.c_str());
    }
    return true; // empty: the labels of an image without objects
}

ImageListFile readImageListFile(const std::string& list, bool checkImages, bool describeMissing)
{
    ImageListFile result;
    if (auto reason = unreadableFileReason(list, "an image list (one image path per line)")) {
        result.error = *reason; // (a directory opens, and reads as an empty list)
        return result;
    }
    // (a named pipe nobody wrote to held the command past Ctrl+C: it reads as empty now; one with a
    // writer, <(find …), is read as a file)
    constexpr std::size_t kListLimit = std::size_t(1) << 30; // tens of millions of paths
    const auto text =
        readSmallTextFile(list, kListLimit, "an image list (one image path per line)", result.error);
    if (!text)
        return result;
    // (the first 4 KB tell a binary file: an IDX set given as a list)
    if (const auto kind = binaryKindOf(*text)) {
        result.binaryKind = *kind;
        result.error = list + ": " + *kind + ", not an image list (one image path per line)";
        return result;
    }
    // (read as one path, every image run together: "…/000018.jpg does not exist" on a terminal, which
    // the CRs overwrote)
    if (auto problem = loneCrProblem(*text, list)) {
        result.error = *problem;
        return result;
    }
    std::istringstream lines(*text);
    std::error_code ec;
    result.opened = true;
    const std::filesystem::path folder = std::filesystem::path(list).parent_path();
    std::string firstMissing; // "list:line: path does not exist" (or "is a directory, not an image")
    bool firstMissingRelative = false;
    std::size_t windowsPaths = 0; // missing lines written with '\\'
    std::size_t lineNumber = 0;
    std::size_t clashes = 0; // relative paths naming a file beside the list and another in the working folder
    std::string firstClash;
    for (std::string line; std::getline(lines, line);) {
        if (++lineNumber == 1 && line.starts_with(kUtf8ByteOrderMark))
            line.erase(0, kUtf8ByteOrderMark.size());
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (line.empty())
            continue;
        std::string path = line;
        const bool relative = std::filesystem::path(path).is_relative();
        if (relative)
            if (auto found = findRelativePath(path, folder))
                path = *found;
        // Beside the list first, where Darknet reads the working folder's: both there, and not one file.
        if (relative && path != line && std::filesystem::exists(line, ec) &&
            !std::filesystem::equivalent(path, line, ec) && !ec && clashes++ == 0)
            firstClash = list + ":" + std::to_string(lineNumber) + ": " + line +
                         " is read beside the list (" +
                         std::filesystem::path(path).lexically_normal().string() +
                         "); the working folder holds another " + line + ", which Darknet would read";
        // A list, a .data or a cfg named as an image (its label file is itself: its lines were read as
        // "54 bad label lines"). A label file (its first line a class number) is left to the loaders,
        // which say a whole list of them is one.
        const std::string extension = lowerExtension(path);
        const bool textFile =
            (extension == ".txt" || extension == ".list" || extension == ".data" || extension == ".cfg") &&
            isRegularFile(path) && !startsWithANumber(path);
        if (checkImages && (textFile || !isRegularFile(path))) {
            windowsPaths += line.find('\\') != std::string::npos;
            // (why each one, only when asked: a training list from another machine has 100k of them)
            if (result.missing++ == 0 || describeMissing) {
                const std::string why =
                    list + ":" + std::to_string(lineNumber) + ": " + line +
                    (textFile ? " is a text file (" + extension +
                                    "), not an image: a list names images, one per line"
                     : std::filesystem::is_directory(path, ec) ||
                             (relative && std::filesystem::is_directory(folder / path, ec))
                         ? " is a directory, not an image"
                     // (a named pipe or a device: it exists, and "does not exist" misled)
                     : std::filesystem::exists(path, ec)
                         ? " is not a regular file (a named pipe or a device), "
                           "not an image"
                         : " does not exist");
                if (result.missing == 1) {
                    firstMissing = why;
                    firstMissingRelative = relative && !textFile;
                }
                if (describeMissing)
                    result.missingImages.emplace_back(line, why);
            }
            continue;
        }
        result.images.push_back({std::move(path), line, lineNumber});
    }
    if (clashes > 0)
        result.workingFolderNote =
            firstClash +
            (clashes > 1 ? " (and " + std::to_string(clashes - 1) + " more paths of the list)"
                         : std::string()) +
            ": write the paths from the list's folder, or absolute";
    if (result.missing > 0)
        result.missingText =
            firstMissing +
            (result.missing == 2  ? std::string(" (and 1 more listed path that is no image file)")
             : result.missing > 2 ? " (and " + std::to_string(result.missing - 1) +
                                        " more listed paths that are no image files)"
                                  : std::string()) +
            (firstMissingRelative
                 ? "; relative paths are read from the list's folder, the working folder or the "
                   "three folders above the list"
                 : std::string()) +
            (windowsPaths > 0
                 ? "; " + std::to_string(windowsPaths) +
                       " of the missing paths are written with '\\', Windows' separator: write '/' "
                       "(Darknet on Linux reads '\\' as part of a name too)"
                 : std::string());
    return result;
}

} // namespace nw
