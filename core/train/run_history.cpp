#include "train/run_history.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>

namespace nw {

namespace fs = std::filesystem;

namespace {

// The cells of one row; false when a number cell is not a number.
bool parseRow(const std::string& line, MetricsRow& row)
{
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
        cells.push_back(line.substr(start, comma - start));
    cells.push_back(line.substr(start));
    if (cells.size() < 6)
        return false;
    const auto number = [](const std::string& cell, double& value) {
        const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
        return error == std::errc() && end == cell.data() + cell.size();
    };
    double iteration = 0;
    if (!number(cells[0], iteration) || iteration < 1 || !number(cells[1], row.loss) ||
        !number(cells[2], row.averageLoss) || !number(cells[3], row.learningRate) ||
        !number(cells[4], row.imagesPerSecond) || !number(cells[5], row.elapsedSeconds))
        return false;
    row.iteration = int(iteration);
    double value = 0;
    if (cells.size() > 6 && number(cells[6], value))
        row.validTop1 = value;
    if (cells.size() > 7 && number(cells[7], value))
        row.map50 = value;
    return true;
}

} // namespace

std::vector<MetricsRow> readMetrics(const std::string& path)
{
    std::vector<MetricsRow> rows;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (MetricsRow row; parseRow(line, row))
            rows.push_back(row);
    }
    return rows;
}

std::optional<RunSummary> summarizeRun(const std::string& folder, const std::string& metricsPath)
{
    const std::vector<MetricsRow> rows = readMetrics(metricsPath);
    if (rows.empty())
        return std::nullopt;
    RunSummary run;
    run.folder = folder;
    run.metricsPath = metricsPath;
    run.iterations = rows.back().iteration;
    run.averageLoss = rows.back().averageLoss;
    run.elapsedSeconds = rows.back().elapsedSeconds;
    run.bestIsMap =
        std::any_of(rows.begin(), rows.end(), [](const MetricsRow& r) { return r.map50.has_value(); });
    for (const MetricsRow& row : rows)
        if (const std::optional<double> figure = run.bestIsMap ? row.map50 : row.validTop1;
            figure && (!run.best || *figure > *run.best)) {
            run.best = figure;
            run.bestIteration = row.iteration;
        }
    // The networks whose files it holds; finished when a _final.weights is as new as the checkpoint.
    std::set<std::string> networks;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        for (const std::string suffix : {"_last.state", "_final.weights", "_last.weights"})
            if (const std::string file = entry.path().filename().string();
                file.size() > suffix.size() && file.ends_with(suffix))
                networks.insert(file.substr(0, file.size() - suffix.size()));
    run.networks.assign(networks.begin(), networks.end());
    for (const std::string& network : run.networks) {
        const fs::path finalWeights = fs::path(folder) / (network + "_final.weights");
        const fs::path state = fs::path(folder) / (network + "_last.state");
        std::error_code missing;
        const auto finalTime = fs::last_write_time(finalWeights, missing);
        if (missing)
            continue;
        const auto stateTime = fs::last_write_time(state, missing);
        run.finished = run.finished || missing || finalTime >= stateTime;
    }
    return run;
}

std::vector<RunSummary> runsIn(const std::string& folder)
{
    std::vector<RunSummary> runs;
    if (auto own = summarizeRun(folder, (fs::path(folder) / "metrics.csv").string())) {
        own->name = ".";
        runs.push_back(std::move(*own));
    }
    std::vector<std::pair<fs::file_time_type, RunSummary>> earlier;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        std::error_code notDir;
        if (!name.starts_with("previous-") || !entry.is_directory(notDir))
            continue;
        const fs::path metrics = entry.path() / "metrics.csv";
        if (auto run = summarizeRun(entry.path().string(), metrics.string())) {
            run->name = name;
            std::error_code noTime;
            earlier.emplace_back(fs::last_write_time(metrics, noTime), std::move(*run));
        }
    }
    // Newest first, by the metrics' time: previous-…-10 sorts before previous-…-9 as text.
    std::sort(earlier.begin(), earlier.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [time, run] : earlier)
        runs.push_back(std::move(run));
    return runs;
}

} // namespace nw
