#include "layers/shortcut.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"

#include <algorithm>
#include <cmath>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/gpu_activation.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/inference_kernels.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> ShortcutLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ShortcutLayer>();
    if (!r.has("from"))
        r.error("from", "[shortcut] needs from= (the layer to add, e.g. from=-3)");
    l->from = r.getIntList("from");
    l->activation = readActivation(r, "linear");
    l->alpha = r.getFloat("alpha", 1);
    l->beta = r.getFloat("beta", 1);
    l->weightsType = r.getString("weights_type", "none");
    l->weightsNormalization = r.getString("weights_normalization", "none");
    if (l->weightsType != "none" && l->weightsType != "per_feature" && l->weightsType != "per_layer" &&
        l->weightsType != "per_channel")
        r.error("weights_type", "weights_type must be none, per_feature, per_layer or per_channel (found '" +
                                    l->weightsType + "')");
    return l;
}

std::string ShortcutLayer::filtersText() const
{
    std::string text;
    for (int index : from)
        text += (text.empty() ? "" : ",") + std::to_string(index);
    return text;
}

LayerResult ShortcutLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    for (int reference : from)
        if (auto index = ctx.resolve(reference, "from"))
            result.sources.push_back(*index);
    if (result.sources.size() != from.size() || from.empty())
        return result;
    const Shape& out = ctx.input();
    if (!ctx.requireImage("shortcut"))
        return result;
    for (int index : result.sources) {
        if (!ctx.isValid(index))
            return result;
        const Shape& other = ctx.outputOf(index);
        if (!other.isImage()) {
            ctx.error("cannot add layer " + std::to_string(index) + ": its output " + other.text() +
                          " is not an image",
                      "from");
            return result;
        }
        // pjreddie subsamples or spreads a differently sized input by an integer stride.
        const bool sameSize = other.w == out.w && other.h == out.h;
        auto multiple = [](const Shape& big, const Shape& small) {
            return big.w % small.w == 0 && big.h % small.h == 0 && big.w / small.w == big.h / small.h;
        };
        const bool integerRatio = multiple(other, out) || multiple(out, other);
        if (!sameSize && !integerRatio) {
            ctx.error("cannot add layer " + std::to_string(index) + " (" + other.text() +
                          ") to the previous layer (" + out.text() +
                          "): their sizes are not an integer ratio apart",
                      "from");
            return result;
        }
        if (!sameSize)
            ctx.warning("layer " + std::to_string(index) + " is " + other.text() +
                            " but the previous layer is " + out.text() +
                            ": pjreddie's Darknet resamples it, AlexeyAB's refuses",
                        "from");
        else if (other.c != out.c)
            ctx.warning("layer " + std::to_string(index) + " has " + std::to_string(other.c) +
                            " channels and the previous layer " + std::to_string(out.c) +
                            ": only the channels both have are added",
                        "from");
    }
    result.output = out;
    const auto n = std::int64_t(from.size());
    const bool weighted = weightsType != "none";
    result.costs.bflops = double(out.size) * double(n) * (weighted ? 2 : 1) / 1e9;
    if (weightsType == "per_feature" || weightsType == "per_layer")
        result.costs.params = n + 1;
    else if (weightsType == "per_channel")
        result.costs.params = (n + 1) * out.c;
    return result;
}

ShortcutNormalization shortcutNormalization(const ShortcutLayer& config)
{
    if (config.weightsNormalization == "relu" || config.weightsNormalization == "avg_relu")
        return ShortcutNormalization::relu;
    return config.weightsNormalization == "softmax" ? ShortcutNormalization::softmax
                                                    : ShortcutNormalization::none;
}

// The weights as used (kernels/shortcut_weights.h): w[k·perInput + c] for input k (0: the previous
// layer) and channel c, normalised per channel.
std::vector<float> shortcutWeightsAsUsed(const ShortcutLayer& config, std::span<const float> weights,
                                         int channels)
{
    const std::size_t perInput = config.weightsType == "per_channel" ? std::size_t(channels) : 1;
    std::vector<float> w(weights.size());
    for (std::size_t c = 0; c < perInput; ++c)
        normalizeShortcutColumn(weights.data(), w.data(), c, perInput, weights.size() / perInput,
                                shortcutNormalization(config));
    return w;
}

namespace {

class ShortcutRuntime final : public RuntimeLayer {
public:
    ShortcutRuntime(const ShortcutLayer& config, const Shape& out)
        : config_(config), out_(out), activation_(activationFromName(config.activation))
    {
        const std::size_t inputs = config.from.size() + 1;
        if (config.weightsType == "per_feature" || config.weightsType == "per_layer")
            weights_.assign(inputs, 1.0f);
        else if (config.weightsType == "per_channel")
            weights_.assign(inputs * std::size_t(out.c), 1.0f);
    }

    std::vector<WeightArray> weightArrays() override
    {
        if (weights_.empty())
            return {};
        return {{"weights", &weights_, false}};
    }

    void forward(ForwardArgs& args) override
    {
        if (weights_.empty() && sameShapes(args)) {
            sumFlat(args);
        } else {
            std::copy(args.input.data(), args.input.data() + args.output.size(), args.output.data());
            if (!weights_.empty())
                weightedSum(args);
            else
                for (int b = 0; b < args.output.batch(); ++b)
                    for (std::size_t k = 0; k < args.sources.size(); ++k)
                        add(args.sources[k]->shape(), args.sources[k]->item(b), args.output.item(b), k == 0);
        }
        activationCache_.apply(args.output.data(), args.output.size(), activation_, args.context.training);
    }

    bool canTrain() const override { return true; }

#if NETWRIGHT_WITH_CUDA
    // The common residual (one source of the output's shape) in one kernel; other sources (pjreddie's
    // resampled ones, AB's extra sources) through their overlap; AB's weighted sums through the shared
    // normalisation (kernels/shortcut_weights.h). The activation is fused unless training needs its
    // input kept (mish, swish, …).
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        const bool training = args.training != nullptr;
        if (!weights_.empty()) {
            weightedForwardGpu(args);
        } else if (args.sources.size() == 1 && sameShape(args.sourceShapes[0])) {
            const bool fuse = !training || gradientFromOutput(activation_);
            cuda::addActivate(args.input, args.sources[0], args.output, n, config_.alpha, config_.beta,
                              fuse ? activation_ : Activation::Linear, gpu.stream());
            if (fuse)
                return;
        } else {
            gpu.copyOnDevice(args.input, args.output, n, "[shortcut]");
            for (std::size_t k = 0; k < args.sources.size(); ++k)
                cuda::addOverlap(args.output, args.sources[k], args.batch, args.outputItemSize,
                                 args.sourceItemSizes[k], overlap(args.sourceShapes[k]),
                                 k == 0 ? config_.alpha : 1.0f, k == 0 ? config_.beta : 1.0f, gpu.stream());
        }
        gpuActivation_.forward(gpu, args.output, n, activation_, training);
    }
    // out = w0·prev + Σ w_k·from_k with the weights as used (normalised on the device, every pass: the
    // solver changes the raw ones there).
    void weightedForwardGpu(GpuForwardArgs& args)
    {
        GpuExec& gpu = args.gpu;
        const cuda::ShortcutWeighting s = weighting();
        usedWeights_.resize(weights_.size());
        cuda::normalizeShortcutWeights(gpu.device(weights_), usedWeights_.data(), s, gpu.stream());
        cuda::weightedGather(args.input, args.outputItemSize, args.output, args.outputItemSize, args.batch,
                             usedWeights_.data(), s, false, gpu.stream());
        for (std::size_t k = 0; k < args.sources.size(); ++k)
            cuda::weightedGather(args.sources[k], args.sourceItemSizes[k], args.output, args.outputItemSize,
                                 args.batch, usedWeights_.data() + (k + 1) * s.perInput, s, true,
                                 gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    // As backward: unweighted, the previous layer gets delta (alpha·delta where the first source overlaps
    // it), each source beta·delta (1·delta for extra sources) at the pixels it was read from; weighted,
    // each input w·delta and the weights their sums of delta·input through the normalisation.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        const std::size_t n = args.outputItemSize * std::size_t(args.batch);
        gpuActivation_.backward(gpu, args.output, args.outputDelta, n, activation_);
        if (!weights_.empty()) {
            weightedBackwardGpu(args);
            return;
        }
        if (args.inputDelta)
            cuda::addScaled(args.outputDelta, args.inputDelta, n, 1.0f, gpu.stream());
        for (std::size_t k = 0; k < args.sources.size(); ++k)
            cuda::addOverlapBackward(
                args.outputDelta, k == 0 ? args.inputDelta : nullptr, args.sourceDeltas[k], args.batch,
                args.outputItemSize, args.sourceItemSizes[k], overlap(args.sourceShapes[k]),
                k == 0 ? config_.alpha : 1.0f, k == 0 ? config_.beta : 1.0f, gpu.stream());
    }
    void weightedBackwardGpu(GpuBackwardArgs& args)
    {
        GpuExec& gpu = args.gpu;
        const cuda::ShortcutWeighting s = weighting();
        const float* used = usedWeights_.data(); // as the forward used them (the raw ones are unchanged)
        const std::size_t outSize = args.outputItemSize;
        if (args.inputDelta)
            cuda::weightedScatter(args.outputDelta, outSize, args.inputDelta, outSize, args.batch, used, s,
                                  gpu.stream());
        for (std::size_t k = 0; k < args.sources.size(); ++k)
            if (args.sourceDeltas[k])
                cuda::weightedScatter(args.outputDelta, outSize, args.sourceDeltas[k],
                                      args.sourceItemSizes[k], args.batch, used + (k + 1) * s.perInput, s,
                                      gpu.stream());
        if (!args.parameterGradients)
            return;
        parameters();                            // sizes the gradient array
        weightSums_.resize(weights_.size() * 2); // doubles in a float buffer
        weightSums_.zero(gpu.stream());
        double* g = weightSums_.as<double>();
        cuda::addWeightSums(args.outputDelta, outSize, args.input, outSize, args.batch, s, g, gpu.stream());
        for (std::size_t k = 0; k < args.sources.size(); ++k)
            cuda::addWeightSums(args.outputDelta, outSize, args.sources[k], args.sourceItemSizes[k],
                                args.batch, s, g + (k + 1) * s.perInput, gpu.stream());
        cuda::addShortcutWeightGradient(gpu.device(weights_), used, g, gpu.gradient(weightGradient_), s,
                                        gpu.stream());
    }
    cuda::ShortcutWeighting weighting() const
    {
        const std::size_t perInput = this->perInput();
        return {std::size_t(out_.w) * std::size_t(out_.h), perInput, weights_.size() / perInput,
                shortcutNormalization(config_)};
    }
    GpuActivation gpuActivation_;
    DeviceBuffer usedWeights_, weightSums_;
    cuda::OverlapMap overlap(const Shape& from) const
    {
        return {out_.w, out_.h, out_.c, from.w, from.h, from.c};
    }
#endif

    std::vector<Parameter> parameters() override
    {
        if (weights_.empty())
            return {};
        if (weightGradient_.size() != weights_.size())
            weightGradient_.assign(weights_.size(), 0.0f);
        return {{&weights_, &weightGradient_, true}};
    }

    void initialize(std::mt19937&) override
    {
        std::fill(weights_.begin(), weights_.end(), 1.0f);
    }

    // The reverse of forward: the previous layer gets delta (alpha·delta where the first source
    // overlapped it), each source beta·delta (1·delta for extra sources) at the pixels it was read from.
    void backward(BackwardArgs& args) override
    {
        activationCache_.multiplyByGradient(args.output.data(), args.output.size(), activation_,
                                            args.outputDelta.data());
        if (!weights_.empty()) {
            weightedBackward(args);
            return;
        }
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            if (args.inputDelta) {
                float* into = args.inputDelta->item(b);
                for (std::size_t i = 0; i < args.output.itemSize(); ++i)
                    into[i] += delta[i];
            }
            for (std::size_t k = 0; k < args.sources.size(); ++k)
                addBack(args.sources[k]->shape(), delta,
                        args.sourceDeltas[k] ? args.sourceDeltas[k]->item(b) : nullptr,
                        k == 0 && args.inputDelta ? args.inputDelta->item(b) : nullptr, k == 0);
        }
    }

private:
    // pjreddie's shortcut_cpu pairing: over the overlap min(c), min(h), min(w), output pixel o meets
    // source pixel a, a source of another size being resampled by an integer stride.
    template <typename Visit> void forEachOverlap(const Shape& from, Visit visit) const
    {
        const int stride = std::max(1, from.w / out_.w), sample = std::max(1, out_.w / from.w);
        const int minW = std::min(from.w, out_.w), minH = std::min(from.h, out_.h),
                  minC = std::min(from.c, out_.c);
        for (int k = 0; k < minC; ++k)
            for (int j = 0; j < minH; ++j)
                for (int i = 0; i < minW; ++i)
                    visit(std::size_t(i * sample) +
                              std::size_t(out_.w) *
                                  (std::size_t(j * sample) + std::size_t(out_.h) * std::size_t(k)),
                          std::size_t(i * stride) +
                              std::size_t(from.w) *
                                  (std::size_t(j * stride) + std::size_t(from.h) * std::size_t(k)));
    }

    bool sameShape(const Shape& source) const
    {
        return source.w == out_.w && source.h == out_.h && source.c == out_.c && source.size == out_.size;
    }
    bool sameShapes(const ForwardArgs& args) const
    {
        return std::all_of(args.sources.begin(), args.sources.end(),
                           [&](const Tensor* source) { return sameShape(source->shape()); });
    }

    // The usual residual block, every source the output's shape: one pass over memory, on all threads.
    void sumFlat(ForwardArgs& args) const
    {
        const long n = long(args.output.size());
        const float alpha = config_.alpha, beta = config_.beta;
        const float* in = args.input.data();
        const float* first = args.sources[0]->data();
        float* out = args.output.data();
#pragma omp parallel for simd if (n > 65536)
        for (long i = 0; i < n; ++i)
            out[i] = alpha * in[i] + beta * first[i];
        for (std::size_t k = 1; k < args.sources.size(); ++k) {
            const float* more = args.sources[k]->data();
#pragma omp parallel for simd if (n > 65536)
            for (long i = 0; i < n; ++i)
                out[i] += more[i];
        }
    }

    // out = alpha·out + beta·from (AB: only equal sizes, plain sums for extra sources).
    void add(const Shape& from, const float* source, float* out, bool first) const
    {
        const float alpha = first ? config_.alpha : 1.0f, beta = first ? config_.beta : 1.0f;
        forEachOverlap(from,
                       [&](std::size_t o, std::size_t a) { out[o] = alpha * out[o] + beta * source[a]; });
    }

    void addBack(const Shape& from, const float* delta, float* sourceDelta, float* inputDelta,
                 bool first) const
    {
        const float alpha = first ? config_.alpha : 1.0f, beta = first ? config_.beta : 1.0f;
        forEachOverlap(from, [&](std::size_t o, std::size_t a) {
            if (inputDelta)
                inputDelta[o] += (alpha - 1.0f) * delta[o];
            if (sourceDelta)
                sourceDelta[a] += beta * delta[o];
        });
    }

    std::size_t perInput() const
    {
        return config_.weightsType == "per_channel" ? std::size_t(out_.c) : 1;
    }

    std::vector<float> normalizedWeights() const
    {
        return shortcutWeightsAsUsed(config_, weights_, out_.c);
    }

    // AB weights_type: out = w0·prev + Σ w_k·from_k, the weights normalised by relu or softmax.
    void weightedSum(ForwardArgs& args)
    {
        const std::size_t perInput = this->perInput();
        const std::vector<float> w = normalizedWeights();
        const std::size_t plane = std::size_t(out_.w) * std::size_t(out_.h);
        for (int b = 0; b < args.output.batch(); ++b) {
            float* out = args.output.item(b);
            for (std::size_t i = 0; i < args.output.itemSize(); ++i) {
                const std::size_t c = shortcutColumn(i, plane, perInput);
                float v = out[i] * w[c];
                for (std::size_t k = 0; k < args.sources.size(); ++k)
                    if (i < args.sources[k]->itemSize())
                        v += args.sources[k]->item(b)[i] * w[(k + 1) * perInput + c];
                out[i] = v;
            }
        }
    }

    // Backward of weightedSum: each input gets w·delta; −∂loss/∂w (summed over pixels and images) goes
    // back through the normalisation into the raw weights.
    void weightedBackward(BackwardArgs& args)
    {
        const std::size_t perInput = this->perInput(), inputs = weights_.size() / perInput;
        const std::vector<float> w = normalizedWeights();
        std::vector<double> g(weights_.size(), 0.0); // −∂loss/∂w, normalised weights
        const std::size_t plane = std::size_t(out_.w) * std::size_t(out_.h);
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            const float* previous = args.input.item(b);
            float* into = args.inputDelta ? args.inputDelta->item(b) : nullptr;
            for (std::size_t i = 0; i < args.output.itemSize(); ++i) {
                const std::size_t c = shortcutColumn(i, plane, perInput);
                if (into)
                    into[i] += w[c] * delta[i];
                g[c] += double(delta[i]) * previous[i];
                for (std::size_t k = 0; k < args.sources.size(); ++k) {
                    if (i >= args.sources[k]->itemSize())
                        continue;
                    const std::size_t j = (k + 1) * perInput + c;
                    if (args.sourceDeltas[k])
                        args.sourceDeltas[k]->item(b)[i] += w[j] * delta[i];
                    g[j] += double(delta[i]) * args.sources[k]->item(b)[i];
                }
            }
        }
        parameters(); // sizes the gradient array
        for (std::size_t c = 0; c < perInput; ++c)
            addShortcutColumnGradient(weights_.data(), w.data(), g.data(), weightGradient_.data(), c,
                                      perInput, inputs, shortcutNormalization(config_));
    }

    const ShortcutLayer config_;
    Shape out_;
    Activation activation_;
    ParamArray weights_, weightGradient_;
    ActivationCache activationCache_;
};

} // namespace

std::unique_ptr<RuntimeLayer> ShortcutLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<ShortcutRuntime>(*this, spec.output);
}

} // namespace nw
