// bench: forward latency (median and minimum over N runs after a warm-up) and peak memory.
#include "backend/device_choice.h"
#include "cfg/document.h"
#include "commands.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/winograd.h"
#include "net_loading.h"
#include "util/memory_info.h"
#include "util/thread_settings.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <sys/resource.h>

namespace nw::cli {

namespace {

// In MiB, as the figures have always been (ru_maxrss's KiB / 1024).
double peakRssMb()
{
    if (const auto bytes = peakResidentBytes())
        return double(*bytes) / (1024.0 * 1024.0);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

// Training passes (forward with the loss + backward, no weight update) at the cfg's batch/subdivisions,
// on random images with empty truth: images/s and, with --per-layer, each layer's forward and
// backward time.
int benchTraining(const BenchArgs& args, const SpecOptions& options)
{
    auto net = loadNetForTraining(args.cfg, args.weights, options);
    if (!net)
        return 1;
    const int batch = net->batch();
    std::mt19937 random(1);
    const BenchBatch data = benchBatch(*net, random);
    const std::size_t layers = net->spec().layers.size();
    std::vector<std::vector<double>> forwardTimes(layers), backwardTimes(layers);
    std::vector<double> times, forwardMs, backwardMs;
    for (int i = 0; i < 2 + std::max(1, args.runs); ++i) {
        const auto start = std::chrono::steady_clock::now();
        net->forwardTraining(data.images.data(), data.truth.data(), random, &forwardMs);
        net->backward(&backwardMs);
        if (i < 2)
            continue; // warm-up
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        for (std::size_t l = 0; l < layers; ++l) {
            forwardTimes[l].push_back(forwardMs[l]);
            backwardTimes[l].push_back(backwardMs[l]);
        }
    }
    const double ms = median(times);
    const double imagesPerSecond = ms > 0 ? batch * 1000.0 / ms : 0.0;
    if (args.json) {
        std::printf("{\"median_ms\": %.3f, \"images_per_s\": %.1f, \"batch\": %d, \"runs\": %zu, "
                    "\"threads\": %d, \"blas_core\": \"%s\"",
                    ms, imagesPerSecond, batch, times.size(), computeThreads(), blasCoreName());
        if (args.perLayer) {
            std::printf(", \"layers\": [");
            for (std::size_t l = 0; l < layers; ++l)
                std::printf("%s{\"index\": %zu, \"type\": \"%s\", \"output\": \"%s\", \"bflops\": %.9g, "
                            "\"forward_ms\": %.3f, \"backward_ms\": %.3f}",
                            l ? ", " : "", l, net->spec().layers[l].type.c_str(),
                            net->spec().layers[l].output.text().c_str(), net->spec().layers[l].costs.bflops,
                            median(forwardTimes[l]), median(backwardTimes[l]));
            std::printf("]");
        }
        std::printf("}\n");
        return 0;
    }
    if (args.perLayer) {
        std::printf("%5s  %-16s %18s %10s %12s %12s\n", "layer", "type", "output", "BFLOPs", "forward ms",
                    "backward ms");
        for (std::size_t l = 0; l < layers; ++l) {
            const LayerSpec& layer = net->spec().layers[l];
            std::printf("%5zu  %-16s %18s %10.3f %12.3f %12.3f\n", l, layer.type.c_str(),
                        layer.output.text().c_str(), layer.costs.bflops, median(forwardTimes[l]),
                        median(backwardTimes[l]));
        }
    }
    std::printf("%s training pass, batch %d, %d threads, %zu runs: median %.1f ms = %.1f images/s (no weight "
                "update, no data loading; OpenBLAS %s)\n",
                args.cfg.c_str(), batch, computeThreads(), times.size(), ms, imagesPerSecond, blasCoreName());
    return 0;
}

} // namespace

int bench(const BenchArgs& args)
{
    const double baseline = peakRssMb(); // the process with its libraries, before the network exists
    SpecOptions options;
    if (!args.size.empty() && std::sscanf(args.size.c_str(), "%dx%d", &options.width, &options.height) != 2) {
        std::cerr << "error: --size must look like 416x416 (found '" << args.size << "')\n";
        return 2;
    }
    std::string deviceError;
    const auto device = chooseDevice(args.device, deviceError);
    if (!device) {
        std::cerr << "error: " << deviceError << "\n";
        return 1;
    }
    if (auto refusal = precisionRefusal(device->cuda, args.training)) {
        std::cerr << "error: " << *refusal << "\n";
        return 1;
    }
    if (device->cuda) {
        if (args.perLayer) {
            std::cerr
                << "error: --device " << args.device
                << ": --per-layer times the CPU's layers only (a GPU runs them queued, not one by one)\n";
            return 1;
        }
        return args.training ? benchTrainingOnGpu(args, options, device->index)
                             : benchOnGpu(args, options, device->index);
    }
    if (args.noGraph) { // (as --half: it was ignored in silence)
        std::cerr << "error: --no-graph needs --device cuda: CUDA graphs are a GPU's; the CPU runs layer by "
                     "layer already\n";
        return 1;
    }
    setComputeThreads(args.threads);
    setWinogradEnabled(!args.noWinograd);
    if (args.training)
        return benchTraining(args, options);
    // A recurrent network runs one sequence of time_steps items (batch 1 was refused: "use a multiple of
    // 576" for rnn.train.cfg, with no option to give it), as forward and detect run it.
    const int steps = timeSteps(args.cfg);
    auto net = loadNet(args.cfg, args.weights, steps, options, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    std::mt19937 random(1);
    const std::vector<float> input =
        uniformValues(std::size_t(net->inputShape().size) * std::size_t(steps), random);
    for (int i = 0; i < 2; ++i) // warm-up: page in weights, let OpenBLAS spin up its threads
        net->forward(input.data());
    std::vector<double> times;
    std::vector<std::vector<double>> layerTimes(net->spec().layers.size());
    std::vector<double> perLayer;
    for (int i = 0; i < std::max(1, args.runs); ++i) {
        const auto start = std::chrono::steady_clock::now();
        if (args.perLayer)
            net->forward(input.data(), perLayer);
        else
            net->forward(input.data());
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        for (std::size_t l = 0; l < perLayer.size(); ++l)
            layerTimes[l].push_back(perLayer[l]);
    }
    if (args.perLayer && !args.json) {
        std::printf("%5s  %-16s %18s %10s %10s %9s\n", "layer", "type", "output", "BFLOPs", "median ms",
                    "GFLOP/s");
        for (std::size_t l = 0; l < layerTimes.size(); ++l) {
            auto& t = layerTimes[l];
            std::sort(t.begin(), t.end());
            const double ms = t[t.size() / 2];
            const LayerSpec& layer = net->spec().layers[l];
            std::printf("%5zu  %-16s %18s %10.3f %10.3f %9.1f\n", l, layer.type.c_str(),
                        layer.output.text().c_str(), layer.costs.bflops, ms,
                        ms > 0 ? layer.costs.bflops * steps / ms * 1000 : 0.0); // (per item: × the sequence)
        }
    }
    std::sort(times.begin(), times.end());
    const double median = times.size() % 2 ? times[times.size() / 2]
                                           : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
    const Shape in = net->inputShape();
    if (args.json) {
        std::printf(
            "{\"median_ms\": %.3f, \"min_ms\": %.3f, \"peak_rss_mb\": %.1f, \"baseline_rss_mb\": %.1f, "
            "\"runs\": %zu, \"threads\": %d, \"width\": %d, \"height\": %d, \"time_steps\": %d, "
            "\"blas_core\": \"%s\"",
            median, times.front(), peakRssMb(), baseline, times.size(), computeThreads(), in.w, in.h, steps,
            blasCoreName());
        if (args.perLayer) { // each layer's median, as the table gives it
            std::printf(", \"layers\": [");
            for (std::size_t l = 0; l < layerTimes.size(); ++l) {
                const LayerSpec& layer = net->spec().layers[l];
                std::printf("%s{\"index\": %zu, \"type\": \"%s\", \"output\": \"%s\", \"bflops\": %.9g, "
                            "\"median_ms\": %.3f}",
                            l ? ", " : "", l, layer.type.c_str(), layer.output.text().c_str(),
                            layer.costs.bflops, nw::cli::median(layerTimes[l]));
            }
            std::printf("]");
        }
        std::printf("}\n");
    } else
        // (a flat input, inputs=N, was "0x0")
        std::printf("%s %s, %s, %d threads, %zu runs: median %.2f ms, min %.2f ms, peak RSS %.1f MB "
                    "(%.1f MB before the network was built), OpenBLAS %s\n",
                    args.cfg.c_str(),
                    in.isImage() ? (std::to_string(in.w) + "x" + std::to_string(in.h)).c_str()
                                 : (std::to_string(in.size) + " inputs").c_str(),
                    steps > 1 ? ("one sequence of " + std::to_string(steps) + " items").c_str() : "batch 1",
                    computeThreads(), times.size(), median, times.front(), peakRssMb(), baseline,
                    blasCoreName());
    return 0;
}

} // namespace nw::cli
