#include "layers/layer_config.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/activations.h"
#include "runtime/layer_runtime.h"
#include "util/closest_name.h"

#include <algorithm>

namespace nw {

LayerContext::LayerContext(const NetConfig& net, int index, Shape input, bool inputValid,
                           std::span<const LayerSpec> earlier, const cfg::Section& section,
                           const std::string& file, Diagnostics& diagnostics)
    : net_(net), index_(index), input_(input), inputValid_(inputValid), earlier_(earlier), section_(section),
      file_(file), diagnostics_(diagnostics)
{
}

const Shape& LayerContext::outputOf(int layer) const
{
    return earlier_[static_cast<std::size_t>(layer)].output;
}

std::string LayerContext::setFiltersBefore(long long filters) const
{
    const LayerSpec* before = index_ > 0 ? &earlier_[std::size_t(index_ - 1)] : nullptr;
    if (before && before->type == "convolutional")
        return "set filters=" + std::to_string(filters) + " in layer " + std::to_string(before->index) +
               " [convolutional]";
    return "put a [convolutional] with filters=" + std::to_string(filters) + " (size=1) right before it";
}

bool LayerContext::isValid(int layer) const
{
    return earlier_[static_cast<std::size_t>(layer)].outputKnown;
}

std::optional<int> LayerContext::resolve(int reference, std::string_view key)
{
    const int absolute = reference < 0 ? index_ + reference : reference;
    if (absolute < 0 || absolute >= index_) {
        error("'" + std::string(key) + "' refers to layer " + std::to_string(reference) +
                  (reference < 0 ? " (= " + std::to_string(absolute) + ")" : "") +
                  (index_ == 0
                       ? std::string(", but no layer comes before this one")
                       : ", but only layers 0.." + std::to_string(index_ - 1) + " come before this one") +
                  ": use a negative offset or an earlier index",
              key);
        return std::nullopt;
    }
    return absolute;
}

bool LayerContext::requireImage(std::string_view typeName)
{
    readInput_ = true;
    if (input_.isImage())
        return true;
    if (!inputValid_)
        return false;
    // A route of sources of different sizes is flat by accident: the fix is there, not here.
    const LayerSpec* before = index_ > 0 ? &earlier_[std::size_t(index_ - 1)] : nullptr;
    const bool unevenRoute = before && before->type == "route" && before->sources.size() > 1;
    error("[" + std::string(typeName) + "] needs an image input (w×h×c) but the layer before it outputs " +
          input_.text() + (input_.size > 0 ? " flat values" : "") +
          (unevenRoute
               ? ": layer " + std::to_string(before->index) +
                     " [route] joins layers of different sizes (its warning names them); route layers "
                     "of one size"
               : std::string(": move it before the flat layers (connected, softmax, ...)")));
    return false;
}

void LayerContext::error(std::string message, std::string_view key)
{
    const cfg::Line* line = key.empty() ? nullptr : section_.find(key);
    diagnostics_.push_back(
        {Severity::Error, file_, line ? line->number : section_.headerLine(), index_, std::move(message)});
}

void LayerContext::warning(std::string message, std::string_view key)
{
    const cfg::Line* line = key.empty() ? nullptr : section_.find(key);
    diagnostics_.push_back(
        {Severity::Warning, file_, line ? line->number : section_.headerLine(), index_, std::move(message)});
}

int LayerConfig::trainingOutputCopies() const
{
    const std::string* activation = outputActivation();
    return activation && !gradientFromOutput(activationFromName(*activation)) ? 1 : 0;
}

std::unique_ptr<RuntimeLayer> LayerConfig::createRuntime(const LayerSpec&) const
{
    return nullptr;
}

const std::vector<std::string>& activationNames()
{
    static const std::vector<std::string> names = {"logistic",
                                                   "loggy",
                                                   "relu",
                                                   "elu",
                                                   "selu",
                                                   "relie",
                                                   "plse",
                                                   "hardtan",
                                                   "lhtan",
                                                   "linear",
                                                   "ramp",
                                                   "leaky",
                                                   "tanh",
                                                   "stair",
                                                   "relu6",
                                                   "swish",
                                                   "mish",
                                                   "hard_mish",
                                                   "gelu",
                                                   "normalize_channels",
                                                   "normalize_channels_softmax",
                                                   "normalize_channels_softmax_maxval"};
    return names;
}

std::string readActivation(cfg::SectionReader& reader, const char* fallback)
{
    std::string name = reader.getString("activation", fallback);
    const auto& names = activationNames();
    if (std::find(names.begin(), names.end(), name) == names.end())
        reader.warning("activation", "unknown activation '" + name + "'" + didYouMean(name, names) +
                                         ": Darknet uses relu instead (known: linear, logistic, leaky, relu, "
                                         "mish, swish, ...)");
    return name;
}

bool sideFits(LayerContext& context, std::int64_t side, std::string_view key)
{
    if (side <= kMaxSide)
        return true;
    context.error("the output would be " + std::to_string(side) + " wide or high, beyond the limit of " +
                      std::to_string(kMaxSide) + ": check " + std::string(key) + " and the sizes before it",
                  key);
    return false;
}

std::string kernelText(int size, int strideX, int strideY)
{
    std::string text = std::to_string(size) + "x" + std::to_string(size) + "/" + std::to_string(strideX);
    if (strideY != strideX)
        text += "x" + std::to_string(strideY);
    return text;
}

} // namespace nw
