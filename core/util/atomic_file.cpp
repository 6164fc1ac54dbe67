#include "util/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace nw {

namespace {

// The user's file and a reason they can act on; the temporary name is ours, not theirs.
std::string cannotWrite(const std::string& path, int error)
{
    if (error == ENOENT) {
        const std::filesystem::path folder = std::filesystem::path(path).parent_path();
        return "cannot write " + path + ": the folder " + (folder.empty() ? "." : folder.string()) +
               " does not exist";
    }
    return "cannot write " + path + ": " + std::strerror(error);
}

} // namespace

std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view content)
{
    // A name of its own per process and call: two writers of one file never share a temporary.
    static std::atomic<unsigned> calls{0};
    const std::string temp =
        path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(calls.fetch_add(1));
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
        // Left by a killed process that had this pid (a container restarts with the same one): this
        // process numbers its own names, so the file is nobody's any more.
        ::unlink(temp.c_str());
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0)
        return cannotWrite(path, errno);
    std::size_t written = 0;
    while (written < content.size()) {
        const auto n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            ::unlink(temp.c_str());
            return cannotWrite(path, error);
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        ::unlink(temp.c_str());
        return cannotWrite(path, error);
    }
    ::close(fd);
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot replace " + path + ": " + reason;
    }
    return std::nullopt;
}

} // namespace nw
