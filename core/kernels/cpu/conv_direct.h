#pragma once
// Direct convolution for layers with few input channels (the first layer of most networks: 1–3
// channels; up to 8). Their GEMM has a short K = channels·size² (27 for 3 channels, 3×3), too short for
// OpenBLAS to reach its speed (yolov3-tiny's first layer: 105 GFLOP/s). Here sixteen filters accumulate over
// sixteen output columns in registers, each input vector is loaded once per tap for all sixteen, and the
// per-filter scale, shift and activation follow while the row is still in cache.
#include "kernels/cpu/activations.h"
#include "kernels/cpu/im2col.h"

#include <cstddef>

namespace nw {

// Where the direct kernel is the faster choice (one group, stride 1 or 2, no dilation, few channels
// and a wide output; BENCHMARKS.md has the measurements behind the rule).
bool directConvolutionPays(const ConvGeometry& geometry, int groups);

std::size_t directWorkspaceFloats(const ConvGeometry& geometry, int filters, int threads);

struct DirectKernel {
    ConvGeometry geometry;
    int filters = 0;
    const float* weights; // filters × channels × size × size (Darknet's order)
    const float* scale;   // per filter
    const float* shift;   // per filter
    Activation activation;
    int maxThreads; // the workspace was sized for this many threads
};

// One image: input channels × h × w, output filters × outH × outW.
void convolveDirect(const DirectKernel& kernel, const float* input, float* output, float* workspace);

} // namespace nw
