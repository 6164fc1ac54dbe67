#pragma once
// One convolution through cuDNN: descriptors for a layer's shapes, and each direction's algorithm
// (forward; backward data and filter when training, backward data alone for a transposed convolution's
// forward) chosen by measurement (cudnnFind…) the first time a batch size runs, restricted to exact FP32
// (no TF32, FFT or Winograd: cudnn_algorithm_choice.h), with its scratch in the GpuExec's shared workspace.
// Where the GPU is too full for Find's own trial buffers, cuDNN's heuristics choose instead. Two reduced
// precisions serve inference only (no backward), taking the fastest algorithm of any kind:
// - FP16: half input, weights and output, accumulated in FP32, on tensor cores;
// - TF32: FP32 data that tensor cores read with 10-bit mantissas, as AlexeyAB's Darknet (which sets
//   CUDNN_TENSOR_OP_MATH) and PyTorch's cuDNN convolutions compute "FP32" on Ampere and later.
#include "backend/cuda/gpu_exec.h"

#include <cudnn.h>

namespace nw {

struct ConvolutionShape {
    int channels, height, width; // the input (all channels; groups split them)
    int filters, groups;
    int size, strideX, strideY, pad, dilation;
    int outHeight, outWidth;
};

class CudnnConvolution {
public:
    enum class Precision { fp32, tf32, fp16 };
    explicit CudnnConvolution(Precision precision = Precision::fp32) : precision_(precision) {}
    ~CudnnConvolution();
    CudnnConvolution(const CudnnConvolution&) = delete;
    CudnnConvolution& operator=(const CudnnConvolution&) = delete;

    // y = x ∗ w (cross-correlation, as Darknet), batch × filters × outHeight × outWidth.
    // (FP16: x, w and y hold halves.) `accumulate`: y += instead (a transposed convolution's input delta).
    void forward(GpuExec& gpu, const ConvolutionShape& shape, int batch, const void* x, const void* w,
                 void* y, bool accumulate = false);
    // dw += x ⋆ dy: with dy the output's −gradient (a delta), the weights' −gradient is added to dw.
    void backwardFilter(GpuExec& gpu, const ConvolutionShape& shape, int batch, const float* x,
                        const float* dy, float* dw);
    // dx += the transposed convolution of dy (the input's delta).
    void backwardData(GpuExec& gpu, const ConvolutionShape& shape, int batch, const float* w, const float* dy,
                      float* dx);

private:
    enum class Direction { forward, backwardData, backwardFilter };
    void plan(GpuExec& gpu, const ConvolutionShape& shape, int batch);
    void planBackwardData(GpuExec& gpu);
    void planBackwardFilter(GpuExec& gpu);
    void ensurePlanned(GpuExec& gpu, const ConvolutionShape& shape, int batch, Direction direction);
    void release();

    Precision precision_;
    int batch_ = 0;
    ConvolutionShape shape_{}; // the shape planned (for NETWRIGHT_CUDNN_LOG)
    std::uint64_t exec_ = 0;   // the plan belongs to one GpuExec (its GPU and handle)
    cudnnTensorDescriptor_t input_ = nullptr, output_ = nullptr;
    cudnnFilterDescriptor_t filter_ = nullptr;
    cudnnConvolutionDescriptor_t convolution_ = nullptr;
    cudnnConvolutionFwdAlgo_t algorithm_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    std::size_t workspaceBytes_ = 0;
    bool dataPlanned_ = false, filterPlanned_ = false;
    cudnnConvolutionBwdFilterAlgo_t filterAlgorithm_ = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
    cudnnConvolutionBwdDataAlgo_t dataAlgorithm_ = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
    std::size_t filterWorkspaceBytes_ = 0, dataWorkspaceBytes_ = 0;
};

} // namespace nw
