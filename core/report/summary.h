#pragma once
// Text and JSON renderings of a NetworkSpec, shared by `netwright-cli summary` and the tests.
#include "graph/network_spec.h"

#include <string>

namespace nw {

// A fixed-width table: index, type, filters, size/stride, input, output, BFLOPs, params, workspace,
// then the totals.
std::string summaryTable(const NetworkSpec& spec);
// One JSON object: {"layers":[...], "total_bflops":..., "max_workspace_bytes":..., "warnings":[...], ...}.
std::string summaryJson(const NetworkSpec& spec, int indent = 1);
// "12.3 MB", "512 KB", "80 B".
std::string humanBytes(std::int64_t bytes);

} // namespace nw
