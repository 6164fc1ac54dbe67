#include "layers/shortcut.h"

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

} // namespace nw
