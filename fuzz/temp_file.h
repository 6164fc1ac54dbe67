#pragma once
// One scratch file per harness process (/tmp/netwright-fuzz-<name>-<pid><suffix>), rewritten for every
// input and removed when the process exits normally (libFuzzer returns from main after
// -max_total_time / -runs, so static destructors run). A crash (abort, sanitizer report) skips the
// destructors and leaves its file: the next harness of that name removes files whose process is gone.
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace nw_fuzz {

class TempFile {
public:
    TempFile(const char* name, const char* suffix = "")
        : path_("/tmp/netwright-fuzz-" + std::string(name) + "-" + std::to_string(::getpid()) + suffix)
    {
        removeLeftovers("netwright-fuzz-" + std::string(name) + "-", suffix);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() { std::remove(path_.c_str()); }

    const std::string& path() const { return path_; }
    // Replaces the file's contents with these bytes; aborts when /tmp cannot be written (a harness
    // that silently tests nothing is worse than one that stops).
    void write(const std::uint8_t* data, std::size_t size) const
    {
        std::FILE* file = std::fopen(path_.c_str(), "wb");
        if (!file || (size > 0 && std::fwrite(data, 1, size, file) != size) || std::fclose(file) != 0) {
            std::fprintf(stderr, "fuzz: cannot write %s\n", path_.c_str());
            std::abort();
        }
    }

private:
    // Removes /tmp/<prefix><pid><suffix> files whose process no longer exists.
    static void removeLeftovers(const std::string& prefix, const std::string& suffix)
    {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
            const std::string file = entry.path().filename().string();
            if (file.size() <= prefix.size() + suffix.size() || file.compare(0, prefix.size(), prefix) != 0 ||
                file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
                continue;
            const std::string pid = file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
            if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9)
                continue;
            if (::kill(pid_t(std::stol(pid)), 0) != 0 && errno == ESRCH)
                std::filesystem::remove(entry.path(), ec);
        }
    }

    std::string path_;
};

} // namespace nw_fuzz
