#include "util/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace nw {

namespace {

// The user's file and a reason they can act on; the temporary name is ours, not theirs.
// `path` as the user named it; `file`, when another, the file it names (through a link).
std::string cannotWrite(const std::string& path, int error, const std::string& file = {})
{
    const std::filesystem::path folder = std::filesystem::path(file.empty() ? path : file).parent_path();
    std::error_code ec;
    if (error == ENOENT && !std::filesystem::exists(folder.empty() ? "." : folder, ec))
        return "cannot write " + path + ": the folder " + (folder.empty() ? "." : folder.string()) +
               " does not exist";
    return "cannot write " + path + ": " + std::strerror(error);
}

// Writes all of `content` to `fd`, again after a signal interrupted it; the errno of a failure, else 0.
int writeAll(int fd, std::string_view content)
{
    for (std::size_t written = 0; written < content.size();) {
        const auto n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        written += static_cast<std::size_t>(n);
    }
    return 0;
}

// The descriptor a name stands for: /dev/stdout (1), /dev/stderr (2), /dev/fd/N, /proc/self/fd/N. Such a
// name is written through the descriptor the program already holds: resolved, /dev/stdout is the file
// the shell redirected it to, and a rename replaced that file (`>> all.cfg` lost what it held).
std::optional<int> descriptorNamed(std::string_view path)
{
    if (path == "/dev/stdout")
        return 1;
    if (path == "/dev/stderr")
        return 2;
    for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"})
        if (path.starts_with(prefix) && path.size() > prefix.size() &&
            path.find_first_not_of("0123456789", prefix.size()) == std::string_view::npos)
            return std::atoi(std::string(path.substr(prefix.size())).c_str());
    return std::nullopt;
}

} // namespace

bool isStandardOutput(const std::string& path)
{
    if (const auto fd = descriptorNamed(path))
        return *fd == 1;
    struct stat out {
    }, target{};
    return ::fstat(1, &out) == 0 && ::stat(path.c_str(), &target) == 0 && out.st_dev == target.st_dev &&
           out.st_ino == target.st_ino;
}

namespace {

// A device or a pipe (/dev/null, a FIFO, or a link to one): written into, never replaced nor removed
// — a rename over it put a regular file in place of the device node (as root: /dev/full). A disk
// (a block device) or a socket is refused.
std::optional<std::string> writeIntoSpecialFile(const std::string& userPath, const std::string& path,
                                                const struct stat& target, std::string_view content)
{
    if (S_ISDIR(target.st_mode))
        return "cannot write " + userPath + ": it is a folder; name a file in it";
    if (S_ISBLK(target.st_mode))
        return "cannot write " + userPath + ": it is a disk device; name a file";
    if (S_ISSOCK(target.st_mode))
        return "cannot write " + userPath + ": it is a socket; name a file";
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC); // (no reader: ENXIO, no wait)
    if (fd < 0)
        return errno == ENXIO ? "cannot write " + userPath + ": it is a pipe that no program is reading"
                              : cannotWrite(userPath, errno);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const int error = writeAll(fd, content);
    ::close(fd);
    return error ? std::optional(cannotWrite(userPath, error)) : std::nullopt;
}

// What writes a file other than by replacing it: a descriptor's name, a device or a pipe. nullopt when
// `path` is an ordinary file (or none yet) to write as usual; else the outcome.
std::optional<std::optional<std::string>>
writeUnlessOrdinary(const std::string& userPath, const std::string& path, std::string_view content)
{
    if (const auto fd = descriptorNamed(userPath)) {
        const int error = writeAll(*fd, content);
        return error ? std::optional(cannotWrite(userPath, error)) : std::nullopt;
    }
    if (struct stat target{}; ::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode))
        return writeIntoSpecialFile(userPath, path, target, content);
    return std::nullopt;
}

// The file a path names through its links. A dangling link names the file it points to, to be made
// there as a shell's `>` makes it (the link used to be replaced by a file, and the target never made).
std::string linkTarget(const std::string& userPath)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const fs::path resolved = fs::canonical(userPath, ec); !ec)
        return resolved.string();
    fs::path path = userPath;
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(path, ec)); ++hops) {
        const fs::path next = fs::read_symlink(path, ec);
        if (ec)
            break;
        path = next.is_absolute() ? next : path.parent_path() / next;
    }
    return path.string();
}

} // namespace

std::optional<std::string> writeFileAtomically(const std::string& userPath, std::string_view content,
                                               bool durable)
{
    // A link is written through: the rename replaces its target, not the link (which would become a
    // copy while the file it named stayed as it was).
    const std::string path = linkTarget(userPath);
    if (auto outcome = writeUnlessOrdinary(userPath, path, content))
        return *outcome;
    // An existing file keeps its permissions and group (a private 0600 cfg stayed private only until
    // its first save); a read-only one is refused, as an editor would, instead of replaced.
    struct stat existing {};
    const bool exists = ::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode);
    if (exists && ::access(path.c_str(), W_OK) != 0)
        return "cannot write " + userPath + ": it is read-only (" + std::strerror(errno) +
               "); save it under another name, or make it writable first";
    // Marked read-only for everyone (chmod a-w): refused to root too, who may write anything — a file
    // someone protected is not replaced without their mark being lifted (containers often run as root).
    if (exists && (existing.st_mode & 0222) == 0)
        return "cannot write " + userPath +
               ": it is marked read-only (no one has write permission); save it under another name, or "
               "make it writable first (chmod u+w)";
    // A name of its own per process and call: two writers of one file never share a temporary.
    static std::atomic<unsigned> calls{0};
    const std::string temp =
        path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(calls.fetch_add(1));
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); // less the umask
    if (fd < 0 && errno == EEXIST) {
        // Left by a killed process that had this pid (a container restarts with the same one): this
        // process numbers its own names, so the file is nobody's any more.
        ::unlink(temp.c_str());
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0) { // (through a link, where it points: "No such file or directory" was about the target)
        const int reason = errno;
        std::error_code ec;
        const bool link = std::filesystem::is_symlink(std::filesystem::symlink_status(userPath, ec));
        return link ? cannotWrite(userPath + " (a link to " + path + ")", reason, path)
                    : cannotWrite(userPath, reason);
    }
    if (exists) {
        // The owner too where allowed (root); else the group, when it is one of the writer's.
        [[maybe_unused]] const bool kept = ::fchown(fd, existing.st_uid, existing.st_gid) == 0 ||
                                           ::fchown(fd, static_cast<uid_t>(-1), existing.st_gid) == 0;
        ::fchmod(fd, existing.st_mode & 07777);
    }
    int error = writeAll(fd, content);
    if (!error && durable && ::fsync(fd) != 0)
        error = errno;
    if (error) {
        ::close(fd);
        ::unlink(temp.c_str());
        return cannotWrite(userPath, error);
    }
    ::close(fd);
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot replace " + userPath + ": " + reason;
    }
    // The rename itself survives a power cut only once the folder is on disk too.
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!durable)
        return std::nullopt;
    if (const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return std::nullopt;
}

int removeLeftTemporaries(const std::string& path)
{
    const std::filesystem::path target(path);
    const std::string prefix = target.filename().string() + ".tmp-";
    std::error_code ec;
    int removed = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(target.parent_path().empty() ? "." : target.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        // name.tmp-PID-N, as writeFileAtomically makes them
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string tail = name.substr(prefix.size());
        const auto dash = tail.find('-');
        const auto digits = [](std::string_view s) {
            return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
        };
        if (dash == std::string::npos || !digits(std::string_view(tail).substr(0, dash)) ||
            !digits(std::string_view(tail).substr(dash + 1)))
            continue;
        std::error_code removeError;
        removed += std::filesystem::remove(entry.path(), removeError) ? 1 : 0;
    }
    return removed;
}

std::optional<std::string> writeFileInPlace(const std::string& path, std::string_view content)
{
    if (auto outcome = writeUnlessOrdinary(path, path, content))
        return *outcome;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file)
        return "cannot write " + path + ": " + std::strerror(errno);
    const bool whole =
        std::fwrite(content.data(), 1, content.size(), file) == content.size() && std::fflush(file) == 0;
    int reason = errno;
    const bool closed = std::fclose(file) == 0;
    if (whole && !closed)
        reason = errno;
    if (whole && closed)
        return std::nullopt;
    std::remove(path.c_str()); // (read after the reason: remove may change errno)
    return "cannot write " + path + ": " + std::strerror(reason);
}

} // namespace nw
