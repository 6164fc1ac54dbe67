#pragma once
// Darknet's activations as ONNX nodes (opset 11 operators, so every reader of that opset runs them).
#include "export/onnx_graph.h"

#include <optional>
#include <string>

namespace nw::onnx_export {

// Why an activation cannot be exported (stair, normalize_channels*); nullopt when it can.
std::optional<std::string> activationRefusal(const std::string& name);
// The activation applied to tensor `x`; returns the result's name (`x` itself for linear).
std::string emitActivation(GraphBuilder& g, const std::string& x, const std::string& name);

} // namespace nw::onnx_export
