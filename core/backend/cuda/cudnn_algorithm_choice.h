#pragma once
// Which of cuDNN's measured convolution algorithms a layer runs: the fastest that keeps FP32 exact.
// Header-only and free of GPU calls, so the rule is tested on machines without a GPU.
//
// Left out of FP32 (the first GPU run, docs/gpu.md):
// - tensor-op results (TF32, FP16), which round to 10-bit mantissas;
// - FFT and Winograd, which compute through a transform whose rounding grows with the tile and the sum.
//   On an H200 they put weight gradients off by up to 2.5 % of their largest value, and yolov4's output
//   past 1e-3 of the CPU's.
// - scratch over 1 GiB (FFT variants can ask for several).
// The direct and GEMM-like algorithms differ from the CPU only in the order of summation.
#include <cudnn.h>

#include <cstddef>

namespace nw {

struct AlgorithmRules {
    bool tensorCores = false; // FP16 and TF32 inference: tensor-op results are what is wanted
    bool transforms = false;  // FFT and Winograd allowed (NETWRIGHT_CUDNN_TRANSFORMS=1; FP16, TF32)
    std::size_t maxScratch = std::size_t(1) << 30;
    // CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: FP32 data converted to FP16 on the tensor cores. FP16's own
    // (its data is half already); never TF32's, whose values would lose FP32's range (±65504).
    bool halfConversion = false;
};

inline bool isTransform(cudnnConvolutionFwdAlgo_t a)
{
    return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}

inline bool isTransform(cudnnConvolutionBwdDataAlgo_t a)
{
    return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

inline bool isTransform(cudnnConvolutionBwdFilterAlgo_t a)
{
    return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

// The index of the fastest allowed result (cudnnFind sorts them by time), or −1: then the caller runs
// its fallback, an exact FP32 algorithm.
template <typename Perf> int fastestAllowed(const Perf* results, int returned, const AlgorithmRules& rules)
{
    for (int i = 0; i < returned; ++i) {
        const Perf& r = results[i];
        const bool tensorOp =
            r.mathType == CUDNN_TENSOR_OP_MATH || r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
        const bool converts = r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
        if (r.status == CUDNN_STATUS_SUCCESS && (rules.tensorCores || !tensorOp) &&
            (rules.halfConversion || !converts) && (rules.transforms || !isTransform(r.algo)) &&
            r.memory <= rules.maxScratch)
            return i;
    }
    return -1;
}

} // namespace nw
