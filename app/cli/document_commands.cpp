// summary, roundtrip and set-classes: commands on the cfg document and the network description.
#include "cfg/document.h"
#include "commands.h"
#include "data/data_file.h"
#include "graph/set_classes.h"
#include "net_loading.h"
#include "report/summary.h"
#include "util/file_check.h"
#include "util/json_text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

namespace nw::cli {

namespace {

// "layer 28 [local] (line 233), layer 31 [detection] (line 247) and 3 more".
std::string someLayers(const std::vector<std::string>& layers)
{
    std::string text;
    const std::size_t shown = std::min<std::size_t>(layers.size(), 4);
    for (std::size_t i = 0; i < shown; ++i)
        text += (i ? ", " : "") + layers[i];
    if (layers.size() > shown)
        text += " and " + std::to_string(layers.size() - shown) + " more";
    return text;
}

// The summary's last line: what the CUDA backend does with this network.
std::string gpuLine(const GpuCoverage& gpu)
{
    if (!gpu.cudaBuilt)
        return "GPU: this build has no CUDA backend\n";
    if (!gpu.checked)
        return "";
    if (!gpu.inferenceMissing.empty())
        return "GPU: no GPU version yet for " + someLayers(gpu.inferenceMissing) +
               " (runs on the CPU only)\n";
    if (!gpu.trainingMissing.empty())
        return "GPU: runs every layer; cannot train on the GPU yet: " + someLayers(gpu.trainingMissing) +
               "\n";
    if (!gpu.untrainable.empty())
        return "GPU: runs every layer; " + someLayers(gpu.untrainable) + " cannot train on any device\n";
    return "GPU: runs and trains every layer\n";
}

} // namespace

int summary(const std::string& path, int batch, bool json)
{
    const cfg::Document document = cfg::Document::load(path);
    // (--json writes its object anyway, its errors saying why: a program reading stdout got nothing)
    if (document.readFailed() && !json) {
        printDiagnostics(document.diagnostics());
        return 1;
    }
    const NetworkSpec spec = buildNetworkSpec(document, {batch});
    const GpuCoverage gpu = gpuCoverage(spec);
    if (json) {
        nlohmann::ordered_json report = nlohmann::ordered_json::parse(summaryJson(spec));
        report["gpu"] = {{"cuda_built", gpu.cudaBuilt},
                         {"checked", gpu.checked},
                         {"inference_missing", gpu.inferenceMissing},
                         {"training_missing", gpu.trainingMissing},
                         {"untrainable", gpu.untrainable}};
        std::cout << jsonText(report, 1) << "\n";
    } else {
        std::cout << summaryTable(spec) << gpuLine(gpu);
    }
    printDiagnostics(spec.diagnostics);
    return spec.ok() ? 0 : 1;
}

int roundtrip(const std::string& in, const std::string& out)
{
    const cfg::Document document = cfg::Document::load(in);
    printDiagnostics(document.diagnostics());
    if (document.readFailed())
        return 1;
    if (auto error = document.save(out)) {
        std::cerr << "error: " << *error << "\n";
        return 1;
    }
    return 0;
}

int setClasses(const std::string& in, const std::string& classesOrData, const std::string& out, bool schedule)
{
    int classes = 0;
    long long trainingImages = 0; // (known from a .data file's train= list)
    std::string trainList;        // (that list, an input)
    std::size_t used = 0;
    try {
        classes = std::stoi(classesOrData, &used);
    } catch (const std::out_of_range&) {
        std::cerr << "error: " << classesOrData << " classes: more than a cfg number holds\n";
        return 1;
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != classesOrData.size() || used == 0) { // not a number: a .data file's classes=
        std::string error;
        const auto data = loadDataFile(classesOrData, error);
        if (!data) {
            std::cerr << "error: " << classesOrData
                      << " is not a number of classes, nor a .data file with classes=: " << error << "\n";
            return 1;
        }
        classes = data->classes();
        if (classes < 1) {
            std::cerr << "error: " << classesOrData << " has no classes= of at least 1\n";
            return 1;
        }
        // AlexeyAB's schedule is never shorter than the training images: its train= list's lines.
        std::string ignored;
        std::error_code notRegular; // (a pipe named as the list would hold the command)
        if (const auto list = schedule ? data->existingFile("train", ignored) : std::nullopt;
            list && std::filesystem::is_regular_file(*list, notRegular)) {
            trainList = *list; // (an input too: the new cfg written over it lost the list)
            std::ifstream lines(*list);
            std::string line;
            while (trainingImages < (1LL << 31) && std::getline(lines, line))
                trainingImages += line.find_first_not_of(" \t\r") != std::string::npos;
        }
    }
    // (The .data file the classes come from is an input too: `set-classes t.cfg obj.data obj.data`.)
    if (auto problem = used == classesOrData.size() && used > 0 ? outputIsAnInput(out, {in})
                       : trainList.empty()                      ? outputIsAnInput(out, {in, classesOrData})
                                           : outputIsAnInput(out, {in, classesOrData, trainList})) {
        std::cerr << "error: " << *problem
                  << " (the files it reads stay as they are: compare the new cfg with diff)\n";
        return 1;
    }
    cfg::Document document = cfg::Document::load(in);
    if (document.readFailed()) {
        printDiagnostics(document.diagnostics());
        return 1;
    }
    const NetworkSpec spec = buildNetworkSpec(document);
    const ClassesPlan plan = planClasses(spec, classes, schedule, trainingImages);
    if (!plan.error.empty()) {
        std::cerr << "error: " << in << ": " << plan.error << "\n";
        return 1;
    }
    std::ostream& report = reportStreamFor(out);
    for (const KeyEdit& edit : plan.edits) {
        const cfg::Section& section = document.sections()[edit.section];
        const cfg::Line* line = section.find(edit.key);
        report << in << ":" << (line ? line->number : section.headerLine()) << ": " << edit.where << ": "
               << edit.key << "=" << edit.value
               << (line ? " (was " + std::string(cfg::valueBeforeComment(line->value)) + ")"
                        : std::string(" (added)"))
               << "\n";
    }
    if (plan.edits.empty())
        report << in << " already has " << classes << " classes; written unchanged\n";
    if (schedule && !plan.detector)
        std::cerr << "warning: --schedule sets a detector's max_batches and steps (AlexeyAB's rule): " << in
                  << " is a classifier, so its schedule is kept\n";
    applyEdits(document, plan.edits);
    // The edited network is checked as a whole: what else stands in the way of training it is said now,
    // by OUT's name and lines (an added key moves the lines below it).
    document.setFileName(out);
    const NetworkSpec edited = buildNetworkSpec(document.reread());
    printDiagnostics(edited.diagnostics);
    if (!edited.ok() && spec.ok()) { // errors of set-classes' making: nothing written (it wrote them)
        std::cerr << "error: " << classes << (classes == 1 ? " class makes " : " classes make ") << in
                  << " invalid (above, with the lines " << out << " would have); it was not written\n";
        return 1;
    }
    if (auto error = document.save(out)) {
        std::cerr << "error: " << *error << "\n";
        return 1;
    }
    report << "wrote " << out << " (" << classes << (classes == 1 ? " class" : " classes") << ")\n";
    if (!edited.ok() && !spec.ok()) // not set-classes' doing: say so, or OUT looks broken by it
        std::cerr << "note: " << in << " had errors before; set-classes changed only the lines it printed\n";
    return edited.ok() ? 0 : 1;
}

} // namespace nw::cli
