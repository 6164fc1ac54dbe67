#pragma once
// The netwright-cli commands; main.cpp parses options and calls one. Each returns the exit status:
// 0 success, 1 a problem with the input (printed to stderr as file:line: error: ...).
#include "runtime/gpu_coverage.h"

#include <string>
#include <vector>

namespace nw {
struct SpecOptions;
struct NetworkSpec;
} // namespace nw

namespace nw::cli {

struct DetectArgs {
    std::string cfg, weights, names, outDir, device = "cpu";
    std::vector<std::string> inputs;
    float threshold = 0.25f, nms = 0.45f;
    bool letterbox = false, json = false;
    bool saveLabels = false; // each image's boxes as its YOLO label file (AlexeyAB's -save_labels)
};

struct BenchArgs {
    std::string cfg, weights, size, device = "cpu";
    int runs = 20, threads = 0;
    bool json = false, perLayer = false, training = false, noWinograd = false;
    bool noGraph = false; // --device cuda: launch layer by layer instead of replaying one CUDA graph
};

struct TrainArgs {
    std::string data, cfg, weights, outDir;
    int maxBatches = 0, validEvery = 0, mapEvery = 0, checkpointEvery = 100, saveEvery = -1;
    bool mapAsDarknet = false; // --map: mAP every 4 epochs, at least every 100 iterations (Darknet's -map)
    float learningRate = 0;
    unsigned seed = 1;
    bool resume = false;
    bool validOptional = false; // a valid= list that cannot be scored: a warning, not an error
    std::string device = "cpu"; // cpu, cuda or cuda:N
    std::string gpus;           // "0,1,2": one process per GPU, joined by NCCL (Darknet's -gpus)
    bool progressJson = false;  // --progress json: one JSON object per line (the studio reads them)
};

struct MapArgs {
    std::string data, cfg, weights, device = "cpu";
    float iou = 0.5f, threshold = 0.25f;
    int points = 0;
    bool letterbox = false, json = false;
};

struct AnchorsArgs {
    std::string data;
    int count = 6, width = 416, height = 416;
    unsigned seed = 1;
    int restarts = 10; // k-means runs, the best kept (AlexeyAB's calc_anchors runs one)
    bool json = false;
};

struct CheckDeviceArgs {
    std::vector<std::string> cfgs;
    std::string device = "cuda";
    int batch = 1;
    bool train = false; // also one training step (gradients, SGD and Adam) against the CPU
};

struct ExportOnnxArgs {
    std::string cfg, weights, out;
    int opset = 11;
    std::string batch = "1"; // a number, or "dynamic"
    bool withDecode = false;
    bool everyLayer = false;
};

int summary(const std::string& cfg, int batch, bool json);
int train(const TrainArgs& args);
// train --gpus: launches this program once per GPU (environment: the variables below) and waits for
// them; a rank that fails ends the others.
int trainOnGpus(const TrainArgs& args);
inline constexpr const char* kNcclCliqueVariable = "NETWRIGHT_NCCL_CLIQUE";
inline constexpr const char* kNcclRankVariable = "NETWRIGHT_NCCL_RANK";
inline constexpr const char* kNcclSizeVariable = "NETWRIGHT_NCCL_SIZE";
struct ValidArgs {
    std::string data, cfg, weights;
    bool json = false;
    bool confusion = false; // the whole confusion matrix too
    std::string device = "cpu";
};
int valid(const ValidArgs& args);
int roundtrip(const std::string& in, const std::string& out);
// Writes IN with `classes` classes (a number, or a .data file's classes=) to OUT: each head's classes=
// and the filters=/output= before it (a classifier: its output layer's); `schedule`: also max_batches and
// steps by AlexeyAB's rule. Prints each edit with its line.
int setClasses(const std::string& in, const std::string& classesOrData, const std::string& out,
               bool schedule);
int forward(const std::string& cfg, const std::string& weights, const std::string& input,
            const std::string& out, const std::string& allLayersDir, const std::string& device);
int detect(const DetectArgs& args);
// `cfg` may be a .data file, in Darknet's order (classifier predict DATA CFG WEIGHTS IMAGE...): the cfg
// and weights then come next, and the .data gives the names (labels=, names=) and top= unless said.
// Images may be folders and .txt/.list image lists. `top` < 1: the .data's top=, else 5.
int classify(std::string cfg, std::string weights, std::vector<std::string> images, std::string names,
             int top, const std::string& device, bool json = false);
int bench(const BenchArgs& args);
int initWeights(const std::string& cfg, const std::string& out, unsigned seed);
// partial: the first `layers` layers of trained weights, seen 0 — a backbone such as darknet53.conv.74.
int partialWeights(const std::string& cfg, const std::string& weights, const std::string& out, int layers);
int map(const MapArgs& args);
int anchors(const AnchorsArgs& args);
int exportOnnx(const ExportOnnxArgs& args);
// Every layer's GPU forward against the CPU's on random weights and input (1e-3 × max(1, |cpu|)), and
// with `train` one training step;
// 0 all equal, 1 a difference or a layer without a GPU version, 77 no GPU here (CTest: skipped).
int checkDevice(const CheckDeviceArgs& args);
// The GPU coverage of a valid network (runtime/gpu_coverage.h); unchecked without CUDA in the build.
GpuCoverage gpuCoverage(const NetworkSpec& spec);
// bench on a GPU (called by bench for --device cuda[:N]).
int benchOnGpu(const BenchArgs& args, const SpecOptions& options, int device);
// bench --train on a GPU: one training iteration (forward, backward, the solver's update).
int benchTrainingOnGpu(const BenchArgs& args, const SpecOptions& options, int device);
// Lists the CUDA devices; 1 (with the reason on stderr, or in "problem") when there is none.
int devices(bool json);
int makeShapes(const std::string& outDir, int count, unsigned seed, const std::string& size);
// The runs a training folder holds (its own, then the previous-… ones, newest first), one line each.
int runs(const std::string& folder, bool json);

} // namespace nw::cli
