#include "layers/crop.h"

#include "graph/network_spec.h"
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
        const int dy = (in_.h - out_.h) / 2, dx = (in_.w - out_.w) / 2;
        for (int b = 0; b < args.output.batch(); ++b) {
            float* out = args.output.item(b);
            for (int c = 0; c < out_.c; ++c)
                for (int y = 0; y < out_.h; ++y)
                    for (int x = 0; x < out_.w; ++x)
                        *out++ =
                            args.input.item(b)[std::size_t(x + dx + in_.w * (y + dy + in_.h * c))] * scale +
                            shift;
        }
    }

private:
    const CropLayer config_;
    Shape in_, out_;
};

} // namespace

std::unique_ptr<RuntimeLayer> CropLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<CropRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
