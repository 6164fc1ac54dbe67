#include "data/image_list_file.h"

#include <filesystem>
#include <fstream>

namespace nw {

bool isRegularFile(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

ImageListFile readImageListFile(const std::string& list, bool checkImages)
{
    ImageListFile result;
    std::ifstream in(list);
    if (!in)
        return result;
    result.opened = true;
    const std::filesystem::path folder = std::filesystem::path(list).parent_path();
    std::string firstMissing;
    bool firstMissingRelative = false;
    std::size_t lineNumber = 0;
    for (std::string line; std::getline(in, line);) {
        ++lineNumber;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (line.empty())
            continue;
        std::string path = line;
        const bool relative = std::filesystem::path(path).is_relative();
        if (relative && isRegularFile((folder / path).string()))
            path = (folder / path).string();
        if (checkImages && !isRegularFile(path)) {
            if (result.missing++ == 0) {
                firstMissing = list + ":" + std::to_string(lineNumber) + ": " + line;
                firstMissingRelative = relative;
            }
            continue;
        }
        result.images.push_back({std::move(path), line, lineNumber});
    }
    if (result.missing > 0)
        result.missingText =
            firstMissing + " does not exist" +
            (result.missing > 1 ? " (and " + std::to_string(result.missing - 1) + " more images of the list)"
                                : std::string()) +
            (firstMissingRelative ? "; relative paths are read from the list's folder or the working folder"
                                  : std::string());
    return result;
}

} // namespace nw
