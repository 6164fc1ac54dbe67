#pragma once
// Winograd F(4×4, 3×3) for 3×3 stride-1 convolutions (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): each 4×4 block of outputs comes from a 6×6 input tile with
// 36 multiplications per (filter, channel) pair instead of 144. The products become 36 independent
// GEMMs, U[ξ] (filters × channels) · V[ξ] (channels × tiles), between the transformed weights (done
// a few filters at a time in each thread's workspace, so the 4× larger transformed weights never
// stay in memory) and the transformed input tiles; the output transform adds back the
// bias/batch-norm scale and shift and the activation, like the tiled GEMM path.
//
// Exact in real arithmetic; in float the result differs from the direct sum by a few ulps of the
// largest term (the transforms scale by up to 8 and 1/24), which tests bound against the GEMM path.
#include "kernels/cpu/activations.h"
#include "kernels/cpu/im2col.h"

#include <cstddef>
#include <vector>

namespace nw {

constexpr int kWinogradPoints = 36; // a 6×6 transformed tile

// Off: every convolution uses the tiled GEMM path (for comparisons: `netwright-cli bench --no-winograd`,
// tests). Read when a layer is built.
void setWinogradEnabled(bool enabled);

// True where this kernel applies: 3×3, stride 1, no dilation, one group.
bool winogradApplies(const ConvGeometry& geometry, int groups);
// Whether it is also the faster choice for this layer's shape (few channels or filters keep GEMM).
bool winogradPays(const ConvGeometry& geometry, int groups, int filters);

// weights: filters × channels × 3 × 3 (Darknet's order) → 36 × filters × channels, in double: the
// reference the kernel's own float transform (done a few filters at a time, in the workspace) is
// tested against.
void winogradTransformWeights(const float* weights, int filters, int channels,
                              std::vector<float>& transformed);
// What the kernel computes for those weights, in its own float transform (the test compares it with the
// above; training passes use it, into 36 × filters × channels floats at `transformed`).
void winogradTransformWeightsFast(const float* weights, int filters, int channels,
                                  std::vector<float>& transformed);
void winogradTransformWeightsFast(const float* weights, int filters, int channels, float* transformed);

struct WinogradKernel {
    ConvGeometry geometry;
    int filters = 0;
    const float* weights; // filters × channels × 3 × 3, transformed a few filters at a time as used
    const float* scale;   // per filter
    const float* shift;   // per filter
    Activation activation;
    int maxThreads;          // the workspace was sized for this many threads
    bool accumulate = false; // output += result (the input gradient of a layer with several consumers)
    // Optional: the weights already transformed (winogradTransformWeights' layout). Layers with few
    // weights and many tiles keep them, since they would be transformed again for every block.
    const float* transformed = nullptr;
};

// Whether a layer should keep its weights transformed: at most this many filter × channel pairs
// (2.4 MB transformed), where transforming per block would cost more than the memory.
constexpr std::size_t kKeptTransformPairs = 16 * 1024;

std::size_t winogradWorkspaceFloats(const ConvGeometry& geometry, int filters, int images, int threads);
// `images` images side by side: input images × channels×h×w, output images × filters×outH×outW. The
// tiles of all images form one set, so a batch of small images still makes wide products.
void convolveWinograd(const WinogradKernel& kernel, int images, const float* input, float* output,
                      float* workspace);

} // namespace nw
