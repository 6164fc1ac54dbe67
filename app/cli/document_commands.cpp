// summary and roundtrip: commands on the cfg document and the network description.
#include "cfg/document.h"
#include "commands.h"
#include "net_loading.h"
#include "report/summary.h"
#include "util/json_text.h"

#include <algorithm>
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
    if (document.readFailed()) {
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

} // namespace nw::cli
