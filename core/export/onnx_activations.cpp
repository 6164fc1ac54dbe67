#include "export/onnx_activations.h"

#include "kernels/cpu/activations.h"

namespace nw::onnx_export {

namespace {

// low + relu(x − low) − relu(x − high): Clip takes its bounds as inputs from opset 11 on, which
// OpenCV 4.6 cannot read; Relu every reader can.
std::string clip(GraphBuilder& g, const std::string& x, float low, float high)
{
    const std::string above = g.node("Relu", {g.plus(x, -low)});
    const std::string beyond = g.node("Relu", {g.plus(x, -high)});
    return g.plus(g.node("Sub", {above, beyond}), low);
}

// A line of slope 1 between `low` and `high`, slope `outside` beyond them:
// clip(x) + outside·(x − clip(x)), the form of Darknet's plse and lhtan.
std::string leakyClip(GraphBuilder& g, const std::string& x, float low, float high, float outside)
{
    const std::string clipped = clip(g, x, low, high);
    return g.node("Add", {clipped, g.times(g.node("Sub", {x, clipped}), outside)});
}

} // namespace

std::optional<std::string> activationRefusal(const std::string& name)
{
    if (name == "stair" || name.rfind("normalize_channels", 0) == 0)
        return "activation=" + name + " has no ONNX form here";
    return std::nullopt;
}

std::string emitActivation(GraphBuilder& g, const std::string& x, const std::string& name)
{
    switch (activationFromName(name)) {
    case Activation::Linear:
        return x;
    case Activation::Logistic:
        return g.node("Sigmoid", {x});
    case Activation::Loggy: // 2·σ(x) − 1
        return g.plus(g.times(g.node("Sigmoid", {x}), 2.0f), -1.0f);
    case Activation::Relu:
        return g.node("Relu", {x});
    case Activation::Elu:
        return g.node("Elu", {x}, {Attribute::real("alpha", 1.0f)});
    case Activation::Selu:
        return g.node("Selu", {x}, {Attribute::real("alpha", 1.6732f), Attribute::real("gamma", 1.0507f)});
    case Activation::Relie:
        return g.node("LeakyRelu", {x}, {Attribute::real("alpha", 0.01f)});
    case Activation::Leaky:
        return g.node("LeakyRelu", {x}, {Attribute::real("alpha", 0.1f)});
    case Activation::Plse: // 0.125·x + 0.5 on [−4, 4], slope 0.01 outside
        return g.plus(g.times(leakyClip(g, x, -4.0f, 4.0f, 0.08f), 0.125f), 0.5f);
    case Activation::Hardtan:
        return clip(g, x, -1.0f, 1.0f);
    case Activation::Lhtan:
        return leakyClip(g, x, 0.0f, 1.0f, 0.001f);
    case Activation::Ramp: // relu(x) + 0.1·x
        return g.node("Add", {g.node("Relu", {x}), g.times(x, 0.1f)});
    case Activation::Tanh:
        return g.node("Tanh", {x});
    case Activation::Relu6:
        return clip(g, x, 0.0f, 6.0f);
    case Activation::Swish:
        return g.node("Mul", {x, g.node("Sigmoid", {x})});
    case Activation::Mish: // x·tanh(softplus(x)); ONNX's Mish operator needs opset 18
        return g.node("Mul", {x, g.node("Tanh", {g.node("Softplus", {x})})});
    case Activation::HardMish: // x·clip(x + 2, 0, 2)/2
        return g.node("Mul", {x, g.times(clip(g, g.plus(x, 2.0f), 0.0f, 2.0f), 0.5f)});
    case Activation::Gelu: { // 0.5·x·(1 + tanh(0.797885·x + 0.035677·x³))
        const std::string cube = g.node("Mul", {x, g.node("Mul", {x, x})});
        const std::string inner = g.node("Add", {g.times(x, 0.797885f), g.times(cube, 0.035677f)});
        return g.node("Mul", {g.times(x, 0.5f), g.plus(g.node("Tanh", {inner}), 1.0f)});
    }
    case Activation::Stair:
        break;
    }
    return x; // refused before: activationRefusal
}

} // namespace nw::onnx_export
