// The CUDA backend from the command line: `check-device` (every layer's GPU forward against the CPU's;
// with --train, device_training_check.cpp)
// and `bench --device cuda[:N]` (GPU latency). Builds without CUDA say so.
#include "backend/device_choice.h"
#include "backend/gpu_devices.h"
#include "cfg/document.h"
#include "commands.h"
#include "device_check.h"
#include "kernels/cpu/winograd.h"
#include "net_loading.h"
#include "util/relative_difference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "runtime/gpu_net.h"
#include "train/gpu_solver.h"
#endif

namespace nw::cli {

namespace {

// The exit status CTest reads as "skipped" (SKIP_RETURN_CODE): no GPU here, nothing was compared.
constexpr int kSkipped = 77;

#if NETWRIGHT_WITH_CUDA
// check-device --half or --tf32: every layer's output within 5e-2 × max(1, |FP32 CPU value|). Half and
// TF32 both keep 11 significant bits (relative rounding 4.9e-4 per value); the convolutions accumulate
// in FP32, so the error grows slowly with depth. The figure is the stated bound; the first GPU run found
// it holds for the tiny networks, not through yolov4's 162 layers of random weights (docs/gpu.md).
constexpr double kReducedTolerance = 5e-2;

// The net's GPU copy, or nullptr with the reason printed.
std::unique_ptr<GpuNet> createOrReport(Net& net, int device)
{
    std::string error;
    auto gpu = GpuNet::create(net, device, error);
    if (!gpu)
        std::cerr << "error: " << error << "\n";
    return gpu;
}

// --half or --tf32 as asked (precisionRefusal has ruled out the CPU and training).
void applyRequestedPrecision(GpuNet& gpu)
{
    gpu.setHalfPrecision(halfPrecisionRequested());
    gpu.setTensorFloat32(tensorFloat32Requested());
}

// How the convolutions compute, for bench's line and describe().
const char* precisionName(const GpuNet& gpu)
{
    return gpu.halfPrecision() ? "FP16" : gpu.tensorFloat32() ? "TF32" : "FP32";
}

struct Worst {
    double error = 0; // max |gpu − cpu| / max(1, |cpu|)
    int layer = -1;
};

int checkOne(const std::string& cfg, int device, int batch)
{
    setWinogradEnabled(false); // the CPU's reference in exact summation, not through a transform
    auto net = loadNet(cfg, "", batch, {}, Net::Use::Everything);
    if (!net)
        return 1;
    randomizeWeights(*net, 7);
    auto gpu = createOrReport(*net, device);
    if (!gpu)
        return 1;
    applyRequestedPrecision(*gpu);
    const bool reduced = gpu->halfPrecision() || gpu->tensorFloat32();
    const double tolerance = reduced ? kReducedTolerance : 1e-3;
    std::mt19937 random(3);
    const std::vector<float> input =
        uniformValues(std::size_t(net->inputShape().size) * std::size_t(batch), random);
    net->forward(input.data());
    gpu->forward(input.data(), true);
    Worst worst;
    int failures = 0;
    for (const LayerSpec& layer : net->spec().layers) {
        const std::span<const float> cpu = net->output(layer.index).span();
        if (!allFinite(cpu)) { // the random weights overflowed: there is nothing to judge the GPU by
            ++failures;
            std::printf(
                "  layer %d [%s] (line %d): the CPU's own output is NaN or infinite, so the GPU cannot be "
                "checked against it (or any layer after it)\n",
                layer.index, layer.type.c_str(), layer.line);
            break;
        }
        const double largest = largestRelativeDifference(gpu->output(layer.index), cpu);
        if (largest > worst.error)
            worst = {largest, layer.index};
        if (!(largest <= tolerance)) {
            ++failures;
            std::printf("  layer %d [%s] (line %d): GPU differs from the CPU by %.3g (tolerance %g)\n",
                        layer.index, layer.type.c_str(), layer.line, largest, tolerance);
        }
    }
    // The same pass replayed as a CUDA graph (captured on the third pass): the network's output must be
    // the layer-by-layer one (the same kernels in the same order; 1e-5 leaves room for an algorithm
    // that is not bitwise repeatable, while a wrong buffer in the graph is off by far more).
    const std::vector<float> launched = gpu->output(net->outputLayer());
    for (int pass = 0; pass < 4; ++pass)
        gpu->forward(input.data());
    std::string graph = "no CUDA graph (a layer needs the host)";
    if (!allFinite(launched))
        graph = "the CUDA graph not compared (the output is not finite)";
    else if (gpu->usesGraph()) {
        const double replay = largestRelativeDifference(gpu->output(net->outputLayer()), launched);
        graph = replay <= 1e-5 ? "the CUDA graph's output is the same" : "the CUDA graph's output DIFFERS";
        if (!(replay <= 1e-5)) {
            ++failures;
            std::printf(
                "  replayed as a CUDA graph, the output differs by %.3g from the layer-by-layer pass\n",
                replay);
        }
    }
    std::printf("%s: %zu layers, batch %d on cuda:%d%s: worst %.2g (layer %d); %s — %s\n", cfg.c_str(),
                net->spec().layers.size(), batch, device,
                reduced ? (std::string(" in ") + precisionName(*gpu)).c_str() : "", worst.error, worst.layer,
                graph.c_str(), failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
#endif

} // namespace

#if NETWRIGHT_WITH_CUDA
// yolov4's 23 residual blocks would double the signal each time with unit gains: hence the 0.3.
void randomizeWeights(Net& net, unsigned seed)
{
    net.initialize(seed);
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0, 1);
    for (const WeightArray& array : net.weightArrays()) {
        const std::string name = array.name;
        for (float& v : *array.data) {
            if (name == "rolling_mean" || name == "biases")
                v = unit(random) * 0.2f - 0.1f;
            else if (name == "rolling_variance" || name == "scales")
                v = 0.5f + unit(random);
        }
    }
    for (const LayerSpec& layer : net.spec().layers)
        if (layer.type == "shortcut" && layer.index > 0)
            for (const WeightArray& array : net.layerWeightArrays(layer.index - 1))
                if (std::strcmp(array.name, "weights") == 0)
                    for (float& v : *array.data)
                        v *= 0.3f;
    net.prepareAll();
}

#endif

GpuCoverage gpuCoverage(const NetworkSpec& spec)
{
#if NETWRIGHT_WITH_CUDA
    if (spec.ok())
        return GpuNet::coverage(spec);
    GpuCoverage unchecked;
    unchecked.cudaBuilt = true;
    return unchecked;
#else
    (void)spec;
    return {};
#endif
}

int checkDevice(const CheckDeviceArgs& args)
{
    std::string error;
    // A typo, or a GPU this machine lacks, is a failure; only a machine without any GPU is a skip.
    const auto asked = parseDevice(args.device, error);
    if (!asked) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    if (!asked->cuda) { // (it answered with the exit status of a skip, which CI reads as "no GPU here")
        std::cerr << "error: --device " << args.device
                  << ": check-device compares a GPU with the CPU; give --device cuda or cuda:N\n";
        return 1;
    }
    if (auto refusal = precisionRefusal(true, args.train)) { // (without a GPU: the same words)
        std::cerr << "error: " << *refusal << "\n";
        return 1;
    }
    // The networks are read first, GPU or not: a broken list is a failure, never hidden by a skip.
    bool broken = false;
    for (const std::string& cfg : args.cfgs) {
        const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(cfg));
        if (!spec.ok()) {
            printDiagnostics(spec.diagnostics);
            broken = true;
        }
    }
    if (broken)
        return 1;
    const auto choice = chooseDevice(args.device, error);
    if (!choice && !listGpus(false).devices.empty()) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    if (!choice || !choice->cuda) {
        std::printf("SKIP: %s\n", error.c_str());
        return kSkipped;
    }
#if NETWRIGHT_WITH_CUDA
    int status = 0;
    for (const std::string& cfg : args.cfgs) {
        try {
            // A recurrent network's pass holds time_steps items per sequence (Darknet's layer batch).
            const int items = args.batch * timeSteps(cfg);
            status = std::max(status, checkOne(cfg, choice->index, items));
            if (args.train)
                status = std::max(status, checkTraining(cfg, choice->index, items));
        } catch (const GpuError& e) {
            std::cerr << "error: " << cfg << ": " << e.what() << "\n";
            status = 1;
        }
    }
    return status;
#else
    return kSkipped; // unreachable: chooseDevice finds no GPU in a build without CUDA
#endif
}

namespace {

class CpuRunner final : public DeviceRunner {
public:
    explicit CpuRunner(Net& net) : net_(net) {}
    void forward(const float* input) override { net_.forward(input); }
    std::string describe() const override { return "cpu"; }

private:
    Net& net_;
};

#if NETWRIGHT_WITH_CUDA
class GpuRunner final : public DeviceRunner {
public:
    GpuRunner(std::unique_ptr<GpuNet> gpu, int device) : gpu_(std::move(gpu)), device_(device) {}
    void forward(const float* input) override { gpu_->forwardToHost(input); }
    std::string describe() const override
    {
        const std::string precision = precisionName(*gpu_);
        return "cuda:" + std::to_string(device_) + (precision == "FP32" ? "" : " (" + precision + ")");
    }

private:
    std::unique_ptr<GpuNet> gpu_;
    int device_;
};
#endif

} // namespace

std::unique_ptr<DeviceRunner> DeviceRunner::create(Net& net, const std::string& device)
{
    std::string error;
    const auto choice = chooseDevice(device, error);
    if (!choice) {
        std::cerr << "error: " << error << "\n";
        return nullptr;
    }
    if (!choice->cuda) {
        if (auto refusal = precisionRefusal(false, false)) {
            std::cerr << "error: " << *refusal << "\n";
            return nullptr;
        }
        return std::make_unique<CpuRunner>(net);
    }
#if NETWRIGHT_WITH_CUDA
    auto gpu = GpuNet::create(net, choice->index, error);
    if (!gpu) {
        std::cerr << "error: " << error << "\n";
        return nullptr;
    }
    applyRequestedPrecision(*gpu);
    return std::make_unique<GpuRunner>(std::move(gpu), choice->index);
#else
    return nullptr;  // unreachable: chooseDevice finds no GPU in a build without CUDA
#endif
}

#if !NETWRIGHT_WITH_CUDA
namespace {
int noCudaBackend(int device)
{
    std::cerr << "error: this build has no CUDA backend (cuda:" << device << ")\n";
    return 1;
}
} // namespace
#endif

int benchTrainingOnGpu(const BenchArgs& args, const SpecOptions& options, int device)
{
#if NETWRIGHT_WITH_CUDA
    // The cfg's own batch (as bench --train on the CPU), here with the solver's update in the timed step:
    // one iteration as `train --device` runs it, less the data loading.
    auto net = loadNetForTraining(args.cfg, args.weights, options);
    if (!net)
        return 1;
    if (auto problem = GpuNet::trainingProblem(*net)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    auto gpu = createOrReport(*net, device);
    if (!gpu)
        return 1;
    const int batch = net->batch();
    std::mt19937 random(1);
    const BenchBatch data = benchBatch(*net, random);
    auto parameters = net->trainableParameters();
    GpuSolver solver(net->spec().net);
    std::vector<double> times;
    try {
        gpu->startTraining();
        for (int i = 0; i < 3 + std::max(1, args.runs); ++i) {
            const auto start = std::chrono::steady_clock::now();
            gpu->forwardTraining(data.images.data(), data.truth.data(), random);
            gpu->backward();
            solver.step(gpu->exec(), parameters, 1e-6f, batch); // a tiny rate: the net stays as it is
            gpu->exec().synchronize();
            if (i >= 3) // warm-up: cuDNN measures its forward and backward algorithms first
                times.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                        .count());
        }
    } catch (const GpuError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const double imagesPerSecond = median > 0 ? batch * 1000.0 / median : 0.0;
    if (args.json)
        std::printf("{\"median_ms\": %.3f, \"images_per_s\": %.1f, \"batch\": %d, \"runs\": %zu, "
                    "\"device\": \"cuda:%d\", \"device_mb\": %.1f}\n",
                    median, imagesPerSecond, batch, times.size(), device,
                    double(gpu->deviceBytes()) / (1 << 20));
    else
        std::printf(
            "%s training step on cuda:%d, batch %d, %zu runs: median %.2f ms = %.0f images/s (forward, "
            "backward and the solver's update, the batch uploaded from the host; no data loading)\n",
            args.cfg.c_str(), device, batch, times.size(), median, imagesPerSecond);
    return 0;
#else
    (void)args, (void)options;
    return noCudaBackend(device);
#endif
}

int benchOnGpu(const BenchArgs& args, const SpecOptions& options, int device)
{
#if NETWRIGHT_WITH_CUDA
    auto net = loadNet(args.cfg, args.weights, 1, options, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    auto gpu = createOrReport(*net, device);
    if (!gpu)
        return 1;
    gpu->setGraphs(!args.noGraph);
    applyRequestedPrecision(*gpu);
    std::mt19937 random(1);
    const std::vector<float> input = uniformValues(std::size_t(net->inputShape().size), random);
    std::vector<double> times;
    try {
        for (int i = 0; i < 5; ++i) // warm-up: cuDNN measures its algorithms on the first pass
            gpu->forward(input.data());
        for (int i = 0; i < std::max(1, args.runs); ++i) {
            const auto start = std::chrono::steady_clock::now();
            gpu->forward(input.data()); // input upload, every layer, synchronised
            times.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
    } catch (const GpuError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const Shape in = net->inputShape();
    const double deviceMb = double(gpu->deviceBytes()) / (1 << 20);
    if (args.json)
        std::printf("{\"median_ms\": %.3f, \"min_ms\": %.3f, \"runs\": %zu, \"device\": \"cuda:%d\", "
                    "\"device_mb\": %.1f, \"width\": %d, \"height\": %d, \"cuda_graph\": %s, \"fp16\": %s, "
                    "\"tf32\": %s}\n",
                    median, times.front(), times.size(), device, deviceMb, in.w, in.h,
                    gpu->usesGraph() ? "true" : "false", gpu->halfPrecision() ? "true" : "false",
                    gpu->tensorFloat32() ? "true" : "false");
    else
        std::printf("%s %dx%d, batch 1 on cuda:%d, %zu runs: median %.3f ms, min %.3f ms, %.1f MB on the GPU "
                    "(%s, %s)\n",
                    args.cfg.c_str(), in.w, in.h, device, times.size(), median, times.front(), deviceMb,
                    gpu->usesGraph() ? "one CUDA graph" : "layer by layer",
                    gpu->halfPrecision()   ? "FP16 convolutions"
                    : gpu->tensorFloat32() ? "TF32 convolutions"
                                           : "FP32");
    return 0;
#else
    (void)args, (void)options;
    return noCudaBackend(device);
#endif
}

} // namespace nw::cli
