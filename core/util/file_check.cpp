#include "util/file_check.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace nw {

std::optional<std::string> unreadableFileReason(const std::string& path, std::string_view what)
{
    if (path.empty())
        return "no file given (an empty path, where " + std::string(what) + " was expected)";
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        return path + ": cannot read it: " + ec.message() + " (expected " + std::string(what) + ")";
    if (ec || !std::filesystem::exists(status))
        return path + ": no such file (expected " + std::string(what) + ")";
    if (std::filesystem::is_directory(status))
        return path + ": is a directory, not " + std::string(what);
    return std::nullopt;
}

std::optional<std::string> outputIsAnInput(const std::string& out,
                                           std::initializer_list<std::string_view> inputs)
{
    for (const std::string_view input : inputs) {
        std::error_code ec;
        if (!input.empty() && std::filesystem::equivalent(out, input, ec) && !ec)
            return out + " is also the input " + std::string(input) +
                   ": writing it would replace that file; choose another output path";
    }
    return std::nullopt;
}

std::optional<std::string> readSmallTextFile(const std::string& path, std::size_t limit,
                                             std::string_view what, std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open it (" + std::string(what) + "): " + std::strerror(errno);
        return std::nullopt;
    }
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, std::size_t(in.gcount()));
        if (text.size() > limit) {
            error = path + ": more than " + std::to_string(limit >> 20) + " MB: too large for " +
                    std::string(what) + "; is it the right file?";
            return std::nullopt;
        }
    }
    if (in.bad()) {
        error = path + ": read error (" + std::string(what) + "): " + std::strerror(errno);
        return std::nullopt;
    }
    return text;
}

std::string shortened(std::string_view text, std::size_t limit)
{
    if (text.size() <= limit)
        return std::string(text);
    return std::string(text.substr(0, limit)) + "... (" + std::to_string(text.size() - limit) +
           " more characters)";
}

} // namespace nw
