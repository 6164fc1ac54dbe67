#include "layers/normalization.h"

#include "graph/layer_spec.h"
#include "kernels/lrn_formulas.h"
#include "runtime/layer_runtime.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> NormalizationLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<NormalizationLayer>();
    l->alpha = r.getFloat("alpha", 0.0001f);
    l->beta = r.getFloat("beta", 0.75f);
    l->kappa = r.getFloat("kappa", 1);
    l->size = r.getInt("size", 5);
    if (l->size < 1)
        r.error("size", "size must be at least 1");
    return l;
}

LayerResult NormalizationLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("normalization"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, in.c);
    return result;
}

namespace {

// pjreddie's running window as data: for each channel k, the channels j its norm sums and their counts
// (kernels/lrn_formulas.h's LrnWindowView over these arrays).
struct LrnWindow {
    std::vector<int> start, channel, count;
    LrnWindowView view() const { return {start.data(), channel.data(), count.data()}; }
};

// Built by the forward's own running-window steps (counts can fall to zero or below: the quirk that the
// channel size/2 is never added at the start but is taken away later).
LrnWindow windowCounts(int channels, int size)
{
    LrnWindow window;
    std::vector<int> current(std::size_t(channels), 0);
    for (int j = 0; j < std::min(channels, size / 2); ++j)
        ++current[std::size_t(j)];
    for (int k = 0; k < channels; ++k) {
        if (k > 0) {
            const int previous = k - (size - 1) / 2 - 1, next = k + size / 2;
            if (previous >= 0)
                --current[std::size_t(previous)];
            if (next < channels)
                ++current[std::size_t(next)];
        }
        window.start.push_back(int(window.channel.size()));
        for (int j = 0; j < channels; ++j)
            if (current[std::size_t(j)] != 0) {
                window.channel.push_back(j);
                window.count.push_back(current[std::size_t(j)]);
            }
    }
    window.start.push_back(int(window.channel.size()));
    return window;
}

// Local response normalisation exactly as pjreddie computes it (including its running window), pixel by
// pixel through kernels/lrn_formulas.h, on the CPU and the GPU.
class NormalizationRuntime final : public RuntimeLayer {
public:
    NormalizationRuntime(const NormalizationLayer& config, const Shape& shape)
        : config_(config), shape_(shape), plane_(std::size_t(shape.w) * std::size_t(shape.h)),
          window_(windowCounts(shape.c, config.size))
    {
    }
    void forward(ForwardArgs& args) override
    {
        const bool training = args.context.training;
        if (training)
            norms_.resize(args.output.size());
        // One pixel column per task, over the whole batch (batch 1 uses every thread too).
        const std::ptrdiff_t columns = std::ptrdiff_t(args.output.batch()) * std::ptrdiff_t(plane_);
        const std::size_t item = args.input.itemSize();
#pragma omp parallel for num_threads(args.context.threads)
        for (std::ptrdiff_t column = 0; column < columns; ++column) {
            const std::size_t at = std::size_t(column) / plane_ * item + std::size_t(column) % plane_;
            lrnPixel(args.input.data() + at, args.output.data() + at, training ? norms_.data() + at : nullptr,
                     shape_.c, plane_, config_.size, config_.alpha, config_.beta, config_.kappa);
        }
    }

    bool canTrain() const override
    {
        return true;
    }

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        if (norms_.size() != args.output.size())
            throw std::logic_error("[normalization] backward without its training forward");
        const std::ptrdiff_t columns = std::ptrdiff_t(args.output.batch()) * std::ptrdiff_t(plane_);
        const std::size_t item = args.input.itemSize();
#pragma omp parallel for num_threads(args.context.threads)
        for (std::ptrdiff_t column = 0; column < columns; ++column) {
            const std::size_t at = std::size_t(column) / plane_ * item + std::size_t(column) % plane_;
            addLrnPixelDelta(args.input.data() + at, args.outputDelta.data() + at, norms_.data() + at,
                             args.inputDelta->data() + at, shape_.c, plane_, window_.view(), config_.alpha,
                             config_.beta);
        }
    }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        float* norms = nullptr;
        if (args.training) {
            normsGpu_.resize(std::size_t(args.batch) * args.outputItemSize);
            norms = normsGpu_.data();
        }
        cuda::lrnForward(args.input, args.output, norms, args.batch, shape_.c, plane_, config_.size,
                         config_.alpha, config_.beta, config_.kappa, gpu.stream());
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        if (normsGpu_.size() != std::size_t(args.batch) * args.outputItemSize)
            throw GpuError("[normalization] GPU backward without its training forward");
        GpuExec& gpu = args.gpu;
        if (windowGpu_.size() == 0) { // the window's three int arrays, once, in one buffer
            std::vector<int> all(window_.start);
            all.insert(all.end(), window_.channel.begin(), window_.channel.end());
            all.insert(all.end(), window_.count.begin(), window_.count.end());
            windowGpu_.resize(all.size());
            cudaCheck(cudaMemcpyAsync(windowGpu_.data(), all.data(), all.size() * sizeof(int),
                                      cudaMemcpyHostToDevice, gpu.stream()),
                      "[normalization]'s window to the GPU");
            gpu.synchronize(); // `all` goes out of scope
        }
        const int* start = windowGpu_.as<int>();
        const int* channel = start + window_.start.size();
        const int* count = channel + window_.channel.size();
        cuda::lrnBackward(args.input, args.outputDelta, normsGpu_.data(), args.inputDelta, args.batch,
                          shape_.c, plane_, {start, channel, count}, config_.alpha, config_.beta,
                          gpu.stream());
    }
#endif

private:
    const NormalizationLayer config_;
    Shape shape_;
    std::size_t plane_;
    const LrnWindow window_;   // fixed by the shape
    std::vector<float> norms_; // n per value of the last training forward
#if NETWRIGHT_WITH_CUDA
    DeviceBuffer normsGpu_, windowGpu_;
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> NormalizationLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<NormalizationRuntime>(*this, spec.output);
}

} // namespace nw
