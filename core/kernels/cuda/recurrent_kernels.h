#pragma once
// Launchers of the recurrent layers' element-wise CUDA kernels (recurrent_kernels.cu), callable from plain
// C++: each applies one formula of kernels/recurrent_cells.h over n values (one time step of the batch).
#include "kernels/cpu/activations.h"

#include <cstddef>
#include <cuda_runtime.h>

namespace nw::cuda {

// [rnn]: state = rnnState(previous, fromInput, fromSelf, shortcut).
void rnnState(const float* previous, const float* fromInput, const float* fromSelf, float* state,
              std::size_t n, bool shortcut, cudaStream_t stream);

// [gru] forward: z, r and forgotten = r∘s from the gate blocks' outputs (gruGates); then the candidate c
// and out = the next state (gruOutput).
void gruGates(const float* az, const float* bz, const float* ar, const float* br, const float* s, float* z,
              float* r, float* forgotten, std::size_t n, cudaStream_t stream);
void gruOutput(const float* a, const float* b, const float* z, const float* s, bool tanhCandidate, float* c,
               float* out, std::size_t n, cudaStream_t stream);
// [gru] backward: d = outDelta + future; previous = the direct part (gruOutputDelta), dz, dc.
void gruOutputDelta(const float* outDelta, const float* future, const float* s, const float* z,
                    const float* c, bool tanhCandidate, float* previous, float* dz, float* dc, std::size_t n,
                    cudaStream_t stream);
// previous += gruResetDelta(df, r, s); dr its pre-activation delta.
void gruResetDelta(const float* df, const float* r, const float* s, float* previous, float* dr, std::size_t n,
                   cudaStream_t stream);

// [lstm] forward: values = lstmGate(a, b, activation); then the next cell and hidden (lstmCell), the
// hidden also written to out.
void lstmGate(const float* a, const float* b, Activation activation, float* values, std::size_t n,
              cudaStream_t stream);
void lstmCell(const float* f, const float* i, const float* g, const float* o, const float* cell,
              float* nextCell, float* nextHidden, float* out, std::size_t n, cudaStream_t stream);
// [lstm] backward of one step (lstmDeltas): dh = outDelta + hiddenDelta; cellDelta is updated in place.
void lstmDeltas(const float* outDelta, const float* hiddenDelta, float* cellDelta, const float* cell,
                const float* cellPrevious, const float* f, const float* i, const float* g, const float* o,
                float* df, float* di, float* dg, float* dout, std::size_t n, cudaStream_t stream);

} // namespace nw::cuda
