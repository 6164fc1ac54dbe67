#pragma once
// Multi-scale training (`random=1` in a [yolo]/[region] head): every 10 iterations the network trains
// at another input size, chosen by AlexeyAB's rule (detector.c) — a factor r drawn from [1, k] and
// inverted half the time (k = 1.4 for random=1, else random itself); size = round(r·init/step + 1)·step;
// a shrinking r never grows the size; the first block and the last 100 iterations use the largest size
// (round(k·init/step + 1)·step); never below one step.
#include "graph/network_spec.h"

#include <vector>

namespace nw {

struct InputSize {
    int width = 0, height = 0;
    bool operator==(const InputSize&) const = default;
};

struct MultiScale {
    float factor = 0; // k above; 0: off
    InputSize initial;
    int step = 32;

    // From the last detection head's `random` and [net]'s size and resize_step.
    static MultiScale of(const NetworkSpec& spec);
    bool enabled() const { return factor > 0; }
    // The size for 1-based `iteration`: one draw per block of 10, seeded by (seed, block), so a resumed
    // run trains at the sizes an uninterrupted one would.
    InputSize sizeAt(int iteration, int maxBatches, unsigned seed) const;
    InputSize sizeFor(float r) const; // the size of a drawn factor r
    InputSize largest() const;
    // Every size sizeAt can give, the largest first.
    std::vector<InputSize> drawableSizes() const;
};

} // namespace nw
