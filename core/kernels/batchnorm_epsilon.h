#pragma once
// Batch norm's epsilon: y = (x − mean)/sqrt(variance + ε). Shared by the CPU and CUDA kernels (a C++17
// header: the CUDA sources compile as C++17).

namespace nw {

constexpr float kBatchNormEpsilon = 1e-5f;

} // namespace nw
