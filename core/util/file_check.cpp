#include "util/file_check.h"

#include <filesystem>

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

std::string shortened(std::string_view text, std::size_t limit)
{
    if (text.size() <= limit)
        return std::string(text);
    return std::string(text.substr(0, limit)) + "... (" + std::to_string(text.size() - limit) +
           " more characters)";
}

} // namespace nw
