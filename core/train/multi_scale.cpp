#include "train/multi_scale.h"

#include "layers/detection_heads.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace nw {

MultiScale MultiScale::of(const NetworkSpec& spec)
{
    MultiScale m;
    for (const LayerSpec& layer : spec.layers)
        if (auto head = detectionHeadInfo(layer.config.get()))
            m.factor = head->multiScale == 1 ? 1.4f : std::max(0.0f, head->multiScale);
    m.initial = {spec.input.w, spec.input.h};
    m.step = std::max(1, spec.net.resizeStep);
    return m;
}

InputSize MultiScale::largest() const
{
    auto dim = [&](int init) { return int(std::lround(factor * float(init) / float(step) + 1)) * step; };
    return {std::max(step, dim(initial.width)), std::max(step, dim(initial.height))};
}

InputSize MultiScale::sizeFor(float r) const
{
    auto dim = [&](int init) { return int(std::lround(r * float(init) / float(step) + 1)) * step; };
    InputSize size{dim(initial.width), dim(initial.height)};
    if (r < 1 && (size.width > initial.width || size.height > initial.height))
        size = initial;
    return {std::max(step, size.width), std::max(step, size.height)};
}

InputSize MultiScale::sizeAt(int iteration, int maxBatches, unsigned seed) const
{
    const int block = std::max(0, iteration - 1) / 10;
    if (block == 0 || iteration > maxBatches - 100)
        return largest();
    std::mt19937 random(seed * 104729u + unsigned(block));
    float r = std::uniform_real_distribution<float>(1.0f, std::max(1.0f, factor))(random);
    if (random() % 2)
        r = 1 / r;
    return sizeFor(r);
}

std::vector<InputSize> MultiScale::drawableSizes() const
{
    // (the size is a step function of r: a fine sweep of [1, k] and its inverses meets every step)
    std::vector<InputSize> sizes{largest()};
    constexpr int kSamples = 4096;
    const float k = std::max(1.0f, factor);
    for (int i = 0; i <= kSamples; ++i) {
        const float r = 1.0f + (k - 1.0f) * float(i) / float(kSamples);
        for (const InputSize size : {sizeFor(r), sizeFor(1 / r)})
            if (std::find(sizes.begin(), sizes.end(), size) == sizes.end())
                sizes.push_back(size);
    }
    return sizes;
}

} // namespace nw
