#include "train/trainer.h"

#include "graph/set_classes.h"
#include "train/training_run.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

namespace nw {

namespace {

// Where class `label` comes in the scores sorted as Darknet's top_k sorts them: a higher score first,
// and of equal scores the lower class first (so all-equal outputs are not all "right"). Outputs with a
// NaN rank nothing (a NaN compares false with everything: every class came first).
std::size_t rankOf(const float* scores, std::size_t count, std::size_t label)
{
    const float truth = scores[label];
    std::size_t rank = 0;
    for (std::size_t c = 0; c < count; ++c) {
        if (std::isnan(scores[c]))
            return std::numeric_limits<std::size_t>::max();
        rank += scores[c] > truth || (c < label && scores[c] == truth);
    }
    return rank;
}

constexpr std::string_view kEvaluatingAt = "evaluating at iteration ";

} // namespace

std::string evaluatingMessage(int iteration, const std::string& measure, std::size_t images)
{
    return std::string(kEvaluatingAt) + std::to_string(iteration) + ": " + measure + " on " +
           std::to_string(images) + " validation images";
}

bool isEvaluatingMessage(const std::string& text)
{
    return text.starts_with(kEvaluatingAt);
}

Accuracy evaluate(Net& net, const ClassificationDataset& data, const ForwardPass& forward, int k,
                  const std::function<void(std::size_t)>& progress)
{
    const int batch = net.batch();
    const std::size_t imageSize = std::size_t(net.inputShape().size);
    std::vector<float> images(imageSize * std::size_t(batch));
    Accuracy accuracy;
    accuracy.k = k;
    const std::size_t outputs = net.output().itemSize();
    accuracy.confusion = ConfusionMatrix(std::max(data.classes(), outputs == 1 ? 2 : int(outputs)));
    std::string warning;
    for (std::size_t start = 0; start < data.size(); start += std::size_t(batch)) {
        const std::size_t count = std::min<std::size_t>(std::size_t(batch), data.size() - start);
        std::vector<bool> readable(count, true);
        for (std::size_t b = 0; b < std::size_t(batch);
             ++b) { // the last batch is padded with its first image
            const bool read = data.image(start + (b < count ? b : 0), images.data() + b * imageSize, warning);
            if (!read && b < count) {
                readable[b] = false;
                if (accuracy.warnings.size() < 20)
                    accuracy.warnings.push_back(warning);
                ++accuracy.unreadable;
            }
        }
        if (forward)
            forward(images.data());
        else
            net.forward(images.data());
        const Tensor& out = net.output();
        for (std::size_t b = 0; b < count; ++b) {
            if (!readable[b])
                continue;
            ++accuracy.images;
            const float* scores = out.item(int(b));
            const int label = data.label(start + b);
            // (a binary classifier's negatives, label −1 or another class, are its class 1)
            const int truth = out.itemSize() == 1 ? (label == 0 ? 0 : 1) : label;
            if (const std::optional<int> chosen = chosenClass(scores, out.itemSize()))
                accuracy.confusion.add(truth, *chosen);
            else
                accuracy.confusion.addUndecided(truth);
            if (out.itemSize() == 1) { // a binary classifier: right when on the label's side of ½
                const bool right = !std::isnan(scores[0]) && (scores[0] >= 0.5f) == (label == 0);
                accuracy.top1 += right;
                accuracy.topK += right;
                continue;
            }
            const std::size_t rank = rankOf(scores, out.itemSize(), std::size_t(label));
            accuracy.top1 += rank == 0;
            accuracy.topK += rank < std::size_t(std::max(1, k));
        }
        if (progress)
            progress(start + count);
    }
    if (accuracy.images) {
        accuracy.top1 /= double(accuracy.images);
        accuracy.topK /= double(accuracy.images);
    }
    return accuracy;
}

namespace {

// "output= of layer 4 [connected]": the key and layer that give the network its number of outputs.
std::string outputSetter(const Net& net)
{
    const NetworkSpec& spec = net.spec();
    if (const LayerSpec* layer = outputSizeLayer(spec)) {
        const std::string key = outputSizeKey(spec, *layer);
        // Where to change it: the key's line, else the section's (the message named no file).
        const cfg::Line* line = spec.document && layer->section < spec.document->sections().size()
                                    ? spec.document->sections()[layer->section].find(key)
                                    : nullptr;
        const std::string where =
            spec.file.empty()
                ? std::string()
                : " (" + spec.file + ":" + std::to_string(line ? line->number : layer->line) + ")";
        return key + "= of layer " + std::to_string(layer->index) + " [" + layer->type + "]" + where;
    }
    return "output= (or filters=) of the last layer";
}

} // namespace

std::optional<std::string> classifierFits(const Net& net, const ClassificationDataset& data)
{
    if (net.maxTruthBoxes() > 0)
        return "the network ends in a detection head but the .data file names classification data: a "
               "detector is scored by map (and trains on an image list with YOLO label files)";
    const Shape input = net.inputShape();
    if (data.width() != input.w || data.height() != input.h || data.channels() != input.c)
        return "the images are " + std::to_string(data.width()) + "x" + std::to_string(data.height()) + "x" +
               std::to_string(data.channels()) + " but the network's input is " + input.text() +
               ": change width/height/channels in [net]";
    if (int(net.output().itemSize()) != data.classes())
        return "the network ends with " + std::to_string(net.output().itemSize()) +
               " outputs but the data has " + std::to_string(data.classes()) + " classes: set " +
               outputSetter(net) + " to " + std::to_string(data.classes());
    return std::nullopt;
}

std::optional<std::string> batchProblem(const NetConfig& net)
{
    if (net.timeSteps > 1)
        return "time_steps=" + std::to_string(net.timeSteps) +
               " in [net]: training on sequences (Darknet's text and sequence data) is not supported; the "
               "data sets here give one image per batch row: set time_steps=1";
    const int subdivisions = std::max(1, net.subdivisions);
    if (net.batch % subdivisions != 0) {
        const int lower = net.batch / subdivisions * subdivisions;
        return "batch=" + std::to_string(net.batch) +
               " in [net] is not a multiple of subdivisions=" + std::to_string(subdivisions) +
               ": each pass would take " + std::to_string(net.batch / subdivisions) +
               " images and leave the rest out; make batch a multiple of subdivisions (batch=" +
               (lower > 0 ? std::to_string(lower) + " or " : std::string()) +
               std::to_string(lower + subdivisions) + ")";
    }
    return std::nullopt;
}

std::optional<std::string> Trainer::run(TrainObserver& observer)
{
    return TrainingRun(net_, train_, valid_, mapSet_, options_, observer).run();
}

} // namespace nw
