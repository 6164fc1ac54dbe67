#include "export/onnx_layers.h"

#include "export/onnx_activations.h"
#include "kernels/cpu/batchnorm.h"
#include "layers/activation.h"
#include "layers/avgpool.h"
#include "layers/batchnorm.h"
#include "layers/connected.h"
#include "layers/convolutional.h"
#include "layers/cost.h"
#include "layers/dropout.h"
#include "layers/empty.h"
#include "layers/logistic.h"
#include "layers/maxpool.h"
#include "layers/reorg.h"
#include "layers/route.h"
#include "layers/sam.h"
#include "layers/scale_channels.h"
#include "layers/shortcut.h"
#include "layers/softmax.h"
#include "layers/upsample.h"

namespace nw::onnx_export {

namespace {

Emitted refuse(std::string why)
{
    return {{}, std::move(why)};
}

Emitted activated(LayerExport& e, const std::string& x, const std::string& activation)
{
    if (auto why = activationRefusal(activation))
        return refuse(*why);
    return {emitActivation(e.g, x, activation), std::nullopt};
}

// Per-channel constant shaped [1, C, 1, 1] so it broadcasts over NCHW.
std::string perChannel(GraphBuilder& g, const std::string& hint, const std::vector<float>& values)
{
    return g.floats(hint, {1, std::int64_t(values.size()), 1, 1}, values);
}

// Weights with batch norm folded in (scale·W, shift), as the CPU runtime runs them.
void foldedScaleShift(const LayerExport& e, std::size_t outputs, std::vector<float>& scale,
                      std::vector<float>& shift)
{
    batchNormScaleShift(weightArray(e, "biases"), weightArray(e, "scales"), weightArray(e, "rolling_mean"),
                        weightArray(e, "rolling_variance"), scale, shift);
    scale.resize(outputs, 1.0f);
    shift.resize(outputs, 0.0f);
}

Emitted convolutional(LayerExport& e, const ConvolutionalLayer& c)
{
    if (c.binary || c.xnor)
        return refuse("binary (XNOR) convolutions have no ONNX form");
    const Shape in = e.layer.input, out = e.layer.output;
    // The runtime pads by padding·dilation (AB's rule); ONNX then gives this size, which must be the
    // one the description computed.
    const int pad = c.padding * c.dilation, span = c.dilation * (c.size - 1) + 1;
    if ((in.w + 2 * pad - span) / c.strideX + 1 != out.w || (in.h + 2 * pad - span) / c.strideY + 1 != out.h)
        return refuse("its output size (" + out.text() +
                      ") is not what ONNX's Conv gives for size=" + std::to_string(c.size) +
                      " dilation=" + std::to_string(c.dilation) + " padding=" + std::to_string(c.padding));
    const auto filters = std::size_t(c.filters);
    const std::size_t perFilter = std::size_t(in.c / c.groups) * std::size_t(c.size) * std::size_t(c.size);
    std::vector<float> scale, shift;
    foldedScaleShift(e, filters, scale, shift);
    const std::span<const float> w = weightArray(e, "weights");
    std::vector<float> folded(filters * perFilter);
    for (std::size_t f = 0; f < filters; ++f)
        for (std::size_t r = 0; r < perFilter; ++r) // flipped files hold [c·size²][filters]
            folded[f * perFilter + r] = (c.flipped ? w[r * filters + f] : w[f * perFilter + r]) * scale[f];
    const std::string weights =
        e.g.floats("conv_w", {std::int64_t(filters), in.c / c.groups, c.size, c.size}, folded);
    const std::string bias = e.g.floats("conv_b", {std::int64_t(filters)}, shift);
    const std::string y = e.g.node("Conv", {e.input, weights, bias},
                                   {Attribute::integers("kernel_shape", {c.size, c.size}),
                                    Attribute::integers("strides", {c.strideY, c.strideX}),
                                    Attribute::integers("pads", {pad, pad, pad, pad}),
                                    Attribute::integers("dilations", {c.dilation, c.dilation}),
                                    Attribute::integer("group", c.groups)},
                                   "conv");
    return activated(e, y, c.activation);
}

Emitted connected(LayerExport& e, const ConnectedLayer& c)
{
    const auto outputs = std::size_t(c.outputs), inputs = std::size_t(e.layer.input.size);
    std::vector<float> scale, shift;
    foldedScaleShift(e, outputs, scale, shift);
    const std::span<const float> w = weightArray(e, "weights");
    const bool transposed = e.header.transpose(); // very old files hold [inputs][outputs]
    std::vector<float> folded(outputs * inputs);
    for (std::size_t o = 0; o < outputs; ++o)
        for (std::size_t i = 0; i < inputs; ++i)
            folded[o * inputs + i] = (transposed ? w[i * outputs + o] : w[o * inputs + i]) * scale[o];
    const std::string flat = e.g.node("Flatten", {e.input}, {Attribute::integer("axis", 1)});
    const std::string y =
        e.g.node("Gemm",
                 {flat, e.g.floats("fc_w", {std::int64_t(outputs), std::int64_t(inputs)}, folded),
                  e.g.floats("fc_b", {std::int64_t(outputs)}, shift)},
                 {Attribute::integer("transB", 1)}, "fc");
    // Darknet's 1×1×outputs: later layers (batch norm, scale_channels of an SE block, ...) see NCHW.
    return activated(e, e.g.reshape(y, {0, std::int64_t(outputs), 1, 1}), c.activation);
}

Emitted batchnorm(LayerExport& e)
{
    const auto channels = std::size_t(e.layer.output.c);
    std::vector<float> scale, shift;
    const std::vector<float> zeros(channels, 0.0f); // [batchnorm] keeps no biases in .weights
    batchNormScaleShift(zeros, weightArray(e, "scales"), weightArray(e, "rolling_mean"),
                        weightArray(e, "rolling_variance"), scale, shift);
    const std::string scaled = e.g.node("Mul", {e.input, perChannel(e.g, "bn_scale", scale)});
    return {e.g.node("Add", {scaled, perChannel(e.g, "bn_shift", shift)}), std::nullopt};
}

Emitted maxpool(LayerExport& e, const MaxpoolLayer& m)
{
    if (m.depth)
        return refuse("maxpool_depth (pooling across channels) has no ONNX form here");
    // Darknet's window starts padding/2 before the output position; the rest of the padding is at
    // the end, so ONNX gives floor((in + padding − size)/stride) + 1, as Darknet.
    const int begin = m.padding / 2, end = m.padding - begin;
    const Shape in = e.layer.input, out = e.layer.output;
    if ((in.w + m.padding - m.size) / m.strideX + 1 != out.w ||
        (in.h + m.padding - m.size) / m.strideY + 1 != out.h)
        return refuse("its output size is not what ONNX's MaxPool gives");
    return {e.g.node("MaxPool", {e.input},
                     {Attribute::integers("kernel_shape", {m.size, m.size}),
                      Attribute::integers("strides", {m.strideY, m.strideX}),
                      Attribute::integers("pads", {begin, begin, end, end})},
                     "maxpool"),
            std::nullopt};
}

Emitted route(LayerExport& e, const RouteLayer& r)
{
    // Sources of different sizes make a flat output in Darknet: each part flattened, then joined.
    const bool flat = !e.layer.output.isImage() && e.layer.sources.size() > 1;
    std::vector<std::string> parts;
    for (int source : e.layer.sources) {
        std::string t = e.tensors[std::size_t(source)];
        if (r.groups > 1 && !e.spec.layers[std::size_t(source)].output.isImage())
            return refuse("groups of a flat input (layer " + std::to_string(source) +
                          ") have no ONNX form here");
        if (r.groups > 1) { // AB: the group_id-th of `groups` equal channel slices of each source
            const int per = e.spec.layers[std::size_t(source)].output.c / r.groups;
            t = e.g.slice(t, 1, std::int64_t(r.groupId) * per, std::int64_t(r.groupId + 1) * per);
        }
        parts.push_back(flat ? e.g.node("Flatten", {t}, {Attribute::integer("axis", 1)}) : t);
    }
    if (parts.size() == 1)
        return {parts[0], std::nullopt};
    return {e.g.node("Concat", parts, {Attribute::integer("axis", 1)}, "route"), std::nullopt};
}

Emitted shortcut(LayerExport& e, const ShortcutLayer& s)
{
    const Shape out = e.layer.output;
    const bool weighted = s.weightsType != "none";
    std::vector<std::string> sources;
    for (std::size_t k = 0; k < e.layer.sources.size(); ++k) {
        const Shape from = e.spec.layers[std::size_t(e.layer.sources[k])].output;
        std::string t = e.tensors[std::size_t(e.layer.sources[k])];
        if (from.w == out.w && from.h == out.h && from.c == out.c) {
            sources.push_back(t);
            continue;
        }
        // pjreddie's resampling: the overlap of a larger source read every `stride` pixels, only the
        // channels both have; the rest of the output keeps the previous layer's values.
        if (weighted || (k == 0 && s.alpha != 1.0f) || from.w < out.w || from.h < out.h)
            return refuse("adding layer " + std::to_string(e.layer.sources[k]) + " (" + from.text() +
                          ") to a " + out.text() +
                          " output has no ONNX form here (only a larger source, "
                          "unweighted, alpha=1)");
        const int stride = from.w / out.w;
        if (stride > 1) {
            t = e.g.slice(t, 2, 0, std::int64_t(out.h) * stride, stride);
            t = e.g.slice(t, 3, 0, std::int64_t(out.w) * stride, stride);
        }
        if (from.c > out.c)
            t = e.g.slice(t, 1, 0, out.c);
        else if (from.c < out.c)
            t = e.g.node("Pad", {t, e.g.int64s("pads", {0, 0, 0, 0, 0, out.c - from.c, 0, 0})});
        sources.push_back(t);
    }
    std::string y;
    if (!weighted) {
        y = e.g.times(e.input, s.alpha);
        for (std::size_t k = 0; k < sources.size(); ++k)
            y = e.g.node("Add", {y, k == 0 ? e.g.times(sources[k], s.beta) : sources[k]}, {}, "shortcut");
    } else {
        const std::vector<float> w = shortcutWeightsAsUsed(s, weightArray(e, "weights"), out.c);
        const std::size_t per = s.weightsType == "per_channel" ? std::size_t(out.c) : 1;
        auto weight = [&](std::size_t k) {
            std::vector<float> part(w.begin() + std::ptrdiff_t(k * per),
                                    w.begin() + std::ptrdiff_t((k + 1) * per));
            return per == 1 ? e.g.scalar("shortcut_w", part[0]) : perChannel(e.g, "shortcut_w", part);
        };
        y = e.g.node("Mul", {e.input, weight(0)});
        for (std::size_t k = 0; k < sources.size(); ++k)
            y = e.g.node("Add", {y, e.g.node("Mul", {sources[k], weight(k + 1)})}, {}, "shortcut");
    }
    return activated(e, y, s.activation);
}

Emitted upsample(LayerExport& e, const UpsampleLayer& u)
{
    if (u.stride < 0)
        return refuse("a negative stride (summing downsample) has no ONNX form here");
    const float s = float(u.stride);
    // Nearest neighbour with out[y][x] = in[y/s][x/s]: asymmetric coordinates, rounded down.
    const std::string y = e.g.node(
        "Resize", {e.input, e.g.floats("roi", {0}, {}), e.g.floats("scales", {4}, {1, 1, s, s})},
        {Attribute::text("mode", "nearest"), Attribute::text("coordinate_transformation_mode", "asymmetric"),
         Attribute::text("nearest_mode", "floor")},
        "upsample");
    return {e.g.times(y, u.scale), std::nullopt};
}

Emitted reorg(LayerExport& e, const ReorgLayer& r)
{
    const Shape in = e.layer.input, out = e.layer.output;
    if (r.extra != 0) { // pjreddie: the input, then `extra` zeros, as a flat vector
        if (r.extra < 0)
            return refuse("a negative extra has no ONNX form");
        const std::string flat = e.g.node("Flatten", {e.input}, {Attribute::integer("axis", 1)});
        return {e.g.node("Pad", {flat, e.g.int64s("pads", {0, 0, 0, r.extra})}), std::nullopt};
    }
    if (r.flatten) { // CHW → HWC in memory (reverse: HWC → CHW), read with the output's dims
        if (out.size != in.size || !in.isImage())
            return refuse("flatten with a stride that changes the size has no ONNX form here");
        const std::string moved =
            r.reverse ? e.g.node("Transpose", {e.g.reshape(e.input, {0, in.h, in.w, in.c})},
                                 {Attribute::integers("perm", {0, 3, 1, 2})})
                      : e.g.node("Transpose", {e.input}, {Attribute::integers("perm", {0, 2, 3, 1})});
        return {e.g.reshape(moved, {0, out.c, out.h, out.w}), std::nullopt};
    }
    if (r.reverse)
        return refuse("reverse has no ONNX form here");
    // Darknet's reorg_cpu reads the input's memory as [c/s², h·s, w·s] and writes it as [c, h, w]:
    // out[(dy·s + dx)·c/s² + k][j][i] = in'[k][j·s + dy][i·s + dx].
    const std::int64_t s = r.stride, groups = in.c / (s * s);
    if (groups * s * s != in.c)
        return refuse("the channels are not a multiple of stride²");
    const std::string six = e.g.reshape(e.input, {0, groups, in.h, s, in.w, s});
    const std::string moved = e.g.node("Transpose", {six}, {Attribute::integers("perm", {0, 3, 5, 1, 2, 4})});
    return {e.g.reshape(moved, {0, out.c, out.h, out.w}), std::nullopt};
}

Emitted softmax(LayerExport& e, const SoftmaxLayer& s)
{
    if (s.groups != 1 || !s.tree.empty())
        return refuse("groups and tree (hierarchical softmax) have no ONNX form here");
    std::string x = e.g.node("Flatten", {e.input}, {Attribute::integer("axis", 1)});
    x = e.g.times(x, 1.0f / s.temperature);
    return {e.g.node("Softmax", {x}, {Attribute::integer("axis", 1)}, "softmax"), std::nullopt};
}

} // namespace

std::span<const float> weightArray(const LayerExport& e, const char* name)
{
    for (const WeightArray& array : e.weights)
        if (std::string(array.name) == name)
            return *array.data;
    return {};
}

Emitted emitLayer(LayerExport& e)
{
    const LayerConfig* config = e.layer.config.get();
    if (auto* c = dynamic_cast<const ConvolutionalLayer*>(config))
        return convolutional(e, *c);
    if (auto* c = dynamic_cast<const ConnectedLayer*>(config))
        return connected(e, *c);
    if (dynamic_cast<const BatchnormLayer*>(config))
        return batchnorm(e);
    if (auto* m = dynamic_cast<const MaxpoolLayer*>(config))
        return maxpool(e, *m);
    if (dynamic_cast<const AvgpoolLayer*>(config))
        return {e.g.node("GlobalAveragePool", {e.input}, {}, "avgpool"), std::nullopt};
    if (auto* r = dynamic_cast<const RouteLayer*>(config))
        return route(e, *r);
    if (auto* s = dynamic_cast<const ShortcutLayer*>(config))
        return shortcut(e, *s);
    if (auto* u = dynamic_cast<const UpsampleLayer*>(config))
        return upsample(e, *u);
    if (auto* r = dynamic_cast<const ReorgLayer*>(config))
        return reorg(e, *r);
    if (auto* s = dynamic_cast<const ScaleChannelsLayer*>(config))
        return activated(e,
                         e.g.node("Mul", {e.tensors[std::size_t(e.layer.sources[0])], e.input}, {}, "scale"),
                         s->activation);
    if (auto* s = dynamic_cast<const SamLayer*>(config))
        return activated(e, e.g.node("Mul", {e.input, e.tensors[std::size_t(e.layer.sources[0])]}, {}, "sam"),
                         s->activation);
    if (auto* s = dynamic_cast<const SoftmaxLayer*>(config))
        return softmax(e, *s);
    if (auto* a = dynamic_cast<const ActivationLayer*>(config))
        return activated(e, e.input, a->activation);
    if (dynamic_cast<const LogisticLayer*>(config))
        return {e.g.node("Sigmoid", {e.input}), std::nullopt};
    if (dynamic_cast<const DropoutLayer*>(config) || dynamic_cast<const CostLayer*>(config) ||
        dynamic_cast<const EmptyLayer*>(config))
        return {e.input, std::nullopt}; // identities at inference
    return refuse("has no ONNX form (exported: convolutional, connected, batchnorm, maxpool, avgpool, route, "
                  "shortcut, upsample, reorg, scale_channels, sam, softmax, activation, logistic, dropout, "
                  "cost, empty, silence, yolo, region)");
}

} // namespace nw::onnx_export
