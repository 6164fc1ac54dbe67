#include "layers/crop.h"

namespace nw {

std::unique_ptr<LayerConfig> CropLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CropLayer>();
    l->cropHeight = r.getInt("crop_height", 1);
    l->cropWidth = r.getInt("crop_width", 1);
    l->flip = r.getInt("flip", 0) != 0;
    l->angle = r.getFloat("angle", 0);
    l->saturation = r.getFloat("saturation", 1);
    l->exposure = r.getFloat("exposure", 1);
    l->shift = r.getFloat("shift", 0);
    r.accept({"noadjust"});
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

} // namespace nw
