#include "train/previous_run.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

namespace nw {

namespace fs = std::filesystem;

namespace {

// A run's files in `folder`: its checkpoint, weights and metrics (chart.png is drawn from them), and its
// snapshots (<name>_<N>.weights).
std::vector<std::string> runFiles(const std::string& folder, const std::string& name)
{
    std::vector<std::string> files = {name + "_last.weights", name + "_last.state", name + "_final.weights",
                                      name + "_best.weights", name + "_data.txt",   name + "_trained.cfg",
                                      "metrics.csv",          "chart.png",          name + "_classes.json"};
    const std::string prefix = name + "_", suffix = ".weights";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string file = entry.path().filename().string();
        if (const std::string start = name + "_trained-to-";
            file.size() > start.size() + 4 && file.starts_with(start) && file.ends_with(".cfg")) {
            const std::string_view number(file.data() + start.size(), file.size() - start.size() - 4);
            if (std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
                files.push_back(file); // (a resume's earlier cfg)
            continue;
        }
        if (file.size() <= prefix.size() + suffix.size() || !file.starts_with(prefix) ||
            !file.ends_with(suffix))
            continue;
        const std::string_view digits(file.data() + prefix.size(),
                                      file.size() - prefix.size() - suffix.size());
        if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            files.push_back(file);
    }
    return files;
}

} // namespace

SetAside setAsidePreviousRun(const std::string& folder, const std::string& name)
{
    SetAside result;
    std::vector<fs::path> files;
    for (const std::string& file : runFiles(folder, name)) {
        std::error_code ec;
        if (fs::exists(fs::path(folder) / file, ec))
            files.push_back(fs::path(folder) / file);
    }
    if (files.empty())
        return result;
    char stamp[32] = {};
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    ::localtime_r(&now, &local);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    fs::path target = fs::path(folder) / (std::string("previous-") + stamp);
    std::error_code ec;
    for (int n = 2; fs::exists(target, ec); ++n) // two fresh starts within a second
        target = fs::path(folder) / (std::string("previous-") + stamp + "-" + std::to_string(n));
    if (!fs::create_directory(target, ec)) {
        result.error = "cannot set the previous run's files aside in " + target.string() + ": " +
                       ec.message() + " (resume it, or train into another folder)";
        return result;
    }
    for (const fs::path& file : files) {
        fs::rename(file, target / file.filename(), ec);
        if (ec) {
            result.error = "cannot move " + file.string() + " into " + target.string() + ": " + ec.message() +
                           " (resume it, or train into another folder)";
            const SetAside moved{target.string(), result.files, std::nullopt};
            restorePreviousRun(moved, folder); // all or nothing
            return result;
        }
        result.files.push_back(file.filename().string());
    }
    result.folder = target.string();
    return result;
}

std::optional<std::string> restorePreviousRun(const SetAside& aside, const std::string& folder)
{
    std::error_code ec;
    for (const std::string& file : aside.files) {
        fs::rename(fs::path(aside.folder) / file, fs::path(folder) / file, ec);
        if (ec)
            return "cannot move " + file + " back from " + aside.folder + " into " + folder + ": " +
                   ec.message();
    }
    fs::remove(aside.folder, ec); // only when empty
    return std::nullopt;
}

std::optional<std::string> bringPreviousRunBack(const SetAside& aside, const std::string& folder,
                                                const std::string& name)
{
    // What this run wrote and the earlier one did not have (a _last.state beside Darknet's backup
    // weights, metrics.csv) must not stay beside the earlier run's files: a resume would mix the two.
    for (const std::string& file : runFiles(folder, name))
        if (std::find(aside.files.begin(), aside.files.end(), file) == aside.files.end()) {
            std::error_code ec;
            fs::remove(fs::path(folder) / file, ec);
        }
    return restorePreviousRun(aside, folder);
}

std::optional<std::string> newestSetAside(const std::string& folder, const std::string& file)
{
    std::error_code ec;
    std::string newest; // by the file's time: previous-…-10 sorts before previous-…-9 as text
    fs::file_time_type newestTime{};
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        std::error_code exists;
        if (name.rfind("previous-", 0) != 0 || !fs::exists(entry.path() / file, exists))
            continue;
        const fs::file_time_type time = fs::last_write_time(entry.path() / file, exists);
        if (newest.empty() || time > newestTime) {
            newest = name;
            newestTime = time;
        }
    }
    if (newest.empty())
        return std::nullopt;
    return newest + "/" + file;
}

bool runFinished(const std::string& folder, const std::string& name)
{
    std::error_code missing;
    const auto finalTime = fs::last_write_time(fs::path(folder) / (name + "_final.weights"), missing);
    if (missing)
        return false;
    const auto stateTime = fs::last_write_time(fs::path(folder) / (name + "_last.state"), missing);
    return missing || finalTime >= stateTime;
}

} // namespace nw
