#include "layers/rnn.h"

#include "graph/layer_spec.h"
#include "kernels/recurrent_cells.h"
#include "layers/recurrent.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/recurrent_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> RnnLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<RnnLayer>();
    l->outputs = r.getInt("output", 1);
    l->batchNormalize = r.getFlag("batch_normalize", false);
    l->activation = readActivation(r, "logistic");
    l->shortcut = r.getFlag("shortcut", false);
    r.accept({"hidden"});
    if (l->outputs < 1)
        r.error("output", "output must be at least 1");
    return l;
}

LayerResult RnnLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1)
        return result;
    if (ctx.input().size <= 0) {
        if (ctx.inputKnown()) // (behind a layer with an error: that one message is enough)
            ctx.error("[rnn] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::flat(outputs);
    result.costs = connectedBlocksCosts(ctx.input().size, outputs, 1, 2);
    return result;
}

namespace {

// Per time step: state = (shortcut ? state : 0) + input(x) + self(state); output = output(state).
// The state persists between forward calls (inference on a sequence), as in Darknet.
class RnnRuntime final : public RecurrentRuntime {
public:
    RnnRuntime(const RnnLayer& config, int inputs, int steps)
        : shortcut_(config.shortcut), steps_(std::max(1, steps)),
          input_(inputs, config.outputs, config.batchNormalize, activationFromName(config.activation)),
          self_(config.outputs, config.outputs, config.batchNormalize, activationFromName(config.activation)),
          output_(config.outputs, config.outputs, config.batchNormalize,
                  activationFromName(config.activation))
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays;
        for (ConnectedBlock* block : {&input_, &self_, &output_})
            block->appendWeightArrays(arrays);
        return arrays;
    }
    void prepare(const WeightsHeader& header) override { prepareBlocks(header, {&input_, &self_, &output_}); }
    void initialize(std::mt19937& random) override
    {
        for (ConnectedBlock* block : {&input_, &self_, &output_})
            block->initialize(random);
    }
    void forward(ForwardArgs& args) override
    {
        if (args.context.training) {
            forwardTraining(args);
            return;
        }
        const int batch = args.output.batch() / steps_, outputs = output_.outputs;
        const std::size_t width = std::size_t(batch) * std::size_t(outputs);
        if (state_.size() != width)
            state_.assign(width, 0.0f);
        fromInput_.resize(width);
        fromSelf_.resize(width);
        for (int t = 0; t < steps_; ++t) {
            input_.forward(args.input.data() +
                               std::size_t(t) * std::size_t(batch) * std::size_t(input_.inputs),
                           fromInput_.data(), batch);
            self_.forward(state_.data(), fromSelf_.data(), batch);
            for (std::size_t i = 0; i < width; ++i)
                state_[i] = rnnState(state_[i], fromInput_[i], fromSelf_[i], shortcut_);
            output_.forward(state_.data(), args.output.data() + std::size_t(t) * width, batch);
        }
    }

    std::vector<Parameter> parameters() override
    {
        return blockParameters({&inputTraining_, &selfTraining_, &outputTraining_});
    }

    // Backpropagation through the time steps, last to first: the state's delta gathers what the output
    // block and the next step's self block (and the shortcut) send back.
    void backward(BackwardArgs& args) override
    {
        const int batch = args.output.batch() / steps_;
        const std::size_t width = std::size_t(batch) * std::size_t(output_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(input_.inputs);
        std::vector<float> stateDelta(width, 0.0f), previous(width), forInput(width), forSelf(width);
        for (int t = steps_ - 1; t >= 0; --t) {
            outputTraining_.backward(t, args.outputDelta.data() + std::size_t(t) * width, stateDelta.data(),
                                     batch);
            forInput = stateDelta;
            forSelf = stateDelta;
            inputTraining_.backward(
                t, forInput.data(),
                args.inputDelta ? args.inputDelta->data() + std::size_t(t) * inputWidth : nullptr, batch);
            std::fill(previous.begin(), previous.end(), 0.0f);
            selfTraining_.backward(t, forSelf.data(), t > 0 ? previous.data() : nullptr, batch);
            if (shortcut_)
                for (std::size_t i = 0; i < width; ++i)
                    previous[i] += stateDelta[i];
            stateDelta = previous;
        }
    }

#if NETWRIGHT_WITH_CUDA
    // The CPU's steps on the device (cuBLAS gates, kernels/recurrent_cells.h between them).
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const int batch = args.batch / steps_;
        const std::size_t width = std::size_t(batch) * std::size_t(output_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(input_.inputs);
        fromInputGpu_.resize(width);
        fromSelfGpu_.resize(width);
        if (args.training) {
            for (BlockTraining* block : {&inputTraining_, &selfTraining_, &outputTraining_})
                block->setSteps(steps_);
        }
        stateGpu_.start(gpu, width, steps_, args.training);
        for (int t = 0; t < steps_; ++t) {
            const float* previous = stateGpu_.before(t);
            float* state = stateGpu_.after(t);
            inputTraining_.forwardGpu(gpu, t, args.input + std::size_t(t) * inputWidth, fromInputGpu_.data(),
                                      batch, args.training);
            selfTraining_.forwardGpu(gpu, t, previous, fromSelfGpu_.data(), batch, args.training);
            cuda::rnnState(previous, fromInputGpu_.data(), fromSelfGpu_.data(), state, width, shortcut_,
                           gpu.stream());
            outputTraining_.forwardGpu(gpu, t, state, args.output + std::size_t(t) * width, batch,
                                       args.training);
        }
    }

    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        GpuExec& gpu = args.gpu;
        const int batch = args.batch / steps_;
        const bool gradients = args.parameterGradients;
        const std::size_t width = std::size_t(batch) * std::size_t(output_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(input_.inputs);
        for (DeviceBuffer* buffer : {&stateDeltaGpu_, &previousGpu_, &fromInputGpu_, &fromSelfGpu_})
            buffer->resize(width);
        stateDeltaGpu_.zero(gpu.stream());
        for (int t = steps_ - 1; t >= 0; --t) {
            outputTraining_.backwardGpu(gpu, t, args.outputDelta + std::size_t(t) * width,
                                        stateDeltaGpu_.data(), batch, gradients);
            gpu.copyOnDevice(stateDeltaGpu_.data(), fromInputGpu_.data(), width, "[rnn]");
            gpu.copyOnDevice(stateDeltaGpu_.data(), fromSelfGpu_.data(), width, "[rnn]");
            inputTraining_.backwardGpu(
                gpu, t, fromInputGpu_.data(),
                args.inputDelta ? args.inputDelta + std::size_t(t) * inputWidth : nullptr, batch, gradients);
            previousGpu_.zero(gpu.stream());
            selfTraining_.backwardGpu(gpu, t, fromSelfGpu_.data(), t > 0 ? previousGpu_.data() : nullptr,
                                      batch, gradients);
            if (shortcut_)
                cuda::addScaled(stateDeltaGpu_.data(), previousGpu_.data(), width, 1.0f, gpu.stream());
            std::swap(stateDeltaGpu_, previousGpu_);
        }
    }
#endif

private:
    // Training starts every batch from a zero state (Darknet) and keeps each step's state.
    void forwardTraining(ForwardArgs& args)
    {
        const int batch = args.output.batch() / steps_, outputs = output_.outputs;
        const std::size_t width = std::size_t(batch) * std::size_t(outputs);
        for (BlockTraining* block : {&inputTraining_, &selfTraining_, &outputTraining_})
            block->setSteps(steps_);
        states_.assign(std::size_t(steps_ + 1) * width, 0.0f); // states_[0]: the zero start
        fromInput_.resize(width);
        fromSelf_.resize(width);
        for (int t = 0; t < steps_; ++t) {
            const float* previous = states_.data() + std::size_t(t) * width;
            float* state = states_.data() + std::size_t(t + 1) * width;
            inputTraining_.forward(
                t, args.input.data() + std::size_t(t) * std::size_t(batch) * std::size_t(input_.inputs),
                fromInput_.data(), batch);
            selfTraining_.forward(t, previous, fromSelf_.data(), batch);
            for (std::size_t i = 0; i < width; ++i)
                state[i] = rnnState(previous[i], fromInput_[i], fromSelf_[i], shortcut_);
            outputTraining_.forward(t, state, args.output.data() + std::size_t(t) * width, batch);
        }
    }

    bool shortcut_;
    int steps_;
    ConnectedBlock input_, self_, output_;
    BlockTraining inputTraining_{input_}, selfTraining_{self_}, outputTraining_{output_};
    std::vector<float> state_, fromInput_, fromSelf_, states_;
#if NETWRIGHT_WITH_CUDA
    GpuSequenceState stateGpu_;
    DeviceBuffer fromInputGpu_, fromSelfGpu_, stateDeltaGpu_, previousGpu_;
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> RnnLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<RnnRuntime>(*this, int(spec.input.size), spec.timeSteps);
}

} // namespace nw
