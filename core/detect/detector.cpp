#include "detect/detector.h"

#include "detect/decode.h"

#include <algorithm>

namespace nw {

Image prepareInput(const Image& image, int width, int height, bool letterboxed)
{
    if (image.width == width && image.height == height)
        return image;
    return letterboxed ? letterbox(image, width, height) : resizeDarknet(image, width, height);
}

std::vector<Detection> Detector::candidates(const Image& image, bool letterboxed, float floor)
{
    const NetworkSpec& spec = net_.spec();
    const Image input = prepareInput(image, spec.net.width, spec.net.height, letterboxed);
    if (forward_)
        forward_(input.data.data());
    else
        net_.forward(input.data.data());
    DecodeOptions decode;
    decode.threshold = floor;
    decode.letterbox = letterboxed;
    decode.imageWidth = image.width;
    decode.imageHeight = image.height;
    return decodeDetections(net_, 0, decode);
}

std::vector<LabeledBox> labelDetections(std::vector<Detection> dets, int classes,
                                        const std::vector<std::string>& names, int width, int height,
                                        const DetectOptions& options)
{
    // A probability at or under the threshold is never shown and, NMS going from the highest down, only
    // suppresses lower ones, unshown too: zeroed first (as Darknet's decoding does), so NMS compares only
    // boxes that can be shown. (The studio's sliders keep every candidate: over 100k of them took NMS
    // seconds per slider step.)
    for (Detection& d : dets)
        for (float& p : d.prob)
            if (p <= options.threshold)
                p = 0;
    if (options.nms > 0)
        nmsSort(dets, classes, options.nms, options.nmsRule);
    std::vector<LabeledBox> boxes;
    for (std::size_t i = 0; i < dets.size(); ++i) {
        const Detection& d = dets[i];
        for (int c = 0; c < classes && std::size_t(c) < d.prob.size(); ++c) {
            const float p = d.prob[std::size_t(c)];
            if (p <= options.threshold)
                continue;
            const float left = std::clamp((d.box.x - d.box.w / 2) * float(width), 0.0f, float(width));
            const float top = std::clamp((d.box.y - d.box.h / 2) * float(height), 0.0f, float(height));
            const float right = std::clamp((d.box.x + d.box.w / 2) * float(width), 0.0f, float(width));
            const float bottom = std::clamp((d.box.y + d.box.h / 2) * float(height), 0.0f, float(height));
            if (right <= left || bottom <= top) // wholly outside the image (a letterbox's bars): no box
                continue;                       // (it was listed and drawn as a line, "h 0")
            const std::string name =
                std::size_t(c) < names.size() ? names[std::size_t(c)] : "class " + std::to_string(c);
            boxes.push_back({c, name, p, left, top, right - left, bottom - top, int(i)});
        }
    }
    std::stable_sort(boxes.begin(), boxes.end(),
                     [](const LabeledBox& a, const LabeledBox& b) { return a.confidence > b.confidence; });
    return boxes;
}

std::vector<LabeledBox> Detector::labelBoxes(std::vector<Detection> dets, int width, int height,
                                             const DetectOptions& options) const
{
    DetectOptions withRule = options;
    withRule.nmsRule = nmsRuleOf(net_.spec());
    return labelDetections(std::move(dets), detectionClasses(net_.spec()), names_, width, height, withRule);
}

std::vector<LabeledBox> Detector::detect(const Image& image, const DetectOptions& options)
{
    return labelBoxes(candidates(image, options.letterbox, options.threshold), image.width, image.height,
                      options);
}

} // namespace nw
