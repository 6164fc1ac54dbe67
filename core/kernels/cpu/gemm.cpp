#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <cblas.h>
#include <omp.h>

namespace nw {

void gemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc)
{
    cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

namespace {
bool configured = false;
}

void setComputeThreads(int threads)
{
    configured = true;
    if (threads < 1)
        threads = omp_get_num_procs();
    // Our loops split the work across cores and call sgemm on cache-sized tiles from each thread, so
    // OpenBLAS itself stays single-threaded (its threads and ours would otherwise fight for 2 cores).
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
