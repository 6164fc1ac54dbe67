#include "train/metrics_log.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace nw {

std::optional<std::string> MetricsLog::append(const std::string& row)
{
    waiting_ += row;
    ++waitingRows_;
    std::error_code ec;
    const auto sizeBefore = std::filesystem::file_size(path_, ec);
    const bool sized = !ec;
    errno = 0;
    {
        std::ofstream out(path_, std::ios::app | std::ios::binary);
        out << waiting_;
        out.flush();
        if (out) {
            const int written = waitingRows_;
            waiting_.clear();
            waitingRows_ = 0;
            if (written > 1)
                return path_ + ": the " + std::to_string(written) + " rows that waited are written";
            return std::nullopt;
        }
    }
    const std::string reason = errno ? std::strerror(errno) : "write failed";
    // A partly written row would be followed by the whole of it next time: cut the file back.
    if (sized)
        std::filesystem::resize_file(path_, sizeBefore, ec);
    if (waitingRows_ == 1)
        return "warning: cannot write " + path_ + " (" + reason +
               "): its rows are kept and written as soon as there is room again";
    return std::nullopt;
}

} // namespace nw
