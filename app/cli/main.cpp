// netwright-cli: the headless tool. Wiring only: each command calls core and prints the result.
#include "cfg/document.h"
#include "graph/network_spec.h"
#include "report/summary.h"
#include "runtime/net.h"
#include "util/float_file.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

namespace {

void printDiagnostics(const nw::Diagnostics& diagnostics)
{
    for (const nw::Diagnostic& d : diagnostics)
        std::cerr << d.format() << "\n";
}

int summary(const std::string& path, int batch, bool json)
{
    const nw::cfg::Document document = nw::cfg::Document::load(path);
    if (document.readFailed()) {
        printDiagnostics(document.diagnostics());
        return 1;
    }
    const nw::NetworkSpec spec = nw::buildNetworkSpec(document, {batch});
    std::cout << (json ? nw::summaryJson(spec) : nw::summaryTable(spec));
    printDiagnostics(spec.diagnostics);
    return spec.ok() ? 0 : 1;
}

int roundtrip(const std::string& in, const std::string& out)
{
    const nw::cfg::Document document = nw::cfg::Document::load(in);
    printDiagnostics(document.diagnostics());
    if (document.readFailed())
        return 1;
    if (auto error = document.save(out)) {
        std::cerr << "error: " << *error << "\n";
        return 1;
    }
    return 0;
}

// Builds the runtime for a cfg and loads weights (or keeps the random initialisation when none).
std::unique_ptr<nw::Net> loadNet(const std::string& cfgPath, const std::string& weightsPath, int batch)
{
    const nw::cfg::Document document = nw::cfg::Document::load(cfgPath);
    const nw::NetworkSpec spec = nw::buildNetworkSpec(document, {batch});
    for (const nw::Diagnostic& d : spec.diagnostics)
        if (d.isError()) {
            printDiagnostics(spec.diagnostics);
            return nullptr;
        }
    std::string error;
    auto net = nw::Net::create(spec, batch, error);
    if (!net) {
        std::cerr << cfgPath << ": error: " << error << "\n";
        return nullptr;
    }
    if (!weightsPath.empty()) {
        std::vector<std::string> warnings;
        if (auto problem = net->loadWeights(weightsPath, &warnings)) {
            std::cerr << "error: " << *problem << "\n";
            return nullptr;
        }
        for (const auto& warning : warnings)
            std::cerr << "warning: " << warning << "\n";
    }
    return net;
}

int forward(const std::string& cfgPath, const std::string& weightsPath, const std::string& inputPath,
            const std::string& outPath, const std::string& allLayersDir)
{
    auto net = loadNet(cfgPath, weightsPath, 1);
    if (!net)
        return 1;
    std::vector<float> input;
    if (auto problem = nw::readFloatFile(inputPath, std::size_t(net->inputShape().size), input)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    const nw::Tensor& output = net->forward(input.data());
    if (!outPath.empty())
        if (auto problem = nw::writeFloatFile(outPath, output.span())) {
            std::cerr << "error: " << *problem << "\n";
            return 1;
        }
    if (!allLayersDir.empty()) {
        for (std::size_t i = 0; i < net->spec().layers.size(); ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "/layer_%03zu.f32", i);
            if (auto problem = nw::writeFloatFile(allLayersDir + name, net->output(int(i)).span())) {
                std::cerr << "error: " << *problem << "\n";
                return 1;
            }
        }
    }
    if (outPath.empty() && allLayersDir.empty())
        std::cerr << "forward: ran, but wrote nothing: add --out OUT.f32 or --all-layers DIR\n";
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"netwright-cli: inspect, train and run Darknet networks without a GUI"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(NETWRIGHT_VERSION));

    std::string cfgPath;
    int batch = 1;
    bool json = false;
    auto* summaryCmd =
        app.add_subcommand("summary", "Print every layer's shapes, BFLOPs, params and workspace");
    summaryCmd->add_option("cfg", cfgPath, "Darknet .cfg file")->required();
    summaryCmd->add_option("--batch", batch, "Images per batch, for activation memory")
        ->check(CLI::Range(1, 1 << 20));
    summaryCmd->add_flag("--json", json, "Print one JSON object instead of a table");

    std::string inPath, outPath;
    auto* roundtripCmd = app.add_subcommand("roundtrip", "Load a .cfg and write it back (byte-identical)");
    roundtripCmd->add_option("in", inPath, "Input .cfg")->required();
    roundtripCmd->add_option("out", outPath, "Output .cfg")->required();

    std::string weightsPath, inputPath, forwardOut, allLayersDir;
    auto* forwardCmd = app.add_subcommand("forward", "Run the network once and write outputs as raw float32");
    forwardCmd->add_option("cfg", cfgPath, "Darknet .cfg file")->required();
    forwardCmd->add_option("weights", weightsPath, "Darknet .weights file")->required();
    forwardCmd->add_option("--input", inputPath, "Raw float32 CHW tensor (.f32, exactly w·h·c floats)")
        ->required();
    forwardCmd->add_option("--out", forwardOut, "Write the network's output here");
    forwardCmd->add_option("--all-layers", allLayersDir,
                           "Write every layer's output as DIR/layer_000.f32, ...");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    if (*summaryCmd)
        return summary(cfgPath, batch, json);
    if (*roundtripCmd)
        return roundtrip(inPath, outPath);
    if (*forwardCmd)
        return forward(cfgPath, weightsPath, inputPath, forwardOut, allLayersDir);
    return 2;
}
