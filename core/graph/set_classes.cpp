#include "graph/set_classes.h"

#include "layers/detection_heads.h"

#include <algorithm>
#include <climits>

namespace nw {

namespace {

std::string layerName(const LayerSpec& layer)
{
    return "layer " + std::to_string(layer.index) + " [" + layer.type + "]";
}

const cfg::Section& sectionOf(const NetworkSpec& spec, const LayerSpec& layer)
{
    return spec.document->sections().at(layer.section);
}

// Adds the edit unless the section already says so (a comment after the value, "255#3*(80+5)" as
// Darknet reads the line, is not part of it).
void setIfDifferent(std::vector<KeyEdit>& edits, const cfg::Section& section, std::size_t index,
                    const std::string& key, const std::string& value, const std::string& where)
{
    const cfg::Line* line = section.find(key);
    if (!line || cfg::valueBeforeComment(line->value) != value)
        edits.push_back({index, key, value, where});
}

ClassesPlan refused(std::string why)
{
    ClassesPlan plan;
    plan.error = std::move(why);
    return plan;
}

// The single layer a head reads: the one before it, or the one it names.
const LayerSpec* feederOf(const NetworkSpec& spec, const LayerSpec& layer)
{
    if (layer.sources.size() > 1)
        return nullptr;
    const int index = layer.sources.empty() ? layer.index - 1 : layer.sources.front();
    return index >= 0 ? &spec.layers[std::size_t(index)] : nullptr;
}

ClassesPlan planHeads(const NetworkSpec& spec, int classes)
{
    ClassesPlan plan;
    plan.detector = true;
    for (const LayerSpec& layer : spec.layers) {
        const auto head = detectionHeadInfo(layer.config.get());
        if (!head)
            continue;
        if (plan.currentClasses == 0)
            plan.currentClasses = head->classes;
        const std::string name = layerName(layer);
        if (head->classesFromTree)
            return refused(name +
                           " takes its classes from its tree= file (a class hierarchy): change the tree, "
                           "or end the network in [yolo] heads");
        const LayerSpec* feeder = feederOf(spec, layer);
        // [yolo]/[region] read their input's channels, [detection] a flat vector: a [convolutional]'s
        // filters= or a [connected]'s output= sets them.
        const bool flat = layer.type == "detection";
        const std::string wanted = flat ? "connected" : "convolutional";
        if (!feeder || feeder->type != wanted)
            return refused(name + " reads " + (feeder ? layerName(*feeder) : std::string("no single layer")) +
                           ", which has no " + (flat ? "output=" : "filters=") + " to set: put a [" + wanted +
                           "] " + (flat ? "" : "(size=1, activation=linear) ") + "right before it");
        const long long needed = head->inputBase + head->inputPerClass * classes;
        if (needed > INT_MAX)
            return refused(std::to_string(classes) + " classes need " + std::to_string(needed) +
                           " values in " + layerName(*feeder) + ", more than a cfg number holds");
        setIfDifferent(plan.edits, sectionOf(spec, layer), layer.section, "classes", std::to_string(classes),
                       name);
        setIfDifferent(plan.edits, sectionOf(spec, *feeder), feeder->section, flat ? "output" : "filters",
                       std::to_string(needed), layerName(*feeder));
    }
    return plan;
}

ClassesPlan planClassifier(const NetworkSpec& spec, int classes)
{
    // No head known here: a layer of an unknown type may be the head ([conv_lstm], say).
    for (const LayerSpec& layer : spec.layers)
        if (!layer.config)
            return refused(
                "layer " + std::to_string(layer.index) + " [" + layer.type +
                "] is a layer type Netwright does not know, so what the network needs for a number "
                "of classes is not known either");
    const LayerSpec& last = spec.layers.back();
    // A classifier ends in its loss: [softmax] or [logistic], maybe followed by [cost].
    const LayerSpec* end = &last;
    if (end->isLossOnly() && spec.layers.size() > 1)
        end = &spec.layers[spec.layers.size() - 2];
    if (end->type != "softmax" && end->type != "logistic")
        return refused(
            "the network ends in " + layerName(last) +
            ": it is neither a detector (no [yolo], [region] or [detection] head) nor a classifier "
            "(ending in [softmax] or [logistic]), so which number is its classes is not known");
    if (end->config && end->config->classTree())
        return refused(layerName(*end) +
                       " takes its classes from its tree= file (a class hierarchy): change the tree instead");
    const LayerSpec* setter = outputSizeLayer(spec);
    if (!setter)
        return refused("no layer before " + layerName(*end) +
                       " sets a number of outputs: put a [connected] with output= before it");
    ClassesPlan plan;
    if (end->outputKnown)
        plan.currentClasses = int(std::min<std::int64_t>(end->output.size, INT_MAX));
    setIfDifferent(plan.edits, sectionOf(spec, *setter), setter->section, outputSizeKey(spec, *setter),
                   std::to_string(classes), layerName(*setter));
    return plan;
}

// The comma-separated items of [net]'s `key` as written (".1" stays ".1").
std::vector<std::string> writtenItems(const cfg::Section& net, std::string_view key)
{
    std::vector<std::string> items;
    if (const cfg::Line* line = net.find(key)) {
        std::string item;
        for (char c : line->value + ",")
            if (c == ',') {
                items.push_back(item);
                item.clear();
            } else {
                item += c;
            }
    }
    return items;
}

// AlexeyAB's README: max_batches = classes·2000, not less than the training images nor 6000; steps at
// 80 % and 90 % of it. A warm-up in the steps (yolov1-tiny's scales 2.5,2,2 at 200,400,600) is kept
// before them: it was dropped, the peak rate 20 times lower, unsaid.
void planSchedule(const NetworkSpec& spec, int classes, long long trainingImages, std::vector<KeyEdit>& edits)
{
    const cfg::Section& net = spec.document->sections().front();
    const long long maxBatches =
        std::min<long long>(std::max({6000LL, 2000LL * classes, trainingImages}), INT_MAX);
    setIfDifferent(edits, net, 0, "max_batches", std::to_string(maxBatches), "[net]");
    if (spec.net.policy != "steps")
        return;
    const long long firstDecay = maxBatches * 8 / 10;
    // The leading steps up to the last that raises the rate, all before the first decay.
    std::size_t warmUp = 0;
    const std::size_t known = std::min(spec.net.steps.size(), spec.net.scales.size());
    for (std::size_t i = 0; i < known && spec.net.steps[i] < firstDecay; ++i)
        if (spec.net.scales[i] > 1)
            warmUp = i + 1;
    const std::vector<std::string> writtenSteps = writtenItems(net, "steps"),
                                   writtenScales = writtenItems(net, "scales");
    std::string steps, scales;
    for (std::size_t i = 0; i < warmUp && i < writtenSteps.size() && i < writtenScales.size(); ++i) {
        steps += writtenSteps[i] + ",";
        scales += writtenScales[i] + ",";
    }
    setIfDifferent(edits, net, 0, "steps",
                   steps + std::to_string(firstDecay) + "," + std::to_string(maxBatches * 9 / 10), "[net]");
    // (one scale a step; two decays of .1 after the warm-up)
    if (warmUp > 0 || spec.net.steps.size() != 2 || spec.net.scales.size() != 2)
        setIfDifferent(edits, net, 0, "scales", scales + ".1,.1", "[net]");
}

} // namespace

const LayerSpec* outputSizeLayer(const NetworkSpec& spec)
{
    for (auto layer = spec.layers.rbegin(); layer != spec.layers.rend(); ++layer)
        for (const char* type :
             {"connected", "rnn", "lstm", "gru", "convolutional", "deconvolutional", "local", "crnn"})
            if (layer->type == type)
                return &*layer;
    return nullptr;
}

std::string outputSizeKey(const NetworkSpec& spec, const LayerSpec& layer)
{
    if (layer.type == "crnn")
        return sectionOf(spec, layer).find("output") && !sectionOf(spec, layer).find("output_filters")
                   ? "output"
                   : "output_filters";
    const bool flat =
        layer.type == "connected" || layer.type == "rnn" || layer.type == "lstm" || layer.type == "gru";
    return flat ? "output" : "filters";
}

ClassesPlan planClasses(const NetworkSpec& spec, int classes, bool schedule, long long trainingImages)
{
    if (classes < 1)
        return refused("the number of classes must be at least 1");
    if (!spec.document || spec.document->sections().empty() || spec.layers.empty())
        return refused("the network has no layers");
    const bool detector = std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerSpec& layer) {
        return detectionHeadInfo(layer.config.get()).has_value();
    });
    ClassesPlan plan = detector ? planHeads(spec, classes) : planClassifier(spec, classes);
    if (plan.error.empty() && schedule &&
        plan.detector) // the rule is a detector's (classifiers train longer)
        planSchedule(spec, classes, trainingImages, plan.edits);
    if (!plan.error.empty())
        plan.edits.clear();
    std::stable_sort(plan.edits.begin(), plan.edits.end(), // in file order: [net], then each feeder and head
                     [](const KeyEdit& a, const KeyEdit& b) { return a.section < b.section; });
    return plan;
}

void applyEdits(cfg::Document& document, const std::vector<KeyEdit>& edits)
{
    const std::string eol = document.preferredEol();
    for (const KeyEdit& edit : edits)
        document.section(edit.section).set(edit.key, edit.value, eol);
}

} // namespace nw
