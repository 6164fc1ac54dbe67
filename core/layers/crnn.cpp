#include "layers/crnn.h"

#include "graph/layer_spec.h"
#include "layers/convolutional.h"
#include "layers/recurrent.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/recurrent_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> CrnnLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CrnnLayer>();
    l->outputs = r.getInt("output_filters", r.getInt("output", 1));
    l->hidden = r.getInt("hidden_filters", r.getInt("hidden", 1));
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getFlag("batch_normalize", false);
    l->shortcut = r.getFlag("shortcut", false);
    r.accept({"size", "stride", "pad"});
    if (l->outputs < 1 || l->hidden < 1)
        r.error("output_filters", "output_filters and hidden_filters must be at least 1");
    return l;
}

LayerResult CrnnLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1 || hidden < 1 || !ctx.requireImage("crnn"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, outputs);
    const double pixels = double(in.w) * in.h;
    const std::int64_t kernels =
        std::int64_t(in.c) * hidden + std::int64_t(hidden) * hidden + std::int64_t(hidden) * outputs;
    result.costs.params = kernels * 9 + 2 * hidden + outputs;
    result.costs.bflops = 2.0 * double(kernels) * 9 * pixels / 1e9;
    result.costs.workspaceBytes =
        std::int64_t(pixels) * 9 * std::max(in.c, hidden) * std::int64_t(sizeof(float));
    return result;
}

namespace {

// Three 3×3 same-size convolutions (Darknet's own convolution runtime): state = (shortcut ? state :
// 0) + input(x) + self(state); output = output(state). The state persists between calls.
class CrnnRuntime final : public RuntimeLayer {
public:
    CrnnRuntime(const CrnnLayer& config, const Shape& in, int steps)
        : shortcut_(config.shortcut), steps_(std::max(1, steps)), inputShape_(in),
          hiddenShape_(Shape::image(in.w, in.h, config.hidden)),
          outputShape_(Shape::image(in.w, in.h, config.outputs))
    {
        input_ = conv(config, config.hidden, in);
        self_ = conv(config, config.hidden, hiddenShape_);
        output_ = conv(config, config.outputs, hiddenShape_);
    }
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays;
        for (RuntimeLayer* part : {input_.get(), self_.get(), output_.get()})
            for (const WeightArray& array : part->weightArrays())
                arrays.push_back(array);
        return arrays;
    }
    void initialize(std::mt19937& random) override
    {
        for (RuntimeLayer* part : {input_.get(), self_.get(), output_.get()})
            part->initialize(random);
    }
    void prepare(const WeightsHeader& header) override
    {
        for (RuntimeLayer* part : {input_.get(), self_.get(), output_.get()})
            part->prepare(header);
    }
    std::size_t workspaceFloats() const override
    {
        return std::max({input_->workspaceFloats(), self_->workspaceFloats(), output_->workspaceFloats()});
    }
    void forward(ForwardArgs& args) override
    {
        if (args.context.training) {
            forwardTraining(args);
            return;
        }
        // Inference: `time_steps` steps per call, the state carried on to the next call.
        const int batch = args.output.batch() / steps_;
        if (state_.batch() != batch) {
            state_.reset(hiddenShape_, batch);
            fromInput_.reset(hiddenShape_, batch);
            fromSelf_.reset(hiddenShape_, batch);
        }
        const std::size_t outWidth = std::size_t(outputShape_.size) * std::size_t(batch);
        const std::size_t inWidth = std::size_t(inputShape_.size) * std::size_t(batch);
        Tensor x(inputShape_, batch), out(outputShape_, batch);
        std::vector<const Tensor*> none;
        for (int t = 0; t < steps_; ++t) {
            std::copy_n(args.input.data() + std::size_t(t) * inWidth, inWidth, x.data());
            ForwardArgs a{x, none, fromInput_, args.context};
            input_->forward(a);
            ForwardArgs s{state_, none, fromSelf_, args.context};
            self_->forward(s);
            for (std::size_t i = 0; i < state_.size(); ++i)
                state_.data()[i] =
                    (shortcut_ ? state_.data()[i] : 0.0f) + fromInput_.data()[i] + fromSelf_.data()[i];
            ForwardArgs o{state_, none, out, args.context};
            output_->forward(o);
            std::copy_n(out.data(), outWidth, args.output.data() + std::size_t(t) * outWidth);
        }
    }

    bool canTrain() const override { return input_->canTrain() && self_->canTrain() && output_->canTrain(); }

    std::vector<Parameter> parameters() override
    {
        std::vector<Parameter> all;
        for (RuntimeLayer* part : {input_.get(), self_.get(), output_.get()}) {
            auto mine = part->parameters();
            all.insert(all.end(), mine.begin(), mine.end());
        }
        return all;
    }

    // Backpropagation through time. The convolutions keep only their last forward's internals, so each
    // step's forward runs again just before its backward (its rolling batch-norm statistics restored
    // afterwards, so they move once per step as in the forward pass).
    void backward(BackwardArgs& args) override
    {
        const int batch = args.output.batch() / steps_;
        const std::size_t hidden = std::size_t(hiddenShape_.size) * std::size_t(batch);
        const std::size_t outWidth = std::size_t(outputShape_.size) * std::size_t(batch);
        const std::size_t inWidth = std::size_t(inputShape_.size) * std::size_t(batch);
        Tensor stateDelta(hiddenShape_, batch), previous(hiddenShape_, batch), partDelta(hiddenShape_, batch);
        Tensor outDelta(outputShape_, batch), out(outputShape_, batch), part(hiddenShape_, batch);
        Tensor x(inputShape_, batch), inDelta(inputShape_, batch);
        std::vector<const Tensor*> none;
        std::vector<Tensor*> noDeltas;
        for (int t = steps_ - 1; t >= 0; --t) {
            std::copy_n(args.input.data() + std::size_t(t) * inWidth, inWidth, x.data());
            // The output convolution, fed by this step's state.
            rerun(*output_, states_[std::size_t(t + 1)], out, args.context);
            std::copy_n(args.outputDelta.data() + std::size_t(t) * outWidth, outWidth, outDelta.data());
            BackwardArgs o{
                states_[std::size_t(t + 1)], &stateDelta, none, noDeltas, out, outDelta, args.context};
            output_->backward(o);
            // The state's delta goes to the input convolution and to the self one (the previous state).
            rerun(*input_, x, part, args.context);
            std::copy_n(stateDelta.data(), hidden, partDelta.data());
            std::fill(inDelta.data(), inDelta.data() + inDelta.size(), 0.0f);
            BackwardArgs a{x,           args.inputDelta ? &inDelta : nullptr, none, noDeltas, part, partDelta,
                           args.context};
            input_->backward(a);
            if (args.inputDelta)
                for (std::size_t i = 0; i < inWidth; ++i)
                    args.inputDelta->data()[std::size_t(t) * inWidth + i] += inDelta.data()[i];
            rerun(*self_, states_[std::size_t(t)], part, args.context);
            std::copy_n(stateDelta.data(), hidden, partDelta.data());
            std::fill(previous.data(), previous.data() + previous.size(), 0.0f);
            BackwardArgs sb{states_[std::size_t(t)],
                            t > 0 ? &previous : nullptr,
                            none,
                            noDeltas,
                            part,
                            partDelta,
                            args.context};
            self_->backward(sb);
            if (shortcut_)
                for (std::size_t i = 0; i < hidden; ++i)
                    previous.data()[i] += stateDelta.data()[i];
            std::copy_n(previous.data(), hidden, stateDelta.data());
        }
    }

#if NETWRIGHT_WITH_CUDA
    bool hasGpuForward(std::span<const Shape> none) const override
    {
        return input_->hasGpuForward(none) && self_->hasGpuForward(none) && output_->hasGpuForward(none);
    }
    bool hasGpuBackward(std::span<const Shape> none) const override
    {
        return input_->hasGpuBackward(none) && self_->hasGpuBackward(none) && output_->hasGpuBackward(none);
    }
    // Not inside a CUDA graph: the state carries on from call to call, so a replay is not the same pass.
    bool gpuForwardCapturable() const override
    {
        return false;
    }

    // The CPU's steps on the device: the three convolutions' own GPU passes, [rnn]'s state kernel.
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const int batch = args.batch / steps_;
        const std::size_t hidden = std::size_t(hiddenShape_.size) * std::size_t(batch);
        const std::size_t outWidth = std::size_t(outputShape_.size) * std::size_t(batch);
        const std::size_t inWidth = std::size_t(inputShape_.size) * std::size_t(batch);
        fromInputGpu_.resize(hidden);
        fromSelfGpu_.resize(hidden);
        stateGpu_.start(gpu, hidden, steps_, args.training);
        for (int t = 0; t < steps_; ++t) {
            const float* previous = stateGpu_.before(t);
            float* state = stateGpu_.after(t);
            runGpu(*input_, args.input + std::size_t(t) * inWidth, inputShape_, fromInputGpu_.data(),
                   hiddenShape_, batch, args);
            runGpu(*self_, previous, hiddenShape_, fromSelfGpu_.data(), hiddenShape_, batch, args);
            cuda::rnnState(previous, fromInputGpu_.data(), fromSelfGpu_.data(), state, hidden, shortcut_,
                           gpu.stream());
            runGpu(*output_, state, hiddenShape_, args.output + std::size_t(t) * outWidth, outputShape_,
                   batch, args);
        }
    }

    // As backward: each convolution's forward runs again before its backward (rolling statistics
    // restored), the deltas added straight into the layer's buffers (GPU backward passes add).
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        GpuExec& gpu = args.gpu;
        const int batch = args.batch / steps_;
        const std::size_t hidden = std::size_t(hiddenShape_.size) * std::size_t(batch);
        const std::size_t outWidth = std::size_t(outputShape_.size) * std::size_t(batch);
        const std::size_t inWidth = std::size_t(inputShape_.size) * std::size_t(batch);
        if (!stateGpu_.trained(hidden, steps_))
            throw GpuError("[crnn] GPU backward without its training forward");
        for (DeviceBuffer* buffer : {&stateDeltaGpu_, &previousGpu_, &partGpu_, &partDeltaGpu_})
            buffer->resize(hidden);
        outGpu_.resize(outWidth);
        stateDeltaGpu_.zero(gpu.stream());
        const auto back = [&](RuntimeLayer& part, const float* in, const Shape& inShape, float* inDelta,
                              float* out, float* outDelta, const Shape& outShape) {
            GpuBackwardArgs b{in,
                              inDelta,
                              {},
                              {},
                              {},
                              {},
                              out,
                              outDelta,
                              std::size_t(inShape.size),
                              std::size_t(outShape.size),
                              batch,
                              args.parameterGradients,
                              gpu};
            part.backwardGpu(b);
        };
        for (int t = steps_ - 1; t >= 0; --t) {
            const float* x = args.input + std::size_t(t) * inWidth;
            const float* state = stateGpu_.after(t);
            const float* previous = stateGpu_.before(t);
            rerunGpu(*output_, state, hiddenShape_, outGpu_.data(), outputShape_, batch, gpu);
            back(*output_, state, hiddenShape_, stateDeltaGpu_.data(), outGpu_.data(),
                 args.outputDelta + std::size_t(t) * outWidth, outputShape_);
            rerunGpu(*input_, x, inputShape_, partGpu_.data(), hiddenShape_, batch, gpu);
            gpu.copyOnDevice(stateDeltaGpu_.data(), partDeltaGpu_.data(), hidden, "[crnn]");
            back(*input_, x, inputShape_,
                 args.inputDelta ? args.inputDelta + std::size_t(t) * inWidth : nullptr, partGpu_.data(),
                 partDeltaGpu_.data(), hiddenShape_);
            rerunGpu(*self_, previous, hiddenShape_, partGpu_.data(), hiddenShape_, batch, gpu);
            gpu.copyOnDevice(stateDeltaGpu_.data(), partDeltaGpu_.data(), hidden, "[crnn]");
            previousGpu_.zero(gpu.stream());
            back(*self_, previous, hiddenShape_, t > 0 ? previousGpu_.data() : nullptr, partGpu_.data(),
                 partDeltaGpu_.data(), hiddenShape_);
            if (shortcut_)
                cuda::addScaled(stateDeltaGpu_.data(), previousGpu_.data(), hidden, 1.0f, gpu.stream());
            std::swap(stateDeltaGpu_, previousGpu_);
        }
    }
#endif

private:
#if NETWRIGHT_WITH_CUDA
    // One convolution's GPU forward over `batch` items of one step (training or inference as `layer`).
    static void runGpu(RuntimeLayer& part, const float* in, const Shape& inShape, float* out,
                       const Shape& outShape, int batch, const GpuForwardArgs& layer)
    {
        GpuForwardArgs f{in,  std::size_t(inShape.size),  {},    {},        {},
                         out, std::size_t(outShape.size), batch, layer.gpu, layer.training};
        part.forwardGpu(f);
    }

    // As rerun, on the device: the convolution's training forward again, its rolling statistics kept.
    void rerunGpu(RuntimeLayer& part, const float* in, const Shape& inShape, float* out,
                  const Shape& outShape, int batch, GpuExec& gpu)
    {
        std::vector<ParamArray*> statistics;
        std::size_t total = 0;
        for (const WeightArray& array : part.weightArrays())
            if (array.batchNormStatistic) {
                statistics.push_back(array.data);
                total += array.data->size();
            }
        if (savedGpu_.size() < total) {
            gpu.synchronize(); // a queued restore may still read the old buffer
            savedGpu_.reserve(total);
        }
        std::size_t at = 0;
        for (ParamArray* array : statistics) {
            gpu.copyOnDevice(gpu.device(*array), savedGpu_.data() + at, array->size(), "[crnn]");
            at += array->size();
        }
        ExecContext training; // only its presence matters to a convolution: batch statistics
        training.training = true;
        GpuForwardArgs f{in,  std::size_t(inShape.size),  {},    {},  {},
                         out, std::size_t(outShape.size), batch, gpu, &training};
        part.forwardGpu(f);
        at = 0;
        for (ParamArray* array : statistics) {
            gpu.copyOnDevice(savedGpu_.data() + at, gpu.device(*array), array->size(), "[crnn]");
            at += array->size();
        }
    }
#endif

    // Training: each batch starts from a zero state; every step's state is kept.
    void forwardTraining(ForwardArgs& args)
    {
        const int batch = args.output.batch() / steps_;
        const std::size_t outWidth = std::size_t(outputShape_.size) * std::size_t(batch);
        const std::size_t inWidth = std::size_t(inputShape_.size) * std::size_t(batch);
        states_.resize(std::size_t(steps_ + 1));
        for (Tensor& state : states_)
            state.reset(hiddenShape_, batch);
        Tensor x(inputShape_, batch), a(hiddenShape_, batch), b(hiddenShape_, batch),
            out(outputShape_, batch);
        std::vector<const Tensor*> none;
        for (int t = 0; t < steps_; ++t) {
            std::copy_n(args.input.data() + std::size_t(t) * inWidth, inWidth, x.data());
            ForwardArgs fa{x, none, a, args.context};
            input_->forward(fa);
            ForwardArgs fs{states_[std::size_t(t)], none, b, args.context};
            self_->forward(fs);
            const float* previous = states_[std::size_t(t)].data();
            float* state = states_[std::size_t(t + 1)].data();
            for (std::size_t i = 0; i < states_[0].size(); ++i)
                state[i] = (shortcut_ ? previous[i] : 0.0f) + a.data()[i] + b.data()[i];
            ForwardArgs fo{states_[std::size_t(t + 1)], none, out, args.context};
            output_->forward(fo);
            std::copy_n(out.data(), outWidth, args.output.data() + std::size_t(t) * outWidth);
        }
    }

    // The forward of one convolution again (its internals for the backward), rolling statistics kept.
    static void rerun(RuntimeLayer& part, const Tensor& in, Tensor& out, ExecContext& context)
    {
        std::vector<std::vector<float>> saved;
        auto arrays = part.weightArrays();
        for (const WeightArray& array : arrays)
            if (array.batchNormStatistic)
                saved.emplace_back(array.data->begin(), array.data->end());
        std::vector<const Tensor*> none;
        ForwardArgs f{in, none, out, context};
        part.forward(f);
        std::size_t k = 0;
        for (const WeightArray& array : arrays)
            if (array.batchNormStatistic)
                array.data->assign(saved[k++]);
    }

    static std::unique_ptr<RuntimeLayer> conv(const CrnnLayer& config, int filters, const Shape& in)
    {
        ConvolutionalLayer layer;
        layer.filters = filters;
        layer.size = 3;
        layer.padding = 1;
        layer.batchNormalize = config.batchNormalize;
        layer.activation = config.activation;
        LayerSpec spec;
        spec.input = in;
        spec.output = Shape::image(in.w, in.h, filters);
        return layer.createRuntime(spec);
    }

    bool shortcut_;
    int steps_;
    Shape inputShape_, hiddenShape_, outputShape_;
    std::unique_ptr<RuntimeLayer> input_, self_, output_;
    Tensor state_, fromInput_, fromSelf_;
    std::vector<Tensor> states_; // training: the zero start, then every step's state
#if NETWRIGHT_WITH_CUDA
    GpuSequenceState stateGpu_; // as on the CPU
    DeviceBuffer fromInputGpu_, fromSelfGpu_;
    DeviceBuffer stateDeltaGpu_, previousGpu_, partGpu_, partDeltaGpu_, outGpu_, savedGpu_;
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> CrnnLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<CrnnRuntime>(*this, spec.input, spec.timeSteps);
}

} // namespace nw
