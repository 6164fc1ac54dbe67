#include "runtime/weights_file.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

namespace nw {

std::string parseWeightsHeader(const std::vector<char>& bytes, WeightsHeader& header)
{
    if (bytes.size() < 16)
        return "the file has " + std::to_string(bytes.size()) +
               " bytes, fewer than a .weights header (16 or 20 bytes): not a Darknet weights file";
    // Netwright's own checkpoint (core/train/checkpoint.cpp: "NWSTATE" and a version digit), given where
    // weights go: it holds weights and the solver's state, and read as weights it looked like a larger net.
    if (std::string(bytes.begin(), bytes.begin() + 7) == "NWSTATE")
        return "this is a training checkpoint (.state: weights and the solver's state, read by --resume), "
               "not "
               "a .weights file: give the .weights file beside it (<cfg>_last.weights is the same "
               "iteration's), "
               "or train --resume with this folder as --out to continue the run";
    // An image or a video given where the weights go (`detect CFG IMAGE` without the weights): named as
    // such ("the header's version -503326465.2017846786.26217" said nothing of it).
    static const std::pair<std::string_view, std::string_view> kMedia[] = {
        {"\xFF\xD8\xFF", "a JPEG image"},
        {"\x89PNG", "a PNG image"},
        {"GIF8", "a GIF image"},
        {"BM", "a BMP image"},
        {"RIFF", "a RIFF file (AVI video or WebP image)"},
        {"\x1A\x45\xDF\xA3", "a Matroska/WebM video"}};
    for (const auto& [magic, what] : kMedia)
        if (std::string_view(bytes.data(), magic.size()) == magic)
            return "this is " + std::string(what) +
                   ", not a Darknet .weights file: give a .weights file in its place (detect CFG WEIGHTS "
                   "IMAGE..., train DATA CFG [WEIGHTS])";
    if (std::string_view(bytes.data() + 4, 4) == "ftyp")
        return "this is an MP4/MOV video, not a Darknet .weights file: give a .weights file in its place "
               "(detect CFG WEIGHTS VIDEO..., train DATA CFG [WEIGHTS])";
    // A real header's version numbers are small, so it holds zero bytes; 16 bytes without one are text
    // (a cfg, a names file, a list: UTF-8 or with a BOM too) given in the weights' place.
    if (std::none_of(bytes.begin(), bytes.begin() + 16, [](char c) { return c == '\0'; })) {
        std::string start(bytes.begin(), bytes.begin() + 16);
        std::replace_if(
            start.begin(), start.end(), [](char c) { return c < 0x20; }, ' ');
        return "this is a text file (it starts with \"" + start +
               "\"), not a Darknet .weights file: a cfg given in the weights' place?";
    }
    std::memcpy(&header.major, bytes.data(), 4);
    std::memcpy(&header.minor, bytes.data() + 4, 4);
    std::memcpy(&header.revision, bytes.data() + 8, 4);
    if (header.major < 0 || header.minor < 0 || header.revision < 0)
        return "the header's version " + std::to_string(header.major) + "." + std::to_string(header.minor) +
               "." + std::to_string(header.revision) + " is not a Darknet weights version";
    if (header.wideSeen()) {
        if (bytes.size() < 20)
            return "the file ends inside its 20-byte header";
        std::memcpy(&header.seen, bytes.data() + 12, 8);
    } else {
        std::int32_t seen = 0;
        std::memcpy(&seen, bytes.data() + 12, 4);
        header.seen = static_cast<std::uint64_t>(static_cast<std::uint32_t>(seen));
    }
    return {};
}

std::vector<char> encodeWeightsHeader(const WeightsHeader& header)
{
    std::vector<char> bytes(header.bytes());
    std::memcpy(bytes.data(), &header.major, 4);
    std::memcpy(bytes.data() + 4, &header.minor, 4);
    std::memcpy(bytes.data() + 8, &header.revision, 4);
    if (header.wideSeen()) {
        std::memcpy(bytes.data() + 12, &header.seen, 8);
    } else {
        const auto seen = static_cast<std::int32_t>(header.seen);
        std::memcpy(bytes.data() + 12, &seen, 4);
    }
    return bytes;
}

} // namespace nw
