#include "train/sgd.h"

#include "kernels/solver_formulas.h"

#include <algorithm>

namespace nw {

void SgdSolver::step(std::vector<Net::LayerParameters>& layers, float rate, int batchSize)
{
    std::size_t count = 0;
    for (const Net::LayerParameters& layer : layers)
        count += layer.parameters.size();
    // A state restored with another number of arrays is another solver's (Adam's m, v and step count,
    // whose m would pass for velocities) or another set of trained layers: it starts afresh, as Adam's.
    if (!velocity_.empty() && velocity_.size() != count)
        velocity_.clear();
    std::size_t index = 0;
    const float batch = float(batchSize);
    for (Net::LayerParameters& layer : layers) {
        const float layerRate = rate * layer.learningRateScale;
        for (Parameter& p : layer.parameters) {
            if (velocity_.size() <= index)
                velocity_.emplace_back();
            std::vector<float>& v = velocity_[index++];
            ParamArray& w = *p.values;
            ParamArray& g = *p.gradient;
            if (v.size() != w.size())
                v.assign(w.size(), 0.0f);
            const float decay = p.decay ? -decay_ * batch : 0.0f;
            const float scale = layerRate / batch;
#pragma omp parallel for simd if (w.size() > 65536)
            for (std::size_t i = 0; i < w.size(); ++i)
                sgdUpdate(w[i], v[i], g[i], decay, scale, momentum_);
        }
    }
}

} // namespace nw
