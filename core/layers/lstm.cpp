#include "layers/lstm.h"

#include "graph/network_spec.h"
#include "layers/recurrent.h"

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
class LstmRuntime final : public RuntimeLayer {
public:
    LstmRuntime(const LstmLayer& config, int inputs)
        : wi_(block(config.outputs, config)), wf_(block(config.outputs, config)),
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
    void initialize(std::mt19937& random) override
    {
        for (ConnectedBlock* b : {&wi_, &wf_, &wo_, &wg_, &ui_, &uf_, &uo_, &ug_})
            b->initialize(random);
    }
    void forward(ForwardArgs& args) override
    {
        const int batch = args.output.batch();
        const std::size_t n = std::size_t(batch) * std::size_t(wi_.outputs);
        if (cell_.size() != n) {
            cell_.assign(n, 0.0f);
            hidden_.assign(n, 0.0f);
        }
        auto gate = [&](const ConnectedBlock& w, const ConnectedBlock& u, Activation act) {
            std::vector<float> a(n), b(n);
            w.forward(hidden_.data(), a.data(), batch);
            u.forward(args.input.data(), b.data(), batch);
            for (std::size_t k = 0; k < n; ++k)
                a[k] = activate(a[k] + b[k], act);
            return a;
        };
        const auto f = gate(wf_, uf_, Activation::Logistic), i = gate(wi_, ui_, Activation::Logistic);
        const auto g = gate(wg_, ug_, Activation::Tanh), o = gate(wo_, uo_, Activation::Logistic);
        for (std::size_t k = 0; k < n; ++k) {
            cell_[k] = f[k] * cell_[k] + i[k] * g[k];
            hidden_[k] = o[k] * activate(cell_[k], Activation::Tanh);
            args.output.data()[k] = hidden_[k];
        }
    }

private:
    static ConnectedBlock block(int inputs, const LstmLayer& config)
    {
        return ConnectedBlock(inputs, config.outputs, config.batchNormalize, Activation::Linear);
    }

    ConnectedBlock wi_, wf_, wo_, wg_, ui_, uf_, uo_, ug_;
    std::vector<float> cell_, hidden_;
};

} // namespace

std::unique_ptr<RuntimeLayer> LstmLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<LstmRuntime>(*this, int(spec.input.size));
}

} // namespace nw
