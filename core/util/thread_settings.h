#pragma once
// Thread settings that have to be in the environment before the libraries load, so the programs set
// them and re-execute themselves once (only when unset; a user's own values win):
// - OPENBLAS_NUM_THREADS=1: OpenBLAS starts its own thread pool when the library loads, and those
//   threads keep waking and yielding although Netwright runs every product on its own threads; on a
//   2-core machine whole runs took 1.35× as long, at random.
// - GOMP_SPINCOUNT=100000: idle OpenMP workers spin a thirtieth of libgomp's default before sleeping;
//   yolov3-tiny inference 46.7 → 39 ms, training unchanged (BENCHMARKS.md).
namespace nw {

// Call first thing in main() (netwright-cli: for the commands that run networks); returns (doing nothing)
// when both are set or re-executing fails.
void restartWithThreadSettings(char** argv);

// The kernel set OpenBLAS chose when it loaded ("Cooperlake", "Haswell", ...: OPENBLAS_CORETYPE forces
// one), for benchmark reports.
const char* blasCoreName();

} // namespace nw
