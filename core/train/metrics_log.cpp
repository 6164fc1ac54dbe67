#include "train/metrics_log.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace nw {

// The `column`th comma-separated cell of a metrics.csv row (empty past its end).
std::string metricsCell(const std::string& line, int column)
{
    std::istringstream row(line);
    std::string cell;
    for (int c = 0; c <= column; ++c)
        if (!std::getline(row, cell, ','))
            return {};
    return cell;
}

bool metricsReachCheckpoint(const std::string& path, const TrainState& state)
{
    std::ifstream in(path);
    if (!in || state.iteration <= 0 || !(state.averageLoss >= 0))
        return true;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
        if (std::atoi(line.c_str()) == state.iteration) {
            const double written = std::atof(metricsCell(line, 2).c_str()); // avg_loss
            return std::abs(written - state.averageLoss) <= 2e-5 * std::abs(state.averageLoss);
        }
    return false;
}

std::optional<std::string> MetricsLog::append(const std::string& row)
{
    waiting_ += row;
    ++waitingRows_;
    return write(false);
}

std::optional<std::string> MetricsLog::flush()
{
    return waitingRows_ > 0 ? write(true) : std::nullopt;
}

std::optional<std::string> MetricsLog::write(bool force)
{
    // While rows wait, each try writes them all: tried with the first few rows, then every 16th (and at
    // each checkpoint), so a long spell does not rewrite a growing buffer every iteration.
    if (!force && waitingRows_ > 4 && waitingRows_ % 16 != 0)
        return std::nullopt;
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
            if (!std::exchange(warned_, false))
                return std::nullopt;
            return path_ + ": the " +
                   (written == 1 ? std::string("row") : std::to_string(written) + " rows") + " that waited " +
                   (written == 1 ? "is" : "are") + " written";
        }
    }
    const std::string reason = errno ? std::strerror(errno) : "write failed";
    // A partly written row would be followed by the whole of it next time: cut the file back.
    if (sized)
        std::filesystem::resize_file(path_, sizeBefore, ec);
    if (std::exchange(warned_, true))
        return std::nullopt;
    return "warning: cannot write " + path_ + " (" + reason +
           "): its rows are kept and written as soon as there is room again";
}

} // namespace nw
