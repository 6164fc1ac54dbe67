#include "distributed/nccl_communicator.h"

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_buffer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nccl.h>

namespace nw {

namespace {

std::string ncclMessage(const char* what, ncclResult_t result)
{
    return std::string("NCCL ") + what + ": " + ncclGetErrorString(result);
}

class NcclCommunicator final : public Communicator, public DeviceSums {
public:
    NcclCommunicator(int rank, int size, ncclComm_t comm, cudaStream_t stream)
        : rank_(rank), size_(size), comm_(comm), stream_(stream)
    {
    }
    ~NcclCommunicator() override
    {
        ncclCommDestroy(comm_);
        cudaStreamDestroy(stream_);
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int ranksOnThisHost() const override { return size_; } // --gpus: one machine
    std::string describe() const override
    {
        int version = 0;
        ncclGetVersion(&version);
        return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
               std::to_string(version % 100) + ", " + std::to_string(size_) + " GPUs";
    }

    std::optional<std::string> sum(float* values, std::size_t count) override
    {
        return throughDevice(values, count, ncclFloat, -1);
    }
    std::optional<std::string> sum(double* values, std::size_t count) override
    {
        return throughDevice(values, count, ncclDouble, -1);
    }
    std::optional<std::string> broadcast(float* values, std::size_t count, int root) override
    {
        return throughDevice(values, count, ncclFloat, root);
    }
    std::optional<std::string> broadcast(double* values, std::size_t count, int root) override
    {
        return throughDevice(values, count, ncclDouble, root);
    }

    // The launcher sees this rank's exit status and ends the others. No ncclCommAbort: called by one
    // rank alone it can block on resources shared with the others (NVIDIA/nccl#863), and a rank that
    // never exits would hang the job; the process's end releases the GPU.
    void abort(int code) override
    {
        std::fflush(nullptr);
        std::_Exit(code);
    }

    std::optional<std::string> sumOnDevice(float* deviceValues, std::size_t count, void* stream) override
    {
        if (const ncclResult_t r = ncclAllReduce(deviceValues, deviceValues, count, ncclFloat, ncclSum, comm_,
                                                 static_cast<cudaStream_t>(stream));
            r != ncclSuccess)
            return ncclMessage("all-reduce of the gradients", r);
        return std::nullopt;
    }

private:
    // Host values summed (root < 0) or broadcast from `root`, through the staging buffer in pieces of
    // at most kStagingBytes: the start's broadcast of every weight must not leave a second copy of the
    // model on the GPU for the whole run. Every rank cuts the same pieces (the same count).
    template <typename T>
    std::optional<std::string> throughDevice(T* values, std::size_t count, ncclDataType_t type, int root)
    {
        constexpr std::size_t kStagingBytes = std::size_t(16) << 20;
        constexpr std::size_t kPiece = kStagingBytes / sizeof(T);
        try {
            for (std::size_t at = 0; at < count; at += kPiece) {
                const std::size_t n = std::min(kPiece, count - at);
                staging_.reserve((n * sizeof(T) + sizeof(float) - 1) / sizeof(float));
                void* device = staging_.data();
                cudaCheck(
                    cudaMemcpyAsync(device, values + at, n * sizeof(T), cudaMemcpyHostToDevice, stream_),
                    "copying to the GPU");
                const ncclResult_t r = root < 0
                                           ? ncclAllReduce(device, device, n, type, ncclSum, comm_, stream_)
                                           : ncclBroadcast(device, device, n, type, root, comm_, stream_);
                if (r != ncclSuccess)
                    return ncclMessage(root < 0 ? "all-reduce" : "broadcast", r);
                cudaCheck(
                    cudaMemcpyAsync(values + at, device, n * sizeof(T), cudaMemcpyDeviceToHost, stream_),
                    "copying from the GPU");
                cudaCheck(cudaStreamSynchronize(stream_), "waiting for NCCL");
            }
        } catch (const GpuError& e) {
            return std::string(e.what());
        }
        return std::nullopt;
    }

    int rank_, size_;
    ncclComm_t comm_;
    cudaStream_t stream_;
    DeviceBuffer staging_;
};

} // namespace

std::string newNcclCliqueId(std::string& error)
{
    ncclUniqueId id;
    if (const ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess) {
        error = ncclMessage("making a clique id", r);
        return {};
    }
    std::string text;
    char digits[3];
    for (char byte : id.internal) {
        std::snprintf(digits, sizeof digits, "%02x", unsigned(static_cast<unsigned char>(byte)));
        text += digits;
    }
    return text;
}

std::unique_ptr<Communicator> joinNccl(int rank, int size, const std::string& text, int device,
                                       std::string& error)
{
    ncclUniqueId id;
    if (text.size() != 2 * sizeof id.internal || rank < 0 || rank >= size) {
        error = "the NCCL clique id or rank handed to this process is malformed (it is set by train --gpus)";
        return nullptr;
    }
    for (std::size_t i = 0; i < sizeof id.internal; ++i)
        id.internal[i] = char(std::strtoul(text.substr(2 * i, 2).c_str(), nullptr, 16));
    if (cudaSetDevice(device) != cudaSuccess) {
        error = "cuda:" + std::to_string(device) + ": " + cudaGetErrorString(cudaGetLastError());
        return nullptr;
    }
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        error = std::string("creating a CUDA stream: ") + cudaGetErrorString(cudaGetLastError());
        return nullptr;
    }
    ncclComm_t comm = nullptr;
    if (const ncclResult_t r = ncclCommInitRank(&comm, size, id, rank); r != ncclSuccess) {
        cudaStreamDestroy(stream);
        error = ncclMessage("joining the other GPUs' processes", r);
        return nullptr;
    }
    return std::make_unique<NcclCommunicator>(rank, size, comm, stream);
}

} // namespace nw
