// `check-device --train`: one training step on the GPU against the CPU (issue 16's checks). Both start
// from the same random weights; the CPU net's values and gradients are saved before the GPU's are
// copied over them.
#include "device_check.h"
#include "kernels/cpu/winograd.h"
#include "net_loading.h"
#include "util/relative_difference.h"

#include "backend/cuda/cuda_check.h"
#include "runtime/gpu_net.h"
#include "train/gpu_solver.h"
#include "train/solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <vector>

namespace nw::cli {

namespace {

constexpr double kTolerance = 1e-3;

// Truth a loss layer accepts: for detectors up to three boxes of class 0 per image, well inside it;
// for classifiers one true class per image.
std::vector<float> randomTruth(const Net& net, int batch, std::mt19937& random)
{
    const std::size_t stride = net.truthFloats();
    std::vector<float> truth(stride * std::size_t(batch), 0.0f);
    std::uniform_real_distribution<float> unit(0, 1);
    for (int b = 0; b < batch; ++b) {
        float* t = truth.data() + std::size_t(b) * stride;
        if (net.maxTruthBoxes() > 0) {
            const int boxes = std::min(3, net.maxTruthBoxes());
            for (int k = 0; k < boxes; ++k) {
                float* box = t + 5 * k;
                box[0] = 0.2f + 0.6f * unit(random);
                box[1] = 0.2f + 0.6f * unit(random);
                box[2] = 0.05f + 0.35f * unit(random);
                box[3] = 0.05f + 0.35f * unit(random);
                box[4] = 0;
            }
        } else if (stride > 0) {
            t[std::size_t(random() % stride)] = 1.0f;
        }
    }
    return truth;
}

// Compares array by array, value by value (1e-3 × max(1, |CPU value|)); prints the arrays beyond the
// tolerance and returns the worst. Layers before `firstJudged` are left out (their deltas were routed
// otherwise by a max-pool: winnersDiffering).
double compareArrays(Net& net, std::span<const float> gpuBuffer, std::span<const float> cpuBuffer,
                     bool gradients, const char* what, int& failures, int firstJudged = 0)
{
    double worst = 0;
    const float* base = gradients ? net.parameterGradients().data() : net.parameterValues().data();
    for (Net::LayerParameters& layer : net.trainableParameters())
        for (const Parameter& p : layer.parameters) {
            if (layer.layer < firstJudged)
                continue;
            const ParamArray& array = gradients ? *p.gradient : *p.values;
            const std::size_t offset = std::size_t(array.data() - base), n = array.size();
            const std::span<const float> cpu = cpuBuffer.subspan(offset, n);
            double scale = 1.0; // (printed: how large the array's values are)
            for (float v : cpu)
                scale = std::max(scale, double(std::fabs(v)));
            // Each value against its own reference, 1e-3 × max(1, |ref|): judged at the array's largest
            // value, a wrong small entry beside a large one passed.
            const double difference = largestRelativeDifference(gpuBuffer.subspan(offset, n), cpu);
            worst = std::max(worst, difference);
            const char* type = net.spec().layers[std::size_t(layer.layer)].type.c_str();
            if (!allFinite(cpu)) {
                ++failures;
                std::printf("  layer %d [%s]: the CPU's own %s of a %zu-value array are NaN or infinite: "
                            "nothing to check the GPU against\n",
                            layer.layer, type, what, n);
            } else if (!(difference <= kTolerance)) {
                ++failures;
                std::printf("  layer %d [%s]: %s of a %zu-value array (largest %.3g) differ by %.3g\n",
                            layer.layer, type, what, n, scale, difference);
            }
        }
    return worst;
}

// After a training pass on both: the max-pool windows whose winner the GPU chose otherwise than the CPU
// (near-equal inputs ordered otherwise by rounding), added per layer into `differing`.
void countWinnersDiffering(Net& net, GpuNet& gpu, std::vector<std::size_t>& differing)
{
    differing.resize(net.spec().layers.size());
    for (const LayerSpec& layer : net.spec().layers)
        differing[std::size_t(layer.index)] += net.runtimeLayer(layer.index).gpuWinnersDiffering(gpu.exec());
}

// Validation during a GPU run: inference passes (a CUDA graph from the third) between training passes.
// Each must give the CPU's inference output for the weights the GPU holds, before and after another
// training pass — a graph replaying a training pass's state ([crop]'s random windows, say) would not.
// Returns the worst difference; failures counted and printed. (Not for recurrent layers: their state
// carries from call to call, so passes cannot be repeated; they keep the net out of a graph anyway.)
double checkInferenceBetweenTraining(Net& net, GpuNet& gpu, const std::vector<float>& input,
                                     const std::vector<float>& truth, int& failures)
{
    double worst = 0;
    for (const LayerSpec& layer : net.spec().layers)
        if (layer.config && layer.config->isRecurrent())
            return worst;
    std::mt19937 random(11);
    for (const char* when : {"before", "after"}) {
        for (int pass = 0; pass < 4; ++pass)
            gpu.forward(input.data());
        const std::vector<float> gpuOutput = gpu.output(net.outputLayer());
        gpu.downloadParameters(); // the CPU's inference with the GPU's weights (rolling statistics too)
        net.prepareAll();         // (folded batch norm, Winograd's transforms)
        net.forward(input.data());
        const double difference = largestRelativeDifference(gpuOutput, net.output().span());
        worst = std::max(worst, difference);
        if (!(difference <= kTolerance)) {
            ++failures;
            std::printf("  inference %s another training pass%s differs from the CPU's by %.3g\n", when,
                        gpu.usesGraph() ? " (a CUDA graph)" : "", difference);
        }
        if (std::string(when) == "before") {
            gpu.forwardTraining(input.data(), truth.data(), random);
            gpu.backward();
        }
    }
    return worst;
}

int checkTrainingWith(const std::string& cfg, int device, int batch, bool adam)
{
    setWinogradEnabled(false); // the CPU's reference in exact summation, not through a transform
    auto net = loadNet(cfg, "", batch, {}, Net::Use::Everything);
    if (!net)
        return 1;
    randomizeWeights(*net, 7);
    if (auto problem = net->setTraining(true)) {
        std::cerr << "error: " << cfg << ": " << *problem << "\n";
        return 1;
    }
    std::string error;
    auto gpu = GpuNet::create(*net, device, error); // mirrors the weights before the CPU's pass
    if (!gpu) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    gpu->startTraining();
    std::mt19937 random(3);
    const std::vector<float> input =
        uniformValues(std::size_t(net->inputShape().size) * std::size_t(batch), random);
    const std::vector<float> truth = randomTruth(*net, batch, random);

    // Two passes before the step, as two subdivisions: the gradients must add up on both sides (one
    // pass from zeroed buffers cannot tell a kernel that overwrites from one that adds).
    const std::vector<float> input2 =
        uniformValues(std::size_t(net->inputShape().size) * std::size_t(batch), random);
    const std::vector<float> truth2 = randomTruth(*net, batch, random);
    // Pass by pass on both, so each pass's max-pool winners can be compared.
    std::mt19937 cpuRandom(5), gpuRandom(5);
    std::vector<std::size_t> winnersDiffering;
    double cpuLoss = net->forwardTraining(input.data(), truth.data(), cpuRandom);
    net->backward();
    double gpuLoss = gpu->forwardTraining(input.data(), truth.data(), gpuRandom);
    gpu->backward();
    countWinnersDiffering(*net, *gpu, winnersDiffering);
    cpuLoss += net->forwardTraining(input2.data(), truth2.data(), cpuRandom);
    net->backward();
    gpuLoss += gpu->forwardTraining(input2.data(), truth2.data(), gpuRandom);
    gpu->backward();
    countWinnersDiffering(*net, *gpu, winnersDiffering);
    // Below the deepest such max-pool the deltas went to other inputs: those gradients are not judged.
    int firstJudged = 0;
    for (std::size_t i = 0; i < winnersDiffering.size(); ++i)
        if (winnersDiffering[i] > 0) {
            std::printf("  layer %zu [%s]: %zu windows chose another of near-equal inputs than the CPU "
                        "(rounding), so the gradients of the layers before it are not judged\n",
                        i, net->spec().layers[i].type.c_str(), winnersDiffering[i]);
            firstJudged = int(i) + 1;
        }

    NetConfig config = net->spec().net;
    config.adam = adam;
    auto parameters = net->trainableParameters();
    const float rate = config.learningRate;
    const std::vector<float> cpuGradients(net->parameterGradients().begin(), net->parameterGradients().end());
    makeSolver(config)->step(parameters, rate, batch);
    const std::vector<float> cpuValues(net->parameterValues().begin(), net->parameterValues().end());
    gpu->downloadGradients();
    const std::vector<float> gpuGradients(net->parameterGradients().begin(), net->parameterGradients().end());
    // The GPU solver steps from the CPU's gradients, so the step is checked apart from them (they are
    // compared above): Adam's first step is about lr·sign(g), so a rounding difference in a gradient
    // near zero would show as 2·lr.
    gpu->exec().copyToDevice(cpuGradients, gpu->exec().deviceGradients().data());
    GpuSolver solver(config);
    solver.step(gpu->exec(), parameters, rate, batch);
    gpu->downloadParameters();

    int failures = 0;
    const double lossDifference = std::fabs(gpuLoss - cpuLoss) / std::max(1.0, std::fabs(cpuLoss));
    if (!(lossDifference <= kTolerance)) {
        ++failures;
        std::printf("  loss: GPU %.6g, CPU %.6g\n", gpuLoss, cpuLoss);
    }
    const double gradientWorst =
        compareArrays(*net, gpuGradients, cpuGradients, true, "gradients", failures, firstJudged);
    const double valueWorst =
        compareArrays(*net, net->parameterValues(), cpuValues, false,
                      adam ? "values after an Adam step" : "values after an SGD step", failures);
    // Batch norm's rolling statistics are not trained arrays: compare the whole value buffer too.
    const double allValues = largestRelativeDifference(net->parameterValues(), cpuValues);
    if (!(allValues <= kTolerance)) {
        ++failures;
        std::printf("  parameter values (rolling statistics included) differ by %.3g\n", allValues);
    }
    const double inferenceWorst = checkInferenceBetweenTraining(*net, *gpu, input, truth, failures);
    std::printf("%s: training step, batch %d, %s on cuda:%d: loss %.6g vs %.6g, gradients worst %.2g, "
                "values worst %.2g, inference between training passes worst %.2g — %s\n",
                cfg.c_str(), batch, adam ? "Adam" : "SGD", device, gpuLoss, cpuLoss, gradientWorst,
                std::max(valueWorst, allValues), inferenceWorst, failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}

} // namespace

int checkTraining(const std::string& cfg, int device, int batch)
{
    return std::max(checkTrainingWith(cfg, device, batch, false),
                    checkTrainingWith(cfg, device, batch, true));
}

} // namespace nw::cli
