#include "layers/batchnorm.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/batchnorm.h"
#include "runtime/layer_runtime.h"

#include <algorithm>

namespace nw {

std::unique_ptr<LayerConfig> BatchnormLayer::parse(cfg::SectionReader&)
{
    return std::make_unique<BatchnormLayer>();
}

LayerResult BatchnormLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (!ctx.requireImage("batchnorm"))
        return result;
    const Shape& in = ctx.input();
    result.output = Shape::image(in.w, in.h, in.c);
    result.costs.params = 2 * std::int64_t(in.c);
    result.costs.bflops = 2.0 * double(in.size) / 1e9;
    return result;
}

namespace {

// pjreddie's file order for [batchnorm]: scales, rolling mean, rolling variance (biases stay 0).
class BatchnormRuntime final : public RuntimeLayer {
public:
    explicit BatchnormRuntime(const Shape& shape)
        : shape_(shape), scales_(std::size_t(shape.c), 1.0f), mean_(std::size_t(shape.c), 0.0f),
          variance_(std::size_t(shape.c), 1.0f), biases_(std::size_t(shape.c), 0.0f)
    {
    }
    std::vector<WeightArray> weightArrays() override
    {
        return {{"scales", &scales_, true},
                {"rolling_mean", &mean_, true},
                {"rolling_variance", &variance_, true}};
    }
    void forward(ForwardArgs& args) override
    {
        std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
        const int plane = shape_.w * shape_.h;
        if (args.context.training) { // the batch's statistics; the rolling ones move toward them
            batchNorm_.forward(args.output.data(), args.output.batch(), shape_.c, plane, scales_.data(),
                               biases_.data(), mean_.data(), variance_.data(), Activation::Linear);
            return;
        }
        for (int b = 0; b < args.output.batch(); ++b)
            batchNormInference(args.output.item(b), std::size_t(shape_.c),
                               std::size_t(shape_.w) * std::size_t(shape_.h), scales_.data(), mean_.data(),
                               variance_.data(), biases_.data());
    }

    bool canTrain() const override { return true; }

    // The scales learn; the biases stay 0, as pjreddie's .weights have no place for them.
    std::vector<Parameter> parameters() override
    {
        sizeTo(scaleGradient_, scales_.size());
        return {{&scales_, &scaleGradient_, false}};
    }

    void backward(BackwardArgs& args) override
    {
        parameters();
        sizeTo(biasGradient_, biases_.size());
        std::vector<float>& delta = deltaCopy_;
        delta.assign(args.outputDelta.data(), args.outputDelta.data() + args.outputDelta.size());
        batchNorm_.backward(delta.data(), scales_.data(), args.output.batch(), shape_.c, shape_.w * shape_.h,
                            scaleGradient_.data(), biasGradient_.data());
        if (args.inputDelta)
            for (std::size_t i = 0; i < delta.size(); ++i)
                args.inputDelta->data()[i] += delta[i];
    }

private:
    Shape shape_;
    ParamArray scales_, mean_, variance_, biases_;
    ParamArray scaleGradient_, biasGradient_;
    std::vector<float> deltaCopy_;
    BatchNormTraining batchNorm_;
};

} // namespace

std::unique_ptr<RuntimeLayer> BatchnormLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<BatchnormRuntime>(spec.output);
}

} // namespace nw
