// valid: a classifier's top-1 and top-k on the .data file's valid set, each class's recall and
// precision, the classes it mixes up, and on request the whole confusion matrix.
#include "commands.h"
#include "data/training_data.h"
#include "net_loading.h"
#include "train/trainer.h"
#include "util/counted.h"
#include "util/float_file.h"
#include "util/json_text.h"
#include "util/text_columns.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace nw::cli {

namespace {

// The class names the .data file gives (labels=, else names=), for the matrix's classes.
std::vector<std::string> classNames(const DataFile& data, int matrixClasses)
{
    std::string error, path;
    std::vector<std::string> names;
    if (auto loaded = classNamesOf(data, false, error, &path)) {
        if (!loaded->empty())
            warnAboutNames(path, *loaded, data.classes());
        names = std::move(*loaded);
    } else {
        std::cerr << "warning: " << error << "; classes are shown as numbers\n";
    }
    return confusionClassNames(std::move(names), matrixClasses);
}

std::string percent(std::optional<double> share)
{
    char text[16];
    if (!share)
        return "-";
    std::snprintf(text, sizeof text, "%6.2f%%", *share * 100);
    return text;
}

// Each class: its images, recall, precision, and the class its images were most often taken for.
void printClasses(const ConfusionMatrix& m, const std::vector<std::string>& names)
{
    std::printf("%-25s %8s  %8s  %9s  %s\n", "class", "images", "recall", "precision",
                "most often taken for");
    for (int c = 0; c < m.classes(); ++c) {
        const std::optional<int> worst = m.mostOftenTakenFor(c);
        const std::string taken =
            worst ? names[std::size_t(*worst)] + " (" + std::to_string(m.count(c, *worst)) + ")" : "-";
        std::printf("%4d %s %8zu  %8s  %9s  %s\n", c, fittedToColumns(names[std::size_t(c)], 20).c_str(),
                    m.imagesOf(c), percent(m.recall(c)).c_str(), percent(m.precision(c)).c_str(),
                    taken.c_str());
    }
    if (m.undecided())
        std::printf("%s had a NaN score: counted as wrong\n",
                    counted(m.undecided(), "image", "images").c_str());
    const auto confused = m.mostConfused(5);
    if (confused.empty())
        return;
    std::printf("most confused:");
    for (std::size_t i = 0; i < confused.size(); ++i)
        std::printf("%s %s taken for %s %zu×", i ? "," : "", names[std::size_t(confused[i].truth)].c_str(),
                    names[std::size_t(confused[i].chosen)].c_str(), confused[i].count);
    std::printf("\n");
}

// The whole matrix: a row per true class, a column per chosen class (numbered as the rows).
void printMatrix(const ConfusionMatrix& m, const std::vector<std::string>& names)
{
    std::size_t largest = 0;
    for (int t = 0; t < m.classes(); ++t)
        for (int c = 0; c < m.classes(); ++c)
            largest = std::max(largest, m.count(t, c));
    const int width =
        std::max(int(std::to_string(largest).size()), int(std::to_string(m.classes() - 1).size())) + 1;
    std::printf("confusion matrix (rows: the true class, columns: the class chosen)\n%*s", 26, "");
    for (int c = 0; c < m.classes(); ++c)
        std::printf("%*d", width, c);
    std::printf("\n");
    for (int t = 0; t < m.classes(); ++t) {
        std::printf("%4d %s", t, fittedToColumns(names[std::size_t(t)], 21).c_str());
        for (int c = 0; c < m.classes(); ++c)
            std::printf("%*zu", width, m.count(t, c));
        std::printf("\n");
    }
}

nlohmann::json jsonShare(std::optional<double> share)
{
    return share ? nlohmann::json(*share) : nlohmann::json(nullptr);
}

// Scores of NaN are counted as wrong and the figures printed, but not called a success: diverged weights
// passed a script's `valid` gate with exit status 0 (detect, classify, map and forward say 1).
bool scoresWereNumbers(std::size_t undecided, std::size_t images)
{
    if (undecided == 0)
        return true;
    std::fflush(stdout);
    std::cerr << "error: " << undecided << " of " << images << (images == 1 ? " image has" : " images have")
              << " scores that are not numbers (NaN): " << kNotNumbersCause << "\n";
    return false;
}

} // namespace

int valid(const ValidArgs& args)
{
    auto data = loadDataFileOrReport(args.data);
    if (!data)
        return 1;
    std::string error;
    // (on a GPU, only the output comes back)
    auto net = loadNetAtCfgBatch(args.cfg, args.weights, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    if (net->maxTruthBoxes() > 0) { // before reading the data, which a detector's would not fit
        std::cerr << "error: " << args.cfg
                  << ": the network ends in a detection head: valid scores classifiers; "
                  << "score a detector with netwright-cli map " << args.data << " " << args.cfg << " "
                  << args.weights << "\n";
        return 1;
    }
    const auto runner = DeviceRunner::create(*net, args.device);
    if (!runner)
        return 1;
    std::vector<std::string> listWarnings; // images left out of the list: said, as train says them
    auto set = openClassificationSet(*data, "valid", net->spec().net, 1, error, &listWarnings);
    for (const std::string& warning : listWarnings)
        std::cerr << "warning: " << warning << "\n";
    if (!set) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    if (auto problem = classifierFits(*net, *set)) {
        std::cerr << "error: " << args.cfg << ": " << *problem << "\n";
        return 1;
    }
    // top= of the .data file, the key Darknet's classifier valid reads (its default is 1; here 5).
    const std::string topText = data->get("top", "5");
    int k = 0;
    const auto [end, parseError] = std::from_chars(topText.data(), topText.data() + topText.size(), k);
    if (parseError != std::errc() || end != topText.data() + topText.size() || k < 1) {
        std::cerr << "error: " << args.data << ": top=" << topText
                  << " is not a whole number of classes of 1 or more\n";
        return 1;
    }
    const Accuracy accuracy = evaluate(
        *net, *set, [&](const float* input) { runner->forward(input); }, k);
    const bool showTopK = k > 1 && k < set->classes(); // (top-k of k or fewer classes is always 100 %)
    if (!reportUnreadable(accuracy.warnings, accuracy.unreadable, accuracy.images, set->size(),
                          data->get("valid")))
        return 1;
    const ConfusionMatrix& matrix = accuracy.confusion; // (a binary classifier's: its class and the rest)
    const std::vector<std::string> names = classNames(*data, matrix.classes());
    const std::string topK = showTopK ? std::to_string(k) : std::string(); // "top5" in JSON, "top-5" in words
    if (args.json) {
        nlohmann::json out;
        out["top1"] = accuracy.top1;
        if (showTopK)
            out["top" + topK] = accuracy.topK;
        out["images"] = accuracy.images;
        out["unreadable"] = accuracy.unreadable;
        out["undecided"] = matrix.undecided();
        out["classes"] = nlohmann::json::array();
        for (int c = 0; c < matrix.classes(); ++c)
            out["classes"].push_back({{"id", c},
                                      {"name", names[std::size_t(c)]},
                                      {"images", matrix.imagesOf(c)},
                                      {"recall", jsonShare(matrix.recall(c))},
                                      {"precision", jsonShare(matrix.precision(c))}});
        if (args.confusion && matrix.hasCells()) {
            nlohmann::json rows = nlohmann::json::array();
            for (int t = 0; t < matrix.classes(); ++t) {
                nlohmann::json row = nlohmann::json::array();
                for (int c = 0; c < matrix.classes(); ++c)
                    row.push_back(matrix.count(t, c));
                rows.push_back(std::move(row));
            }
            out["confusion"] = std::move(rows);
        }
        std::cout << jsonText(out, 2) << "\n";
        return scoresWereNumbers(matrix.undecided(), accuracy.images) ? 0 : 1;
    }
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.2f%%", accuracy.topK * 100);
    std::printf("%zu images: top-1 %.2f%%%s%s\n", accuracy.images, accuracy.top1 * 100,
                showTopK ? (", top-" + topK + " " + figure).c_str() : "",
                accuracy.unreadable
                    ? (" (" + std::to_string(accuracy.unreadable) + " unreadable left out)").c_str()
                    : "");
    printClasses(matrix, names);
    if (args.confusion && matrix.hasCells())
        printMatrix(matrix, names);
    else if (args.confusion)
        std::printf("(no matrix: over %d classes only each class's figures are kept)\n",
                    ConfusionMatrix::kLargestWithCells);
    return scoresWereNumbers(matrix.undecided(), accuracy.images) ? 0 : 1;
}

} // namespace nw::cli
