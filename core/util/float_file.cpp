#include "util/float_file.h"

#include "util/atomic_file.h"
#include "util/file_check.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <unistd.h>

namespace nw {

std::optional<std::string> readFloatFile(const std::string& path, std::size_t expected,
                                         std::vector<float>& values)
{
    // (a folder gave "basic_filebuf::underflow error reading the file", naming no file)
    if (auto reason = unreadableFileReason(path, "a float32 tensor file (.f32)"))
        return reason;
    const std::size_t bytes = expected * sizeof(float);
    const auto wrongSize = [&](const std::string& held) {
        return path + ": holds " + held + " bytes but the network's input is " + std::to_string(expected) +
               " floats (" + std::to_string(bytes) + " bytes, CHW float32)";
    };
    // A file's size is known before reading (a 2 GB one was read whole first); a pipe or a device is
    // read up to one byte past the tensor, so /dev/zero ends in this message, not in memory filling up.
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error))
        if (const auto size = std::filesystem::file_size(path, error); !error && size != bytes)
            return wrongSize(std::to_string(size));
    // (a named pipe nobody writes to held the command for good, past Ctrl+C: it reads as empty now)
    const int fd = openWithoutWaiting(path);
    if (fd < 0)
        return path + ": cannot open: " + std::strerror(errno);
    values.resize(expected + 1);
    auto* into = reinterpret_cast<char*>(values.data());
    std::size_t got = 0;
    while (got < bytes + 1) {
        const ssize_t n = ::read(fd, into + got, bytes + 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const std::string reason = std::strerror(errno);
            ::close(fd);
            return path + ": read error: " + reason;
        }
        if (n == 0)
            break;
        got += std::size_t(n);
    }
    ::close(fd);
    values.resize(expected);
    if (got != bytes)
        return wrongSize(got > bytes ? "more than " + std::to_string(bytes) : std::to_string(got));
    return std::nullopt;
}

std::size_t countNonFinite(std::span<const float> values)
{
    return std::size_t(
        std::count_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }));
}

std::optional<std::string> nonFiniteWarning(const std::string& path, std::span<const float> values)
{
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]) && count++ == 0)
            first = i;
    if (count == 0)
        return std::nullopt;
    return path + ": " + std::to_string(count) + " of " + std::to_string(values.size()) +
           " values are not finite (NaN or infinity; the first is value " + std::to_string(first) +
           "): what the network computes from them means nothing";
}

std::optional<std::string> writeFloatFile(const std::string& path, std::span<const float> values)
{
    return writeFileAtomically(
        path, std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

} // namespace nw
