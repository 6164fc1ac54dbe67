#include "layers/convolutional.h"

namespace nw {

std::unique_ptr<LayerConfig> ConvolutionalLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ConvolutionalLayer>();
    l->filters = r.getInt("filters", 1);
    l->size = r.getInt("size", 1);
    const int stride = r.getInt("stride", 1);
    l->strideX = r.getInt("stride_x", stride);
    l->strideY = r.getInt("stride_y", stride);
    const int pad = r.getInt("pad", 0);
    l->padding = r.getInt("padding", 0);
    if (pad)
        l->padding = l->size / 2;
    l->groups = r.getInt("groups", 1);
    l->dilation = l->size == 1 ? 1 : r.getInt("dilation", 1);
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getInt("batch_normalize", 0) != 0;
    l->binary = r.getInt("binary", 0) != 0;
    l->xnor = r.getInt("xnor", 0) != 0;
    r.accept({"flipped", "dot", "dilation", "antialiasing", "share_index", "cbn", "sway", "rotate", "stretch",
              "stretch_sway", "coordconv", "grad_centr", "stream", "wait_stream", "bin_output"});
    if (l->filters < 1)
        r.error("filters", "filters must be at least 1 (found " + std::to_string(l->filters) + ")");
    if (l->size < 1)
        r.error("size", "size must be at least 1 (found " + std::to_string(l->size) + ")");
    if (l->strideX < 1 || l->strideY < 1)
        r.error("stride", "stride must be at least 1");
    if (l->groups < 1)
        r.error("groups", "groups must be at least 1 (found " + std::to_string(l->groups) + ")");
    if (l->padding < 0)
        r.error("padding", "padding must not be negative");
    return l;
}

LayerResult ConvolutionalLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (filters < 1 || size < 1 || strideX < 1 || strideY < 1 || groups < 1 ||
        !ctx.requireImage("convolutional"))
        return result;
    const Shape& in = ctx.input();
    if (in.c % groups != 0 || filters % groups != 0) {
        ctx.error("groups=" + std::to_string(groups) + " must divide both the input channels (" +
                      std::to_string(in.c) + ") and filters (" + std::to_string(filters) + ")",
                  "groups");
        return result;
    }
    const int outW = windowOutput(in.w, 2 * padding, size, strideX);
    const int outH = windowOutput(in.h, 2 * padding, size, strideY);
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) + ": the " +
                      in.text() + " input is smaller than the " + std::to_string(size) + "x" +
                      std::to_string(size) + " kernel",
                  "size");
        return result;
    }
    result.output = Shape::image(outW, outH, filters);
    // Darknet's printed formula, evaluated in the same order (c/groups as a double).
    result.costs.bflops = (2.0 * filters * size * size * in.c / groups * outH * outW) / 1e9;
    result.costs.params = std::int64_t(in.c / groups) * filters * size * size + filters;
    result.costs.workspaceBytes =
        std::int64_t(outH) * outW * size * size * in.c / groups * std::int64_t(sizeof(float));
    return result;
}

} // namespace nw
