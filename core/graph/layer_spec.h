#pragma once
// LayerSpec: one layer of a network description (its shapes, costs, flags and diagnostics), apart from
// the whole NetworkSpec, so the layer types depend on this narrow type and not on the network.
#include "cfg/diagnostic.h"
#include "graph/shape.h"
#include "layers/layer_config.h"

#include <cstdint>
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

    // False when an error here, or in a layer it reads, leaves its output shape meaningless: the layers
    // after it then stay quiet about their input, so one mistake gives one message.
    bool outputKnown = true;
    // False when a layer it reads has such an error: its own shape and costs are then made up from a
    // meaningless input, and editors show them as unknown.
    bool inputKnown = true;
    // Not in the network's totals: its figures unknown, or a size past any array's (their sums would only
    // overflow), its own or a layer's before it — then its figures are shown all the same.
    bool leftOutOfTotals = false;

    // Its output shape and costs mean something: not made up behind an error, nor missing because a
    // value of its own could not be read (filters=abc leaves a refused layer without a shape).
    bool figuresKnown() const { return inputKnown && (outputKnown || output.size > 0); }
    bool valid() const { return !hasErrors(diagnostics); }             // no error of its own
    bool isLossOnly() const { return config && config->isLossOnly(); } // [cost]
};

} // namespace nw
