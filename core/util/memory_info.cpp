#include "util/memory_info.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nw {

std::optional<std::int64_t> availableMemoryBytes()
{
    if (const char* limit = std::getenv("NETWRIGHT_MEMORY_LIMIT_MB"); limit && *limit)
        return std::int64_t(std::strtoll(limit, nullptr, 10)) * 1024 * 1024;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        std::istringstream fields(line);
        std::string key;
        std::int64_t kilobytes = 0;
        if (fields >> key >> kilobytes && key == "MemAvailable:")
            return kilobytes * 1024;
    }
    return std::nullopt;
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
    return "needs about " + bytesText(needBytes) + " (" + what + ") but this machine has " +
           bytesText(double(*available)) + " available: " + fix;
}

} // namespace nw
