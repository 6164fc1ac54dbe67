#include "layers/connected.h"

#include "graph/network_spec.h"
#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/bias_activation.h"
#include "kernels/cpu/gemm.h"
#include "runtime/layer_runtime.h"
#include "runtime/weights_file.h"

#include <cmath>

namespace nw {

std::unique_ptr<LayerConfig> ConnectedLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ConnectedLayer>();
    l->outputs = r.getInt("output", 1);
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    if (l->outputs < 1)
        r.error("output", "output must be at least 1 (found " + std::to_string(l->outputs) + ")");
    return l;
}

LayerResult ConnectedLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    const std::int64_t inputs = ctx.input().size;
    if (outputs < 1)
        return result;
    if (inputs <= 0) {
        ctx.error("[connected] has no input values (the layer before it outputs nothing)");
        return result;
    }
    result.output = Shape::image(1, 1, outputs);
    result.costs.bflops = (2.0 * inputs * outputs) / 1e9;
    result.costs.params = inputs * outputs + outputs;
    return result;
}

namespace {

class ConnectedRuntime final : public RuntimeLayer {
public:
    ConnectedRuntime(const ConnectedLayer& config, std::size_t inputs)
        : config_(config), activation_(activationFromName(config.activation)), inputs_(inputs)
    {
        const auto outputs = std::size_t(config.outputs);
        biases_.assign(outputs, 0.0f);
        weights_.assign(outputs * inputs, 0.0f);
        if (config.batchNormalize) {
            scales_.assign(outputs, 1.0f);
            mean_.assign(outputs, 0.0f);
            variance_.assign(outputs, 1.0f);
        }
    }

    // Darknet's order for connected layers: biases, weights, then the batch-norm arrays.
    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays{{"biases", &biases_, false}, {"weights", &weights_, false}};
        if (config_.batchNormalize) {
            arrays.push_back({"scales", &scales_, true});
            arrays.push_back({"rolling_mean", &mean_, true});
            arrays.push_back({"rolling_variance", &variance_, true});
        }
        return arrays;
    }

    void initialize(std::mt19937& random) override
    {
        const float scale = std::sqrt(2.0f / float(inputs_)) * std::sqrt(3.0f);
        std::uniform_real_distribution<float> uniform(-scale, scale);
        for (float& w : weights_)
            w = uniform(random);
        std::fill(biases_.begin(), biases_.end(), 0.0f);
    }

    void prepare(const WeightsHeader& header) override
    {
        std::vector<float> weights = weights_;
        const auto outputs = std::size_t(config_.outputs);
        if (header.transpose()) // the file holds [inputs][outputs]
            for (std::size_t i = 0; i < inputs_; ++i)
                for (std::size_t o = 0; o < outputs; ++o)
                    weights[o * inputs_ + i] = weights_[i * outputs + o];
        if (config_.batchNormalize) {
            foldBatchNorm(weights, biases_, scales_, mean_, variance_, outputs, inputs_, packedWeights_,
                          packedBiases_);
        } else {
            packedWeights_ = std::move(weights);
            packedBiases_ = biases_;
        }
    }

    void forward(ForwardArgs& args) override
    {
        const int batch = args.output.batch();
        const int outputs = config_.outputs;
        // output[b][o] = Σ_i input[b][i] · W[o][i]
        gemm(false, true, batch, outputs, static_cast<int>(inputs_), 1.0f, args.input.data(),
             static_cast<int>(inputs_), packedWeights_.data(), static_cast<int>(inputs_), 0.0f,
             args.output.data(), outputs);
        for (int b = 0; b < batch; ++b)
            addBiasActivate(args.output.item(b), std::size_t(outputs), 1, packedBiases_.data(), activation_);
    }

private:
    const ConnectedLayer config_;
    Activation activation_;
    std::size_t inputs_;
    std::vector<float> biases_, weights_, scales_, mean_, variance_;
    std::vector<float> packedWeights_, packedBiases_;
};

} // namespace

std::unique_ptr<RuntimeLayer> ConnectedLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<ConnectedRuntime>(*this, std::size_t(spec.input.size));
}

} // namespace nw
