#include "backend/cuda/cudnn_convolution.h"

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cudnn_algorithm_choice.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace nw {

namespace {

constexpr int kCandidates = 8;

// NETWRIGHT_CUDNN_TRANSFORMS=1: FFT and Winograd allowed in FP32 too, for measuring what leaving them
// out costs (cudnn_algorithm_choice.h says why they are left out).
bool transformsAllowed()
{
    static const bool allowed = [] {
        const char* value = std::getenv("NETWRIGHT_CUDNN_TRANSFORMS");
        return value && *value && std::string(value) != "0";
    }();
    return allowed;
}

// NETWRIGHT_CUDNN_LOG=1: each choice on stderr (shape, direction, algorithm number, its time).
void logChoice(const char* direction, const ConvolutionShape& s, int batch, int algorithm, float ms)
{
    static const bool wanted = std::getenv("NETWRIGHT_CUDNN_LOG") != nullptr;
    if (wanted)
        std::fprintf(stderr, "cuDNN %s: %dx%dx%d -> %d filters %dx%d/%d, batch %d: algorithm %d (%.3f ms)\n",
                     direction, s.width, s.height, s.channels, s.filters, s.size, s.size, s.strideX, batch,
                     algorithm, double(ms));
}

// The fastest allowed algorithm of Find's results, or `fallback` (exact FP32); `chosen`: the index
// taken, −1 for the fallback. FP16 and TF32 inference want tensor cores and transforms.
template <typename Perf, typename Algorithm>
Algorithm fastestExact(const Perf* results, int returned, Algorithm fallback,
                       CudnnConvolution::Precision precision, int& chosen)
{
    using Precision = CudnnConvolution::Precision;
    AlgorithmRules rules;
    rules.tensorCores = precision != Precision::fp32;
    rules.transforms = precision != Precision::fp32 || transformsAllowed();
    rules.halfConversion = precision == Precision::fp16;
    chosen = fastestAllowed(results, returned, rules);
    return chosen >= 0 ? results[chosen].algo : fallback;
}

// Find's candidates, measured in trial buffers it allocates itself; where the GPU is too full for them
// (a large batch), the heuristics' candidates (Get_v7, nothing allocated, in the same result type),
// those whose scratch would not fit in half the free memory left out.
template <typename Perf, typename Find, typename Guess>
int candidates(Perf* results, Find find, Guess guess, const char* what)
{
    int returned = 0;
    cudnnStatus_t status = find(results, &returned);
    if (cudnnOutOfMemory(status)) {
        cudaGetLastError(); // the failed allocation is not an error of the stream's
        status = guess(results, &returned);
        std::size_t free = 0, total = 0;
        if (status == CUDNN_STATUS_SUCCESS && cudaMemGetInfo(&free, &total) == cudaSuccess)
            for (int i = 0; i < returned; ++i)
                if (results[i].memory > free / 2)
                    results[i].status = CUDNN_STATUS_NOT_SUPPORTED; // (fastestExact passes over it)
    }
    cudnnCheck(status, what);
    return returned;
}

} // namespace

CudnnConvolution::~CudnnConvolution()
{
    release();
}

void CudnnConvolution::release()
{
    if (input_)
        cudnnDestroyTensorDescriptor(input_);
    if (output_)
        cudnnDestroyTensorDescriptor(output_);
    if (filter_)
        cudnnDestroyFilterDescriptor(filter_);
    if (convolution_)
        cudnnDestroyConvolutionDescriptor(convolution_);
    input_ = output_ = nullptr;
    filter_ = nullptr;
    convolution_ = nullptr;
    batch_ = 0;
}

void CudnnConvolution::plan(GpuExec& gpu, const ConvolutionShape& s, int batch)
{
    release();
    const bool half = precision_ == Precision::fp16;
    const bool reduced = precision_ != Precision::fp32; // tensor cores wanted
    // FP16: half data, FP32 accumulation (cuDNN's "pseudo half" configuration). TF32: FP32 data.
    const cudnnDataType_t data = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    cudnnCheck(cudnnCreateTensorDescriptor(&input_), "cudnnCreateTensorDescriptor");
    cudnnCheck(cudnnCreateTensorDescriptor(&output_), "cudnnCreateTensorDescriptor");
    cudnnCheck(cudnnCreateFilterDescriptor(&filter_), "cudnnCreateFilterDescriptor");
    cudnnCheck(cudnnCreateConvolutionDescriptor(&convolution_), "cudnnCreateConvolutionDescriptor");
    cudnnCheck(
        cudnnSetTensor4dDescriptor(input_, CUDNN_TENSOR_NCHW, data, batch, s.channels, s.height, s.width),
        "describing a convolution's input");
    cudnnCheck(cudnnSetFilter4dDescriptor(filter_, data, CUDNN_TENSOR_NCHW, s.filters, s.channels / s.groups,
                                          s.size, s.size),
               "describing a convolution's weights");
    cudnnCheck(cudnnSetConvolution2dDescriptor(convolution_, s.pad, s.pad, s.strideY, s.strideX, s.dilation,
                                               s.dilation, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
               "describing a convolution");
    cudnnCheck(cudnnSetConvolutionGroupCount(convolution_, s.groups), "cudnnSetConvolutionGroupCount");
    cudnnCheck(cudnnSetConvolutionMathType(convolution_, reduced ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
               "cudnnSetConvolutionMathType");
    int n = 0, c = 0, h = 0, wOut = 0;
    cudnnCheck(cudnnGetConvolution2dForwardOutputDim(convolution_, input_, filter_, &n, &c, &h, &wOut),
               "cudnnGetConvolution2dForwardOutputDim");
    if (c != s.filters || h != s.outHeight || wOut != s.outWidth)
        throw GpuError("internal error: cuDNN computes a " + std::to_string(wOut) + "x" + std::to_string(h) +
                       "x" + std::to_string(c) + " output where the network has " +
                       std::to_string(s.outWidth) + "x" + std::to_string(s.outHeight) + "x" +
                       std::to_string(s.filters));
    cudnnCheck(cudnnSetTensor4dDescriptor(output_, CUDNN_TENSOR_NCHW, data, batch, s.filters, s.outHeight,
                                          s.outWidth),
               "describing a convolution's output");
    // Measured once per shape and batch: the fastest exact FP32 algorithm (cudnn_algorithm_choice.h;
    // FP16 and TF32: the fastest).
    cudnnConvolutionFwdAlgoPerf_t results[kCandidates];
    const cudnnHandle_t cudnn = gpu.cudnn();
    const int returned = candidates(
        results,
        [&](cudnnConvolutionFwdAlgoPerf_t* r, int* count) {
            return cudnnFindConvolutionForwardAlgorithm(cudnn, input_, filter_, convolution_, output_,
                                                        kCandidates, count, r);
        },
        [&](cudnnConvolutionFwdAlgoPerf_t* r, int* count) {
            return cudnnGetConvolutionForwardAlgorithm_v7(cudnn, input_, filter_, convolution_, output_,
                                                          kCandidates, count, r);
        },
        "choosing a convolution algorithm");
    int chosen = -1;
    algorithm_ =
        fastestExact(results, returned, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, precision_, chosen);
    logChoice(half      ? "forward FP16"
              : reduced ? "forward TF32"
                        : "forward",
              s, batch, algorithm_, chosen >= 0 ? results[chosen].time : -1);
    if (reduced && chosen >= 0) // run it with the math it was timed with
        cudnnCheck(cudnnSetConvolutionMathType(convolution_, results[chosen].mathType),
                   "cudnnSetConvolutionMathType");
    cudnnCheck(cudnnGetConvolutionForwardWorkspaceSize(gpu.cudnn(), input_, filter_, convolution_, output_,
                                                       algorithm_, &workspaceBytes_),
               "sizing a convolution's workspace");
    batch_ = batch;
    shape_ = s;
    exec_ = gpu.id();
    dataPlanned_ = filterPlanned_ = false;
}

void CudnnConvolution::planBackwardFilter(GpuExec& gpu)
{
    if (precision_ != Precision::fp32)
        throw GpuError(
            "internal error: an FP16 or TF32 convolution has no backward (they are for inference)");
    cudnnConvolutionBwdFilterAlgoPerf_t results[kCandidates];
    const cudnnHandle_t cudnn = gpu.cudnn();
    const int returned = candidates(
        results,
        [&](cudnnConvolutionBwdFilterAlgoPerf_t* r, int* count) {
            return cudnnFindConvolutionBackwardFilterAlgorithm(cudnn, input_, output_, convolution_, filter_,
                                                               kCandidates, count, r);
        },
        [&](cudnnConvolutionBwdFilterAlgoPerf_t* r, int* count) {
            return cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnn, input_, output_, convolution_,
                                                                 filter_, kCandidates, count, r);
        },
        "choosing a convolution's weight-gradient algorithm");
    int chosen = -1;
    filterAlgorithm_ =
        fastestExact(results, returned, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, precision_, chosen);
    logChoice("weight gradient", shape_, batch_, filterAlgorithm_, chosen >= 0 ? results[chosen].time : -1);
    cudnnCheck(cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnn, input_, output_, convolution_, filter_,
                                                              filterAlgorithm_, &filterWorkspaceBytes_),
               "sizing a convolution's weight-gradient workspace");
    filterPlanned_ = true;
}

void CudnnConvolution::planBackwardData(GpuExec& gpu)
{
    if (precision_ != Precision::fp32)
        throw GpuError(
            "internal error: an FP16 or TF32 convolution has no backward (they are for inference)");
    cudnnConvolutionBwdDataAlgoPerf_t results[kCandidates];
    const cudnnHandle_t cudnn = gpu.cudnn();
    const int returned = candidates(
        results,
        [&](cudnnConvolutionBwdDataAlgoPerf_t* r, int* count) {
            return cudnnFindConvolutionBackwardDataAlgorithm(cudnn, filter_, output_, convolution_, input_,
                                                             kCandidates, count, r);
        },
        [&](cudnnConvolutionBwdDataAlgoPerf_t* r, int* count) {
            return cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnn, filter_, output_, convolution_, input_,
                                                               kCandidates, count, r);
        },
        "choosing a convolution's input-gradient algorithm");
    int chosen = -1;
    dataAlgorithm_ = fastestExact(results, returned, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, precision_, chosen);
    logChoice("input gradient", shape_, batch_, dataAlgorithm_, chosen >= 0 ? results[chosen].time : -1);
    cudnnCheck(cudnnGetConvolutionBackwardDataWorkspaceSize(cudnn, filter_, output_, convolution_, input_,
                                                            dataAlgorithm_, &dataWorkspaceBytes_),
               "sizing a convolution's input-gradient workspace");
    dataPlanned_ = true;
}

void CudnnConvolution::ensurePlanned(GpuExec& gpu, const ConvolutionShape& shape, int batch,
                                     Direction direction)
{
    if (batch != batch_ || gpu.id() != exec_)
        plan(gpu, shape, batch);
    if (direction == Direction::backwardData && !dataPlanned_)
        planBackwardData(gpu);
    if (direction == Direction::backwardFilter && !filterPlanned_)
        planBackwardFilter(gpu);
}

void CudnnConvolution::forward(GpuExec& gpu, const ConvolutionShape& shape, int batch, const void* x,
                               const void* w, void* y, bool accumulate)
{
    ensurePlanned(gpu, shape, batch, Direction::forward);
    float* workspace = gpu.workspace((workspaceBytes_ + sizeof(float) - 1) / sizeof(float));
    const float one = 1.0f, zero = 0.0f;
    cudnnCheck(cudnnConvolutionForward(gpu.cudnn(), &one, input_, x, filter_, w, convolution_, algorithm_,
                                       workspace, workspaceBytes_, accumulate ? &one : &zero, output_, y),
               "a convolution");
}

void CudnnConvolution::backwardFilter(GpuExec& gpu, const ConvolutionShape& shape, int batch, const float* x,
                                      const float* dy, float* dw)
{
    ensurePlanned(gpu, shape, batch, Direction::backwardFilter);
    float* workspace = gpu.workspace((filterWorkspaceBytes_ + sizeof(float) - 1) / sizeof(float));
    const float one = 1.0f;
    cudnnCheck(cudnnConvolutionBackwardFilter(gpu.cudnn(), &one, input_, x, output_, dy, convolution_,
                                              filterAlgorithm_, workspace, filterWorkspaceBytes_, &one,
                                              filter_, dw),
               "a convolution's weight gradient");
}

void CudnnConvolution::backwardData(GpuExec& gpu, const ConvolutionShape& shape, int batch, const float* w,
                                    const float* dy, float* dx)
{
    ensurePlanned(gpu, shape, batch, Direction::backwardData);
    float* workspace = gpu.workspace((dataWorkspaceBytes_ + sizeof(float) - 1) / sizeof(float));
    const float one = 1.0f;
    cudnnCheck(cudnnConvolutionBackwardData(gpu.cudnn(), &one, filter_, w, output_, dy, convolution_,
                                            dataAlgorithm_, workspace, dataWorkspaceBytes_, &one, input_, dx),
               "a convolution's input gradient");
}

} // namespace nw
