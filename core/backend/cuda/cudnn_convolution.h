#pragma once
// One convolution through cuDNN: descriptors for a layer's shapes, and the forward algorithm chosen by
// measurement (cudnnFind…) the first time a batch size runs, restricted to exact FP32 (no TF32), with
// its scratch in the GpuExec's shared workspace.
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
    CudnnConvolution() = default;
    ~CudnnConvolution();
    CudnnConvolution(const CudnnConvolution&) = delete;
    CudnnConvolution& operator=(const CudnnConvolution&) = delete;

    // y = x ∗ w (cross-correlation, as Darknet), batch × filters × outHeight × outWidth.
    void forward(GpuExec& gpu, const ConvolutionShape& shape, int batch, const float* x, const float* w,
                 float* y);

private:
    void plan(GpuExec& gpu, const ConvolutionShape& shape, int batch);
    void release();

    int batch_ = 0;
    cudnnHandle_t handle_ = nullptr; // the plan belongs to one GPU (and its handle)
    cudnnTensorDescriptor_t input_ = nullptr, output_ = nullptr;
    cudnnFilterDescriptor_t filter_ = nullptr;
    cudnnConvolutionDescriptor_t convolution_ = nullptr;
    cudnnConvolutionFwdAlgo_t algorithm_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    std::size_t workspaceBytes_ = 0;
};

} // namespace nw
