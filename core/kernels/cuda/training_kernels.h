#pragma once
// Launchers of the CUDA training kernels (training_kernels.cu): the backward passes and the solvers'
// updates, callable from plain C++. Deltas follow the CPU's convention (−∂loss/∂value, added into the
// inputs' deltas); each kernel computes the formula of its CPU twin, named below.
#include "kernels/cpu/activations.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/lrn_formulas.h"
#include "kernels/shortcut_weights.h"
#include "kernels/solver_formulas.h"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace nw::cuda {

// delta[i] *= f'(x[i]) (kernels/cpu/activations.h): from the outputs y where gradientFromOutput(a),
// else from the saved inputs x.
void multiplyByActivationGradient(const float* y, const float* x, std::size_t n, Activation a, float* delta,
                                  cudaStream_t stream);
// Max-pool (inference_kernels.h's rule) recording each output's winner as an index into `in`.
void maxpoolRecordingIndexes(const float* in, float* out, std::int64_t* indexes, int planes, int w, int h,
                             int outW, int outH, int size, int strideX, int strideY, int offset,
                             cudaStream_t stream);
// inputDelta[indexes[i]] += delta[i] (windows may overlap: atomic adds).
void maxpoolBackward(const float* delta, const std::int64_t* indexes, std::size_t n, float* inputDelta,
                     cudaStream_t stream);
// Global average pooling's backward: every value of plane p gets delta[p] / plane.
void averagePlanesBackward(const float* delta, float* inputDelta, int planes, int plane, cudaStream_t stream);

// into[i] += alpha·from[i].
void addScaled(const float* from, float* into, std::size_t n, float alpha, cudaStream_t stream);
// rows × width block: into[r·intoStride + i] += from[r·fromStride + i] ([route]'s backward per source).
void addRows(const float* from, std::size_t fromStride, float* into, std::size_t intoStride,
             std::size_t width, int rows, cudaStream_t stream);

// [reorg]'s backward: inputDelta[from] += delta[to] over the same pairs as the forward.
void reorgBackward(const float* delta, float* inputDelta, int batch, std::size_t inSize, std::size_t outSize,
                   const ReorgMap& map, cudaStream_t stream);
// [shortcut]'s backward over one source's overlap: inputDelta[o] += (alpha − 1)·delta[o] (null: none),
// sourceDelta[a] += beta·delta[o] (null: none).
void addOverlapBackward(const float* delta, float* inputDelta, float* sourceDelta, int batch,
                        std::size_t outSize, std::size_t fromSize, const OverlapMap& map, float alpha,
                        float beta, cudaStream_t stream);
// into += a·b element by element ([dropout]'s backward through its mask).
void addProduct(const float* a, const float* b, float* into, std::size_t n, cudaStream_t stream);

// [scale_channels]' backward to its scales: scaleDelta[b, s] += Σ delta·from over the values scale s
// multiplied (ScaleMap).
void addScaleSums(const float* delta, const float* from, float* scaleDelta, int batch, const ScaleMap& map,
                  cudaStream_t stream);

// [crop]'s backward: inputDelta[window's source] += scale·delta (one output per input value at most).
void cropBackward(const float* delta, float* inputDelta, int batch, std::size_t inSize, std::size_t outSize,
                  const CropMap& map, const CropPlacement* placements, float scale, cudaStream_t stream);

// AlexeyAB's weighted [shortcut] (kernels/shortcut_weights.h). A weight column is one channel
// (per_channel: perInput = channels) or the whole item (perInput = 1).
struct ShortcutWeighting {
    std::size_t plane, perInput, inputs;
    ShortcutNormalization normalization;
};
// used ← the raw weights normalised, column by column.
void normalizeShortcutWeights(const float* raw, float* used, const ShortcutWeighting& s, cudaStream_t stream);
// Over out's values (batch × outSize): out = (accumulate ? out : 0) + x·w[column], x read where its
// item (xSize) reaches, 0 beyond.
void weightedGather(const float* x, std::size_t xSize, float* out, std::size_t outSize, int batch,
                    const float* w, const ShortcutWeighting& s, bool accumulate, cudaStream_t stream);
// Over into's values (batch × intoSize): into += w[column]·delta where delta's item (deltaSize) reaches.
void weightedScatter(const float* delta, std::size_t deltaSize, float* into, std::size_t intoSize, int batch,
                     const float* w, const ShortcutWeighting& s, cudaStream_t stream);
// g[column] += Σ delta·x over the column's values of every item (x's item: xSize, read where it reaches).
void addWeightSums(const float* delta, std::size_t deltaSize, const float* x, std::size_t xSize, int batch,
                   const ShortcutWeighting& s, double* g, cudaStream_t stream);
// gradient += −∂loss/∂raw from g (−∂loss/∂used), column by column.
void addShortcutWeightGradient(const float* raw, const float* used, const double* g, float* gradient,
                               const ShortcutWeighting& s, cudaStream_t stream);

// [local]'s backward (localForward's terms): weightGradient += δ·column, biasGradient += δ (both null:
// dont_update), inputDelta += Σ_f δ·w at each column's source (atomic: windows overlap).
void localBackward(const float* delta, const float* in, const float* weights, float* weightGradient,
                   float* biasGradient, float* inputDelta, int batch, const ColumnMap& map, int filters,
                   cudaStream_t stream);

// [l2norm]'s backward, one thread per pixel (kernels/l2norm_formulas.h).
void l2normBackward(const float* y, const float* delta, const float* norms, float* inputDelta, int batch,
                    std::size_t channels, std::size_t plane, cudaStream_t stream);

// [normalization]'s backward, one thread per pixel column (kernels/lrn_formulas.h; `window` in device
// memory), added into inputDelta.
void lrnBackward(const float* x, const float* delta, const float* norms, float* inputDelta, int batch,
                 int channels, std::size_t plane, LrnWindowView window, float alpha, float beta,
                 cudaStream_t stream);

// The solvers' updates over one array (kernels/solver_formulas.h); the gradient is cleared.
void sgdStep(float* weights, float* velocity, float* gradient, std::size_t n, float decay, float scale,
             float momentum, cudaStream_t stream);
void adamStep(float* weights, float* m, float* v, float* gradient, std::size_t n, float decay,
              const AdamStep& step, cudaStream_t stream);

} // namespace nw::cuda
