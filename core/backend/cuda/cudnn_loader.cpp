// cuDNN loaded on first use instead of linked (lazy_library.h), so a package built with the CUDA
// backend starts, and trains on the CPU, where cuDNN is not installed. These definitions of the cuDNN
// functions the backend calls forward to the library's own; without it they answer
// CUDNN_STATUS_NOT_INITIALIZED, and cudnnGetErrorString says why, so cudnnCheck's error names the file.
#include "backend/cuda/cudnn_loader.h"
#include "util/lazy_library.h"

#include <cudnn.h>

namespace nw {

namespace {

const LazyLibrary& cudnnLibrary()
{
    static const LazyLibrary loaded =
        openLazily({NETWRIGHT_CUDNN_SONAME, NETWRIGHT_CUDNN_PATH},
                   {"cudnnGetVersion",
                    "cudnnGetErrorString",
                    "cudnnCreate",
                    "cudnnDestroy",
                    "cudnnSetStream",
                    "cudnnCreateTensorDescriptor",
                    "cudnnDestroyTensorDescriptor",
                    "cudnnSetTensor4dDescriptor",
                    "cudnnCreateFilterDescriptor",
                    "cudnnDestroyFilterDescriptor",
                    "cudnnSetFilter4dDescriptor",
                    "cudnnCreateConvolutionDescriptor",
                    "cudnnDestroyConvolutionDescriptor",
                    "cudnnSetConvolution2dDescriptor",
                    "cudnnSetConvolutionGroupCount",
                    "cudnnSetConvolutionMathType",
                    "cudnnGetConvolution2dForwardOutputDim",
                    "cudnnFindConvolutionForwardAlgorithm",
                    "cudnnGetConvolutionForwardAlgorithm_v7",
                    "cudnnGetConvolutionForwardWorkspaceSize",
                    "cudnnConvolutionForward",
                    "cudnnFindConvolutionBackwardFilterAlgorithm",
                    "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
                    "cudnnGetConvolutionBackwardFilterWorkspaceSize",
                    "cudnnConvolutionBackwardFilter",
                    "cudnnFindConvolutionBackwardDataAlgorithm",
                    "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                    "cudnnGetConvolutionBackwardDataWorkspaceSize",
                    "cudnnConvolutionBackwardData"},
                   "cuDNN", "install cuDNN 9 for this CUDA version or add its folder to LD_LIBRARY_PATH");
    return loaded;
}

} // namespace

std::optional<std::string> cudnnLoadError()
{
    return cudnnLibrary().problem();
}

} // namespace nw

#define NW_CUDNN_FORWARD(name, ...)                                                                          \
    NW_LAZY_FORWARD(nw::cudnnLibrary(), CUDNN_STATUS_NOT_INITIALIZED, name, __VA_ARGS__)

// Hidden: the definitions serve this program's own calls and never stand in for cuDNN towards another
// library.
#pragma GCC visibility push(hidden)
extern "C" {

size_t cudnnGetVersion(void)
{
    NW_LAZY_FORWARD(nw::cudnnLibrary(), 0, cudnnGetVersion);
}

const char* cudnnGetErrorString(cudnnStatus_t status)
{
    NW_LAZY_FORWARD(nw::cudnnLibrary(), nw::cudnnLibrary().error.c_str(), cudnnGetErrorString, status);
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle)
{
    NW_CUDNN_FORWARD(cudnnCreate, handle);
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
    NW_CUDNN_FORWARD(cudnnDestroy, handle);
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    NW_CUDNN_FORWARD(cudnnSetStream, handle, streamId);
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc)
{
    NW_CUDNN_FORWARD(cudnnCreateTensorDescriptor, tensorDesc);
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)
{
    NW_CUDNN_FORWARD(cudnnDestroyTensorDescriptor, tensorDesc);
}

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                         cudnnDataType_t dataType, int n, int c, int h, int w)
{
    NW_CUDNN_FORWARD(cudnnSetTensor4dDescriptor, tensorDesc, format, dataType, n, c, h, w);
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc)
{
    NW_CUDNN_FORWARD(cudnnCreateFilterDescriptor, filterDesc);
}

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)
{
    NW_CUDNN_FORWARD(cudnnDestroyFilterDescriptor, filterDesc);
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    NW_CUDNN_FORWARD(cudnnSetFilter4dDescriptor, filterDesc, dataType, format, k, c, h, w);
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc)
{
    NW_CUDNN_FORWARD(cudnnCreateConvolutionDescriptor, convDesc);
}

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)
{
    NW_CUDNN_FORWARD(cudnnDestroyConvolutionDescriptor, convDesc);
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                              int u, int v, int dilation_h, int dilation_w,
                                              cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
{
    NW_CUDNN_FORWARD(cudnnSetConvolution2dDescriptor, convDesc, pad_h, pad_w, u, v, dilation_h, dilation_w,
                     mode, computeType);
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount)
{
    NW_CUDNN_FORWARD(cudnnSetConvolutionGroupCount, convDesc, groupCount);
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType)
{
    NW_CUDNN_FORWARD(cudnnSetConvolutionMathType, convDesc, mathType);
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc, int* n, int* c,
                                                    int* h, int* w)
{
    NW_CUDNN_FORWARD(cudnnGetConvolution2dForwardOutputDim, convDesc, inputTensorDesc, filterDesc, n, c, h,
                     w);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                   const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t yDesc,
                                                   const int requestedAlgoCount, int* returnedAlgoCount,
                                                   cudnnConvolutionFwdAlgoPerf_t* perfResults)
{
    NW_CUDNN_FORWARD(cudnnFindConvolutionForwardAlgorithm, handle, xDesc, wDesc, convDesc, yDesc,
                     requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnFilterDescriptor_t filterDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t destDesc,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults)
{
    NW_CUDNN_FORWARD(cudnnGetConvolutionForwardAlgorithm_v7, handle, srcDesc, filterDesc, convDesc, destDesc,
                     requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                                      const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes)
{
    NW_CUDNN_FORWARD(cudnnGetConvolutionForwardWorkspaceSize, handle, xDesc, wDesc, convDesc, yDesc, algo,
                     sizeInBytes);
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                      const cudnnTensorDescriptor_t xDesc, const void* x,
                                      const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                      size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y)
{
    NW_CUDNN_FORWARD(cudnnConvolutionForward, handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace,
                     workSpaceSizeInBytes, beta, yDesc, y);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults)
{
    NW_CUDNN_FORWARD(cudnnFindConvolutionBackwardFilterAlgorithm, handle, xDesc, dyDesc, convDesc, dwDesc,
                     requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults)
{
    NW_CUDNN_FORWARD(cudnnGetConvolutionBackwardFilterAlgorithm_v7, handle, srcDesc, diffDesc, convDesc,
                     gradDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes)
{
    NW_CUDNN_FORWARD(cudnnGetConvolutionBackwardFilterWorkspaceSize, handle, xDesc, dyDesc, convDesc,
                     gradDesc, algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw)
{
    NW_CUDNN_FORWARD(cudnnConvolutionBackwardFilter, handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo,
                     workSpace, workSpaceSizeInBytes, beta, dwDesc, dw);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults)
{
    NW_CUDNN_FORWARD(cudnnFindConvolutionBackwardDataAlgorithm, handle, wDesc, dyDesc, convDesc, dxDesc,
                     requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults)
{
    NW_CUDNN_FORWARD(cudnnGetConvolutionBackwardDataAlgorithm_v7, handle, filterDesc, diffDesc, convDesc,
                     gradDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes)
{
    NW_CUDNN_FORWARD(cudnnGetConvolutionBackwardDataWorkspaceSize, handle, wDesc, dyDesc, convDesc, dxDesc,
                     algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx)
{
    NW_CUDNN_FORWARD(cudnnConvolutionBackwardData, handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo,
                     workSpace, workSpaceSizeInBytes, beta, dxDesc, dx);
}

} // extern "C"
#pragma GCC visibility pop
