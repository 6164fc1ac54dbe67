#pragma once
// [yolo] and [region] heads as ONNX nodes: the head's output as Darknet computes it (logistic on
// x, y, objectness and classes; softmax for [region] softmax=1), and optionally the boxes decoded in
// the graph: [batch, anchors·h·w, 5 + classes] rows of x, y, w, h (centre and size relative to the
// network input, 0..1), objectness, then objectness × class probability per class, anchor-major
// (all cells of a head's first anchor, then its second, ...), as Darknet's get_*_detections before
// thresholding.
#include "export/onnx_layers.h"

namespace nw::onnx_export {

// Whether this layer is a head the exporter knows ([yolo], [region]).
bool isExportedHead(const LayerSpec& layer);
// The head's output; with `decoded` set, its decoded rows go there too.
Emitted emitHead(LayerExport& e, std::string* decoded);

} // namespace nw::onnx_export
