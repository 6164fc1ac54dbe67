#include "train/gpu_solver.h"

#include "kernels/cuda/training_kernels.h"

#include <cmath>

namespace nw {

GpuSolver::GpuSolver(const NetConfig& net)
    : adam_(net.adam), momentum_(net.momentum), decay_(net.decay), b1_(net.b1), b2_(net.b2), eps_(net.eps)
{
}

void GpuSolver::size(GpuExec& gpu, const std::vector<Net::LayerParameters>& layers)
{
    std::size_t index = 0;
    for (const Net::LayerParameters& layer : layers)
        for (const Parameter& p : layer.parameters) {
            if (first_.size() <= index) {
                first_.emplace_back();
                second_.emplace_back();
            }
            const std::size_t n = p.values->size();
            if (first_[index].size() != n) { // a new array: its state starts at zero
                first_[index].resize(n);
                first_[index].zero(gpu.stream());
                if (adam_) {
                    second_[index].resize(n);
                    second_[index].zero(gpu.stream());
                }
            }
            ++index;
        }
    first_.resize(index);
    second_.resize(index);
}

void GpuSolver::step(GpuExec& gpu, std::vector<Net::LayerParameters>& layers, float rate, int batchSize)
{
    gpu.makeCurrent();
    size(gpu, layers);
    const float batch = float(batchSize);
    AdamStep constants{b1_, b2_, eps_, 0.0f, 0.0f, 0.0f};
    if (adam_) {
        steps_ += 1;
        constants.correction1 = 1 - std::pow(b1_, steps_);
        constants.correction2 = 1 - std::pow(b2_, steps_);
    }
    std::size_t index = 0;
    for (Net::LayerParameters& layer : layers) {
        const float layerRate = rate * layer.learningRateScale;
        for (Parameter& p : layer.parameters) {
            const std::size_t n = p.values->size();
            const float decay = p.decay ? -decay_ * batch : 0.0f;
            float* weights = gpu.device(*p.values);
            float* gradient = gpu.gradient(*p.gradient);
            if (adam_) {
                constants.rate = layerRate;
                cuda::adamStep(weights, first_[index].data(), second_[index].data(), gradient, n, decay,
                               constants, gpu.stream());
            } else {
                cuda::sgdStep(weights, first_[index].data(), gradient, n, decay, layerRate / batch, momentum_,
                              gpu.stream());
            }
            ++index;
        }
    }
}

std::vector<std::vector<float>> GpuSolver::downloadState(GpuExec& gpu) const
{
    gpu.makeCurrent();
    std::vector<std::vector<float>> state;
    for (const DeviceBuffer& buffer : first_) {
        state.emplace_back(buffer.size());
        buffer.download(state.back(), gpu.stream());
    }
    if (adam_) {
        for (const DeviceBuffer& buffer : second_) {
            state.emplace_back(buffer.size());
            buffer.download(state.back(), gpu.stream());
        }
        state.push_back({steps_});
    }
    gpu.synchronize();
    return state;
}

void GpuSolver::uploadState(GpuExec& gpu, const std::vector<std::vector<float>>& state,
                            const std::vector<Net::LayerParameters>& layers)
{
    gpu.makeCurrent();
    first_.clear();
    second_.clear();
    steps_ = 0;
    size(gpu, layers);
    const std::size_t count = first_.size();
    // As the CPU solvers (sgd.cpp, adam.cpp), so a run resumes alike on either: each array's state is
    // taken where its size matches and starts at zero where it does not, and only when the number of
    // arrays matches (SGD would take Adam's m for velocities), else it starts afresh.
    if (state.size() != (adam_ ? 2 * count + 1 : count)) // another solver's, or other trained layers
        return;
    for (std::size_t i = 0; i < count && i < state.size(); ++i) {
        if (state[i].size() == first_[i].size())
            first_[i].upload(state[i], gpu.stream());
        if (adam_ && state[count + i].size() == second_[i].size())
            second_[i].upload(state[count + i], gpu.stream());
    }
    if (adam_ && !state.back().empty())
        steps_ = state.back()[0];
    gpu.synchronize();
}

} // namespace nw
