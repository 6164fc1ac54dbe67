#include "layers/crnn.h"

#include "graph/network_spec.h"
#include "layers/convolutional.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

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
    CrnnRuntime(const CrnnLayer& config, const Shape& in)
        : shortcut_(config.shortcut), hiddenShape_(Shape::image(in.w, in.h, config.hidden)),
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
        const int batch = args.output.batch();
        if (state_.batch() != batch) {
            state_.reset(hiddenShape_, batch);
            fromInput_.reset(hiddenShape_, batch);
            fromSelf_.reset(hiddenShape_, batch);
        }
        std::vector<const Tensor*> none;
        ForwardArgs a{args.input, none, fromInput_, args.context};
        input_->forward(a);
        ForwardArgs s{state_, none, fromSelf_, args.context};
        self_->forward(s);
        for (std::size_t i = 0; i < state_.size(); ++i)
            state_.data()[i] =
                (shortcut_ ? state_.data()[i] : 0.0f) + fromInput_.data()[i] + fromSelf_.data()[i];
        ForwardArgs o{state_, none, args.output, args.context};
        output_->forward(o);
    }

private:
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
    Shape hiddenShape_, outputShape_;
    std::unique_ptr<RuntimeLayer> input_, self_, output_;
    Tensor state_, fromInput_, fromSelf_;
};

} // namespace

std::unique_ptr<RuntimeLayer> CrnnLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<CrnnRuntime>(*this, spec.input);
}

} // namespace nw
