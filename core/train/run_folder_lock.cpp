#include "train/run_folder_lock.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nw {

namespace {

std::string holderText(int fd)
{
    char text[512] = {};
    const auto n = ::pread(fd, text, sizeof text - 1, 0);
    std::string holder = n > 0 ? std::string(text, std::size_t(n)) : std::string();
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r'))
        holder.pop_back();
    return holder.empty() ? "another process" : holder;
}

} // namespace

RunFolderLock::RunFolderLock(const std::string& folder, const std::string& description, std::string& error)
    : folder_(folder), description_(description)
{
    take(error);
}

bool RunFolderLock::take(std::string& error)
{
    const std::string& folder = folder_;
    const std::string path = folder + "/.netwright-train.lock";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = "cannot create the lock file " + path + ": " + std::strerror(errno);
        return false;
    }
    // (a reader's look — folderInUse, `runs`, the studio's Compare — holds a shared lock for a moment:
    // tried again before the folder is called in use)
    bool taken = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    for (int retry = 0; !taken && errno == EWOULDBLOCK && retry < 5; ++retry) {
        ::usleep(20000);
        taken = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    }
    if (!taken) {
        if (errno != EWOULDBLOCK) { // not held by anyone: the file system cannot lock (some network mounts)
            error = "cannot lock " + path + ": " + std::strerror(errno) +
                    " (the folder's file system may not support locks): train into a local folder (--out)";
            ::close(fd);
            return false;
        }
        error = folder + " is in use by another training run (" + holderText(fd) +
                "): wait for it to finish or stop it, or train into another folder (--out)";
        ::close(fd);
        return false;
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    char since[64] = {};
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    ::localtime_r(&now, &local);
    std::strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S", &local);
    const std::string holder =
        "pid " + std::to_string(::getpid()) + " on " + host + ", " + description_ + ", since " + since + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, holder.data(), holder.size(), 0) < 0) {
        // The lock holds without the note; only the message a second run prints is poorer.
    }
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = fd;
    return true;
}

std::optional<std::string> RunFolderLock::keep(std::string& note)
{
    if (fd_ < 0)
        return std::nullopt;
    const std::string path = folder_ + "/.netwright-train.lock";
    struct stat held {
    }, named{};
    if (::fstat(fd_, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino)
        return std::nullopt; // (the file this run locked is still the folder's lock)
    std::error_code ec;
    const bool folderGone = !std::filesystem::is_directory(folder_, ec);
    if (folderGone)
        std::filesystem::create_directories(folder_, ec);
    std::string error;
    if (!take(error)) {
        if (!error.starts_with(folder_ + " is in use by another training run"))
            return folder_ +
                   " (or its lock file) was deleted during the run and cannot be made again: " + error;
        return folder_ + " (or its lock file) was deleted during the run, and " +
               error.substr(0, error.find(": wait for it")) +
               " now: this run stops without writing there (its files would mix with that run's)";
    }
    note = folderGone ? folder_ + " was deleted during the run: made again; the earlier checkpoints and "
                                  "metrics.csv rows went with it"
                      : folder_ + "'s lock file was deleted during the run: locked again";
    return std::nullopt;
}

RunFolderLock::~RunFolderLock()
{
    if (fd_ >= 0)
        ::close(fd_); // releases the flock; the file stays (removing it would race a new run)
}

bool folderInUse(const std::string& folder)
{
    const std::string path = folder + "/.netwright-train.lock";
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd); // (releases the shared lock this took, when it did)
    return held;
}

} // namespace nw
