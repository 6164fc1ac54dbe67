#include "kernels/cpu/softmax.h"

#include <cfloat>
#include <cmath>

namespace nw {

void softmax(const float* input, std::size_t n, std::size_t stride, float temperature, float* output)
{
    float largest = -FLT_MAX;
    for (std::size_t i = 0; i < n; ++i)
        largest = std::max(largest, input[i * stride]);
    float sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float e = std::exp(input[i * stride] / temperature - largest / temperature);
        sum += e;
        output[i * stride] = e;
    }
    for (std::size_t i = 0; i < n; ++i)
        output[i * stride] /= sum;
}

} // namespace nw
