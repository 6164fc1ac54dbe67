#pragma once
// Shared by the commands that run a network: cfg → spec → runtime (+ weights), errors printed.
#include "data/data_file.h"
#include "graph/network_spec.h"
#include "runtime/net.h"

#include <memory>
#include <optional>
#include <string>

namespace nw::cli {

void printDiagnostics(const Diagnostics& diagnostics);
// --allow-extra: a .weights file longer than the net needs loads its first part (with a warning)
// instead of being refused.
void setAllowExtraWeights(bool allow);
// Prints every problem and returns nullptr when the cfg is invalid, the runtime cannot be built or
// the weights do not load. Empty `weights` keeps the seeded random initialisation.
// `use`: InferenceOnly for commands that only run forward passes (outputs share buffers).
std::unique_ptr<Net> loadNet(const std::string& cfg, const std::string& weights, int batch,
                             const SpecOptions& options = {}, Net::Use use = Net::Use::Everything);

// Reads a .data file; on failure prints "error: ..." (naming the file and line) and returns nullopt.
std::optional<DataFile> loadDataFileOrReport(const std::string& path);

} // namespace nw::cli
