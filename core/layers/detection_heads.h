#pragma once
// A layer's detection-head figures (LayerConfig::detectionHead), for a layer that may be unknown.
#include "layers/layer_config.h"

#include <optional>

namespace nw {

// The head's figures, or nullopt when `config` is null or not a detection head.
inline std::optional<DetectionHeadInfo> detectionHeadInfo(const LayerConfig* config)
{
    return config ? config->detectionHead() : std::nullopt;
}

} // namespace nw
