#include "train/adam.h"

#include <cmath>

namespace nw {

void AdamSolver::step(std::vector<Net::LayerParameters>& layers, float rate, int batchSize)
{
    std::size_t count = 0;
    for (const Net::LayerParameters& layer : layers)
        count += layer.parameters.size();
    if (state_.size() != 2 * count + 1) // a new run (or another solver's checkpoint): start afresh
        state_.assign(2 * count + 1, {});
    std::vector<float>& steps = state_.back();
    if (steps.empty())
        steps.push_back(0.0f);
    const float t = ++steps[0];
    const float correction1 = 1 - std::pow(b1_, t), correction2 = 1 - std::pow(b2_, t);
    const float batch = float(batchSize);
    std::size_t index = 0;
    for (Net::LayerParameters& layer : layers) {
        const float layerRate = rate * layer.learningRateScale;
        for (Parameter& p : layer.parameters) {
            std::vector<float>& m = state_[index];
            std::vector<float>& v = state_[count + index];
            ++index;
            ParamArray& w = *p.values;
            ParamArray& g = *p.gradient;
            if (m.size() != w.size())
                m.assign(w.size(), 0.0f);
            if (v.size() != w.size())
                v.assign(w.size(), 0.0f);
            const float decay = p.decay ? -decay_ * batch : 0.0f;
#pragma omp parallel for simd if (w.size() > 65536)
            for (std::size_t i = 0; i < w.size(); ++i) {
                const float d = g[i] + decay * w[i];
                m[i] = b1_ * m[i] + (1 - b1_) * d;
                v[i] = b2_ * v[i] + (1 - b2_) * d * d;
                w[i] += layerRate * (m[i] / correction1) / (std::sqrt(v[i] / correction2) + eps_);
                g[i] = 0.0f;
            }
        }
    }
}

} // namespace nw
