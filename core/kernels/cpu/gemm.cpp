#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <cblas.h>
#include <cstdlib>
#include <omp.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace nw {

namespace {

bool configured = false;

// Denormal floats (below 1.2e-38) take the slow path in the FPU. A trained classifier produces them
// — softmax probabilities of e^−90 and the deltas they make — and training then ran a third slower.
// Flushing them to zero (FTZ/DAZ, as PyTorch's set_flush_denormal) changes nothing a network can see.
void flushDenormals()
{
#if defined(__SSE__) || defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | 0x8040); // FTZ (bit 15) and DAZ (bit 6)
#endif
}

} // namespace

void gemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc)
{
    const auto order = CblasRowMajor;
    const auto opA = transposeA ? CblasTrans : CblasNoTrans, opB = transposeB ? CblasTrans : CblasNoTrans;
    const int threads = omp_get_max_threads();
    // Inside our own parallel loops OpenBLAS stays single-threaded. A large product called from the
    // main thread (connected layers) is split over our own threads — by rows of C, or by columns when
    // there are few rows — rather than over OpenBLAS's: its threads and our idle, still spinning
    // OpenMP workers would fight for the cores.
    const bool wide = !omp_in_parallel() && double(m) * double(n) * double(k) > 4e6 && threads > 1;
    if (!wide) {
        cblas_sgemm(order, opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    const bool byRows = m >= 16 * threads;
#pragma omp parallel num_threads(threads)
    {
        const int parts = omp_get_num_threads(), part = omp_get_thread_num();
        const int size = byRows ? m : n;
        const int first = int(long(size) * part / parts), last = int(long(size) * (part + 1) / parts);
        if (last > first) {
            if (byRows) // rows r of op(A): row r of A, or column r of a transposed A
                cblas_sgemm(order, opA, opB, last - first, n, k, alpha,
                            a + (transposeA ? first : long(first) * lda), lda, b, ldb, beta,
                            c + long(first) * ldc, ldc);
            else // columns j of op(B): column j of B, or row j of a transposed B
                cblas_sgemm(order, opA, opB, m, last - first, k, alpha, a, lda,
                            b + (transposeB ? long(first) * ldb : first), ldb, beta, c + first, ldc);
        }
    }
}

namespace {

// OMP_NUM_THREADS, when it holds a positive count (its first, for a nested list "4,2"); else 0.
int threadsFromEnvironment()
{
    const char* value = std::getenv("OMP_NUM_THREADS");
    if (!value)
        return 0;
    char* end = nullptr;
    const long count = std::strtol(value, &end, 10);
    return end != value && (*end == '\0' || *end == ',') && count > 0 && count <= 4096 ? int(count) : 0;
}

} // namespace

void setComputeThreads(int threads)
{
    configured = true;
    // (the variable was set aside for every core: a user sharing a server with it got all of them)
    if (threads < 1)
        threads = threadsFromEnvironment();
    if (threads < 1)
        threads = omp_get_num_procs();
    // Our loops split the work across cores and call sgemm on cache-sized tiles from each thread, so
    // OpenBLAS itself stays single-threaded there (its threads and ours would fight for the cores).
    openblas_set_num_threads(1);
    omp_set_num_threads(threads);
    flushDenormals();
#pragma omp parallel num_threads(threads)
    flushDenormals(); // the control register is per thread: the pool's workers each set theirs
}

int computeThreads()
{
    return omp_get_max_threads();
}

int maxComputeThreads()
{
    return std::max(omp_get_num_procs(), omp_get_max_threads());
}

ComputeThreadScope::ComputeThreadScope(int threads) : previous_(omp_get_max_threads())
{
    if (threads > 0)
        omp_set_num_threads(threads);
}

ComputeThreadScope::~ComputeThreadScope()
{
    omp_set_num_threads(previous_);
}

int ComputeThreadScope::threads() const
{
    return omp_get_max_threads();
}

void ensureComputeThreads()
{
    if (!configured)
        setComputeThreads(0);
}

} // namespace nw
