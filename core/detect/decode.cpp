#include "detect/decode.h"

#include "layers/detection.h"
#include "layers/detection_heads.h"
#include "layers/region.h"
#include "layers/yolo.h"
#include "util/float_file.h"

#include <cmath>

namespace nw {

namespace {

float anchor(const std::vector<float>& anchors, std::size_t i)
{
    return i < anchors.size() ? anchors[i] : 0.5f;
}

void decodeYolo(const YoloLayer& l, const Tensor& out, int item, int netW, int netH, float threshold,
                std::vector<Detection>& dets)
{
    const int w = out.shape().w, h = out.shape().h;
    const std::size_t plane = std::size_t(w) * std::size_t(h);
    const std::size_t classes = std::size_t(l.classes);
    const float* data = out.item(item);
    const auto at = [plane](const float* slot, int entry, std::size_t cell) {
        return slot[std::size_t(entry) * plane + cell];
    };
    for (std::size_t a = 0; a < l.mask.size(); ++a) {
        const float* slot = data + a * plane * std::size_t(l.entries());
        const std::size_t k = std::size_t(l.mask[a]);
        for (std::size_t cell = 0; cell < plane; ++cell) {
            const float objectness = at(slot, l.objectnessEntry(), cell);
            if (objectness <= threshold)
                continue;
            Detection d;
            const float col = float(cell % std::size_t(w)), row = float(cell / std::size_t(w));
            d.box.x = (col + at(slot, l.xEntry(), cell)) / float(w);
            d.box.y = (row + at(slot, l.yEntry(), cell)) / float(h);
            const float tw = at(slot, l.wEntry(), cell), th = at(slot, l.hEntry(), cell);
            if (l.newCoords) { // AB: w = tw²·4·anchor
                d.box.w = tw * tw * 4 * anchor(l.anchors, 2 * k) / float(netW);
                d.box.h = th * th * 4 * anchor(l.anchors, 2 * k + 1) / float(netH);
            } else {
                d.box.w = std::exp(tw) * anchor(l.anchors, 2 * k) / float(netW);
                d.box.h = std::exp(th) * anchor(l.anchors, 2 * k + 1) / float(netH);
            }
            // [Gaussian_yolo]: a box from a corner is moved to its centre; its scores are discounted
            // by the mean of its four uncertainties (AB's get_gaussian_yolo_detections).
            float certainty = 1;
            if (l.gaussian) {
                d.box.x -= l.pointOffset * d.box.w;
                d.box.y -= l.pointOffset * d.box.h;
                certainty =
                    1 - (at(slot, 1, cell) + at(slot, 3, cell) + at(slot, 5, cell) + at(slot, 7, cell)) / 4;
            }
            d.objectness = objectness;
            d.prob.resize(classes);
            for (std::size_t c = 0; c < classes; ++c) {
                const float p = objectness * at(slot, l.classEntry(int(c)), cell) * certainty;
                d.prob[c] = p > threshold ? p : 0;
            }
            dets.push_back(std::move(d));
        }
    }
}

void decodeRegion(const RegionLayer& l, const Tensor& out, int item, const DecodeOptions& options,
                  std::vector<Detection>& dets)
{
    const float threshold = options.threshold;
    std::vector<float> hierarchy; // yolo9000: one cell's class column, made absolute down the tree
    const int w = out.shape().w, h = out.shape().h;
    const std::size_t plane = std::size_t(w) * std::size_t(h);
    const std::size_t classes = std::size_t(l.classes), entries = std::size_t(l.coords + 1 + l.classes);
    const float* data = out.item(item);
    for (std::size_t cell = 0; cell < plane; ++cell)
        for (std::size_t a = 0; a < std::size_t(l.num); ++a) {
            const float* slot = data + a * plane * entries;
            Detection d;
            const float col = float(cell % std::size_t(w)), row = float(cell / std::size_t(w));
            d.box.x = (col + slot[cell]) / float(w);
            d.box.y = (row + slot[plane + cell]) / float(h);
            d.box.w = std::exp(slot[2 * plane + cell]) * anchor(l.anchors, 2 * a) / float(w);
            d.box.h = std::exp(slot[3 * plane + cell]) * anchor(l.anchors, 2 * a + 1) / float(h);
            d.objectness = slot[std::size_t(l.coords) * plane + cell];
            d.prob.assign(classes, 0.0f);
            if (l.softmaxTree) { // Darknet names one class: where the walk down the tree stops
                if (d.objectness <= threshold)
                    continue; // (Darknet zeroes it; its NMS then skips it, and 9418 scores each add up)
                hierarchy.resize(classes);
                for (std::size_t c = 0; c < classes; ++c)
                    hierarchy[c] = slot[(std::size_t(l.coords) + 1 + c) * plane + cell];
                hierarchyPredictions(hierarchy.data(), *l.softmaxTree, 1, false);
                const int top =
                    hierarchyTopPrediction(hierarchy.data(), *l.softmaxTree, options.hierarchyThreshold, 1);
                d.prob[std::size_t(top)] = d.objectness;
                dets.push_back(std::move(d));
                continue;
            }
            for (std::size_t c = 0; c < classes; ++c) {
                const float p = d.objectness * slot[(std::size_t(l.coords) + 1 + c) * plane + cell];
                d.prob[c] = p > threshold ? p : 0;
            }
            dets.push_back(std::move(d));
        }
}

void decodeV1(const DetectionLayer& l, const Tensor& out, int item, float threshold,
              std::vector<Detection>& dets)
{
    const float* p = out.item(item);
    const std::size_t side = std::size_t(l.side), cells = side * side, classes = std::size_t(l.classes);
    const std::size_t num = std::size_t(l.num);
    for (std::size_t i = 0; i < cells; ++i)
        for (std::size_t n = 0; n < num; ++n) {
            const float scale = p[cells * classes + i * num + n];
            const float* box = p + cells * (classes + num) + (i * num + n) * 4;
            Detection d;
            d.box.x = (box[0] + float(i % side)) / float(side);
            d.box.y = (box[1] + float(i / side)) / float(side);
            d.box.w = l.sqrt ? box[2] * box[2] : box[2];
            d.box.h = l.sqrt ? box[3] * box[3] : box[3];
            d.objectness = scale;
            d.prob.resize(classes);
            for (std::size_t c = 0; c < classes; ++c) {
                const float q = scale * p[i * classes + c];
                d.prob[c] = q > threshold ? q : 0;
            }
            dets.push_back(std::move(d));
        }
}

} // namespace

int detectionClasses(const NetworkSpec& spec)
{
    for (const LayerSpec& layer : spec.layers)
        if (auto head = detectionHeadInfo(layer.config.get()))
            return head->classes;
    return 0;
}

NmsRule nmsRuleOf(const NetworkSpec& spec)
{
    NmsRule rule;
    for (const LayerSpec& layer : spec.layers)
        if (auto head = detectionHeadInfo(layer.config.get()))
            rule = head->nms;
    return rule;
}

void undoLetterbox(std::vector<Detection>& dets, int imageWidth, int imageHeight, int netWidth, int netHeight)
{
    int newW, newH;
    if (float(netWidth) / float(imageWidth) < float(netHeight) / float(imageHeight)) {
        newW = netWidth;
        newH = imageHeight * netWidth / imageWidth;
    } else {
        newH = netHeight;
        newW = imageWidth * netHeight / imageHeight;
    }
    const float sx = float(newW) / float(netWidth), sy = float(newH) / float(netHeight);
    for (Detection& d : dets) {
        d.box.x = (d.box.x - float(netWidth - newW) / 2.0f / float(netWidth)) / sx;
        d.box.y = (d.box.y - float(netHeight - newH) / 2.0f / float(netHeight)) / sy;
        d.box.w /= sx;
        d.box.h /= sy;
    }
}

std::optional<std::string> nonFiniteHeadOutputs(const Net& net, int item)
{
    std::size_t bad = 0, total = 0;
    const NetworkSpec& spec = net.spec();
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        if (!detectionHeadInfo(spec.layers[i].config.get()))
            continue;
        const Tensor& out = net.output(int(i));
        const std::size_t size = out.itemSize();
        total += size;
        bad += countNonFinite({out.item(item), size});
    }
    if (bad == 0)
        return std::nullopt;
    return "the network's outputs are not numbers (" + std::to_string(bad) + " of " + std::to_string(total) +
           " values NaN or infinite): " + std::string(kNotNumbersCause);
}

std::vector<Detection> decodeDetections(const Net& net, int item, const DecodeOptions& options)
{
    std::vector<Detection> dets;
    const NetworkSpec& spec = net.spec();
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerConfig* config = spec.layers[i].config.get();
        const Tensor& out = net.output(int(i));
        if (auto* yolo = dynamic_cast<const YoloLayer*>(config))
            decodeYolo(*yolo, out, item, spec.net.width, spec.net.height, options.threshold, dets);
        else if (auto* region = dynamic_cast<const RegionLayer*>(config))
            decodeRegion(*region, out, item, options, dets);
        else if (auto* v1 = dynamic_cast<const DetectionLayer*>(config))
            decodeV1(*v1, out, item, options.threshold, dets);
    }
    if (options.letterbox && options.imageWidth > 0 && options.imageHeight > 0)
        undoLetterbox(dets, options.imageWidth, options.imageHeight, spec.net.width, spec.net.height);
    return dets;
}

} // namespace nw
