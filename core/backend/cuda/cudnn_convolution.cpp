#include "backend/cuda/cudnn_convolution.h"

#include "backend/cuda/cuda_check.h"

#include <string>

namespace nw {

namespace {

constexpr int kCandidates = 8;

// The fastest of Find's results (sorted by time) that does not round through tensor cores (Find's
// labels for FP32 results vary between versions, so only TF32/FP16 tensor-op results are excluded) and
// whose scratch stays under 1 GiB (FFT variants can ask for several); `fallback` always runs in FP32.
// `tensorCores`: FP16 inference, where tensor-op results are what is wanted.
// (`chosen`, when given: the index of the result taken, −1 for the fallback.)
template <typename Perf, typename Algorithm>
Algorithm fastestExact(const Perf* results, int returned, Algorithm fallback, bool tensorCores = false,
                       int* chosen = nullptr)
{
    for (int i = 0; i < returned; ++i)
        if (results[i].status == CUDNN_STATUS_SUCCESS &&
            (tensorCores || (results[i].mathType != CUDNN_TENSOR_OP_MATH &&
                             results[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)) &&
            results[i].memory <= (std::size_t(1) << 30)) {
            if (chosen)
                *chosen = i;
            return results[i].algo;
        }
    if (chosen)
        *chosen = -1;
    return fallback;
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
    // FP16: half data, FP32 accumulation (cuDNN's "pseudo half" configuration).
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
    cudnnCheck(cudnnSetConvolutionMathType(convolution_, half ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
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
    // Measured once per shape and batch: the fastest algorithm that computes in FP32 (FP16: the fastest).
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
    algorithm_ = fastestExact(results, returned, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, half, &chosen);
    if (half && chosen >= 0) // run it with the math it was timed with
        cudnnCheck(cudnnSetConvolutionMathType(convolution_, results[chosen].mathType),
                   "cudnnSetConvolutionMathType");
    cudnnCheck(cudnnGetConvolutionForwardWorkspaceSize(gpu.cudnn(), input_, filter_, convolution_, output_,
                                                       algorithm_, &workspaceBytes_),
               "sizing a convolution's workspace");
    batch_ = batch;
    exec_ = gpu.id();
    dataPlanned_ = filterPlanned_ = false;
}

void CudnnConvolution::planBackwardFilter(GpuExec& gpu)
{
    if (precision_ != Precision::fp32)
        throw GpuError("internal error: an FP16 convolution has no backward (FP16 is for inference)");
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
    filterAlgorithm_ = fastestExact(results, returned, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0);
    cudnnCheck(cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnn, input_, output_, convolution_, filter_,
                                                              filterAlgorithm_, &filterWorkspaceBytes_),
               "sizing a convolution's weight-gradient workspace");
    filterPlanned_ = true;
}

void CudnnConvolution::planBackwardData(GpuExec& gpu)
{
    if (precision_ != Precision::fp32)
        throw GpuError("internal error: an FP16 convolution has no backward (FP16 is for inference)");
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
    dataAlgorithm_ = fastestExact(results, returned, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0);
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
