#include "backend/cuda/input_stager.h"

#include "backend/cuda/cuda_check.h"

namespace nw {

InputStager::~InputStager()
{
    release();
}

void InputStager::release()
{
    if (upload_)
        cudaStreamSynchronize(upload_); // no copy may still write a buffer being freed
    for (int i = 0; i < 2; ++i) {
        if (uploaded_[i])
            cudaEventDestroy(uploaded_[i]);
        if (readersQueued_[i])
            cudaEventDestroy(readersQueued_[i]);
        uploaded_[i] = readersQueued_[i] = nullptr;
    }
    if (upload_)
        cudaStreamDestroy(upload_);
    upload_ = nullptr;
}

void InputStager::start(GpuExec& gpu)
{
    gpu.makeCurrent();
    cudaCheck(cudaStreamCreateWithFlags(&upload_, cudaStreamNonBlocking), "creating the upload stream");
    for (int i = 0; i < 2; ++i) {
        cudaCheck(cudaEventCreateWithFlags(&uploaded_[i], cudaEventDisableTiming), "creating a CUDA event");
        cudaCheck(cudaEventCreateWithFlags(&readersQueued_[i], cudaEventDisableTiming),
                  "creating a CUDA event");
    }
}

const float* InputStager::stage(GpuExec& gpu, const float* host, std::size_t floats)
{
    if (!upload_)
        start(gpu);
    const int turn = next_, other = 1 - turn;
    next_ = other;
    // What is queued so far (up to the last batch's backward pass) may read the other buffer, which the
    // next call fills: mark it. This buffer was marked the same way by the call before.
    cudaCheck(cudaEventRecord(readersQueued_[other], gpu.stream()), "marking the GPU's queue");
    DeviceBuffer& buffer = buffers_[turn];
    if (buffer.size() != floats) { // the first batch, or a multi-scale resize
        gpu.synchronize();         // nothing may still read the old allocation
        buffer.resize(floats);
    }
    // (An event never recorded counts as complete: the first two batches wait for nothing.)
    cudaCheck(cudaStreamWaitEvent(upload_, readersQueued_[turn], 0), "ordering an upload");
    cudaCheck(cudaMemcpyAsync(buffer.data(), host, floats * sizeof(float), cudaMemcpyHostToDevice, upload_),
              "copying a batch to the GPU");
    cudaCheck(cudaEventRecord(uploaded_[turn], upload_), "marking an upload");
    cudaCheck(cudaStreamWaitEvent(gpu.stream(), uploaded_[turn], 0), "waiting for an upload");
    return buffer.data();
}

std::size_t InputStager::deviceBytes() const
{
    return (buffers_[0].size() + buffers_[1].size()) * sizeof(float);
}

} // namespace nw
