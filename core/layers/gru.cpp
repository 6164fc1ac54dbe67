#include "layers/gru.h"

#include "graph/network_spec.h"
#include "layers/recurrent.h"

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
class GruRuntime final : public RuntimeLayer {
public:
    GruRuntime(const GruLayer& config, int inputs)
        : tanh_(config.tanh), wz_(block(config.outputs, config)), wr_(block(config.outputs, config)),
          wh_(block(config.outputs, config)), uz_(block(inputs, config)), ur_(block(inputs, config)),
          uh_(block(inputs, config))
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays; // pjreddie's order: wz, wr, wh, uz, ur, uh
        for (ConnectedBlock* b : {&wz_, &wr_, &wh_, &uz_, &ur_, &uh_})
            b->appendWeightArrays(arrays);
        return arrays;
    }
    void initialize(std::mt19937& random) override
    {
        for (ConnectedBlock* b : {&wz_, &wr_, &wh_, &uz_, &ur_, &uh_})
            b->initialize(random);
    }
    void forward(ForwardArgs& args) override
    {
        const int batch = args.output.batch(), outputs = wz_.outputs;
        const std::size_t n = std::size_t(batch) * std::size_t(outputs);
        if (state_.size() != n)
            state_.assign(n, 0.0f);
        std::vector<float> z(n), r(n), a(n), h(n);
        wz_.forward(state_.data(), z.data(), batch);
        uz_.forward(args.input.data(), a.data(), batch);
        for (std::size_t i = 0; i < n; ++i)
            z[i] = activate(z[i] + a[i], Activation::Logistic);
        wr_.forward(state_.data(), r.data(), batch);
        ur_.forward(args.input.data(), a.data(), batch);
        for (std::size_t i = 0; i < n; ++i)
            r[i] = activate(r[i] + a[i], Activation::Logistic) * state_[i]; // the forgotten state
        wh_.forward(r.data(), h.data(), batch);
        uh_.forward(args.input.data(), a.data(), batch);
        float* out = args.output.data();
        for (std::size_t i = 0; i < n; ++i) {
            const float candidate = activate(h[i] + a[i], tanh_ ? Activation::Tanh : Activation::Logistic);
            out[i] = z[i] * state_[i] + (1 - z[i]) * candidate;
            state_[i] = out[i];
        }
    }

private:
    static ConnectedBlock block(int inputs, const GruLayer& config)
    {
        return ConnectedBlock(inputs, config.outputs, config.batchNormalize, Activation::Linear);
    }

    bool tanh_;
    ConnectedBlock wz_, wr_, wh_, uz_, ur_, uh_;
    std::vector<float> state_;
};

} // namespace

std::unique_ptr<RuntimeLayer> GruLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<GruRuntime>(*this, int(spec.input.size));
}

} // namespace nw
