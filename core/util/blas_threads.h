#pragma once
// OpenBLAS starts its own thread pool when the library loads, before main() runs, and those threads
// keep waking and yielding even after openblas_set_num_threads(1). On a 2-core machine they steal
// time from our compute threads: whole runs took 1.35× as long, at random (BENCHMARKS.md). Netwright
// runs every product on its own threads, so the programs start with the pool off: when
// OPENBLAS_NUM_THREADS is unset, it is set to 1 and the program re-executes itself once.
namespace nw {

// Call first thing in main(); returns (doing nothing) when the variable is already set or the
// re-execution fails.
void restartWithoutBlasThreads(char** argv);

} // namespace nw
