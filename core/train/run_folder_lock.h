#pragma once
// One training run per output folder: two runs writing the same checkpoints and metrics.csv would
// corrupt each other. The lock is an flock on OUT/.netwright-train.lock, so the kernel releases it
// when its process ends (kill -9 included) and a stale lock file never blocks a later run.
#include <optional>
#include <string>

namespace nw {

class RunFolderLock {
public:
    // Takes the folder's lock; on failure `error` says who holds it (pid, host, cfg, since when) or why
    // the lock file cannot be made, and locked() is false.
    RunFolderLock(const std::string& folder, const std::string& description, std::string& error);
    ~RunFolderLock();
    RunFolderLock(const RunFolderLock&) = delete;
    RunFolderLock& operator=(const RunFolderLock&) = delete;

    bool locked() const { return fd_ >= 0; }

    // Whether the folder is still this run's: its lock file deleted, or the whole folder (an `rm -rf`
    // mid-run), let a second run take it and the two wrote into one another's files. Made again (and
    // locked) when it is gone; `note` then says so. An error when another run holds it now.
    std::optional<std::string> keep(std::string& note);

private:
    bool take(std::string& error);

    std::string folder_, description_;
    int fd_ = -1;
};

// Whether a run holds `folder`'s lock now (it is training there); false when none does or there is no
// lock file. It only looks: the lock is not taken.
bool folderInUse(const std::string& folder);

} // namespace nw
