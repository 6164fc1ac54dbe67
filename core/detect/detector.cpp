#include "detect/detector.h"

#include "detect/decode.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace nw {

Image prepareInput(const Image& image, int width, int height, bool letterboxed)
{
    if (image.width == width && image.height == height)
        return image;
    return letterboxed ? letterbox(image, width, height) : resizeDarknet(image, width, height);
}

std::string Detector::className(int id) const
{
    return id >= 0 && std::size_t(id) < names_.size() ? names_[std::size_t(id)]
                                                      : "class " + std::to_string(id);
}

std::vector<LabeledBox> Detector::detect(const Image& image, const DetectOptions& options)
{
    const NetworkSpec& spec = net_.spec();
    const Image input = prepareInput(image, spec.net.width, spec.net.height, options.letterbox);
    net_.forward(input.data.data());
    DecodeOptions decode;
    decode.threshold = options.threshold;
    decode.letterbox = options.letterbox;
    decode.imageWidth = image.width;
    decode.imageHeight = image.height;
    last_ = decodeDetections(net_, 0, decode);
    const int classes = detectionClasses(spec);
    if (options.nms > 0)
        nmsSort(last_, classes, options.nms);
    std::vector<LabeledBox> boxes;
    for (const Detection& d : last_)
        for (int c = 0; c < classes; ++c) {
            const float p = d.prob[std::size_t(c)];
            if (p <= options.threshold)
                continue;
            const float left =
                std::clamp((d.box.x - d.box.w / 2) * float(image.width), 0.0f, float(image.width));
            const float top =
                std::clamp((d.box.y - d.box.h / 2) * float(image.height), 0.0f, float(image.height));
            const float right =
                std::clamp((d.box.x + d.box.w / 2) * float(image.width), 0.0f, float(image.width));
            const float bottom =
                std::clamp((d.box.y + d.box.h / 2) * float(image.height), 0.0f, float(image.height));
            boxes.push_back({c, className(c), p, left, top, right - left, bottom - top});
        }
    std::stable_sort(boxes.begin(), boxes.end(),
                     [](const LabeledBox& a, const LabeledBox& b) { return a.confidence > b.confidence; });
    return boxes;
}

std::optional<std::vector<std::string>> loadNames(const std::string& path, std::string& error)
{
    std::ifstream in(path);
    if (!in) {
        error = path + ": cannot open the names file: " + std::strerror(errno);
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        names.push_back(line);
    }
    return names;
}

} // namespace nw
