#pragma once
// Writes a runtime net (its description and weights) as an ONNX model: one graph input "input"
// [batch, c, h, w]; outputs "output" (a classifier's last layer), or one per detection head
// ("yolo_<layer>", "region_<layer>", the head as Darknet computes it), or with `withDecode` one
// "detections" [batch, boxes, 5 + classes] (see onnx_heads.h). Batch norm is folded into the
// convolutions. A layer without an ONNX form is refused with the cfg file, line and layer.
#include "runtime/net.h"

#include <optional>
#include <string>
#include <vector>

namespace nw {

struct OnnxExportOptions {
    int opset = 11;          // 11..17: what Debian's onnx 1.12 checks and OpenCV 4.6 reads
    int batch = 1;           // 0: a dynamic batch dimension named "batch"
    bool withDecode = false; // decode the [yolo]/[region] boxes in the graph
    // Every layer's output too, as "layer_<index>" (to compare a runtime's tensors layer by layer).
    bool everyLayer = false;
};

struct OnnxExportReport {
    std::vector<std::string> outputs; // "yolo_16 [1, 255, 13, 13]", ...
    std::size_t nodes = 0, bytes = 0;
};

constexpr int kMinOnnxOpset = 11, kMaxOnnxOpset = 17;

// Builds the model, checks it with ONNX's own checker and serialises it into `bytes`.
std::optional<std::string> buildOnnxModel(Net& net, const OnnxExportOptions& options, std::string& bytes,
                                          OnnxExportReport* report = nullptr);
// The same, written atomically to `path`.
std::optional<std::string> exportOnnx(Net& net, const OnnxExportOptions& options, const std::string& path,
                                      OnnxExportReport* report = nullptr);

} // namespace nw
