// netwright-cli runs FOLDER: the runs a training folder holds — its own and the earlier ones a fresh
// start set aside — one line each, to compare them (DIGITS' job list, from the files alone).
#include "commands.h"
#include "train/run_history.h"
#include "util/json_text.h"
#include "util/text_columns.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace nw::cli {

namespace {

std::string duration(double seconds)
{
    if (!(seconds >= 0 && seconds < 1e9)) // (a hand-edited file's figure: not a time)
        return "-";
    const long total = long(seconds + 0.5);
    char text[32];
    if (total >= 3600)
        std::snprintf(text, sizeof text, "%ldh %02ldm", total / 3600, total / 60 % 60);
    else if (total >= 60)
        std::snprintf(text, sizeof text, "%ldm %02lds", total / 60, total % 60);
    else
        std::snprintf(text, sizeof text, "%lds", total);
    return text;
}

std::string networks(const RunSummary& run)
{
    std::string names;
    for (const std::string& name : run.networks)
        names += (names.empty() ? "" : ", ") + name;
    return names.empty() ? "-" : names;
}

} // namespace

// What became of a run, in a word.
const char* runState(const RunSummary& run)
{
    return run.training            ? "training"
           : run.finished          ? "finished"
           : run.withoutCheckpoint ? "no checkpoint" // (it ended before its first: a NaN loss, an error)
           : run.networks.empty()  ? "curve"         // (metrics.csv alone: another cfg's, set aside)
                                   : "stopped";
}

int runs(const std::string& folder, bool json)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) {
        std::cerr << "error: " << folder
                  << (std::filesystem::exists(folder, ec) ? " is not a folder" : ": no such folder")
                  << ": name a training output folder (train --out, or the .data file's backup=)\n";
        return 1;
    }
    std::vector<std::string> problems;
    const std::vector<RunSummary> found = runsIn(folder, &problems);
    for (const std::string& problem : problems) // (what is listed is still listed: a warning)
        std::cerr << "warning: " << problem << "\n";
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const RunSummary& run : found) {
            nlohmann::json item = {{"name", run.name},
                                   {"folder", run.folder},
                                   {"metrics", run.metricsPath},
                                   {"networks", run.networks},
                                   {"iterations", run.iterations},
                                   {"avg_loss", run.averageLoss},
                                   {"elapsed_s", run.elapsedSeconds},
                                   {"finished", run.finished},
                                   {"training", run.training},
                                   {"state", runState(run)}};
            if (run.best) {
                item["best"] = {{"measure", run.bestIsMap ? "map50" : "valid_top1"},
                                {"value", *run.best},
                                {"iteration", run.bestIteration}};
            }
            list.push_back(item);
        }
        std::printf("%s\n", jsonText(list, 2).c_str());
        return found.empty() && !problems.empty() ? 1 : 0;
    }
    if (found.empty()) {
        std::cout << folder << " holds no run: no metrics.csv with rows in it or in a previous-… folder\n";
        return problems.empty() ? 0 : 1;
    }
    int nameWidth = 4;
    for (const RunSummary& run : found)
        nameWidth = std::max(nameWidth, terminalColumns(run.name == "." ? "(this folder)" : run.name));
    char header[160];
    std::snprintf(header, sizeof header, "  %10s  %9s  %-24s  %-10s  %-13s  %s", "iterations", "avg loss",
                  "best", "time", "state", "network");
    std::cout << paddedToColumns("run", nameWidth) << header << "\n";
    for (const RunSummary& run : found) {
        char best[48] = "-";
        if (run.best)
            std::snprintf(best, sizeof best, "%s %.2f %% at %d", run.bestIsMap ? "mAP" : "top-1",
                          *run.best * 100, run.bestIteration);
        char loss[32];
        std::snprintf(loss, sizeof loss, run.averageLoss < 1e5 ? "%.4f" : "%.3e", run.averageLoss);
        char row[200];
        std::snprintf(row, sizeof row, "  %10d  %9s  %-24s  %-10s  %-13s  ", run.iterations, loss, best,
                      duration(run.elapsedSeconds).c_str(), runState(run));
        std::cout << paddedToColumns(run.name == "." ? "(this folder)" : run.name, nameWidth) << row
                  << networks(run) << "\n";
    }
    return 0;
}

} // namespace nw::cli
