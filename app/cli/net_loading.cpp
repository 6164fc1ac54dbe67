#include "net_loading.h"

#include "cfg/document.h"
#include "data/class_names.h"
#include "util/atomic_file.h"
#include "util/counted.h"

#include <algorithm>
#include <iostream>
#include <set>

namespace nw::cli {

namespace {
bool allowExtraWeights = false;
constexpr const char* kAllowExtraAdvice = "--allow-extra loads the first part on purpose";
bool halfPrecision = false;
bool tensorFloat32 = false;
bool cfgWarningsPrinted = true;
std::set<std::string> cfgsWarnedAbout; // a command may load its cfg twice (a probe, then the net)

void printWarningsOnce(const std::string& cfg, const Diagnostics& diagnostics)
{
    if (!cfgWarningsPrinted || !cfgsWarnedAbout.insert(cfg).second)
        return;
    for (const Diagnostic& d : diagnostics)
        if (!d.isError())
            std::cerr << d.format() << "\n";
}
} // namespace

void setCfgWarningsPrinted(bool printed)
{
    cfgWarningsPrinted = printed;
}

bool extraWeightsAllowed()
{
    return allowExtraWeights;
}

void setHalfPrecision(bool half)
{
    halfPrecision = half;
}

bool halfPrecisionRequested()
{
    return halfPrecision;
}

void setTensorFloat32(bool tf32)
{
    tensorFloat32 = tf32;
}

bool tensorFloat32Requested()
{
    return tensorFloat32;
}

std::optional<std::string> precisionRefusal(bool onGpu, bool training)
{
    if (!halfPrecision && !tensorFloat32)
        return std::nullopt;
    const std::string flag = halfPrecision ? "--half" : "--tf32";
    if (!onGpu)
        return flag + " needs --device cuda: " + (halfPrecision ? "FP16" : "TF32") +
               " runs on a GPU's tensor cores, the CPU computes in FP32";
    if (training)
        return flag + " with --train: training runs in exact FP32 on the GPU";
    return std::nullopt;
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
                             const SpecOptions& options, Net::Use use, bool startingWeights)
{
    const cfg::Document document = cfg::Document::load(cfg);
    SpecOptions withBatch = options;
    withBatch.batch = batch;
    const NetworkSpec spec = buildNetworkSpec(document, withBatch);
    if (!spec.ok()) {
        printDiagnostics(spec.diagnostics);
        return nullptr;
    }
    printWarningsOnce(cfg, spec.diagnostics);
    std::string error;
    auto net = Net::create(spec, batch, error, use);
    if (!net) {
        std::cerr << cfg << ": error: " << error << "\n";
        return nullptr;
    }
    if (!weights.empty()) {
        std::vector<std::string> warnings;
        if (auto problem = net->loadWeights(weights, &warnings,
                                            {allowExtraWeights, startingWeights, kAllowExtraAdvice})) {
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

void warnNameCount(const std::string& path, std::size_t names, int classes)
{
    if (names < std::size_t(classes))
        std::cerr << "warning: " << path << " has " << names << " names but the network has " << classes
                  << " classes; the rest are shown as numbers\n";
    else if (!namesFitClasses(names, classes))
        std::cerr << "warning: " << path << " has " << names << " names but the network has " << classes
                  << " classes (the names file of another data set?)\n";
}

std::ostream& reportStreamFor(const std::string& out)
{
    return isStandardOutput(out) ? std::cerr : std::cout;
}

void warnAboutNames(const std::string& path, const std::vector<std::string>& names, int classes)
{
    warnNameCount(path, names.size(), classes);
    if (auto warning = namesEncodingWarning(names, path))
        std::cerr << "warning: " << *warning << "\n";
}

int timeSteps(const std::string& cfg)
{
    return std::max(1, buildNetworkSpec(cfg::Document::load(cfg), {}).net.timeSteps);
}

std::string netKeyPlace(const std::string& cfgPath, const std::string& cfgText, std::string_view key)
{
    const cfg::Document document = cfg::Document::parse(cfgText, cfgPath);
    int line = 0;
    if (!document.sections().empty()) {
        const cfg::Section& net = document.sections().front();
        const cfg::Line* entry = net.find(key);
        line = entry ? entry->number : net.headerLine();
    }
    return line > 0 ? cfgPath + ":" + std::to_string(line) : cfgPath;
}

std::unique_ptr<Net> loadNetAtCfgBatch(const std::string& cfg, const std::string& weights, Net::Use use)
{
    const NetworkSpec probe = buildNetworkSpec(cfg::Document::load(cfg));
    if (!probe.ok()) {
        printDiagnostics(probe.diagnostics);
        return nullptr;
    }
    return loadNet(cfg, weights, std::max(1, probe.net.layerBatch()), {}, use, use == Net::Use::Everything);
}

std::unique_ptr<Net> loadNetForTraining(const std::string& cfg, const std::string& weights,
                                        const SpecOptions& options)
{
    const NetworkSpec probe = buildNetworkSpec(cfg::Document::load(cfg), options);
    auto net = loadNet(cfg, weights, std::max(1, probe.net.layerBatch()), options);
    if (!net)
        return nullptr;
    if (auto problem = net->setTraining(true)) {
        std::cerr << "error: " << *problem << "\n";
        return nullptr;
    }
    return net;
}

std::vector<float> uniformValues(std::size_t n, std::mt19937& random)
{
    std::vector<float> values(n);
    std::uniform_real_distribution<float> unit(0, 1);
    for (float& v : values)
        v = unit(random);
    return values;
}

BenchBatch benchBatch(const Net& net, std::mt19937& random)
{
    const auto batch = std::size_t(net.batch());
    return {uniformValues(std::size_t(net.inputShape().size) * batch, random),
            std::vector<float>(net.truthFloats() * batch, 0.0f)};
}

bool reportUnreadable(const std::vector<std::string>& named, std::size_t unreadable, std::size_t scored,
                      std::size_t setSize, const std::string& list, const std::string& suffix)
{
    for (const std::string& warning : named)
        std::cerr << "warning: " << warning << suffix << "\n";
    if (unreadable > named.size())
        std::cerr << "warning: and "
                  << counted(unreadable - named.size(), "more unreadable image", "more unreadable images")
                  << "\n";
    if (scored > 0)
        return true;
    std::cerr << "error: " << list << ": "
              << (setSize == 1 ? std::string("its one image cannot")
                               : "none of its " + std::to_string(setSize) + " images can")
              << " be read (each is named above)\n";
    return false;
}

} // namespace nw::cli
