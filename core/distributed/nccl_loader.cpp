// NCCL loaded on first use instead of linked (util/lazy_library.h): a package built with it
// starts where NCCL is not installed, and only `train --gpus` needs it. These definitions of the NCCL
// functions the communicator calls forward to the library's own; without it they answer
// ncclSystemError, and ncclGetErrorString says why.
#include "distributed/nccl_loader.h"

#include "util/lazy_library.h"

#include <nccl.h>
#include <string>

namespace nw {

namespace {

const LazyLibrary& ncclLibrary()
{
    static const LazyLibrary loaded = openLazily(
        {NETWRIGHT_NCCL_SONAME, NETWRIGHT_NCCL_PATH},
        {"ncclGetUniqueId", "ncclCommInitRank", "ncclAllReduce", "ncclBroadcast", "ncclCommDestroy",
         "ncclGetErrorString", "ncclGetVersion"},
        "NCCL", "install NCCL for this CUDA version (libnccl2) or add its folder to LD_LIBRARY_PATH");
    return loaded;
}

} // namespace

std::optional<std::string> ncclLoadError()
{
    return ncclLibrary().problem();
}

} // namespace nw

#define NW_NCCL_FORWARD(name, ...) NW_LAZY_FORWARD(nw::ncclLibrary(), ncclSystemError, name, __VA_ARGS__)

// Hidden: the definitions serve this program's own calls only.
#pragma GCC visibility push(hidden)
extern "C" {

ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId)
{
    NW_NCCL_FORWARD(ncclGetUniqueId, uniqueId);
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank)
{
    NW_NCCL_FORWARD(ncclCommInitRank, comm, nranks, commId, rank);
}

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    NW_NCCL_FORWARD(ncclAllReduce, sendbuff, recvbuff, count, datatype, op, comm, stream);
}

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                           int root, ncclComm_t comm, cudaStream_t stream)
{
    NW_NCCL_FORWARD(ncclBroadcast, sendbuff, recvbuff, count, datatype, root, comm, stream);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    NW_NCCL_FORWARD(ncclCommDestroy, comm);
}

ncclResult_t ncclGetVersion(int* version)
{
    NW_NCCL_FORWARD(ncclGetVersion, version);
}

const char* ncclGetErrorString(ncclResult_t result)
{
    NW_LAZY_FORWARD(nw::ncclLibrary(), nw::ncclLibrary().error.c_str(), ncclGetErrorString, result);
}

} // extern "C"
#pragma GCC visibility pop
