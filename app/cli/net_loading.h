#pragma once
// Shared by the commands that run a network: cfg → spec → runtime (+ weights), errors printed.
#include "data/data_file.h"
#include "graph/network_spec.h"
#include "runtime/net.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace nw::cli {

void printDiagnostics(const Diagnostics& diagnostics);
// A cfg's warnings (an unused key, an unknown activation, an odd [net] value) are printed by the first
// loadNet of that cfg, so a typo never trains silently with a default. Off on the ranks of a training
// job other than 0, which prints them once.
void setCfgWarningsPrinted(bool printed);
// --allow-extra: a .weights file longer than the net needs loads its first part (with a warning)
// instead of being refused.
void setAllowExtraWeights(bool allow);
bool extraWeightsAllowed();
// --half: FP16 convolutions on the GPU (DeviceRunner, bench, check-device); refused with --device cpu.
void setHalfPrecision(bool half);
bool halfPrecisionRequested();
// --tf32: FP32 convolutions and products on the GPU's tensor cores (TF32), under --half's rules.
void setTensorFloat32(bool tf32);
bool tensorFloat32Requested();
// When --half or --tf32 was asked where it cannot apply (the CPU, or training), the error to print; else
// nullopt.
std::optional<std::string> precisionRefusal(bool onGpu, bool training);
// Prints every problem and returns nullptr when the cfg is invalid, the runtime cannot be built or
// the weights do not load. Empty `weights` keeps the seeded random initialisation.
// `use`: InferenceOnly for commands that only run forward passes (outputs share buffers).
// `startingWeights`: the weights a training run starts from, which may be a backbone (the first layers
// only, as yolov4.conv.137; WeightsFit::allowPrefix).
std::unique_ptr<Net> loadNet(const std::string& cfg, const std::string& weights, int batch,
                             const SpecOptions& options = {}, Net::Use use = Net::Use::Everything,
                             bool startingWeights = false);

// The cfg's [net] time_steps (1 for a cfg that does not load: loadNet then says why).
int timeSteps(const std::string& cfg);

// "cfg:line" of a [net] key in this cfg text (the [net] header's line when the key is absent): where a
// problem with a training setting found after the cfg was read is said.
std::string netKeyPlace(const std::string& cfgPath, const std::string& cfgText, std::string_view key);

// The net at the cfg's own batch (batch / subdivisions): what train and valid run. `use`:
// InferenceOnly for evaluation, whose weights must then cover the whole net (training may start from a
// backbone). nullptr and the problem printed.
std::unique_ptr<Net> loadNetAtCfgBatch(const std::string& cfg, const std::string& weights,
                                       Net::Use use = Net::Use::Everything);
// A net at its cfg's own batch, in training mode (bench --train); nullptr and the problem printed.
std::unique_ptr<Net> loadNetForTraining(const std::string& cfg, const std::string& weights,
                                        const SpecOptions& options);
// n values drawn uniformly from [0, 1) (inputs of benchmarks and checks).
std::vector<float> uniformValues(std::size_t n, std::mt19937& random);
// A training benchmark's batch: uniform images at the net's batch, and empty truth (no boxes, no class).
struct BenchBatch {
    std::vector<float> images, truth;
};
BenchBatch benchBatch(const Net& net, std::mt19937& random);

// A net's forward on the device `--device` names: the CPU, or a GPU whose outputs are copied back into
// the net's tensors (so decoding and writing read net.output() as usual). Null and a printed message
// when the device cannot be used or a layer has no GPU version. With --half: FP16 convolutions.
class DeviceRunner {
public:
    static std::unique_ptr<DeviceRunner> create(Net& net, const std::string& device);
    virtual ~DeviceRunner() = default;
    virtual void forward(const float* input) = 0;
    virtual std::string describe() const = 0; // "cpu", "cuda:0 (NVIDIA H100 …)"
};

// Reads a .data file; on failure prints "error: ..." (naming the file and line) and returns nullopt.
std::optional<DataFile> loadDataFileOrReport(const std::string& path);

// After scoring a validation set (valid, map): its unreadable images warned (the first ones by name,
// `suffix` after each), then false with an error when none could be scored.
bool reportUnreadable(const std::vector<std::string>& named, std::size_t unreadable, std::size_t scored,
                      std::size_t setSize, const std::string& list, const std::string& suffix = "");

// Where a command that writes the file `out` prints what it did: stdout, or stderr when `out` is the
// standard output (`set-classes a.cfg 3 /dev/stdout > b.cfg` put the report at the end of the cfg).
std::ostream& reportStreamFor(const std::string& out);

// Warns when a names file does not have one name per class (fewer: the rest show as numbers; more:
// likely another data set's file).
void warnNameCount(const std::string& path, std::size_t names, int classes);

// warnNameCount, and a warning when names are not UTF-8 text (they would print as \xEF\xBF\xBD in JSON).
void warnAboutNames(const std::string& path, const std::vector<std::string>& names, int classes);

} // namespace nw::cli
