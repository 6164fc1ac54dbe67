#include "util/memory_info.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace nw {

namespace {

// NETWRIGHT_MEMORY_LIMIT_MB as bytes: a whole number of MiB from 1 to 2^30 ("8G", "abc" or a count past
// the range is no limit, rather than 8 MiB, 0 or an overflow that blames the machine).
std::optional<std::int64_t> limitFromEnvironment()
{
    const char* text = std::getenv("NETWRIGHT_MEMORY_LIMIT_MB");
    if (!text || !*text)
        return std::nullopt;
    const std::string_view value(text);
    std::int64_t mib = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), mib);
    if (error != std::errc() || end != value.data() + value.size() || mib < 1 ||
        mib > (std::int64_t(1) << 30))
        return std::nullopt;
    return mib * 1024 * 1024;
}

} // namespace

std::optional<std::string> memoryLimitProblem()
{
    const char* text = std::getenv("NETWRIGHT_MEMORY_LIMIT_MB");
    if (!text || !*text || limitFromEnvironment())
        return std::nullopt;
    return "NETWRIGHT_MEMORY_LIMIT_MB='" + std::string(text) +
           "' is not a whole number of MiB from 1 to 1073741824 (write 8192 for 8 GiB): no limit applies";
}

namespace {

// A "Key:  1234 kB" line of a /proc file, in bytes.
std::optional<std::int64_t> procKilobytes(const char* file, const std::string& wanted)
{
    std::ifstream proc(file);
    for (std::string line; std::getline(proc, line);) {
        std::istringstream fields(line);
        std::string key;
        std::int64_t kilobytes = 0;
        if (fields >> key >> kilobytes && key == wanted)
            return kilobytes * 1024;
    }
    return std::nullopt;
}

} // namespace

std::optional<std::int64_t> availableMemoryBytes()
{
    if (const auto limit = limitFromEnvironment())
        return limit;
    return procKilobytes("/proc/meminfo", "MemAvailable:");
}

std::optional<std::int64_t> peakResidentBytes()
{
    return procKilobytes("/proc/self/status", "VmHWM:");
}

std::string bytesText(double bytes)
{
    char text[32];
    if (bytes < 1e9)
        std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    else
        std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    return text;
}

std::optional<std::string> memoryShortfall(double needBytes, const std::string& what, const std::string& fix)
{
    const auto available = availableMemoryBytes();
    if (!available || needBytes <= double(*available))
        return std::nullopt;
    const char* limit = limitFromEnvironment() ? std::getenv("NETWRIGHT_MEMORY_LIMIT_MB") : nullptr;
    return "needs about " + bytesText(needBytes) + " (" + what + ") but " +
           (limit ? "NETWRIGHT_MEMORY_LIMIT_MB=" + std::string(limit) + " allows " +
                        bytesText(double(*available)) + " (" + limit + " MiB)"
                  : "this machine has " + bytesText(double(*available)) + " available") +
           ": " + fix;
}

} // namespace nw
