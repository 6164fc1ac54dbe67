#pragma once
// The interface every layer type implements, and what its shape rule may look at.
//
// A layer type is one class (core/layers/<type>.h/.cpp): its keys parsed from the cfg with Darknet's
// defaults, and its shape/cost rule. The network description only calls these two, so shapes and
// costs never allocate tensors. The runtime's forward/backward will live in the same files.
#include "cfg/section_reader.h"
#include "graph/shape.h"
#include "layers/box.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nw {

struct NetConfig;
struct LayerSpec;
class RuntimeLayer;
struct SoftmaxTree;

struct LayerCosts {
    double bflops = 0;               // billions of floating-point operations per image, as Darknet counts
    std::int64_t params = 0;         // learnable values: weights + biases (Darknet's nweights + nbiases)
    std::int64_t workspaceBytes = 0; // CPU scratch (im2col) this layer needs; the net shares the largest
};

struct LayerResult {
    Shape output;
    LayerCosts costs;
    std::vector<int> sources; // absolute indices of the earlier layers it reads besides the previous one
};

// What a layer's shape rule sees: the previous output, earlier layers, [net], and where to report.
class LayerContext {
public:
    LayerContext(const NetConfig& net, int index, Shape input, bool inputValid,
                 std::span<const LayerSpec> earlier, const cfg::Section& section, const std::string& file,
                 Diagnostics& diagnostics);

    const NetConfig& net() const { return net_; }
    int index() const { return index_; }
    // The previous layer's output; reading it makes this layer's output depend on it.
    const Shape& input() const
    {
        readInput_ = true;
        return input_;
    }
    bool readInput() const { return readInput_; }
    // Whether the previous layer's output shape is known (no error there or before it); reading it makes
    // this layer's output depend on it, as input() does.
    bool inputKnown() const
    {
        readInput_ = true;
        return inputValid_;
    }
    // An earlier layer's output, by absolute index (must be < index()).
    const Shape& outputOf(int layer) const;
    // Whether an earlier layer's output shape is known: no error there nor in what it reads.
    bool isValid(int layer) const;
    // Where a head's input channels are set, for its messages: "set filters=24 in layer 149
    // [convolutional]", or, when the layer before is no convolution, "put a [convolutional] ... before it".
    std::string setFiltersBefore(long long filters) const;

    // Resolves a layer reference (negative = relative to this layer) read from `key`; reports an error
    // naming the key's line when it does not point at an earlier layer.
    std::optional<int> resolve(int reference, std::string_view key);
    // Reports an error unless the input is an image (w, h, c > 0); stays quiet when the input layer is
    // itself broken, so one mistake gives one message.
    bool requireImage(std::string_view typeName);

    void error(std::string message, std::string_view key = {});
    void warning(std::string message, std::string_view key = {});

private:
    const NetConfig& net_;
    int index_;
    Shape input_;
    bool inputValid_;
    mutable bool readInput_ = false;
    std::span<const LayerSpec> earlier_;
    const cfg::Section& section_;
    const std::string& file_;
    Diagnostics& diagnostics_;
};

// What training and detection need to know of a detection head ([yolo], [region], [detection]) without
// caring which kind it is: its classes, how many truth boxes it reads, its jitter and multi-scale
// setting, and the overlap its detections' NMS measures.
struct DetectionHeadInfo {
    int classes = 0;
    int maxBoxes = 0;     // truth boxes per image
    float jitter = 0;     // crop jitter of the training images
    float multiScale = 0; // `random` of [yolo]/[region]: 0 off, 1 Darknet's ×/÷1.4, else that factor
    NmsRule nms = {};     // [yolo] nms_kind, beta_nms
    // What the layer before must give for c classes: inputBase + inputPerClass·c values (channels for
    // [yolo] and [region], a flat vector for [detection]). Set classes rewrites that layer by it.
    long long inputBase = 0, inputPerClass = 0;
    bool classesFromTree = false; // [region] tree=: the hierarchy fixes the classes
};

class LayerConfig {
public:
    virtual ~LayerConfig() = default;
    // The layer's role as data: a detection head says so with its figures (nullopt: not a head).
    virtual std::optional<DetectionHeadInfo> detectionHead() const { return std::nullopt; }
    // A loss on its input that is not the network's output ([cost]: the output is the layer before).
    virtual bool isLossOnly() const { return false; }
    // The class hierarchy a classifier's output follows (darknet9000's tree softmax), or null.
    virtual const SoftmaxTree* classTree() const { return nullptr; }
    // Whether its runtime reads the batch as sequences of [net] time_steps items ([rnn], [gru], …).
    virtual bool isRecurrent() const { return false; }
    // The activation applied to its output as read, its default included ("logistic" for a [connected]
    // without activation=); null for a layer without one.
    virtual const std::string* outputActivation() const { return nullptr; }
    // Output-sized arrays a training pass keeps beside the output and its delta, for the memory check:
    // an activation's input where its derivative needs it (here), batch norm's raw and normalised
    // values (the layers with batch_normalize add 2).
    virtual int trainingOutputCopies() const;
    // Output shape, costs and sources for this layer's input; problems go to the context.
    virtual LayerResult infer(LayerContext& context) const = 0;
    // Short texts for summary tables: "16" filters, "3×3/1" size and stride.
    virtual std::string filtersText() const { return {}; }
    virtual std::string sizeText() const { return {}; }
    // The runtime layer for this layer's shapes (from `spec`); nullptr when it has no CPU forward yet.
    virtual std::unique_ptr<RuntimeLayer> createRuntime(const LayerSpec& spec) const;
};

using LayerParseFn = std::unique_ptr<LayerConfig> (*)(cfg::SectionReader&);

// Darknet's activation names; an unknown one is a warning (Darknet falls back to relu).
std::string readActivation(cfg::SectionReader& reader, const char* fallback);
const std::vector<std::string>& activationNames();

// Output size of a sliding window: (in + padTotal − size) / stride + 1, with C's integer division,
// in 64 bits (cfg values near INT_MAX must not wrap); callers refuse results beyond kMaxSide.
inline std::int64_t windowOutput(std::int64_t in, std::int64_t padTotal, std::int64_t size,
                                 std::int64_t stride)
{
    return (in + padTotal - size) / stride + 1;
}

// An error naming the key when an output side is beyond kMaxSide; true when it fits.
bool sideFits(LayerContext& context, std::int64_t side, std::string_view key);

// "3×3/1" or "3×3/2×1" when strides differ.
std::string kernelText(int size, int strideX, int strideY);

} // namespace nw
