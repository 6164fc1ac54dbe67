#pragma once
// Each Darknet layer type as ONNX nodes: what one layer's export sees and the per-type emitters.
#include "export/onnx_graph.h"
#include "graph/network_spec.h"
#include "runtime/layer_runtime.h"
#include "runtime/weights_file.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nw::onnx_export {

struct LayerExport {
    GraphBuilder& g;
    const NetworkSpec& spec;
    const LayerSpec& layer;
    const std::string& input;                // the previous layer's tensor (or the graph input)
    const std::vector<std::string>& tensors; // every earlier layer's tensor, by index
    const std::vector<WeightArray>& weights; // the layer's arrays, as in .weights
    const WeightsHeader& header;
    int batch; // the graph's batch; 0 when dynamic
};

// The tensor holding the layer's output, or why the layer cannot be exported (without the layer's
// name and line: the caller adds them).
struct Emitted {
    std::string tensor;
    std::optional<std::string> refusal;
};

// Everything but the detection heads (onnx_heads.h); a type it does not know is refused.
Emitted emitLayer(LayerExport& e);

// The named array of a layer ("weights", "biases", ...); empty when the layer has none.
std::span<const float> weightArray(const LayerExport& e, const char* name); // empty when absent

} // namespace nw::onnx_export
