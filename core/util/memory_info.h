#pragma once
// How much memory the machine can still give, so a network too large for it is refused with a
// message before allocating (instead of swapping for minutes or dying in bad_alloc).
#include <cstdint>
#include <optional>
#include <string>

namespace nw {

// MemAvailable from /proc/meminfo (free memory plus what the kernel can reclaim), in bytes; nullopt
// where it cannot be read. NETWRIGHT_MEMORY_LIMIT_MB, when set to a whole number of MiB (1 to 2^30),
// takes its place (tests, containers); any other value is no limit.
std::optional<std::int64_t> availableMemoryBytes();

// "NETWRIGHT_MEMORY_LIMIT_MB='8G' is not a whole number of MiB …: no limit applies", when the variable is
// set to something it cannot mean (the programs warn at start: a limit that silently does not hold
// would be trusted).
std::optional<std::string> memoryLimitProblem();

// The most this process image has held resident (VmHWM), in bytes; nullopt where it cannot be read.
// Not getrusage's ru_maxrss, which survives fork and exec: a program started by a large one (the studio,
// a test suite) reported its parent's size as its own.
std::optional<std::int64_t> peakResidentBytes();

// "812.3 MB", "12.3 GB".
std::string bytesText(double bytes);

// nullopt when `needBytes` fits in the available memory; otherwise "... needs about 12.3 GB (what) but
// this machine has 8.1 GB available: <fix>" (or "but NETWRIGHT_MEMORY_LIMIT_MB=10 allows 10.5 MB (10 MiB):
// <fix>").
std::optional<std::string> memoryShortfall(double needBytes, const std::string& what, const std::string& fix);

} // namespace nw
