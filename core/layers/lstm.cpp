#include "layers/lstm.h"

#include "graph/layer_spec.h"
#include "kernels/recurrent_cells.h"
#include "layers/recurrent.h"

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/recurrent_kernels.h"
#endif

#include <algorithm>
#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> LstmLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<LstmLayer>();
    l->outputs = r.getInt("output", 1);
    l->batchNormalize = r.getFlag("batch_normalize", false);

    if (l->outputs < 1)
        r.error("output", "output must be at least 1");
    return l;
}

LayerResult LstmLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (outputs < 1)
        return result;
    if (ctx.input().size <= 0) {
        if (ctx.inputKnown()) // (behind a layer with an error: that one message is enough)
            ctx.error("[lstm] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::flat(outputs);
    result.costs = connectedBlocksCosts(ctx.input().size, outputs, 4, 4);
    return result;
}

namespace {

// Darknet's LSTM: f, i, o = σ(w·(h) + u·(x)), g = tanh(wg(h) + ug(x)); c = f ⊙ c + i ⊙ g;
// h = o ⊙ tanh(c) is the output. Gates are linear connected blocks; c and h persist between calls.
class LstmRuntime final : public RecurrentRuntime {
public:
    LstmRuntime(const LstmLayer& config, int inputs, int steps)
        : steps_(std::max(1, steps)), wi_(block(config.outputs, config)), wf_(block(config.outputs, config)),
          wo_(block(config.outputs, config)), wg_(block(config.outputs, config)), ui_(block(inputs, config)),
          uf_(block(inputs, config)), uo_(block(inputs, config)), ug_(block(inputs, config))
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays; // pjreddie's order: wi, wf, wo, wg, ui, uf, uo, ug
        for (ConnectedBlock* b : {&wi_, &wf_, &wo_, &wg_, &ui_, &uf_, &uo_, &ug_})
            b->appendWeightArrays(arrays);
        return arrays;
    }
    void prepare(const WeightsHeader& header) override
    {
        prepareBlocks(header, {&wi_, &wf_, &wo_, &wg_, &ui_, &uf_, &uo_, &ug_});
    }
    void initialize(std::mt19937& random) override
    {
        for (ConnectedBlock* b : {&wi_, &wf_, &wo_, &wg_, &ui_, &uf_, &uo_, &ug_})
            b->initialize(random);
    }

    // Per step: f, i, o = σ(W·h + U·x), g = tanh(W·h + U·x); c' = f∘c + i∘g; h' = o∘tanh(c'), the output.
    // At inference c and h persist between calls; training starts each batch from zeros and keeps every
    // step for the backward pass.
    void forward(ForwardArgs& args) override
    {
        const bool training = args.context.training;
        const int batch = args.output.batch() / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wi_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(ui_.inputs);
        if (training) {
            for (Gate& gate : gates()) {
                gate.recurrent->setSteps(steps_);
                gate.input->setSteps(steps_);
                gate.values.resize(std::size_t(steps_) * n);
            }
            cells_.assign(std::size_t(steps_ + 1) * n, 0.0f);
            hiddens_.assign(std::size_t(steps_ + 1) * n, 0.0f);
        } else if (cell_.size() != n) {
            cell_.assign(n, 0.0f);
            hidden_.assign(n, 0.0f);
        }
        std::vector<float> a(n), b(n), local[4];
        for (int t = 0; t < steps_; ++t) {
            const float* x = args.input.data() + std::size_t(t) * inputWidth;
            const float* h = training ? hiddens_.data() + std::size_t(t) * n : hidden_.data();
            const float* c = training ? cells_.data() + std::size_t(t) * n : cell_.data();
            float* values[4];
            int k = 0;
            for (Gate& gate : gates()) {
                if (training) {
                    gate.recurrent->forward(t, h, a.data(), batch);
                    gate.input->forward(t, x, b.data(), batch);
                    values[k] = gate.values.data() + std::size_t(t) * n;
                } else {
                    gate.recurrentBlock->forward(h, a.data(), batch);
                    gate.inputBlock->forward(x, b.data(), batch);
                    local[k].resize(n);
                    values[k] = local[k].data();
                }
                for (std::size_t j = 0; j < n; ++j)
                    values[k][j] = lstmGate(a[j], b[j], gate.activation);
                ++k;
            }
            const float *f = values[0], *i = values[1], *g = values[2], *o = values[3];
            float* nextCell = training ? cells_.data() + std::size_t(t + 1) * n : cell_.data();
            float* nextHidden = training ? hiddens_.data() + std::size_t(t + 1) * n : hidden_.data();
            float* out = args.output.data() + std::size_t(t) * n;
            for (std::size_t j = 0; j < n; ++j) {
                nextHidden[j] = lstmCell(f[j], i[j], g[j], o[j], c[j], nextCell[j]);
                out[j] = nextHidden[j];
            }
        }
    }

    std::vector<Parameter> parameters() override
    {
        return blockParameters({&wiT_, &wfT_, &woT_, &wgT_, &uiT_, &ufT_, &uoT_, &ugT_});
    }

    void backward(BackwardArgs& args) override
    {
        const int batch = args.output.batch() / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wi_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(ui_.inputs);
        std::vector<float> hiddenDelta(n, 0.0f), cellDelta(n, 0.0f), previousHidden(n), pre[4], scratch(n);
        for (auto& p : pre)
            p.resize(n);
        auto gateList = gates();
        for (int t = steps_ - 1; t >= 0; --t) {
            const std::size_t at = std::size_t(t) * n;
            const float *f = gateList[0].values.data() + at, *i = gateList[1].values.data() + at,
                        *g = gateList[2].values.data() + at, *o = gateList[3].values.data() + at;
            const float* c = cells_.data() + std::size_t(t + 1) * n;
            const float* cPrevious = cells_.data() + at;
            const float* outDelta = args.outputDelta.data() + at;
            for (std::size_t j = 0; j < n; ++j)
                lstmDeltas(outDelta[j] + hiddenDelta[j], cellDelta[j], c[j], cPrevious[j], f[j], i[j], g[j],
                           o[j], pre[0][j], pre[1][j], pre[2][j], pre[3][j]);
            std::fill(previousHidden.begin(), previousHidden.end(), 0.0f);
            float* dx = args.inputDelta ? args.inputDelta->data() + std::size_t(t) * inputWidth : nullptr;
            for (int k = 0; k < 4; ++k) {
                scratch = pre[k];
                gateList[std::size_t(k)].recurrent->backward(t, scratch.data(),
                                                             t > 0 ? previousHidden.data() : nullptr, batch);
                scratch = pre[k];
                gateList[std::size_t(k)].input->backward(t, scratch.data(), dx, batch);
            }
            hiddenDelta = previousHidden;
        }
    }

#if NETWRIGHT_WITH_CUDA
    // The CPU's steps on the device (cuBLAS gates, kernels/recurrent_cells.h between them).
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const bool training = args.training;
        const int batch = args.batch / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wi_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(ui_.inputs);
        aGpu_.resize(n);
        bGpu_.resize(n);
        auto gateList = gates();
        for (std::size_t k = 0; k < 4; ++k)
            gateGpu_[k].resize(training ? std::size_t(steps_) * n : n);
        if (training) {
            for (Gate& gate : gateList) {
                gate.recurrent->setSteps(steps_);
                gate.input->setSteps(steps_);
            }
        }
        cellGpu_.start(gpu, n, steps_, training);
        hiddenGpu_.start(gpu, n, steps_, training);
        for (int t = 0; t < steps_; ++t) {
            const float* x = args.input + std::size_t(t) * inputWidth;
            const std::size_t at = training ? std::size_t(t) * n : 0; // this step's gate values
            const float* h = hiddenGpu_.before(t);
            const float* c = cellGpu_.before(t);
            float* values[4];
            for (std::size_t k = 0; k < 4; ++k) {
                Gate& gate = gateList[k];
                gate.recurrent->forwardGpu(gpu, t, h, aGpu_.data(), batch, args.training);
                gate.input->forwardGpu(gpu, t, x, bGpu_.data(), batch, args.training);
                values[k] = gateGpu_[k].data() + at;
                cuda::lstmGate(aGpu_.data(), bGpu_.data(), gate.activation, values[k], n, gpu.stream());
            }
            cuda::lstmCell(values[0], values[1], values[2], values[3], c, cellGpu_.after(t),
                           hiddenGpu_.after(t), args.output + std::size_t(t) * n, n, gpu.stream());
        }
    }

    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        GpuExec& gpu = args.gpu;
        const bool gradients = args.parameterGradients;
        const int batch = args.batch / steps_;
        const std::size_t n = std::size_t(batch) * std::size_t(wi_.outputs);
        const std::size_t inputWidth = std::size_t(batch) * std::size_t(ui_.inputs);
        for (DeviceBuffer* buffer : {&hiddenDeltaGpu_, &cellDeltaGpu_, &previousHiddenGpu_, &aGpu_})
            buffer->resize(n);
        for (DeviceBuffer& pre : preGpu_)
            pre.resize(n);
        hiddenDeltaGpu_.zero(gpu.stream());
        cellDeltaGpu_.zero(gpu.stream());
        auto gateList = gates();
        float* scratch = aGpu_.data(); // a block's backward uses up its delta
        for (int t = steps_ - 1; t >= 0; --t) {
            const std::size_t at = std::size_t(t) * n;
            cuda::lstmDeltas(args.outputDelta + at, hiddenDeltaGpu_.data(), cellDeltaGpu_.data(),
                             cellGpu_.after(t), cellGpu_.before(t), gateGpu_[0].data() + at,
                             gateGpu_[1].data() + at, gateGpu_[2].data() + at, gateGpu_[3].data() + at,
                             preGpu_[0].data(), preGpu_[1].data(), preGpu_[2].data(), preGpu_[3].data(), n,
                             gpu.stream());
            previousHiddenGpu_.zero(gpu.stream());
            float* dx = args.inputDelta ? args.inputDelta + std::size_t(t) * inputWidth : nullptr;
            for (std::size_t k = 0; k < 4; ++k) {
                gpu.copyOnDevice(preGpu_[k].data(), scratch, n, "[lstm]");
                gateList[k].recurrent->backwardGpu(
                    gpu, t, scratch, t > 0 ? previousHiddenGpu_.data() : nullptr, batch, gradients);
                gpu.copyOnDevice(preGpu_[k].data(), scratch, n, "[lstm]");
                gateList[k].input->backwardGpu(gpu, t, scratch, dx, batch, gradients);
            }
            std::swap(hiddenDeltaGpu_, previousHiddenGpu_);
        }
    }
#endif

private:
    static ConnectedBlock block(int inputs, const LstmLayer& config)
    {
        return ConnectedBlock(inputs, config.outputs, config.batchNormalize, Activation::Linear);
    }
    struct Gate {
        ConnectedBlock* recurrentBlock;
        ConnectedBlock* inputBlock;
        BlockTraining* recurrent;
        BlockTraining* input;
        Activation activation;
        std::vector<float>& values; // each training step's gate values
    };
    // f, i, g, o (the order backward expects).
    std::vector<Gate> gates()
    {
        return {{&wf_, &uf_, &wfT_, &ufT_, Activation::Logistic, f_},
                {&wi_, &ui_, &wiT_, &uiT_, Activation::Logistic, i_},
                {&wg_, &ug_, &wgT_, &ugT_, Activation::Tanh, g_},
                {&wo_, &uo_, &woT_, &uoT_, Activation::Logistic, o_}};
    }

    int steps_;
    ConnectedBlock wi_, wf_, wo_, wg_, ui_, uf_, uo_, ug_;
    BlockTraining wiT_{wi_}, wfT_{wf_}, woT_{wo_}, wgT_{wg_}, uiT_{ui_}, ufT_{uf_}, uoT_{uo_}, ugT_{ug_};
    std::vector<float> cell_, hidden_;                   // inference: carried between calls
    std::vector<float> cells_, hiddens_, f_, i_, g_, o_; // training: every step
#if NETWRIGHT_WITH_CUDA
    GpuSequenceState cellGpu_, hiddenGpu_; // as on the CPU
    DeviceBuffer gateGpu_[4];              // f, i, g, o: every training step's values
    DeviceBuffer aGpu_, bGpu_, hiddenDeltaGpu_, cellDeltaGpu_, previousHiddenGpu_, preGpu_[4];
#endif
};

} // namespace

std::unique_ptr<RuntimeLayer> LstmLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<LstmRuntime>(*this, int(spec.input.size), spec.timeSteps);
}

} // namespace nw
