#include "train/adam.h"

#include "kernels/solver_formulas.h"

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
    AdamStep constants{b1_, b2_, eps_, 0.0f, correction1, correction2};
    for (Net::LayerParameters& layer : layers) {
        constants.rate = rate * layer.learningRateScale;
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
            for (std::size_t i = 0; i < w.size(); ++i)
                adamUpdate(w[i], m[i], v[i], g[i], decay, constants);
        }
    }
}

} // namespace nw
