#pragma once
// runtime::Net: a NetworkSpec made runnable. Tensors are allocated once for the batch size; all layers
// share one workspace sized by the largest need (Darknet's design); weights load from and save to
// Darknet's .weights byte for byte.
#include "graph/network_spec.h"
#include "runtime/layer_runtime.h"
#include "runtime/parameter_store.h"
#include "runtime/weights_file.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

class Net;

// One forward pass of a net somewhere — its own CPU pass, or a GPU copy whose results are copied back —
// after which net.output() (and the detection heads' outputs) hold the results. Evaluation takes one.
using ForwardPass = std::function<void(const float* input)>;

class Net {
public:
    // What a net is built for. Inference only: a layer's output lives only until its last reader has
    // run (graph/activation_plan.h), so after a pass only the detection heads' and the output layer's
    // outputs are readable (outputKept), and it cannot train.
    enum class Use { Everything, InferenceOnly };

    // Builds the runtime for a valid spec; nullptr and a message naming the layer when it cannot.
    static std::unique_ptr<Net> create(const NetworkSpec& spec, int batch, std::string& error,
                                       Use use = Use::Everything);

    void setBatch(int batch);
    // Bumped whenever the layers or buffers are rebuilt (batch, input size, gradient binding): a copy
    // made of the net (a GpuNet) checks it is still the net it copied.
    std::uint64_t generation() const { return generation_; }
    // Threads of this net's passes, for the calling thread only (0: the process's setting,
    // setComputeThreads); another net on another thread keeps its own.
    void setThreads(int threads);
    int threads() const { return threads_; }
    // Rebuilds every layer for a new input size keeping the weights (Darknet's resize_network, for
    // multi-scale training); the message names the layer when the network cannot take that size
    // (a [connected] or [local] layer's weights depend on it).
    std::optional<std::string> resizeInput(int width, int height);
    // Why the network's shapes do not work out at width × height (a layer's error there: a route of
    // layers that no longer have one size); nullopt when they do. Nothing is built or allocated.
    std::optional<std::string> inputSizeProblem(int width, int height) const;
    int batch() const { return batch_; }
    const NetworkSpec& spec() const { return spec_; }
    Shape inputShape() const { return spec_.input; }
    std::size_t workspaceBytes() const { return workspace_.size() * sizeof(float); }
    // What the training passes' per-thread buffers hold (ThreadScratch): the largest layer's need.
    std::size_t threadScratchBytes() const
    {
        std::size_t floats = 0;
        for (const ThreadScratch& t : threadScratch_)
            floats += t.columns.capacity() + t.other.capacity() + t.weightGradient.capacity();
        return floats * sizeof(float);
    }

    // Runs every layer on batch × inputShape().size floats; returns the network's output.
    const Tensor& forward(const float* input);
    // The same, recording each layer's wall time in milliseconds (for `bench --per-layer`).
    const Tensor& forward(const float* input, std::vector<double>& layerMilliseconds);
    // A layer's output after a pass (an inference-only net: only where outputKept).
    const Tensor& output(int layer) const { return outputs_[static_cast<std::size_t>(layer)]; }
    // Where a device backend leaves a layer's output, so readers of output() find it (runtime/gpu_net.h).
    Tensor& outputStorage(int layer) { return outputs_[static_cast<std::size_t>(layer)]; }
    bool outputKept(int layer) const { return kept_.empty() || kept_[static_cast<std::size_t>(layer)]; }
    bool inferenceOnly() const { return use_ == Use::InferenceOnly; }
    // Bytes of the layers' outputs as allocated (shared buffers counted once).
    std::size_t activationBytes() const;
    // The last layer that is not a [cost] layer, as Darknet's network output.
    const Tensor& output() const;
    int outputLayer() const;

    // Detection heads ([yolo], [region]): the most truth boxes any of them reads per image; 0 for
    // classifiers. Truth per image is then that many (x, y, w, h, class) boxes.
    int maxTruthBoxes() const;
    // Truth floats per image: 5 × maxTruthBoxes() for detectors, the output size for classifiers.
    std::size_t truthFloats() const;
    // The figures of each detection head in the last forwardTraining.
    const std::vector<HeadStats>& headStats() const { return headStats_; }

    // Training mode allocates a gradient ("delta") per output. It fails, naming the layer, when a
    // layer type has no backward pass yet.
    std::optional<std::string> setTraining(bool training);
    bool training() const { return training_; }
    // One training forward pass: batch-norm batch statistics, dropout; the loss layer compares with
    // `truth` (batch × truthFloats()); returns the loss summed over the batch, the mean of the loss
    // layers' (Darknet's figure). The gradients are those of their sum, as Darknet's are.
    // With `layerMilliseconds`, each layer's wall time is recorded there (profiling).
    double forwardTraining(const float* input, const float* truth, std::mt19937& random,
                           std::vector<double>* layerMilliseconds = nullptr);
    // Back-propagates the last forwardTraining, adding −gradients into every layer's parameters.
    void backward(std::vector<double>* layerMilliseconds = nullptr);
    struct LayerParameters {
        int layer;
        float learningRateScale;
        std::vector<Parameter> parameters;
    };
    // Every trainable array, layer by layer (frozen layers — stopbackward, dont_update — left out).
    std::vector<LayerParameters> trainableParameters();
    // Whether each layer's output reaches a loss (the output layer, [cost], a detection head) through
    // the layers that read it; backward skips the others.
    std::vector<bool> layersReachingLoss() const;
    // The first layer that trains: those before it are frozen by a stopbackward.
    int firstTrainedLayer() const { return firstTrainedLayer(spec_); }
    static int firstTrainedLayer(const NetworkSpec& spec);
    // Every layer's arrays in .weights order (for checkpoints).
    std::vector<WeightArray> weightArrays();
    // The same values as one flat buffer (the arrays are views of it), and, while training, the
    // gradients of trainableParameters() as another (for the data-parallel all-reduce).
    std::span<float> parameterValues() { return store_.values(); }
    std::span<float> parameterGradients() { return store_.gradients(); }
    // A layer's runtime (the GPU backend runs its forwardGpu).
    RuntimeLayer& runtimeLayer(int layer) { return *layers_[static_cast<std::size_t>(layer)]; }
    // One layer's arrays in .weights order (for exporters).
    std::vector<WeightArray> layerWeightArrays(int layer)
    {
        return layers_[static_cast<std::size_t>(layer)]->weightArrays();
    }
    // Images trained on, kept in the .weights header.
    std::uint64_t seen() const { return header_.seen; }
    void setSeen(std::uint64_t seen) { header_.seen = seen; }

    // Reads a .weights file; on failure nothing changes and the message names the layer, the array
    // and the expected vs. available bytes. A file of another size is refused unless `fit` allows it.
    // NaN or infinite values load, with a warning naming the layer.
    std::optional<std::string> loadWeights(const std::string& path,
                                           std::vector<std::string>* warnings = nullptr, WeightsFit fit = {});
    // Writes atomically; the header is the one read (or 0.2.5 for a new net). With `layers` ≥ 0, only the
    // first `layers` layers' arrays, and `seen` 0 (Darknet's partial: a backbone to train from).
    std::optional<std::string> saveWeights(const std::string& path, int layers = -1) const;
    // Fills every layer with Darknet-style random initial weights (deterministic per seed).
    void initialize(unsigned seed);
    const WeightsHeader& weightsHeader() const { return header_; }

    // After weight arrays were replaced through weightArrays() (a checkpoint): recomputes what layers
    // derive from their weights (Winograd's transformed weights, flipped copies).
    void prepareAll();

private:
    Net() = default;
    const Tensor& run(const float* input, std::vector<double>* layerMilliseconds, ExecContext& context);
    void bindGradients();
    void sizeWorkspace(); // the largest layer's need, for threads_

    NetworkSpec spec_;
    int batch_ = 1;
    int threads_ = 0;
    std::uint64_t generation_ = 0;
    std::vector<std::unique_ptr<RuntimeLayer>> layers_;
    ParameterStore store_; // the layers' parameter arrays live here
    std::vector<Tensor> outputs_;
    Use use_ = Use::Everything;
    std::vector<std::vector<float>> activationBuffers_; // inference only: outputs_ view these
    std::vector<bool> kept_;                            // inference only: outputsKeptAfterInference
    Tensor input_;
    std::vector<Tensor> deltas_;
    bool training_ = false;
    std::vector<float> workspace_;
    std::vector<ThreadScratch> threadScratch_; // training passes' per-thread buffers, shared by the layers
    WeightsHeader header_;
    std::vector<HeadStats> headStats_;
    std::vector<bool> reachesLoss_; // layersReachingLoss(), set when training starts
};

} // namespace nw
