#include "layers/gru.h"

#include "graph/layer_spec.h"
#include "kernels/recurrent_cells.h"
#include "layers/recurrent.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/recurrent_kernels.h"
#endif

#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> GruLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<GruLayer>();
    l->outputs = r.getInt("output", 1);
    l->batchNormalize = r.getFlag("batch_normalize", false);
    l->tanh = r.getFlag("tanh", false);
    if (l->outputs < 1)
        r.error("output", "output must be at least 1");
    return l;
}

LayerResult GruLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1)
        return result;
    if (ctx.input().size <= 0) {
        if (ctx.inputKnown()) // (behind a layer with an error: that one message is enough)
            ctx.error("[gru] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::flat(outputs);
    result.costs = connectedBlocksCosts(ctx.input().size, outputs, 3, 3);
    return result;
}

namespace {

// Darknet's GRU: z = σ(uz(x) + wz(s)), r = σ(ur(x) + wr(s)), h = act(uh(x) + wh(r ⊙ s)),
// output = state = z ⊙ s + (1 − z) ⊙ h, with act tanh (tanh=1) or logistic. The gates are linear
// connected blocks; the state persists between forward calls.
class GruRuntime final : public RecurrentRuntime {
public:
    GruRuntime(const GruLayer& config, int inputs, int steps)
        : tanh_(config.tanh), steps_(std::max(1, steps)), wz_(block(config.outputs, config)),
          wr_(block(config.outputs, config)), wh_(block(config.outputs, config)), uz_(block(inputs, config)),
          ur_(block(inputs, config)), uh_(block(inputs, config))
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays; // pjreddie's order: wz, wr, wh, uz, ur, uh
        for (ConnectedBlock* b : {&wz_, &wr_, &wh_, &uz_, &ur_, &uh_})
            b->appendWeightArrays(arrays);
        return arrays;
    }
    void prepare(const WeightsHeader& header) override
    {
        prepareBlocks(header, {&wz_, &wr_, &wh_, &uz_, &ur_, &uh_});
    }
    void initialize(std::mt19937& random) override
    {
        for (ConnectedBlock* b : {&wz_, &wr_, &wh_, &uz_, &ur_, &uh_})
            b->initialize(random);
    }

    // Per step: z = σ(Wz·s + Uz·x), r = σ(Wr·s + Ur·x), c = act(Wh·(r∘s) + Uh·x),
    // s' = z∘s + (1 − z)∘c, which is also the output. At inference the state persists between calls;
    // training starts each batch from a zero state and keeps every step for the backward pass.
    void forward(ForwardArgs& args) override
    {
        const bool training = args.context.training;
        const int batch = args.output.batch() / steps_, outputs = wz_.outputs;
        const std::size_t n = std::size_t(batch) * std::size_t(outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(uz_.inputs);
        if (training) {
            for (BlockTraining* t : {&wzT_, &wrT_, &whT_, &uzT_, &urT_, &uhT_})
                t->setSteps(steps_);
            states_.assign(std::size_t(steps_ + 1) * n, 0.0f);
            z_.resize(std::size_t(steps_) * n);
            r_.resize(std::size_t(steps_) * n);
            c_.resize(std::size_t(steps_) * n);
        } else if (state_.size() != n) {
            state_.assign(n, 0.0f);
        }
        std::vector<float> a(n), b(n), ar(n), br(n), forgotten(n);
        for (int t = 0; t < steps_; ++t) {
            const float* x = args.input.data() + std::size_t(t) * inputWidth;
            const float* s = training ? states_.data() + std::size_t(t) * n : state_.data();
            float* z = training ? z_.data() + std::size_t(t) * n : nullptr;
            std::vector<float> zLocal, rLocal, cLocal;
            if (!training) {
                zLocal.resize(n);
                rLocal.resize(n);
                cLocal.resize(n);
                z = zLocal.data();
            }
            float* r = training ? r_.data() + std::size_t(t) * n : rLocal.data();
            float* c = training ? c_.data() + std::size_t(t) * n : cLocal.data();
            run(wz_, wzT_, t, s, a.data(), batch, training);
            run(uz_, uzT_, t, x, b.data(), batch, training);
            run(wr_, wrT_, t, s, ar.data(), batch, training);
            run(ur_, urT_, t, x, br.data(), batch, training);
            for (std::size_t i = 0; i < n; ++i)
                forgotten[i] = gruGates(a[i], b[i], ar[i], br[i], s[i], z[i], r[i]);
            run(wh_, whT_, t, forgotten.data(), a.data(), batch, training);
            run(uh_, uhT_, t, x, b.data(), batch, training);
            float* out = args.output.data() + std::size_t(t) * n;
            float* next = training ? states_.data() + std::size_t(t + 1) * n : state_.data();
            for (std::size_t i = 0; i < n; ++i)
                out[i] = gruOutput(a[i], b[i], z[i], s[i], tanh_, c[i]);
            std::copy(out, out + n, next);
        }
    }

    std::vector<Parameter> parameters() override
    {
        return blockParameters({&wzT_, &wrT_, &whT_, &uzT_, &urT_, &uhT_});
    }

    void backward(BackwardArgs& args) override
    {
        const int batch = args.output.batch() / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wz_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(uz_.inputs);
        std::vector<float> future(n, 0.0f), previous(n), dz(n), dr(n), dc(n), df(n), scratch(n);
        for (int t = steps_ - 1; t >= 0; --t) {
            const float* s = states_.data() + std::size_t(t) * n;
            const float* z = z_.data() + std::size_t(t) * n;
            const float* r = r_.data() + std::size_t(t) * n;
            const float* c = c_.data() + std::size_t(t) * n;
            const float* outDelta = args.outputDelta.data() + std::size_t(t) * n;
            float* dx = args.inputDelta ? args.inputDelta->data() + std::size_t(t) * inputWidth : nullptr;
            for (std::size_t i = 0; i < n; ++i)
                previous[i] = gruOutputDelta(outDelta[i] + future[i], s[i], z[i], c[i], tanh_, dz[i], dc[i]);
            std::fill(df.begin(), df.end(), 0.0f);
            scratch = dc;
            whT_.backward(t, scratch.data(), df.data(), batch);
            scratch = dc;
            uhT_.backward(t, scratch.data(), dx, batch);
            for (std::size_t i = 0; i < n; ++i)
                previous[i] += gruResetDelta(df[i], r[i], s[i], dr[i]);
            const bool first = t == 0; // the zero start state needs no delta
            scratch = dr;
            wrT_.backward(t, scratch.data(), first ? nullptr : previous.data(), batch);
            scratch = dr;
            urT_.backward(t, scratch.data(), dx, batch);
            scratch = dz;
            wzT_.backward(t, scratch.data(), first ? nullptr : previous.data(), batch);
            scratch = dz;
            uzT_.backward(t, scratch.data(), dx, batch);
            future = previous;
        }
    }

#if NETWRIGHT_WITH_CUDA
    // The CPU's steps on the device (cuBLAS gates, kernels/recurrent_cells.h between them).
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const bool training = args.training;
        const int batch = args.batch / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wz_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(uz_.inputs);
        const std::size_t kept = training ? std::size_t(steps_) * n : n; // every step's gates, or one
        for (DeviceBuffer* buffer : {&aGpu_, &bGpu_, &arGpu_, &brGpu_, &forgottenGpu_})
            buffer->resize(n);
        for (DeviceBuffer* buffer : {&zGpu_, &rGpu_, &cGpu_})
            buffer->resize(kept);
        if (training) {
            for (BlockTraining* t : {&wzT_, &wrT_, &whT_, &uzT_, &urT_, &uhT_})
                t->setSteps(steps_);
        }
        stateGpu_.start(gpu, n, steps_, training);
        for (int t = 0; t < steps_; ++t) {
            const float* x = args.input + std::size_t(t) * inputWidth;
            float* s = stateGpu_.before(t);
            const std::size_t at = training ? std::size_t(t) * n : 0;
            float *z = zGpu_.data() + at, *r = rGpu_.data() + at, *c = cGpu_.data() + at;
            wzT_.forwardGpu(gpu, t, s, aGpu_.data(), batch, args.training);
            uzT_.forwardGpu(gpu, t, x, bGpu_.data(), batch, args.training);
            wrT_.forwardGpu(gpu, t, s, arGpu_.data(), batch, args.training);
            urT_.forwardGpu(gpu, t, x, brGpu_.data(), batch, args.training);
            cuda::gruGates(aGpu_.data(), bGpu_.data(), arGpu_.data(), brGpu_.data(), s, z, r,
                           forgottenGpu_.data(), n, gpu.stream());
            whT_.forwardGpu(gpu, t, forgottenGpu_.data(), aGpu_.data(), batch, args.training);
            uhT_.forwardGpu(gpu, t, x, bGpu_.data(), batch, args.training);
            float* out = args.output + std::size_t(t) * n;
            cuda::gruOutput(aGpu_.data(), bGpu_.data(), z, s, tanh_, c, out, n, gpu.stream());
            gpu.copyOnDevice(out, stateGpu_.after(t), n, "[gru]");
        }
    }

    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        GpuExec& gpu = args.gpu;
        const bool gradients = args.parameterGradients;
        const int batch = args.batch / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wz_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(uz_.inputs);
        // a, b, ar, br, forgotten serve as future, dz, dc, dr and scratch; df gets its own.
        for (DeviceBuffer* buffer :
             {&aGpu_, &bGpu_, &arGpu_, &brGpu_, &forgottenGpu_, &dfGpu_, &previousGpu_})
            buffer->resize(n);
        float *future = aGpu_.data(), *dz = bGpu_.data(), *dc = arGpu_.data(), *dr = brGpu_.data();
        float *scratch = forgottenGpu_.data(), *df = dfGpu_.data(), *previous = previousGpu_.data();
        aGpu_.zero(gpu.stream());
        auto pass = [&](BlockTraining& block, int t, const float* delta, float* into) {
            gpu.copyOnDevice(delta, scratch, n, "[gru]"); // a block's backward uses up its delta
            block.backwardGpu(gpu, t, scratch, into, batch, gradients);
        };
        for (int t = steps_ - 1; t >= 0; --t) {
            const std::size_t at = std::size_t(t) * n;
            const float* s = stateGpu_.before(t);
            float* dx = args.inputDelta ? args.inputDelta + std::size_t(t) * inputWidth : nullptr;
            cuda::gruOutputDelta(args.outputDelta + at, future, s, zGpu_.data() + at, cGpu_.data() + at,
                                 tanh_, previous, dz, dc, n, gpu.stream());
            dfGpu_.zero(gpu.stream());
            pass(whT_, t, dc, df);
            pass(uhT_, t, dc, dx);
            cuda::gruResetDelta(df, rGpu_.data() + at, s, previous, dr, n, gpu.stream());
            float* toPrevious = t > 0 ? previous : nullptr; // the zero start state needs no delta
            pass(wrT_, t, dr, toPrevious);
            pass(urT_, t, dr, dx);
            pass(wzT_, t, dz, toPrevious);
            pass(uzT_, t, dz, dx);
            std::swap(future, previous);
        }
    }
#endif

private:
    static ConnectedBlock block(int inputs, const GruLayer& config)
    {
        return ConnectedBlock(inputs, config.outputs, config.batchNormalize, Activation::Linear);
    }
    static void run(const ConnectedBlock& block, BlockTraining& training, int step, const float* in,
                    float* out, int batch, bool train)
    {
        if (train)
            training.forward(step, in, out, batch);
        else
            block.forward(in, out, batch);
    }

    bool tanh_;
    int steps_;
    ConnectedBlock wz_, wr_, wh_, uz_, ur_, uh_;
    BlockTraining wzT_{wz_}, wrT_{wr_}, whT_{wh_}, uzT_{uz_}, urT_{ur_}, uhT_{uh_};
    std::vector<float> state_;              // inference: carried between calls
    std::vector<float> states_, z_, r_, c_; // training: every step's start state and gates
#if NETWRIGHT_WITH_CUDA
    GpuSequenceState stateGpu_;
    DeviceBuffer zGpu_, rGpu_, cGpu_;                                               // as on the CPU
    DeviceBuffer aGpu_, bGpu_, arGpu_, brGpu_, forgottenGpu_, dfGpu_, previousGpu_; // per step
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> GruLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<GruRuntime>(*this, int(spec.input.size), spec.timeSteps);
}

} // namespace nw
