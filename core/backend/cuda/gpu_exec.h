#pragma once
// GpuExec: what a layer's GPU forward runs with — the device, one stream, the cuBLAS and cuDNN handles
// on it, the one shared workspace (sized by the largest need, as on the CPU) and the device mirror of
// the net's ParameterStore, where each layer finds its arrays at the same offsets as on the host.
#include "backend/cuda/device_buffer.h"
#include "runtime/param_array.h"

#include <cstdint>
#include <cublas_v2.h>
#include <cudnn.h>
#include <span>
#include <unordered_map>

namespace nw {

class GpuExec {
public:
    // Selects the device and creates the stream and handles; GpuError when it cannot.
    explicit GpuExec(int device);
    ~GpuExec();
    GpuExec(const GpuExec&) = delete;
    GpuExec& operator=(const GpuExec&) = delete;

    int device() const { return device_; }
    // Unique per GpuExec in the process (a handle's address may be reused by the next one): what a
    // layer's cached cuDNN plan is keyed by.
    std::uint64_t id() const { return id_; }
    cudaStream_t stream() const { return stream_; }
    cublasHandle_t cublas() const { return cublas_; }
    cudnnHandle_t cudnn() const { return cudnn_; }

    // At least `floats` of scratch, shared by all layers (one runs at a time on the stream).
    float* workspace(std::size_t floats);
    std::size_t workspaceBytes() const { return workspace_.size() * sizeof(float); }
    // Bumped when the workspace is reallocated (a CUDA graph holds its old address).
    std::uint64_t workspaceGeneration() const { return workspaceGeneration_; }
    std::size_t cublasWorkspaceBytes() const { return cublasWorkspace_.size() * sizeof(float); }

    // FP16 inference (off by default; never while training): convolutions round their input and
    // weights to IEEE half and let cuDNN use tensor cores, as AlexeyAB's CUDNN_HALF build does; every
    // other layer, and the values between layers, stay FP32.
    // Switching it off frees the half scratch and weight copies.
    void setHalfPrecision(bool on);
    bool halfPrecision() const { return half_; }
    // TF32 inference (off by default; never while training, nor with FP16): convolutions and cuBLAS's
    // products keep FP32 data but let tensor cores read it with 10-bit mantissas — the "FP32" of
    // AlexeyAB's Darknet and of PyTorch's convolutions on Ampere and later GPUs.
    void setTensorFloat32(bool on);
    bool tensorFloat32() const { return tf32_; }
    // Scratch of at least `halves` 16-bit values in one of two slots (a convolution's input and output),
    // shared by all layers like the workspace, and reallocated under the same generation count.
    void* halfScratch(int slot, std::size_t halves);
    // Bumped each time the parameter values are mirrored from the host (a CUDA graph that converted
    // weights to half before is then stale).
    std::uint64_t parameterGeneration() const { return parameterGeneration_; }
    // `array`'s values as halves in a buffer of its own (aligned for cuDNN), converted again on the
    // stream after each mirrorParameters.
    const void* halfCopy(const ParamArray& array);
    // What the FP16 scratch and half copies take.
    std::size_t halfBytes() const;

    // Copies the host values of the net's parameters (ParameterStore::values) to the device.
    void mirrorParameters(std::span<const float> hostValues);
    // Where `array` (a view into those host values) sits on the device. Training writes through it
    // (the solvers' updates, batch norm's rolling statistics).
    float* device(const ParamArray& array);
    // The device values back into the host buffer mirrored last (checkpoints, final weights).
    void downloadParameters(std::span<float> hostValues) const;

    // Training: a zeroed device twin of the net's gradient buffer (ParameterStore::gradients) and
    // where a gradient array (a view into that host buffer) sits in it.
    void mirrorGradients(std::span<const float> hostGradients);
    float* gradient(const ParamArray& gradientArray);
    std::span<float> deviceGradients() { return {gradients_.data(), gradients_.size()}; }
    void downloadGradients(std::span<float> hostGradients) const;

    // Copies between device memory and the host, waiting for them (loss layers' host part).
    void copyToHost(const float* device, std::span<float> host) const;
    void copyToDevice(std::span<const float> host, float* device) const;
    // n floats from one device buffer to another, queued on the stream (`layer` names it in errors).
    void copyOnDevice(const float* from, float* to, std::size_t n, const char* layer) const;

    void synchronize() const;
    // Selects this device for the calling thread (CUDA's current device is per thread).
    void makeCurrent() const;

private:
    void start();
    void release();

    int device_;
    std::uint64_t id_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t cublas_ = nullptr;
    cudnnHandle_t cudnn_ = nullptr;
    DeviceBuffer workspace_, parameters_, gradients_, cublasWorkspace_;
    DeviceBuffer halfScratch_[2];
    struct HalfCopy {
        DeviceBuffer values;
        std::uint64_t generation = 0;
    };
    std::unordered_map<const float*, HalfCopy> halfCopies_; // by the host array's address
    bool half_ = false;
    bool tf32_ = false;
    std::uint64_t parameterGeneration_ = 0;
    const float* hostParameters_ = nullptr;
    std::size_t parameterCount_ = 0;
    const float* hostGradients_ = nullptr;
    std::uint64_t workspaceGeneration_ = 0;
};

} // namespace nw
