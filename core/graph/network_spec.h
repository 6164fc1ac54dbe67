#pragma once
// graph::NetworkSpec: a cfg document turned into a network description — per layer its type, input
// and output shapes, BFLOPs, parameters, workspace and memory — without allocating any tensor.
// Building it never throws and never stops at the first problem: every diagnostic is attached to
// its layer (and collected in `diagnostics`) so tools can show them all.
#include "cfg/document.h"
#include "graph/layer_spec.h"
#include "graph/net_config.h"

#include <memory>
#include <string>
#include <vector>

namespace nw {

struct SpecOptions {
    int batch = 1;             // images per forward pass, for activation memory
    int width = 0, height = 0; // when set, replace [net]'s input size (Darknet's resize)
};

struct NetworkSpec {
    std::string file;
    // The document it was built from, so a runtime can rebuild it at another input size.
    std::shared_ptr<const cfg::Document> document;
    NetConfig net;
    Shape input;
    int batch = 1;
    std::vector<LayerSpec> layers;
    Diagnostics diagnostics; // everything: syntax, [net] and layer problems, in file order
    double totalBflops = 0;
    std::int64_t totalParams = 0;
    std::int64_t maxWorkspaceBytes = 0;
    std::int64_t totalMemoryBytes = 0;
    std::int64_t inferenceMemoryBytes = 0; // the activation buffers an inference pass really holds

    bool ok() const { return !hasErrors(diagnostics); }
    // The layers whose input follows an error: their figures would be made up from it, so they are shown
    // as "?" and left out of the totals.
    int layersLeftOutOfTotals() const;
};

NetworkSpec buildNetworkSpec(const cfg::Document& document, const SpecOptions& options = {});
// The keys every layer section accepts (dontload, stopbackward, learning_rate, ...).
LayerFlags readLayerFlags(cfg::SectionReader& reader);

} // namespace nw
