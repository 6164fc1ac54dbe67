#pragma once
// graph::NetworkSpec: a cfg document turned into a network description — per layer its type, input
// and output shapes, BFLOPs, parameters, workspace and memory — without allocating any tensor.
// Building it never throws and never stops at the first problem: every diagnostic is attached to
// its layer (and collected in `diagnostics`) so tools can show them all.
#include "cfg/document.h"
#include "graph/net_config.h"
#include "layers/layer_config.h"

#include <memory>
#include <string>
#include <vector>

namespace nw {

// Keys every layer accepts that steer weights I/O and training rather than shapes.
struct LayerFlags {
    bool dontload = false;       // no bytes of this layer in the .weights file
    bool dontloadscales = false; // its batch-norm scales and statistics are not in the file
    bool stopbackward = false;   // gradients stop here: layers before it are frozen
    bool dontupdate = false;     // this layer's weights stay fixed (AB dont_update)
    float learningRateScale = 1; // multiplies the global learning rate
};

struct LayerSpec {
    int index = 0;
    std::string type;        // the long section name: "convolutional", "maxpool", ...
    std::size_t section = 0; // index of its section in the document
    int line = 0;            // line of its section header
    Shape input;
    Shape output;
    LayerCosts costs;
    std::vector<int> sources; // absolute indices of earlier layers it reads (route, shortcut, ...)
    std::string filters;      // summary texts
    std::string size;
    std::int64_t memoryBytes = 0; // output activations for the spec's batch, float32
    // What the output adds to an inference pass's buffers (graph/activation_plan.h): 0 when it goes
    // into the buffer of an output no later layer reads.
    std::int64_t inferenceBytes = 0;
    // Receptive field of one output pixel in input pixels, and the input-pixel distance between
    // neighbouring outputs (the largest over the layer's inputs); 0 for flat outputs.
    int receptiveField = 0;
    double jump = 1;
    LayerFlags flags;
    int timeSteps = 1; // [net] time_steps: recurrent layers see batch items as steps × sequences
    Diagnostics diagnostics;
    std::shared_ptr<const LayerConfig> config; // null for unknown types

    bool valid() const { return !hasErrors(diagnostics); }
};

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
};

NetworkSpec buildNetworkSpec(const cfg::Document& document, const SpecOptions& options = {});
// The keys every layer section accepts (dontload, stopbackward, learning_rate, ...).
LayerFlags readLayerFlags(cfg::SectionReader& reader);

} // namespace nw
