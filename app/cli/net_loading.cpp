#include "net_loading.h"

#include <iostream>

namespace nw::cli {

namespace {
bool allowExtraWeights = false;
}

bool extraWeightsAllowed()
{
    return allowExtraWeights;
}

void setAllowExtraWeights(bool allow)
{
    allowExtraWeights = allow;
}

void printDiagnostics(const Diagnostics& diagnostics)
{
    for (const Diagnostic& d : diagnostics)
        std::cerr << d.format() << "\n";
}

std::unique_ptr<Net> loadNet(const std::string& cfg, const std::string& weights, int batch,
                             const SpecOptions& options, Net::Use use)
{
    const cfg::Document document = cfg::Document::load(cfg);
    SpecOptions withBatch = options;
    withBatch.batch = batch;
    const NetworkSpec spec = buildNetworkSpec(document, withBatch);
    if (!spec.ok()) {
        printDiagnostics(spec.diagnostics);
        return nullptr;
    }
    std::string error;
    auto net = Net::create(spec, batch, error, use);
    if (!net) {
        std::cerr << cfg << ": error: " << error << "\n";
        return nullptr;
    }
    if (!weights.empty()) {
        std::vector<std::string> warnings;
        if (auto problem = net->loadWeights(weights, &warnings, allowExtraWeights)) {
            std::cerr << "error: " << *problem << "\n";
            return nullptr;
        }
        for (const auto& warning : warnings)
            std::cerr << "warning: " << warning << "\n";
    }
    return net;
}

std::optional<DataFile> loadDataFileOrReport(const std::string& path)
{
    std::string error;
    auto data = loadDataFile(path, error);
    if (!data)
        std::cerr << "error: " << error << "\n";
    return data;
}

} // namespace nw::cli
