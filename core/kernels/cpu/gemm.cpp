#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <cblas.h>
#include <omp.h>

namespace nw {

namespace {
bool configured = false;
} // namespace

void gemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc)
{
    // Inside our own parallel loops OpenBLAS must stay single-threaded; a large product called from
    // the main thread (connected layers, training) may use every core through OpenBLAS instead.
    const bool wide =
        !omp_in_parallel() && double(m) * double(n) * double(k) > 4e6 && omp_get_max_threads() > 1;
    if (wide)
        openblas_set_num_threads(omp_get_max_threads());
    cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (wide) // back to one thread before any parallel loop of ours calls sgemm again
        openblas_set_num_threads(1);
}

void setComputeThreads(int threads)
{
    configured = true;
    if (threads < 1)
        threads = omp_get_num_procs();
    // Our loops split the work across cores and call sgemm on cache-sized tiles from each thread, so
    // OpenBLAS itself stays single-threaded there (its threads and ours would fight for the cores).
    openblas_set_num_threads(1);
    omp_set_num_threads(threads);
}

int computeThreads()
{
    return omp_get_max_threads();
}

int maxComputeThreads()
{
    return std::max(omp_get_num_procs(), omp_get_max_threads());
}

void ensureComputeThreads()
{
    if (!configured)
        setComputeThreads(0);
}

} // namespace nw
