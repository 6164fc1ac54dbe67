#include "kernels/cuda/recurrent_kernels.h"

#include "kernels/cuda/launch.cuh"
#include "kernels/recurrent_cells.h"

namespace nw::cuda {

namespace {

__device__ inline std::size_t threadIndex()
{
    return std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

__global__ void rnnStateKernel(const float* previous, const float* fromInput, const float* fromSelf,
                               float* state, std::size_t n, bool shortcut)
{
    const std::size_t i = threadIndex();
    if (i < n)
        state[i] = nw::rnnState(previous ? previous[i] : 0.0f, fromInput[i], fromSelf[i], shortcut);
}

__global__ void gruGatesKernel(const float* az, const float* bz, const float* ar, const float* br,
                               const float* s, float* z, float* r, float* forgotten, std::size_t n)
{
    const std::size_t i = threadIndex();
    if (i < n)
        forgotten[i] = nw::gruGates(az[i], bz[i], ar[i], br[i], s[i], z[i], r[i]);
}

__global__ void gruOutputKernel(const float* a, const float* b, const float* z, const float* s,
                                bool tanhCandidate, float* c, float* out, std::size_t n)
{
    const std::size_t i = threadIndex();
    if (i < n)
        out[i] = nw::gruOutput(a[i], b[i], z[i], s[i], tanhCandidate, c[i]);
}

__global__ void gruOutputDeltaKernel(const float* outDelta, const float* future, const float* s,
                                     const float* z, const float* c, bool tanhCandidate, float* previous,
                                     float* dz, float* dc, std::size_t n)
{
    const std::size_t i = threadIndex();
    if (i < n)
        previous[i] =
            nw::gruOutputDelta(outDelta[i] + future[i], s[i], z[i], c[i], tanhCandidate, dz[i], dc[i]);
}

__global__ void gruResetDeltaKernel(const float* df, const float* r, const float* s, float* previous,
                                    float* dr, std::size_t n)
{
    const std::size_t i = threadIndex();
    if (i < n)
        previous[i] += nw::gruResetDelta(df[i], r[i], s[i], dr[i]);
}

__global__ void lstmGateKernel(const float* a, const float* b, Activation activation, float* values,
                               std::size_t n)
{
    const std::size_t i = threadIndex();
    if (i < n)
        values[i] = nw::lstmGate(a[i], b[i], activation);
}

__global__ void lstmCellKernel(const float* f, const float* i, const float* g, const float* o,
                               const float* cell, float* nextCell, float* nextHidden, float* out,
                               std::size_t n)
{
    const std::size_t j = threadIndex();
    if (j < n) {
        const float h = nw::lstmCell(f[j], i[j], g[j], o[j], cell[j], nextCell[j]);
        nextHidden[j] = h;
        out[j] = h;
    }
}

__global__ void lstmDeltasKernel(const float* outDelta, const float* hiddenDelta, float* cellDelta,
                                 const float* cell, const float* cellPrevious, const float* f, const float* i,
                                 const float* g, const float* o, float* df, float* di, float* dg, float* dout,
                                 std::size_t n)
{
    const std::size_t j = threadIndex();
    if (j < n)
        nw::lstmDeltas(outDelta[j] + hiddenDelta[j], cellDelta[j], cell[j], cellPrevious[j], f[j], i[j], g[j],
                       o[j], df[j], di[j], dg[j], dout[j]);
}

} // namespace

void rnnState(const float* previous, const float* fromInput, const float* fromSelf, float* state,
              std::size_t n, bool shortcut, cudaStream_t stream)
{
    if (n) {
        rnnStateKernel<<<blocksFor(n), kThreads, 0, stream>>>(previous, fromInput, fromSelf, state, n,
                                                              shortcut);
        launched("the [rnn] state kernel");
    }
}

void gruGates(const float* az, const float* bz, const float* ar, const float* br, const float* s, float* z,
              float* r, float* forgotten, std::size_t n, cudaStream_t stream)
{
    if (n) {
        gruGatesKernel<<<blocksFor(n), kThreads, 0, stream>>>(az, bz, ar, br, s, z, r, forgotten, n);
        launched("the [gru] gates kernel");
    }
}

void gruOutput(const float* a, const float* b, const float* z, const float* s, bool tanhCandidate, float* c,
               float* out, std::size_t n, cudaStream_t stream)
{
    if (n) {
        gruOutputKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, b, z, s, tanhCandidate, c, out, n);
        launched("the [gru] output kernel");
    }
}

void gruOutputDelta(const float* outDelta, const float* future, const float* s, const float* z,
                    const float* c, bool tanhCandidate, float* previous, float* dz, float* dc, std::size_t n,
                    cudaStream_t stream)
{
    if (n) {
        gruOutputDeltaKernel<<<blocksFor(n), kThreads, 0, stream>>>(outDelta, future, s, z, c, tanhCandidate,
                                                                    previous, dz, dc, n);
        launched("the [gru] output delta kernel");
    }
}

void gruResetDelta(const float* df, const float* r, const float* s, float* previous, float* dr, std::size_t n,
                   cudaStream_t stream)
{
    if (n) {
        gruResetDeltaKernel<<<blocksFor(n), kThreads, 0, stream>>>(df, r, s, previous, dr, n);
        launched("the [gru] reset delta kernel");
    }
}

void lstmGate(const float* a, const float* b, Activation activation, float* values, std::size_t n,
              cudaStream_t stream)
{
    if (n) {
        lstmGateKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, b, activation, values, n);
        launched("the [lstm] gate kernel");
    }
}

void lstmCell(const float* f, const float* i, const float* g, const float* o, const float* cell,
              float* nextCell, float* nextHidden, float* out, std::size_t n, cudaStream_t stream)
{
    if (n) {
        lstmCellKernel<<<blocksFor(n), kThreads, 0, stream>>>(f, i, g, o, cell, nextCell, nextHidden, out, n);
        launched("the [lstm] cell kernel");
    }
}

void lstmDeltas(const float* outDelta, const float* hiddenDelta, float* cellDelta, const float* cell,
                const float* cellPrevious, const float* f, const float* i, const float* g, const float* o,
                float* df, float* di, float* dg, float* dout, std::size_t n, cudaStream_t stream)
{
    if (n) {
        lstmDeltasKernel<<<blocksFor(n), kThreads, 0, stream>>>(
            outDelta, hiddenDelta, cellDelta, cell, cellPrevious, f, i, g, o, df, di, dg, dout, n);
        launched("the [lstm] delta kernel");
    }
}

} // namespace nw::cuda
