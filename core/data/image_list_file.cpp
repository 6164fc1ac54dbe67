#include "data/image_list_file.h"

#include "util/file_check.h"

#include <filesystem>
#include <fstream>
#include <string_view>

namespace nw {

bool isRegularFile(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

std::optional<std::string> binaryFileKind(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char head[4096];
    in.read(head, sizeof head);
    const std::string_view start(head, std::size_t(in.gcount()));
    if (start.find('\0') == std::string_view::npos) // no text file holds a NUL byte
        return std::nullopt;
    // IDX (MNIST's format) starts 00 00 08; gzip, as such sets usually come, 1f 8b.
    if (start.size() >= 4 && start[0] == 0 && start[1] == 0 && start[2] == 0x08)
        return "IDX images or labels (MNIST's format)";
    if (start.size() >= 2 && start[0] == '\x1f' && start[1] == '\x8b')
        return "a gzip-compressed file";
    return "a binary file";
}

ImageListFile readImageListFile(const std::string& list, bool checkImages)
{
    ImageListFile result;
    std::error_code ec;
    if (std::filesystem::is_directory(list, ec)) { // (it opens, and reads as an empty list)
        result.error = list + ": is a directory, not an image list (one image path per line: `ls " + list +
                       "/*.jpg > list.txt` makes one)";
        return result;
    }
    std::ifstream in(list);
    if (!in) {
        result.error = list + ": cannot open the image list (one image path per line)";
        return result;
    }
    if (const auto kind = binaryFileKind(list)) {
        result.binary = true;
        result.error = list + ": " + *kind + ", not an image list (one image path per line)";
        return result;
    }
    result.opened = true;
    const std::filesystem::path folder = std::filesystem::path(list).parent_path();
    std::string firstMissing; // "list:line: path does not exist" (or "is a directory, not an image")
    bool firstMissingRelative = false;
    std::size_t lineNumber = 0;
    for (std::string line; std::getline(in, line);) {
        if (++lineNumber == 1 && line.starts_with(kUtf8ByteOrderMark))
            line.erase(0, kUtf8ByteOrderMark.size());
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
                firstMissing = list + ":" + std::to_string(lineNumber) + ": " + line +
                               (std::filesystem::is_directory(path, ec) ||
                                        (relative && std::filesystem::is_directory(folder / path, ec))
                                    ? " is a directory, not an image"
                                    : " does not exist");
                firstMissingRelative = relative;
            }
            continue;
        }
        result.images.push_back({std::move(path), line, lineNumber});
    }
    if (result.missing > 0)
        result.missingText =
            firstMissing +
            (result.missing > 1 ? " (and " + std::to_string(result.missing - 1) + " more images of the list)"
                                : std::string()) +
            (firstMissingRelative ? "; relative paths are read from the list's folder or the working folder"
                                  : std::string());
    return result;
}

} // namespace nw
