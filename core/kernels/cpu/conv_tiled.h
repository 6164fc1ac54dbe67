#pragma once
// Convolution as cache-sized GEMM tiles spread over the cores.
//
// The output (filters × outH·outW) is cut into column tiles small enough that a tile's im2col block
// (K × tile floats, K = c/groups·size²) stays in L2; each tile (and, when there are fewer tiles than
// cores, each block of filters) is one task: im2col of that tile, a single-threaded sgemm, then the
// epilogue y = act(y·scale + shift) per filter (bias and folded batch norm). One pass over memory per
// layer instead of a full-size im2col matrix, and both cores busy even on 13×13 layers.
#include "kernels/cpu/activations.h"
#include "kernels/cpu/im2col.h"

#include <cstddef>

namespace nw {

struct ConvKernel {
    ConvGeometry geometry; // per group: channels = c/groups
    int groups = 1;
    int filters = 0;      // total, all groups
    const float* weights; // filters × K
    const float* scale;   // per filter (1 without batch norm)
    const float* shift;   // per filter (bias, or bias − mean·scale)
    Activation activation;
    int maxThreads; // the workspace was sized for this many threads
};

// Floats of workspace the tiled convolution needs for `threads` workers.
std::size_t convWorkspaceFloats(const ConvGeometry& geometry, int groups, int filtersPerGroup, int threads);
// One image: input c×h×w, output filters×outH×outW.
void convolveTiled(const ConvKernel& kernel, const float* input, float* output, float* workspace);

// out[r·stride + i] = act(out[r·stride + i]·scale[r] + shift[r]) for rows r < rows, i < count: the
// output pass shared by the convolution kernels.
void convEpilogue(float* out, int rows, int count, int stride, const float* scale, const float* shift,
                  Activation act);

} // namespace nw
