#pragma once
// The [net] section: input size, batch, solver and augmentation settings, with Darknet's defaults
// (both forks' keys are accepted; see docs/cfg-format.md).
#include "cfg/section_reader.h"

#include <string>
#include <vector>

namespace nw {

struct NetConfig {
    int width = 0, height = 0, channels = 0;
    int inputs = 0; // flat input size; defaults to width·height·channels
    int batch = 1, subdivisions = 1, timeSteps = 1;
    float learningRate = 0.001f, momentum = 0.9f, decay = 0.0001f;
    std::string policy = "constant";
    int burnIn = 0, maxBatches = 0;
    float power = 4, gamma = 1, scale = 1;
    int step = 1;
    std::vector<int> steps;
    std::vector<float> scales;
    bool adam = false;
    float b1 = 0.9f, b2 = 0.999f, eps = 1e-7f;
    float learningRateMin = 1e-5f; // sgdr (AB)
    int sgdrCycle = 0;             // 0: max_batches
    int sgdrMult = 2;
    int maxCrop = 0, minCrop = 0;
    float angle = 0, aspect = 1, saturation = 1, exposure = 1, hue = 0;
    bool flip = true;       // AB: random horizontal flips while training
    bool letterBox = false; // AB letter_box: keep the aspect ratio when scaling to the input
    bool mosaic = false;    // AB mosaic: four training images in one
    int resizeStep = 32;    // AB resize_step: multi-scale input sizes are multiples of it
    float maxChartLoss = 0; // AB max_chart_loss: the top of chart.png's loss axis (0: from the curve)

    // Darknet's per-layer batch: batch / subdivisions × time_steps.
    int layerBatch() const { return subdivisions > 0 ? batch / subdivisions * timeSteps : batch; }

    // Reads [net]; problems (no input size, a bad policy, steps without scales) go to the reader.
    static NetConfig parse(cfg::SectionReader& reader);
};

// The policy names Darknet knows (pj's plus AB's sgdr).
const std::vector<std::string>& learningRatePolicies();

} // namespace nw
