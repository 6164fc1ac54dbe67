#pragma once
// NCCL is opened on first use (nccl_loader.cpp), not linked: only `train --gpus` needs it.
#include <optional>
#include <string>

namespace nw {

// Loads NCCL if not yet done; why it cannot be loaded, or nullopt when it is.
std::optional<std::string> ncclLoadError();

} // namespace nw
