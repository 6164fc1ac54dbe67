#pragma once
// softmax(x / temperature) over n values spaced `stride` apart, with Darknet's max subtraction.
#include <cstddef>

namespace nw {

void softmax(const float* input, std::size_t n, std::size_t stride, float temperature, float* output);

} // namespace nw
