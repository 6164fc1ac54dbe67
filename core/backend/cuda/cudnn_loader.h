#pragma once
// cuDNN is opened on first use (cudnn_loader.cpp), not linked: the backend calls the cuDNN API as usual;
// a machine without cuDNN starts the programs and runs on the CPU, and a GPU run says why it cannot.
#include <optional>
#include <string>

namespace nw {

// Loads cuDNN if not yet done; why it cannot be loaded, or nullopt when it is.
std::optional<std::string> cudnnLoadError();

} // namespace nw
