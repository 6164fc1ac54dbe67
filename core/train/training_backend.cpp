#include "train/training_backend.h"

#include "train/data_parallel.h"
#include "train/solver.h"

namespace nw {

namespace {

class CpuTrainingBackend final : public TrainingBackend {
public:
    CpuTrainingBackend(Net& net, const NetConfig& config) : net_(net), solver_(makeSolver(config)) {}

    std::string describe() const override { return "cpu"; }
    double forwardTraining(const float* images, const float* truth, std::mt19937& random) override
    {
        return net_.forwardTraining(images, truth, random);
    }
    const std::vector<HeadStats>& headStats() const override { return net_.headStats(); }
    void backward() override { net_.backward(); }
    std::optional<std::string> sumGradients(Communicator& team) override
    {
        return nw::sumGradients(team, net_);
    }
    void step(std::vector<Net::LayerParameters>& parameters, float rate, int batchSize) override
    {
        solver_->step(parameters, rate, batchSize);
    }
    void syncToHost() override {}
    std::vector<std::vector<float>> solverState() override { return solver_->state(); }
    void setSolverState(const std::vector<std::vector<float>>& state) override { solver_->state() = state; }
    std::optional<std::string> netChanged() override { return std::nullopt; }
    ForwardPass evaluationPass() override { return {}; }

private:
    Net& net_;
    std::unique_ptr<Solver> solver_;
};

} // namespace

std::unique_ptr<TrainingBackend> makeCpuTrainingBackend(Net& net, const NetConfig& config)
{
    return std::make_unique<CpuTrainingBackend>(net, config);
}

#if !NETWRIGHT_WITH_CUDA
std::unique_ptr<TrainingBackend> makeGpuTrainingBackend(Net&, const NetConfig&, int, std::string& error)
{
    error =
        "this build has no CUDA backend (configure with -DNETWRIGHT_WITH_CUDA=ON where nvcc is installed)";
    return nullptr;
}
#endif

} // namespace nw
