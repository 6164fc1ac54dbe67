#include "image/mp4_index.h"

#include <cstdint>
#include <cstring>
#include <fstream>

namespace nw {

namespace {

std::uint64_t bigEndian(const unsigned char* bytes, int count)
{
    std::uint64_t value = 0;
    for (int i = 0; i < count; ++i)
        value = value << 8 | bytes[i];
    return value;
}

} // namespace

bool mp4LacksItsIndex(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return false;
    file.seekg(0, std::ios::end);
    const std::uint64_t size = std::uint64_t(file.tellg());
    std::uint64_t at = 0;
    // Real files have a handful of top-level boxes; a file of millions of tiny ones (crafted, or not an
    // MP4 at all) is not judged rather than walked for a minute.
    constexpr int kMostBoxes = 4096;
    for (int boxes = 0;; ++boxes) {
        const bool first = boxes == 0;
        if (boxes == kMostBoxes)
            return false;
        unsigned char header[16];
        if (at + 8 > size || !file.seekg(std::streamoff(at)) ||
            !file.read(reinterpret_cast<char*>(header), 8))
            return !first; // (an empty file, or one too short to be MP4, is some other problem)
        const char* type = reinterpret_cast<const char*>(header + 4);
        if (first && std::memcmp(type, "ftyp", 4) != 0)
            return false; // not MP4/QuickTime
        if (std::memcmp(type, "moov", 4) == 0)
            return false;
        std::uint64_t boxSize = bigEndian(header, 4);
        if (boxSize == 1) { // a 64-bit size follows the type
            if (!file.read(reinterpret_cast<char*>(header + 8), 8))
                return true;
            boxSize = bigEndian(header + 8, 8);
            if (boxSize < 16)
                return true; // damaged: a box smaller than its own header
        } else if (boxSize == 0) {
            return true; // this box runs to the end of the file: nothing follows it
        } else if (boxSize < 8) {
            return true;
        }
        if (boxSize > size - at)
            return true; // the last box is cut short
        at += boxSize;
    }
}

std::optional<std::string> mp4MissingIndexReason(const std::string& path)
{
    if (!mp4LacksItsIndex(path))
        return std::nullopt;
    return path + ": the MP4/MOV file has no index ('moov' box), which a camera or recorder writes last: the "
                  "recording was cut off or the copy is incomplete (copy it again; a cut-off recording "
                  "can be rebuilt with the tool 'untrunc' and a whole file from the same camera)";
}

} // namespace nw
