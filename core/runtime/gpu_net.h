#pragma once
// GpuNet: a Net's inference on a CUDA device (builds with NETWRIGHT_WITH_CUDA). The host net keeps the
// description and the weights (loaded and prepared as for the CPU); the GPU copy mirrors its
// ParameterStore in one buffer and runs each layer's forwardGpu on one stream. Outputs stay on the
// device until asked for.
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/input_stager.h"
#include "runtime/gpu_coverage.h"
#include "runtime/net.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace nw {

class GpuNet {
public:
    // What a network's layers lack on a GPU, from its description alone: each layer's runtime is made
    // (its weights allocated, not initialised), asked and dropped, one at a time, without a Net (which
    // took yolov4's summary 3 of its 4 s, initialising 64 M weights nobody used). Not checked when a
    // layer cannot be made or the weights would not fit this machine.
    static GpuCoverage coverage(const NetworkSpec& spec);
    // The layers of `net` without a GPU forward, as "layer 5 [reorg] (line 40)"; empty when it can run.
    static std::vector<std::string> layersWithoutGpu(Net& net);
    // Needs every layer to have a GPU forward; nullptr and a message otherwise (or when the device, its
    // memory or a library fails). `net` must outlive the GpuNet; its weights are copied now, so call
    // refreshParameters() after loading others.
    static std::unique_ptr<GpuNet> create(Net& net, int device, std::string& error);

    ~GpuNet();
    GpuNet(const GpuNet&) = delete;
    GpuNet& operator=(const GpuNet&) = delete;

    void refreshParameters();
    // Inference replayed as one CUDA graph (on by default: batch-1 latency is launch-bound): captured on
    // the third forward, once cuDNN has measured its algorithms and the workspace has its size, then
    // replayed. Not where a layer's forward needs the host (a head run on the CPU), nor after a failed
    // capture: the layers then run one by one.
    void setGraphs(bool enabled) { graphs_ = enabled; }
    bool usesGraph() const { return graphs_ && graph_; }
    // FP16 inference (GpuExec::setHalfPrecision: convolutions in half on tensor cores). GpuError when
    // training has started: training stays FP32.
    void setHalfPrecision(bool on);
    bool halfPrecision() const { return exec_->halfPrecision(); }
    // TF32 inference (GpuExec::setTensorFloat32: FP32 data on tensor cores, as Darknet's own "FP32"),
    // under the same rules as FP16; FP16 and TF32 are not on together.
    void setTensorFloat32(bool on);
    bool tensorFloat32() const { return exec_->tensorFloat32(); }

    // Training on the GPU. The layers without a GPU training pass (hasGpuBackward), named as above.
    static std::vector<std::string> layersWithoutGpuTraining(Net& net);
    // The layers that train on no device (no backward pass at all, e.g. yolo9000's class tree), named
    // as above: Net::setTraining refuses them.
    static std::vector<std::string> layersThatCannotTrain(Net& net);
    // The message naming them ("… cannot train on the GPU yet …"), or nullopt when all can train.
    static std::optional<std::string> trainingProblem(Net& net);
    // Mirrors the host net's gradient buffer (the net must be in training mode: Net::setTraining) and
    // allocates the deltas; GpuError when a layer cannot train here or memory runs out.
    void startTraining();
    // One training pass on batch host images and their truth (as Net::forwardTraining): batch
    // statistics, the loss layers' deltas; returns the loss as Net's does. Weights and gradients stay on the
    // device.
    double forwardTraining(const float* input, const float* truth, std::mt19937& random);
    // Back-propagates it, adding −gradients into the device gradient buffer (as Net::backward).
    void backward();
    // The detection heads' figures of the last forwardTraining.
    const std::vector<HeadStats>& headStats() const { return headStats_; }
    // The device's parameter values (weights, rolling statistics) into the host net's store, and the
    // device gradients into its gradient buffer (checkpoints, checks).
    void downloadParameters();
    void downloadGradients();
    GpuExec& exec() { return *exec_; }
    // Runs every layer on batch × inputShape().size host floats; waits for the result. Throws GpuError
    // naming the layer when the device fails (`syncEachLayer`: wait after every layer, so a fault while
    // a kernel runs is also blamed on its own layer — for checks, not speed).
    void forward(const float* input, bool syncEachLayer = false);
    // forward(), then each output the host net keeps (outputKept: all of them, or an inference-only
    // net's heads and output) copied into the net's tensors, so code reading net.output() runs unchanged.
    // `resultsOnly`: just the output layer's and the detection heads' (evaluation while training).
    void forwardToHost(const float* input, bool resultsOnly = false);
    // A layer's output after forward(), copied to the host.
    std::vector<float> output(int layer) const;
    const GpuExec& exec() const { return *exec_; }
    std::size_t deviceBytes() const;

private:
    GpuNet(Net& net, int device);

    void checkNetUnchanged() const;
    void run(const float* input, ExecContext* training, bool syncEachLayer);
    // Queued on the stream, not waited for; `input`: the device copy of the batch.
    void runLayers(const float* input, ExecContext* training, bool syncEachLayer);
    void capture();
    void dropGraph();
    void recaptureGraph(); // dropped, and captured again after the next warm-up passes

    Net& net_;
    std::uint64_t generation_;   // the net's when copied (Net::generation)
    int batch_;                  // what the device buffers were sized for
    Shape inputShape_;           // (a multi-scale resize changes every layer's size)
    std::size_t parameterCount_; // and the parameter mirror
    std::unique_ptr<GpuExec> exec_;
    DeviceBuffer input_;                   // inference (a CUDA graph reads it at a fixed address)
    InputStager stager_;                   // training batches, uploaded while the last backward pass runs
    const float* trainingInput_ = nullptr; // the last training pass's batch on the device
    std::vector<DeviceBuffer> outputs_;
    std::vector<DeviceBuffer> deltas_; // training: −∂loss/∂output per layer
    bool graphs_ = true, captureTried_ = false;
    int passesBeforeGraph_ = 0;
    cudaGraphExec_t graph_ = nullptr;
    std::uint64_t graphWorkspace_ = 0;  // the workspace's generation when captured
    std::uint64_t graphParameters_ = 0; // and the parameters' (half weights converted before it)
    std::vector<bool> reachesLoss_;
    std::vector<HeadStats> headStats_;
    std::vector<bool> results_; // the output layer and the detection heads (forwardToHost's resultsOnly)
};

} // namespace nw
