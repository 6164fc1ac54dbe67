#pragma once
// runtime::Net: a NetworkSpec made runnable. Tensors are allocated once for the batch size; all layers
// share one workspace sized by the largest need (Darknet's design); weights load from and save to
// Darknet's .weights byte for byte.
#include "graph/network_spec.h"
#include "runtime/layer_runtime.h"
#include "runtime/weights_file.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

class Net {
public:
    // Builds the runtime for a valid spec; nullptr and a message naming the layer when it cannot.
    static std::unique_ptr<Net> create(const NetworkSpec& spec, int batch, std::string& error);

    void setBatch(int batch);
    int batch() const { return batch_; }
    const NetworkSpec& spec() const { return spec_; }
    Shape inputShape() const { return spec_.input; }
    std::size_t workspaceBytes() const { return workspace_.size() * sizeof(float); }

    // Runs every layer on batch × inputShape().size floats; returns the network's output.
    const Tensor& forward(const float* input);
    // The same, recording each layer's wall time in milliseconds (for `bench --per-layer`).
    const Tensor& forward(const float* input, std::vector<double>& layerMilliseconds);
    const Tensor& output(int layer) const { return outputs_[static_cast<std::size_t>(layer)]; }
    // The last layer that is not a [cost] layer, as Darknet's network output.
    const Tensor& output() const;
    int outputLayer() const;

    // Reads a .weights file; on failure nothing changes and the message names the layer, the array
    // and the expected vs. available bytes. Trailing bytes give a warning.
    std::optional<std::string> loadWeights(const std::string& path,
                                           std::vector<std::string>* warnings = nullptr);
    // Writes atomically; the header is the one read (or 0.2.5 for a new net).
    std::optional<std::string> saveWeights(const std::string& path) const;
    // Fills every layer with Darknet-style random initial weights (deterministic per seed).
    void initialize(unsigned seed);
    const WeightsHeader& weightsHeader() const { return header_; }

private:
    Net() = default;
    void prepareAll();
    const Tensor& run(const float* input, std::vector<double>* layerMilliseconds);

    NetworkSpec spec_;
    int batch_ = 1;
    std::vector<std::unique_ptr<RuntimeLayer>> layers_;
    std::vector<Tensor> outputs_;
    Tensor input_;
    std::vector<float> workspace_;
    WeightsHeader header_;
};

} // namespace nw
