#pragma once
// cuBLAS is opened on first use (cublas_loader.cpp), not linked: the backend calls the cuBLAS API as
// usual; a process that never touches the GPU never loads the library.
#include <optional>
#include <string>

namespace nw {

// Loads cuBLAS if not yet done; why it cannot be loaded, or nullopt when it is.
std::optional<std::string> cublasLoadError();

} // namespace nw
