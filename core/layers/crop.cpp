#include "layers/crop.h"

#include "graph/layer_spec.h"
#include "runtime/layer_runtime.h"

namespace nw {

std::unique_ptr<LayerConfig> CropLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CropLayer>();
    l->cropHeight = r.getInt("crop_height", 1);
    l->cropWidth = r.getInt("crop_width", 1);
    l->flip = r.getFlag("flip", false);
    l->angle = r.getFloat("angle", 0);
    l->saturation = r.getFloat("saturation", 1);
    l->exposure = r.getFloat("exposure", 1);
    l->shift = r.getFloat("shift", 0);
    l->noadjust = r.getFlag("noadjust", false);
    if (l->cropHeight < 1 || l->cropWidth < 1)
        r.error("crop_width", "crop_width and crop_height must be at least 1");
    return l;
}

LayerResult CropLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (cropWidth < 1 || cropHeight < 1 || !ctx.requireImage("crop"))
        return result;
    const Shape& in = ctx.input();
    if (cropWidth > in.w || cropHeight > in.h)
        ctx.warning("the crop " + std::to_string(cropWidth) + "x" + std::to_string(cropHeight) +
                    " is larger than the " + in.text() + " input");
    result.output = Shape::image(cropWidth, cropHeight, in.c);
    return result;
}

namespace {

// Inference: the centred crop, mapped to [-1, 1] (2x − 1) unless noadjust=1.
class CropRuntime final : public RuntimeLayer {
public:
    CropRuntime(const CropLayer& config, const Shape& in, const Shape& out)
        : config_(config), in_(in), out_(out)
    {
    }
    void forward(ForwardArgs& args) override
    {
        const float scale = config_.noadjust ? 1.0f : 2.0f, shift = config_.noadjust ? 0.0f : -1.0f;
        // At test time the centre; while training a random window (and a random flip with flip=1), as
        // Darknet's forward_crop_layer (its colour jitter is left out).
        placements_.assign(std::size_t(args.output.batch()),
                           {(in_.w - out_.w) / 2, (in_.h - out_.h) / 2, false});
        if (args.context.training && args.context.random)
            for (Placement& p : placements_) {
                p.dx = int((*args.context.random)() % std::uint32_t(in_.w - out_.w + 1));
                p.dy = int((*args.context.random)() % std::uint32_t(in_.h - out_.h + 1));
                p.flip = config_.flip && (*args.context.random)() % 2;
            }
        for (int b = 0; b < args.output.batch(); ++b) {
            float* out = args.output.item(b);
            const float* in = args.input.item(b);
            forEachPixel(placements_[std::size_t(b)],
                         [&](std::size_t o, std::size_t i) { out[o] = in[i] * scale + shift; });
        }
    }

    bool canTrain() const override { return true; }

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const float scale = config_.noadjust ? 1.0f : 2.0f;
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            float* in = args.inputDelta->item(b);
            forEachPixel(placements_[std::size_t(b)],
                         [&](std::size_t o, std::size_t i) { in[i] += scale * delta[o]; });
        }
    }

private:
    struct Placement {
        int dx, dy;
        bool flip;
    };
    // visit(output index, input index) for every output value of one image.
    template <typename Visit> void forEachPixel(const Placement& p, Visit visit) const
    {
        std::size_t o = 0;
        for (int c = 0; c < out_.c; ++c)
            for (int y = 0; y < out_.h; ++y)
                for (int x = 0; x < out_.w; ++x, ++o) {
                    const int sx = p.dx + (p.flip ? out_.w - 1 - x : x);
                    visit(o, std::size_t(sx + in_.w * (y + p.dy + in_.h * c)));
                }
    }

    std::vector<Placement> placements_;
    const CropLayer config_;
    Shape in_, out_;
};

} // namespace

std::unique_ptr<RuntimeLayer> CropLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<CropRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
