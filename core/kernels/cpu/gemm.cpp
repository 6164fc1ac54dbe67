#include "kernels/cpu/gemm.h"

#include <cblas.h>
#include <omp.h>

namespace nw {

void gemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc)
{
    cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void setComputeThreads(int threads)
{
    if (threads < 1)
        threads = omp_get_num_procs();
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads);
}

int computeThreads()
{
    return omp_get_max_threads();
}

} // namespace nw
