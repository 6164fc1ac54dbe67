#pragma once
// Shared by the commands that run a network: cfg → spec → runtime (+ weights), errors printed.
#include "graph/network_spec.h"
#include "runtime/net.h"

#include <memory>
#include <string>

namespace nw::cli {

void printDiagnostics(const Diagnostics& diagnostics);
// Prints every problem and returns nullptr when the cfg is invalid, the runtime cannot be built or
// the weights do not load. Empty `weights` keeps the seeded random initialisation.
std::unique_ptr<Net> loadNet(const std::string& cfg, const std::string& weights, int batch,
                             const SpecOptions& options = {});

} // namespace nw::cli
