#pragma once
// A layer's detection-head figures (LayerConfig::detectionHead), for a layer that may be unknown.
#include "graph/layer_spec.h"
#include "layers/layer_config.h"

#include <algorithm>

#include <optional>
#include <string>
#include <vector>

namespace nw {

// The head's figures, or nullopt when `config` is null or not a detection head.
inline std::optional<DetectionHeadInfo> detectionHeadInfo(const LayerConfig* config)
{
    return config ? config->detectionHead() : std::nullopt;
}

// The most truth boxes an image gives the heads (the largest max= of them); 0 without a head.
inline int maxTruthBoxes(const std::vector<LayerSpec>& layers)
{
    int boxes = 0;
    for (const LayerSpec& layer : layers)
        if (auto head = detectionHeadInfo(layer.config.get()))
            boxes = std::max(boxes, head->maxBoxes);
    return boxes;
}

// max= of a head (the most truth boxes of an image it reads), when it is no number a head can use: below 1
// (max=0 took the head for a classifier's) or above kMostTruthBoxes (each batch holds batch × max × 5
// truth floats, several batches at once: max=100000000 held 8 GB for a network of 500 weights).
inline constexpr int kMostTruthBoxes = 10000;
inline std::optional<std::string> maxBoxesProblem(int maxBoxes, int defaultValue)
{
    if (maxBoxes >= 1 && maxBoxes <= kMostTruthBoxes)
        return std::nullopt;
    return "max (the most boxes of an image's labels the head reads) must be from 1 to " +
           std::to_string(kMostTruthBoxes) + "; leave it out for the default, " +
           std::to_string(defaultValue);
}

// A [yolo] or [region] head's anchors= must be sizes: a zero or negative one gives boxes of no or
// negative size (and an infinite loss once training). The message, or nullopt when all are positive.
inline std::optional<std::string> anchorsProblem(const std::vector<float>& anchors)
{
    for (std::size_t i = 0; i < anchors.size(); ++i)
        if (!(anchors[i] > 0))
            return "anchor value " + std::to_string(i + 1) + " is " + std::to_string(anchors[i]) +
                   ": anchors are positive widths and heights (anchors computes them from your labels)";
    return std::nullopt;
}

// More anchor numbers than num='s pairs: the rest are read by neither fork (pjreddie reads past its
// buffer, AlexeyAB drops them), almost always a num= left at another network's. nullopt when they fit.
inline std::optional<std::string> extraAnchorsNote(std::size_t numbers, int num)
{
    if (num < 1 || numbers <= 2 * std::size_t(num))
        return std::nullopt;
    return "anchors has " + std::to_string(numbers) + " numbers but num=" + std::to_string(num) + " reads " +
           std::to_string(2 * std::size_t(num)) + ": the last " +
           std::to_string(numbers - 2 * std::size_t(num)) +
           " are not used (set num= to the number of w,h pairs)";
}

} // namespace nw
