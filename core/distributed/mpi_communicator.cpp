#include "distributed/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace nw {

namespace {

std::string mpiError(const char* what, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return std::string(what) + " failed: " + std::string(text, std::size_t(length));
}

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator()
    {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        // Errors come back as codes (and messages) instead of aborting every rank at once.
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        // The ranks sharing this machine's memory, whatever launched them (mpirun, srun, MPICH).
        MPI_Comm local;
        if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local) ==
            MPI_SUCCESS) {
            MPI_Comm_size(local, &local_);
            MPI_Comm_free(&local);
        }
    }
    ~MpiCommunicator() override { MPI_Finalize(); }

    int rank() const override { return rank_; }
    int ranksOnThisHost() const override { return std::max(1, local_); }
    int size() const override { return size_; }

    std::string describe() const override
    {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length = 0;
        MPI_Get_library_version(version, &length);
        std::string library(version, std::size_t(length));
        if (const auto comma = library.find(','); comma != std::string::npos)
            library.resize(comma); // "Open MPI v4.1.4, package: ..." → "Open MPI v4.1.4"
        return library + ", " + std::to_string(size_) + " ranks";
    }

    std::optional<std::string> sum(float* values, std::size_t count) override
    {
        return reduce(values, count, MPI_FLOAT);
    }
    std::optional<std::string> sum(double* values, std::size_t count) override
    {
        return reduce(values, count, MPI_DOUBLE);
    }

    void abort(int code) override { MPI_Abort(MPI_COMM_WORLD, code); }

    std::optional<std::string> broadcast(float* values, std::size_t count, int root) override
    {
        return share(values, count, MPI_FLOAT, root);
    }
    std::optional<std::string> broadcast(double* values, std::size_t count, int root) override
    {
        return share(values, count, MPI_DOUBLE, root);
    }

private:
    template <typename T> std::optional<std::string> reduce(T* values, std::size_t count, MPI_Datatype type)
    {
        for (std::size_t done = 0; done < count;) {
            const int part = int(std::min<std::size_t>(count - done, std::size_t(1) << 30));
            if (int code = MPI_Allreduce(MPI_IN_PLACE, values + done, part, type, MPI_SUM, MPI_COMM_WORLD);
                code != MPI_SUCCESS)
                return mpiError("MPI_Allreduce", code);
            done += std::size_t(part);
        }
        return std::nullopt;
    }

    template <typename T>
    std::optional<std::string> share(T* values, std::size_t count, MPI_Datatype type, int root)
    {
        for (std::size_t done = 0; done < count;) { // MPI counts are ints: 2^30 values at a time
            const int part = int(std::min<std::size_t>(count - done, std::size_t(1) << 30));
            if (int code = MPI_Bcast(values + done, part, type, root, MPI_COMM_WORLD); code != MPI_SUCCESS)
                return mpiError("MPI_Bcast", code);
            done += std::size_t(part);
        }
        return std::nullopt;
    }

    int rank_ = 0, size_ = 1, local_ = 1;
};

} // namespace

std::unique_ptr<Communicator> startMpi(std::string& error)
{
    int provided = 0;
    // Only the training thread calls MPI (the loader and OpenMP threads never do).
    if (int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided); code != MPI_SUCCESS) {
        error = "MPI_Init_thread failed (code " + std::to_string(code) + ")";
        return nullptr;
    }
    return std::make_unique<MpiCommunicator>();
}

} // namespace nw
