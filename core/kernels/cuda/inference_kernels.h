#pragma once
// Launchers of the CUDA inference kernels (inference_kernels.cu), callable from plain C++: each layer's
// GPU forward (next to its CPU forward in core/layers/) calls these on the GpuExec's stream. Layouts are
// the CPU's: NCHW floats.
#include "kernels/cpu/activations.h"
#include "kernels/cuda/index_maps.h"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace nw::cuda {

// In place: x = f(x).
void activate(float* x, std::size_t n, Activation a, cudaStream_t stream);
// In place per channel c of each batch item: x = f(x·scale_c + shift_c), where batch norm folds in as
// scale = scales/sqrt(variance + eps), shift = biases − mean·scale (scales null: scale 1, shift = bias).
void scaleShiftActivate(float* x, int batch, int channels, int plane, const float* biases,
                        const float* scales, const float* mean, const float* variance, Activation a,
                        cudaStream_t stream);
// Darknet's max-pool: window origin (x·stride − padding/2); outside the image does not count.
void maxpool(const float* in, float* out, int planes, int w, int h, int outW, int outH, int size, int strideX,
             int strideY, int offset, cudaStream_t stream);
// maxpool_depth (maxpool_window.h's maxpoolDepth) over n outputs; `indexes` (null at inference) gets
// each output's winner.
void maxpoolDepth(const float* in, float* out, std::int64_t* indexes, std::size_t n, std::size_t plane,
                  int inC, int outC, cudaStream_t stream);
// [upsample]'s two directions, on `planes` planes of a small image (w × h) and a big one stored bigW ×
// bigH (at least w·s × h·s; a larger one keeps a remainder outside the blocks):
// big[y][x] (+)= scale·small[y/s][x/s] over the blocks (upsampling; downsampling's backward);
void blockSpread(const float* small, int planes, int w, int h, int s, float scale, float* big, int bigW,
                 int bigH, bool accumulate, cudaStream_t stream);
// small[y][x] (+)= scale·Σ big over its s × s block (downsampling; upsampling's backward).
void blockSum(const float* big, int bigW, int bigH, float* small, int planes, int w, int h, int s,
              float scale, bool accumulate, cudaStream_t stream);
// [normalization] (LRN), one thread per pixel column (kernels/lrn_formulas.h); norms kept unless null.
void lrnForward(const float* in, float* out, float* norms, int batch, int channels, std::size_t plane,
                int size, float alpha, float beta, float kappa, cudaStream_t stream);
// out = f(a + b), the same shape (the plain [shortcut]).
void addActivate(const float* a, const float* b, float* out, std::size_t n, float alpha, float beta,
                 Activation act, cudaStream_t stream);
// The [yolo] head at inference: logistic on x, y, objectness and classes (unless new_coords), then
// x, y scaled by scale_x_y around the cell centre. `x` holds batch × anchors × (5 + classes) planes.
// `gaussian` ([Gaussian_yolo]): (9 + classes) planes x, σx, y, σy, tw, σw, th, σh, obj, classes, the
// logistic on all but tw, th (yolo.cpp's CPU forward).
void yoloActivate(float* x, int batch, int anchors, int classes, int plane, bool logistic, float scaleXY,
                  cudaStream_t stream, bool gaussian = false);

// out (batch × outSize) = the input moved by [reorg] (zeros where nothing moves: `extra`).
void reorg(const float* in, float* out, int batch, std::size_t inSize, std::size_t outSize,
           const ReorgMap& map, cudaStream_t stream);

// Over the overlap: out = alpha·out + beta·source, per batch item (outSize, fromSize: item sizes).
void addOverlap(float* out, const float* source, int batch, std::size_t outSize, std::size_t fromSize,
                const OverlapMap& map, float alpha, float beta, cudaStream_t stream);
// out = a·b element by element ([dropout]'s mask).
void multiply(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);

// [scale_channels]: out = a · its scale (ScaleMap), over batch items; `accumulate`: out += instead
// (the backward pass of the source's delta).
void multiplyByScales(const float* a, const float* scales, float* out, int batch, const ScaleMap& map,
                      bool accumulate, cudaStream_t stream);

// [crop]: out = in·scale + shift over each item's window (placements: one per item, on the device).
void crop(const float* in, float* out, int batch, std::size_t inSize, std::size_t outSize, const CropMap& map,
          const CropPlacement* placements, float scale, float shift, cudaStream_t stream);

// [local] (locally connected): out[b, f, j] = biases[f·l + j] + Σ_r weights[(j·filters + f)·k + r] ·
// the unrolled input (ColumnMap), l locations, k = channels·size² rows.
void localForward(const float* in, const float* weights, const float* biases, float* out, int batch,
                  const ColumnMap& map, int filters, cudaStream_t stream);

// [l2norm]: each pixel's channel vector divided by its length (kernels/l2norm_formulas.h), the lengths
// kept in norms (batch × plane).
void l2normalize(float* x, float* norms, int batch, std::size_t channels, std::size_t plane,
                 cudaStream_t stream);

// FP16 inference (GpuExec::halfPrecision): n floats rounded to IEEE half (round to nearest even, ±∞
// beyond 65504) into `out` (n halves), and back.
void toHalf(const float* in, void* out, std::size_t n, cudaStream_t stream);
void toFloat(const void* in, float* out, std::size_t n, cudaStream_t stream);

// Each channel's mean over its plane: out[b·channels + c].
void averagePlanes(const float* in, float* out, int planes, int plane, cudaStream_t stream);
// Softmax over `groups` runs of n consecutive values (x / temperature, shifted by the maximum).
void softmax(const float* in, float* out, int groups, int n, float temperature, cudaStream_t stream);
// A run of consecutive values normalised on its own: one sibling group of a class tree.
struct SoftmaxGroup {
    int offset, size;
};
// Softmax over each of `groupCount` groups of every batch item (items itemSize apart): darknet9000's
// tree softmax. `groups` is in device memory.
void groupedSoftmax(const float* in, float* out, int batch, std::size_t itemSize, const SoftmaxGroup* groups,
                    int groupCount, float temperature, cudaStream_t stream);

} // namespace nw::cuda
