// Training on a CUDA device: the GpuNet runs the passes, the GpuSolver updates the device weights, and
// the host net is brought up to date only when something reads it.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/page_locked_memory.h"
#include "backend/device_choice.h"
#include "runtime/gpu_net.h"
#include "train/gpu_solver.h"
#include "train/training_backend.h"

namespace nw {

namespace {

class GpuTrainingBackend final : public TrainingBackend {
public:
    GpuTrainingBackend(Net& net, const NetConfig& config, int device, std::unique_ptr<GpuNet> gpu)
        : net_(net), device_(device), gpu_(std::move(gpu)), solver_(config), batchMemory_(device)
    {
        gpu_->startTraining();
    }

    std::string describe() const override { return "cuda:" + std::to_string(device_); }
    double forwardTraining(const float* images, const float* truth, std::mt19937& random) override
    {
        return gpu_->forwardTraining(images, truth, random);
    }
    const std::vector<HeadStats>& headStats() const override { return gpu_->headStats(); }
    void backward() override { gpu_->backward(); }
    // Over NCCL where the gradients are, in GPU memory; queued on the compute stream, so the solver's
    // step after it sees the sums.
    std::optional<std::string> sumGradients(Communicator& team) override
    {
        if (team.size() <= 1)
            return std::nullopt;
        auto* sums = dynamic_cast<DeviceSums*>(&team);
        if (!sums) // trainer.cpp refuses this before starting; kept as a guard
            return "data-parallel training on GPUs needs NCCL (train --gpus)";
        GpuExec& exec = gpu_->exec();
        const std::span<float> gradients = exec.deviceGradients();
        return sums->sumOnDevice(gradients.data(), gradients.size(), exec.stream());
    }
    void step(std::vector<Net::LayerParameters>& parameters, float rate, int batchSize) override
    {
        solver_.step(gpu_->exec(), parameters, rate, batchSize);
    }
    void syncToHost() override { gpu_->downloadParameters(); }
    std::vector<std::vector<float>> solverState() override { return solver_.downloadState(gpu_->exec()); }
    void setSolverState(const std::vector<std::vector<float>>& state) override
    {
        solver_.uploadState(gpu_->exec(), state, net_.trainableParameters());
    }
    std::optional<std::string> netChanged() override
    {
        // A resized net has new layers (the same parameter buffer): a new device copy of it, made from
        // the host values (syncToHost ran before the resize). The solver's state stays on the device.
        gpu_.reset(); // its memory first: two copies at once could run out where one fits
        std::string error;
        gpu_ = GpuNet::create(net_, device_, error);
        if (!gpu_)
            return error;
        try {
            gpu_->startTraining();
        } catch (const GpuError& e) {
            return "cuda:" + std::to_string(device_) + ": " + e.what();
        }
        return std::nullopt;
    }

    HostMemory* batchMemory() override { return &batchMemory_; }

    ForwardPass evaluationPass() override
    {
        return [this](const float* input) { gpu_->forwardToHost(input, true); };
    }

private:
    Net& net_;
    int device_;
    std::unique_ptr<GpuNet> gpu_;
    GpuSolver solver_;
    PageLockedMemory batchMemory_; // the loader's images: uploaded by DMA while the GPU computes
};

} // namespace

std::unique_ptr<TrainingBackend> makeGpuTrainingBackend(Net& net, const NetConfig& config, int device,
                                                        std::string& error)
{
    // The machine's answer first ("no GPU: no CUDA driver …"): the runtime's own words for a missing
    // driver are misleading ("driver version is insufficient").
    if (!chooseDevice("cuda:" + std::to_string(device), error))
        return nullptr;
    if (auto problem = GpuNet::trainingProblem(net)) {
        error = *problem;
        return nullptr;
    }
    auto gpu = GpuNet::create(net, device, error);
    if (!gpu)
        return nullptr;
    try {
        return std::make_unique<GpuTrainingBackend>(net, config, device, std::move(gpu));
    } catch (const GpuError& e) {
        error = "cuda:" + std::to_string(device) + ": " + e.what();
        return nullptr;
    }
}

} // namespace nw
