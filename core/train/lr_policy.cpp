#include "train/lr_policy.h"

#include <algorithm>
#include <cmath>

namespace nw {

float learningRate(const NetConfig& n, int batchNumber, std::mt19937* random)
{
    const double lr = n.learningRate;
    const double b = batchNumber;
    if (batchNumber < n.burnIn)
        return float(lr * std::pow(b / n.burnIn, double(n.power)));
    if (n.policy == "step")
        return float(lr * std::pow(double(n.scale), std::floor(b / std::max(1, n.step))));
    if (n.policy == "steps") {
        double rate = lr;
        for (std::size_t i = 0; i < n.steps.size(); ++i) {
            if (n.steps[i] > batchNumber)
                break;
            rate *= i < n.scales.size() ? n.scales[i] : 1.0f;
        }
        return float(rate);
    }
    if (n.policy == "exp")
        return float(lr * std::pow(double(n.gamma), b));
    if (n.policy == "poly")
        return float(lr * std::pow(std::max(0.0, 1.0 - b / std::max(1, n.maxBatches)), double(n.power)));
    if (n.policy == "random") {
        std::uniform_real_distribution<double> uniform(0, 1);
        return float(lr * std::pow(random ? uniform(*random) : 0.5, double(n.power)));
    }
    if (n.policy == "sigmoid")
        return float(lr / (1 + std::exp(double(n.gamma) * (b - n.step))));
    if (n.policy == "sgdr") {
        double start = 0, cycle = n.sgdrCycle > 0 ? n.sgdrCycle : std::max(1, n.maxBatches);
        while (start + cycle < b) {
            start += cycle;
            cycle *= std::max(1, n.sgdrMult); // (the description refuses less than 1: it never ended)
        }
        const double low = n.learningRateMin;
        return float(low + 0.5 * (lr - low) * (1 + std::cos(M_PI * (b - start) / cycle)));
    }
    return float(lr); // constant, and unknown policies (the description already warned)
}

} // namespace nw
