#include "graph/activation_plan.h"

#include "layers/detection_heads.h"

#include <algorithm>
#include <limits>

namespace nw {

std::vector<bool> outputsKeptAfterInference(const NetworkSpec& spec)
{
    std::vector<bool> kept(spec.layers.size(), false);
    int output = -1; // the last layer that is not a [cost] layer, as Net::outputLayer
    for (const LayerSpec& layer : spec.layers) {
        if (!layer.isLossOnly())
            output = layer.index;
        if (detectionHeadInfo(layer.config.get()))
            kept[std::size_t(layer.index)] = true;
    }
    if (output >= 0)
        kept[std::size_t(output)] = true;
    return kept;
}

ActivationPlan planActivations(const NetworkSpec& spec, int batch)
{
    const std::size_t count = spec.layers.size();
    const std::vector<bool> kept = outputsKeptAfterInference(spec);
    constexpr int kForever = std::numeric_limits<int>::max();
    std::vector<int> lastReader(count);
    for (std::size_t i = 0; i < count; ++i) // the next layer gets it as its input
        lastReader[i] = kept[i] ? kForever : int(i) + 1;
    for (const LayerSpec& layer : spec.layers)
        for (int source : layer.sources)
            if (source >= 0 && std::size_t(source) < count && lastReader[std::size_t(source)] != kForever)
                lastReader[std::size_t(source)] = std::max(lastReader[std::size_t(source)], layer.index);

    ActivationPlan plan;
    plan.buffer.assign(count, -1);
    plan.addedBytes.assign(count, 0);
    std::vector<int> tenant; // per buffer: the layer whose output it holds
    for (std::size_t i = 0; i < count; ++i) {
        const std::int64_t need = saturatingProduct({spec.layers[i].output.size, std::max(1, batch)});
        // Free: buffers whose tenant no layer from i on reads.
        int best = -1, largest = -1;
        for (std::size_t b = 0; b < tenant.size(); ++b) {
            if (lastReader[std::size_t(tenant[b])] >= int(i))
                continue;
            const std::int64_t size = plan.bufferFloats[b];
            if (size >= need && (best < 0 || size < plan.bufferFloats[std::size_t(best)]))
                best = int(b);
            if (largest < 0 || size > plan.bufferFloats[std::size_t(largest)])
                largest = int(b);
        }
        int chosen = best >= 0 ? best : largest;
        if (chosen < 0) {
            chosen = int(tenant.size());
            tenant.push_back(0);
            plan.bufferFloats.push_back(0);
        }
        const std::int64_t grown = std::max<std::int64_t>(0, need - plan.bufferFloats[std::size_t(chosen)]);
        plan.bufferFloats[std::size_t(chosen)] += grown;
        plan.addedBytes[i] = saturatingProduct({grown, std::int64_t(sizeof(float))});
        plan.totalBytes = saturatingSum({plan.totalBytes, plan.addedBytes[i]});
        tenant[std::size_t(chosen)] = int(i);
        plan.buffer[i] = chosen;
    }
    return plan;
}

} // namespace nw
