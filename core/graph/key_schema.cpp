#include "graph/key_schema.h"

#include "graph/net_config.h"
#include "graph/network_spec.h"
#include "layers/registry.h"

#include <map>

namespace nw {

namespace {

const std::map<std::string, std::string, std::less<>>& descriptions()
{
    static const std::map<std::string, std::string, std::less<>> text = {
        {"batch", "images per weight update"},
        {"subdivisions", "the batch runs in this many passes (less memory, same update)"},
        {"width", "input width in pixels"},
        {"height", "input height in pixels"},
        {"channels", "input channels (3 for colour, 1 for grey)"},
        {"inputs", "input values when the input is not an image"},
        {"learning_rate", "step size of the solver (in a layer: a multiplier of the global rate)"},
        {"momentum", "share of the previous update kept in the next"},
        {"decay", "weight decay (L2), per image"},
        {"max_batches", "training stops after this many weight updates"},
        {"burn_in", "the rate ramps up as (iteration/burn_in)^power over this many updates"},
        {"policy", "how the learning rate changes over training"},
        {"steps", "iterations where the steps policy multiplies the rate"},
        {"scales", "the factors applied at each of steps"},
        {"power", "exponent of the poly policy and of burn-in"},
        {"gamma", "factor of the exp/step/sigmoid policies"},
        {"step", "interval of the step policy"},
        {"adam", "use Adam instead of SGD"},
        {"angle", "random rotation of training images, ± degrees"},
        {"saturation", "random saturation scale of training images, up to ×/÷ this"},
        {"exposure", "random exposure scale of training images, up to ×/÷ this"},
        {"hue", "random hue shift of training images, ± this share of the circle"},
        {"aspect", "random aspect-ratio change of training images (classifiers)"},
        {"flip", "random horizontal flips while training"},
        {"mosaic", "four training images in one (detectors)"},
        {"letter_box", "keep the aspect ratio with grey bars when scaling to the input"},
        {"resize_step", "multi-scale sizes are multiples of this"},
        {"min_crop", "classifier crops: shortest side at least this"},
        {"max_crop", "classifier crops: shortest side at most this"},
        {"filters", "output channels"},
        {"size", "kernel size"},
        {"stride", "step between kernel positions (2 halves the size)"},
        {"stride_x", "step across (AlexeyAB's; stride when left out)"},
        {"stride_y", "step down (AlexeyAB's; stride when left out)"},
        {"pad", "1: pad by size/2 so stride 1 keeps the size ([local]: the padding in pixels)"},
        {"padding", "explicit padding in pixels (used when pad=0)"},
        {"groups", "grouped convolution: channels split in this many groups"},
        {"dilation", "spacing of the kernel taps"},
        {"activation", "the function applied to the output"},
        {"batch_normalize", "normalise each filter's output over the batch"},
        {"output", "number of outputs"},
        {"layers", "layers to concatenate: negative counts back from here, others are absolute"},
        {"from", "the layer to add to (or multiply with): negative counts back from here"},
        {"probability", "share of values dropped while training"},
        {"classes", "number of object classes"},
        {"anchors", "anchor box sizes, pairs of width,height"},
        {"mask", "which anchors this head predicts"},
        {"num", "number of anchors (or predictors)"},
        {"jitter", "random crop of training images, ± this share of each side"},
        {"ignore_thresh", "predictions overlapping a truth this much are not pushed to 'no object'"},
        {"truth_thresh", "predictions overlapping a truth this much are trained as that truth"},
        {"random", "multi-scale training: a new input size every 10 iterations"},
        {"iou_loss", "box loss: mse, or one of the IoU family"},
        {"iou_normalizer", "weight of the box loss"},
        {"cls_normalizer", "weight of the class loss"},
        {"obj_normalizer", "weight of the objectness loss"},
        {"scale_x_y", "box centres may reach this far past their cell"},
        {"nms_kind", "how overlapping boxes are merged: by IoU (greedynms) or DIoU (diounms)"},
        {"beta_nms", "DIoU-NMS: weight of the centres' distance"},
        {"max", "truth boxes read per image"},
        {"stopbackward", "layers before this one are frozen"},
        {"dont_update", "this layer's weights stay fixed"},
        {"dontload", "this layer's weights are not read from .weights files"},
        {"dontloadscales", "this layer's batch-norm arrays are not in .weights files"},
    };
    return text;
}

std::string netGroup(std::string_view key)
{
    static const std::map<std::string, std::string, std::less<>> groups = {
        {"width", "Input"},
        {"height", "Input"},
        {"channels", "Input"},
        {"inputs", "Input"},
        {"batch", "Batch"},
        {"subdivisions", "Batch"},
        {"time_steps", "Batch"},
        {"learning_rate", "Solver"},
        {"momentum", "Solver"},
        {"decay", "Solver"},
        {"adam", "Solver"},
        {"B1", "Solver"},
        {"B2", "Solver"},
        {"eps", "Solver"},
        {"max_batches", "Solver"},
        {"policy", "Policy"},
        {"burn_in", "Policy"},
        {"power", "Policy"},
        {"step", "Policy"},
        {"scale", "Policy"},
        {"gamma", "Policy"},
        {"steps", "Policy"},
        {"scales", "Policy"},
        {"angle", "Augmentation"},
        {"aspect", "Augmentation"},
        {"saturation", "Augmentation"},
        {"exposure", "Augmentation"},
        {"hue", "Augmentation"},
        {"flip", "Augmentation"},
        {"letter_box", "Augmentation"},
        {"mosaic", "Augmentation"},
        {"min_crop", "Augmentation"},
        {"max_crop", "Augmentation"},
        {"resize_step", "Augmentation"},
    };
    const auto it = groups.find(key);
    return it == groups.end() ? "Other" : it->second;
}

std::vector<std::string> choicesFor(std::string_view key, cfg::KeyInfo::Kind kind)
{
    if (kind == cfg::KeyInfo::Kind::Flag)
        return {"0", "1"};
    if (key == "activation")
        return activationNames();
    if (key == "policy")
        return learningRatePolicies();
    if (key == "iou_loss")
        return {"mse", "iou", "giou", "diou", "ciou"};
    if (key == "nms_kind")
        return {"default", "greedynms", "diounms", "cornersnms"};
    if (key == "weights_type")
        return {"none", "per_feature", "per_channel"};
    if (key == "weights_normalization")
        return {"none", "relu", "softmax"};
    return {};
}

} // namespace

namespace {

// The keys the parser of `section`'s type reads from it, with the default each read falls back to.
std::vector<cfg::KeyInfo> keysRead(const cfg::Section& section)
{
    const bool net = section.type == "net" || section.type == "network";
    const LayerType* type = net ? nullptr : LayerRegistry::builtin().find(section.type);
    std::vector<cfg::KeyInfo> keys;
    if (!net && !type)
        return keys;
    Diagnostics ignored; // a section may lack required keys or hold bad values: only the reads matter
    cfg::SectionReader reader(section, "", net ? -1 : 0, ignored);
    reader.recordKeys(&keys);
    if (net) {
        NetConfig::parse(reader);
    } else {
        type->parse(reader);
        readLayerFlags(reader);
    }
    return keys;
}

} // namespace

std::vector<KeySpec> keySchema(const cfg::Section& section)
{
    std::vector<KeySpec> schema = keySchema(section.type);
    const std::vector<cfg::KeyInfo> keys = keysRead(section);
    for (KeySpec& spec : schema)
        for (const cfg::KeyInfo& info : keys)
            if (info.key == spec.key) {
                spec.fallback = info.fallback;
                break;
            }
    return schema;
}

std::vector<KeySpec> keySchema(std::string_view sectionType)
{
    const bool net = sectionType == "net" || sectionType == "network";
    const LayerType* type = net ? nullptr : LayerRegistry::builtin().find(sectionType);
    if (!net && !type)
        return {};
    const cfg::Document empty = cfg::Document::parse("[" + std::string(sectionType) + "]\n");
    const std::vector<cfg::KeyInfo> keys = keysRead(empty.sections().front());
    // [cost]'s type= is read through its own name; it is an enum too.
    std::vector<KeySpec> schema;
    for (const cfg::KeyInfo& info : keys) {
        KeySpec spec{info.key, info.kind, info.fallback, choicesFor(info.key, info.kind), {}, {}};
        if (const auto it = descriptions().find(info.key); it != descriptions().end())
            spec.description = it->second;
        if (net)
            spec.group = netGroup(info.key);
        if (type && type->name == "cost" && info.key == "type")
            spec.choices = {"sse", "masked", "smooth", "L1", "seg", "wgan"};
        schema.push_back(std::move(spec));
    }
    return schema;
}

} // namespace nw
