#include "train/run_history.h"

#include "train/previous_run.h"
#include "train/run_folder_lock.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <string_view>
#include <tuple>

namespace nw {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kLongestRow = 4096; // a row is under 200 bytes; longer lines are not rows

// A row as the trainer writes it: iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50.
bool parseRow(std::string_view line, MetricsRow& row)
{
    std::string_view cells[8];
    std::size_t count = 0;
    while (count < 8) {
        const std::size_t comma = line.find(',');
        cells[count++] = line.substr(0, comma);
        if (comma == std::string_view::npos)
            break;
        line.remove_prefix(comma + 1);
    }
    if (count < 6)
        return false;
    const auto whole = [](std::string_view cell, auto& value) {
        const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
        return error == std::errc() && end == cell.data() + cell.size();
    };
    const auto finite = [&](std::string_view cell, double& value) {
        return whole(cell, value) && std::isfinite(value);
    };
    if (!whole(cells[0], row.iteration) || row.iteration < 1 || !finite(cells[1], row.loss) ||
        !finite(cells[2], row.averageLoss) || !finite(cells[3], row.learningRate) ||
        !finite(cells[4], row.imagesPerSecond) || !finite(cells[5], row.elapsedSeconds))
        return false;
    double value = 0;
    if (count > 6 && finite(cells[6], value))
        row.validTop1 = value;
    if (count > 7 && finite(cells[7], value))
        row.map50 = value;
    return true;
}

// Calls `each` for every row of a regular file, one line at a time; false (with `problem`) when the
// file cannot be read.
bool forEachRow(const std::string& path, const std::function<void(const MetricsRow&)>& each,
                std::string* problem)
{
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::is_regular_file(status)) {
        if (problem)
            *problem = fs::exists(status) ? path + " is not a regular file (a pipe, a device or a folder)"
                                          : path + ": no such file";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (problem)
            *problem = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    std::string line;
    char buffer[kLongestRow + 1];
    while (in.getline(buffer, sizeof buffer) || in.gcount() > 0) {
        const bool ended = !in.eof() && !in.fail(); // (a line without its newline: cut off)
        if (in.fail() && !in.eof()) {               // longer than any row: the rest of the line is skipped
            in.clear();
            in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
            continue;
        }
        if (!ended)
            break;
        std::string_view text(buffer, std::strlen(buffer));
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        if (MetricsRow row; parseRow(text, row))
            each(row);
    }
    return true;
}

} // namespace

std::optional<std::pair<std::string, int>> setAsideStamp(const std::string& name)
{
    static const std::regex pattern(R"(^previous-(\d{8}-\d{6})(?:-(\d+))?$)");
    std::smatch match;
    if (!std::regex_match(name, match, pattern))
        return std::nullopt;
    return std::pair{match[1].str(), match[2].matched ? std::atoi(match[2].str().c_str()) : 1};
}

std::vector<MetricsRow> readMetrics(const std::string& path, std::string* problem)
{
    std::vector<MetricsRow> rows;
    forEachRow(
        path, [&](const MetricsRow& row) { rows.push_back(row); }, problem);
    return rows;
}

std::optional<RunSummary> summarizeRun(const std::string& folder, const std::string& metricsPath,
                                       std::string* problem)
{
    RunSummary run;
    run.folder = folder;
    run.metricsPath = metricsPath;
    std::optional<MetricsRow> latest;
    std::optional<double> bestTop1, bestMap;
    int bestTop1At = 0, bestMapAt = 0;
    const bool read = forEachRow(
        metricsPath,
        [&](const MetricsRow& row) {
            if (!latest || row.iteration >= latest->iteration)
                latest = row;
            if (row.validTop1 && (!bestTop1 || *row.validTop1 > *bestTop1)) {
                bestTop1 = row.validTop1;
                bestTop1At = row.iteration;
            }
            if (row.map50 && (!bestMap || *row.map50 > *bestMap)) {
                bestMap = row.map50;
                bestMapAt = row.iteration;
            }
        },
        problem);
    if (!read || !latest)
        return std::nullopt;
    run.iterations = latest->iteration;
    run.averageLoss = latest->averageLoss;
    run.elapsedSeconds = latest->elapsedSeconds;
    run.bestIsMap = bestMap.has_value(); // a detector's figure when there is one
    run.best = run.bestIsMap ? bestMap : bestTop1;
    run.bestIteration = run.bestIsMap ? bestMapAt : bestTop1At;
    // The networks whose files it holds; finished when a _final.weights is as new as the checkpoint.
    std::set<std::string> networks;
    std::error_code ec;
    // (increment(ec), not ++: a folder that fails mid-listing throws from ++, out of a Qt slot)
    for (fs::directory_iterator entry(folder, ec), end; !ec && entry != end; entry.increment(ec))
        for (const std::string_view suffix : {"_last.state", "_final.weights", "_last.weights"})
            if (const std::string file = entry->path().filename().string();
                file.size() > suffix.size() && file.ends_with(suffix))
                networks.insert(file.substr(0, file.size() - suffix.size()));
    // (a run that died before its first checkpoint was taken for another cfg's curve set aside)
    const bool checkpointed = !networks.empty();
    if (!checkpointed)
        for (fs::directory_iterator entry(folder, ec), end; !ec && entry != end; entry.increment(ec))
            if (const std::string file = entry->path().filename().string();
                file.size() > std::string_view("_trained.cfg").size() && file.ends_with("_trained.cfg"))
                networks.insert(file.substr(0, file.size() - std::string_view("_trained.cfg").size()));
    run.withoutCheckpoint = !checkpointed && !networks.empty();
    run.networks.assign(networks.begin(), networks.end());
    for (const std::string& network : run.networks)
        run.finished = run.finished || runFinished(folder, network);
    run.training = folderInUse(folder);
    return run;
}

std::vector<RunSummary> runsIn(const std::string& folder, std::vector<std::string>* problems)
{
    std::vector<RunSummary> runs;
    const auto note = [&](const std::string& problem) {
        if (problems && !problem.empty())
            problems->push_back(problem);
    };
    std::error_code ec;
    const fs::path own = fs::path(folder) / "metrics.csv";
    std::string problem;
    if (auto run = summarizeRun(folder, own.string(), &problem)) {
        run->name = ".";
        runs.push_back(std::move(*run));
    } else if (fs::exists(own, ec)) { // (no file: no run of its own, nothing to say)
        note(problem);
    }
    using Key = std::tuple<bool, std::string, int, fs::file_time_type>; // named by time, time, -N, mtime
    std::vector<std::pair<Key, RunSummary>> earlier;
    fs::directory_iterator entry(folder, ec);
    if (ec)
        note("cannot list " + folder + ": " + ec.message());
    for (const fs::directory_iterator end; !ec && entry != end; entry.increment(ec)) {
        const std::string name = entry->path().filename().string();
        std::error_code notDir;
        if (!name.starts_with("previous-") || !entry->is_directory(notDir))
            continue;
        const fs::path metrics = entry->path() / "metrics.csv";
        problem.clear();
        auto run = summarizeRun(entry->path().string(), metrics.string(), &problem);
        if (!run) {
            std::error_code missing;
            if (fs::exists(metrics, missing))
                note(problem);
            continue;
        }
        run->name = name;
        const auto stamp = setAsideStamp(name);
        std::error_code noTime;
        earlier.emplace_back(Key{stamp.has_value(), stamp ? stamp->first : std::string(),
                                 stamp ? stamp->second : 0, fs::last_write_time(metrics, noTime)},
                             std::move(*run));
    }
    // Newest first: by the time in the name (a copy gives every file the copy's time), then by -N.
    std::sort(earlier.begin(), earlier.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [key, run] : earlier)
        runs.push_back(std::move(run));
    return runs;
}

} // namespace nw
