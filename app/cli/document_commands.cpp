// summary and roundtrip: commands on the cfg document and the network description.
#include "cfg/document.h"
#include "commands.h"
#include "net_loading.h"
#include "report/summary.h"

#include <iostream>

namespace nw::cli {

int summary(const std::string& path, int batch, bool json)
{
    const cfg::Document document = cfg::Document::load(path);
    if (document.readFailed()) {
        printDiagnostics(document.diagnostics());
        return 1;
    }
    const NetworkSpec spec = buildNetworkSpec(document, {batch});
    std::cout << (json ? summaryJson(spec) : summaryTable(spec));
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
