#pragma once
// Row-major single-precision GEMM through OpenBLAS: C = alpha·op(A)·op(B) + beta·C.
namespace nw {

void gemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc);
// Threads OpenBLAS and the parallel loops may use (0: OMP_NUM_THREADS when set, else every core).
void setComputeThreads(int threads);
int computeThreads();
// The most threads a forward pass may use (workspaces are sized for it): the number of cores.
int maxComputeThreads();
// Applies the default (all cores, single-threaded OpenBLAS) unless setComputeThreads was called.
void ensureComputeThreads();

// `threads` for the parallel loops started by the calling thread until destroyed (OpenMP keeps the
// count per thread, so a training worker and a detection worker can each have their own); 0 keeps
// the current count.
class ComputeThreadScope {
public:
    explicit ComputeThreadScope(int threads);
    ~ComputeThreadScope();
    ComputeThreadScope(const ComputeThreadScope&) = delete;
    ComputeThreadScope& operator=(const ComputeThreadScope&) = delete;
    int threads() const; // what the loops use now

private:
    int previous_;
};

} // namespace nw
