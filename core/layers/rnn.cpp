#include "layers/rnn.h"

#include "graph/layer_spec.h"
#include "kernels/recurrent_cells.h"
#include "layers/recurrent.h"

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
class RnnRuntime final : public RuntimeLayer {
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

    bool canTrain() const override { return true; }

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
};

} // namespace

std::unique_ptr<RuntimeLayer> RnnLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<RnnRuntime>(*this, int(spec.input.size), spec.timeSteps);
}

} // namespace nw
