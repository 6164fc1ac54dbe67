#pragma once
// Uniform floats for weight initialisation and dropout masks, the hot uses of randomness.
#include <cmath>
#include <random>

namespace nw {

// A float from low to high (high itself only by rounding) from one draw x of std::mt19937: u = x·2⁻³² (kept
// below 1), low + u·(high − low). These are exactly the values of libstdc++'s
// std::uniform_real_distribution<float>(low, high), so networks initialised before keep their weights, but
// every standard library now gives them, and without its generic generate_canonical: clang does not fold the
// long-double logarithms in it, which took 44 % of creating a network in the sanitizer build.
inline float uniformFloat(std::mt19937& random, float low, float high)
{
    float unit = float(random()) * 0x1p-32f;
    if (unit >= 1.0f) // x rounded up to 2³²
        unit = std::nextafter(1.0f, 0.0f);
    return unit * (high - low) + low;
}

} // namespace nw
