// netwright-cli: the headless tool. Wiring only: each command calls core and prints the result.
#include "cfg/document.h"
#include "graph/network_spec.h"
#include "report/summary.h"

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

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    if (*summaryCmd)
        return summary(cfgPath, batch, json);
    if (*roundtripCmd)
        return roundtrip(inPath, outPath);
    return 2;
}
