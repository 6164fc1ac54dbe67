#pragma once
// What a layer's forward may use besides its tensors: threads and the net's one shared workspace.
#include <cstddef>

namespace nw {

struct ExecContext {
    int threads = 1;
    float* workspace = nullptr;      // shared by all layers, sized by the largest need
    std::size_t workspaceFloats = 0; // its size, in floats
    bool training = false;
};

} // namespace nw
