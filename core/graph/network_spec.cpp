#include "graph/network_spec.h"

#include "graph/activation_plan.h"

#include "layers/convolutional.h"
#include "layers/deconvolutional.h"
#include "layers/detection_heads.h"
#include "layers/local.h"
#include "layers/maxpool.h"
#include "layers/registry.h"
#include "layers/route.h"
#include "layers/upsample.h"
#include "layers/yolo.h"
#include "util/closest_name.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace nw {

// Keys Darknet reads for every layer (either fork); they never produce an "unused key" warning.
LayerFlags readLayerFlags(cfg::SectionReader& reader)
{
    LayerFlags flags;
    flags.dontload = reader.getFlag("dontload", false);
    flags.dontloadscales = reader.getFlag("dontloadscales", false);
    flags.stopbackward = reader.getFlag("stopbackward", false);
    flags.dontupdate = reader.getFlag("dont_update", false);
    flags.learningRateScale = reader.getFloat("learning_rate", 1);
    reader.accept({"truth", "smooth", "clip", "burnin_update"});
    reader.warnUnimplemented({"dontsave", "numload"},
                             "this layer's weights are read and written in full, so .weights files differ "
                             "from AlexeyAB's for this cfg");
    reader.warnUnimplemented({"onlyforward", "train_only_bn"},
                             "this layer trains as any other, unlike in AlexeyAB's Darknet");
    return flags;
}

namespace {

// A route reads its sources, not the layer before it: its input is what they give together (the
// channels of same-sized sources side by side, else Darknet's flat concatenation), and its filters
// column names them by number, as Darknet prints them ("152 116"; a yolov4-tiny split, group 1 of 2,
// "2 (1/2)").
void describeRoute(LayerSpec& layer, const std::vector<LayerSpec>& earlier)
{
    const auto* route = dynamic_cast<const RouteLayer*>(layer.config.get());
    if (!route || layer.sources.empty())
        return;
    std::string names;
    for (int source : layer.sources)
        names += (names.empty() ? "" : " ") + std::to_string(source);
    if (route->groups > 1)
        names += " (" + std::to_string(route->groupId) + "/" + std::to_string(route->groups) + ")";
    layer.filters = names;
    const Shape& first = earlier[std::size_t(layer.sources.front())].output;
    bool sameSize = first.isImage();
    std::int64_t channels = 0, values = 0;
    for (int source : layer.sources) {
        const Shape& shape = earlier[std::size_t(source)].output;
        sameSize = sameSize && shape.isImage() && shape.w == first.w && shape.h == first.h;
        channels += shape.c;
        values += shape.size;
    }
    layer.input = sameSize && channels <= std::numeric_limits<int>::max()
                      ? Shape::image(first.w, first.h, int(channels))
                      : Shape::flat(values);
}

// How far an output pixel sees into the input: r_out = r_in + (k − 1)·jump_in, jump_out = jump_in·stride
// along every input (route/shortcut sources too), the widest one winning.
void receptiveField(LayerSpec& layer, const std::vector<LayerSpec>& earlier)
{
    // (a flat output too: a [softmax] or [cost] sees what its input saw; it read 0, "sees nothing")
    if (layer.output.empty())
        return; // (a layer at or behind an error has no shape)
    int field = 1;
    double jump = 1;
    auto take = [&](int index) {
        if (index >= 0 && earlier[std::size_t(index)].receptiveField > field) {
            field = earlier[std::size_t(index)].receptiveField;
            jump = earlier[std::size_t(index)].jump;
        }
    };
    if (layer.type != "route")
        take(layer.index - 1);
    for (int source : layer.sources)
        take(source);
    double kernel = 1, stride = 1; // in double: absurd kernels or strides must not wrap around
    if (auto* conv = dynamic_cast<const ConvolutionalLayer*>(layer.config.get())) {
        kernel = double(conv->size - 1) * conv->dilation + 1;
        stride = conv->strideX;
    } else if (auto* pool = dynamic_cast<const MaxpoolLayer*>(layer.config.get()); pool && !pool->depth) {
        kernel = pool->size;
        stride = pool->strideX;
    } else if (auto* local = dynamic_cast<const LocalLayer*>(layer.config.get())) {
        kernel = local->size;
        stride = local->stride;
    } else if ((layer.type == "avgpool" || layer.type == "connected") && layer.input.isImage()) {
        kernel = std::max(layer.input.w, layer.input.h); // sees the whole input
    } else if (auto* up = dynamic_cast<const UpsampleLayer*>(layer.config.get()); up && up->stride < 0) {
        kernel = stride = -double(up->stride); // downsampling sums s×s blocks
    }
    // Steps that shrink (1/s) rather than grow: an upsample, a deconvolution — whose
    // output pixel reads ceil(size / stride) input pixels across (size = stride reads one).
    double shrink = 1;
    if (auto* up = dynamic_cast<const UpsampleLayer*>(layer.config.get()); up && up->stride > 0)
        shrink = up->stride;
    else if (auto* deconv = dynamic_cast<const DeconvolutionalLayer*>(layer.config.get());
             deconv && deconv->stride > 0) {
        kernel = std::ceil(double(deconv->size) / deconv->stride);
        shrink = deconv->stride;
    }
    // ([reorg] and [reorg3d] are left as they were, the field and step unchanged: Darknet's index order
    // keeps s×s blocks together for some sizes and deals values across the input for others.)
    const double reach = double(field) + (kernel - 1) * jump;
    layer.receptiveField = reach < double(INT32_MAX) ? int(reach) : INT32_MAX; // NaN too
    layer.jump = jump * stride / shrink;
}

std::string gigabytes(double bytes)
{
    if (bytes > 1e15)
        return "over a petabyte";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    return text;
}

// Sizes no runtime could hold, refused here with the layer's line rather than failing (or wrapping
// around) at allocation: output sides past kMaxSide, or one array past 2^31 − 1 floats — the kernels
// index with int, as Darknet's do. Whether the machine has the memory is Net::create's question.
enum class SizeCheck { Fits, TooLarge, TooLargeForTheBatch };

SizeCheck checkSizes(LayerSpec& layer, int batch, const std::string& file)
{
    constexpr std::int64_t kMaxValues = std::numeric_limits<std::int32_t>::max();
    auto refuse = [&](const std::string& message) {
        layer.diagnostics.push_back({Severity::Error, file, layer.line, layer.index, message});
    };
    const Shape& out = layer.output;
    if (out.w > kMaxSide || out.h > kMaxSide || out.c > kMaxSide) {
        refuse("the output would be " + out.text() + ": sides and channels are limited to " +
               std::to_string(kMaxSide) + " (check filters, size and the input size)");
        return SizeCheck::TooLarge;
    }
    auto tooLarge = [&](std::int64_t values, const char* what, const char* fix) {
        if (values <= kMaxValues)
            return false;
        refuse("the layer would need " + gigabytes(double(values) * sizeof(float)) + " of " + what + " (" +
               std::to_string(values) + " values; one array holds at most 2^31 - 1): " + fix);
        return true;
    };
    if (tooLarge(layer.costs.params, "weights", "lower filters, size or output") ||
        tooLarge(layer.costs.workspaceBytes / std::int64_t(sizeof(float)), "workspace",
                 "lower size or filters"))
        return SizeCheck::TooLarge;
    return tooLarge(saturatingProduct({out.size, batch}), "output for the batch",
                    "lower the input size, filters or batch")
               ? SizeCheck::TooLargeForTheBatch
               : SizeCheck::Fits;
}

// Every name a section can have (long names and aliases), for "did you mean".
std::vector<std::string> sectionNames(const LayerRegistry& registry)
{
    std::vector<std::string> names;
    for (const LayerType& type : registry.types()) {
        names.push_back(type.name);
        names.insert(names.end(), type.aliases.begin(), type.aliases.end());
    }
    return names;
}

bool isNetSection(const cfg::Section& section)
{
    return section.type == "net" || section.type == "network";
}

// A syntax problem inside a layer's lines (a header without ']', a line without '=') belongs to that
// layer: its card is marked and the Problems list leads to it (it led to [net]). Sections after the
// first are layers 0, 1, … whatever the first is. Those are taken out of `diagnostics` and returned by
// layer, to join each layer's own.
std::vector<Diagnostics> takeSyntaxProblemsOfLayers(const std::vector<cfg::Section>& sections,
                                                    Diagnostics& diagnostics)
{
    std::vector<Diagnostics> byLayer(sections.empty() ? 0 : sections.size() - 1);
    Diagnostics kept;
    for (Diagnostic& d : diagnostics) {
        for (std::size_t s = 1; d.layer == -1 && d.line > 0 && s < sections.size(); ++s) {
            const auto& lines = sections[s].lines;
            if (!lines.empty() && lines.front().number <= d.line && d.line <= lines.back().number)
                d.layer = int(s) - 1;
        }
        if (d.layer >= 0 && std::size_t(d.layer) < byLayer.size())
            byLayer[std::size_t(d.layer)].push_back(std::move(d));
        else
            kept.push_back(std::move(d));
    }
    diagnostics = std::move(kept);
    return byLayer;
}

} // namespace

int NetworkSpec::layersLeftOutOfTotals() const
{
    return int(std::count_if(layers.begin(), layers.end(),
                             [](const LayerSpec& l) { return !l.figuresKnown() || l.leftOutOfTotals; }));
}

NetworkSpec buildNetworkSpec(const cfg::Document& document, const SpecOptions& options)
{
    NetworkSpec spec;
    spec.file = document.fileName();
    spec.document = std::make_shared<const cfg::Document>(document);
    spec.batch = std::max(1, options.batch);
    spec.diagnostics = document.diagnostics();
    const auto& sections = document.sections();
    if (document.readFailed())
        return spec;
    std::vector<Diagnostics> syntaxProblems = takeSyntaxProblemsOfLayers(sections, spec.diagnostics);
    if (sections.empty() || !isNetSection(sections.front())) {
        spec.diagnostics.push_back(
            {Severity::Error, spec.file, sections.empty() ? 0 : sections.front().headerLine(), -1,
             sections.empty()
                 ? "no sections: a cfg starts with [net] and then its layers"
                 : "the first section must be [net] or [network], found [" + sections.front().type +
                       "]: add a [net] section at the top with the input's width, height and channels "
                       "(its layers are read from the section after it)"});
        return spec;
    }
    {
        cfg::SectionReader reader(sections.front(), spec.file, -1, spec.diagnostics);
        spec.net = NetConfig::parse(reader);
        reader.reportUnused();
        if (options.width > 0 && options.height > 0) {
            spec.net.width = options.width;
            spec.net.height = options.height;
            // Held within int: a size too large for any layer is then refused by the first layer's checks.
            spec.net.inputs = int(std::min<std::int64_t>(
                saturatingProduct({spec.net.width, spec.net.height, spec.net.channels}), INT32_MAX));
        }
    }
    spec.input = spec.net.width > 0 && spec.net.height > 0 && spec.net.channels > 0
                     ? Shape::image(spec.net.width, spec.net.height, spec.net.channels)
                     : Shape::flat(spec.net.inputs);
    bool inputValid = spec.net.inputs > 0;
    bool sizeRefused = false;  // a size past any array's: the layers behind it see an absurd shape
    bool batchRefused = false; // only the batch's output too large: the shapes behind it stand

    const LayerRegistry& registry = LayerRegistry::builtin();
    for (std::size_t s = 1; s < sections.size(); ++s) {
        const cfg::Section& section = sections[s];
        LayerSpec layer;
        layer.index = static_cast<int>(s - 1);
        layer.section = s;
        layer.line = section.headerLine();
        layer.timeSteps = std::max(1, spec.net.timeSteps);
        layer.input = spec.layers.empty() ? spec.input : spec.layers.back().output;
        const LayerType* type = registry.find(section.type);
        if (isNetSection(section)) {
            layer.type = section.type;
            layer.diagnostics.push_back(
                {Severity::Error, spec.file, layer.line, layer.index,
                 "a second [" + section.type + "] section: only the first section is [net]"});
        } else if (!type) {
            layer.type = section.type;
            layer.diagnostics.push_back({Severity::Error, spec.file, layer.line, layer.index,
                                         "unknown layer type [" + section.type + "]" +
                                             didYouMean(section.type, sectionNames(registry)) +
                                             " (known: " + registry.knownNames() + ")"});
        } else {
            layer.type = type->name;
            cfg::SectionReader reader(section, spec.file, layer.index, layer.diagnostics);
            layer.config = type->parse(reader);
            layer.flags = readLayerFlags(reader);
            reader.reportUnused();
            LayerContext context(spec.net, layer.index, layer.input, inputValid, spec.layers, section,
                                 spec.file, layer.diagnostics);
            LayerResult result = layer.config->infer(context);
            // (made from a default standing in for a value that could not be read: "28x28x1" and 10
            // params for filters=abc looked like the layer's own; shown as unknown instead)
            if (!reader.hasUnreadableValue()) {
                layer.output = result.output;
                layer.costs = result.costs;
            }
            layer.sources = std::move(result.sources);
            layer.outputKnown = !context.readInput() || inputValid;
            for (int source : layer.sources)
                layer.outputKnown = layer.outputKnown && spec.layers[std::size_t(source)].outputKnown;
            layer.filters = reader.unreadable("filters") || reader.unreadable("output")
                                ? std::string("?")
                                : layer.config->filtersText();
            layer.size = layer.config->sizeText();
            describeRoute(layer, spec.layers);
        }
        // After one refusal the layers behind it see its (absurd) shape: one message is enough. A batch too
        // large for one layer's output leaves every shape, cost and total as it is (with --batch 200 the
        // summary of yolov4 showed "?" for 161 layers and totals of 0), and is said once.
        bool onlyTheBatch = false;
        if (layer.config && !sizeRefused && !hasErrors(layer.diagnostics)) {
            const SizeCheck check = checkSizes(layer, batchRefused ? 1 : spec.batch, spec.file);
            sizeRefused = check == SizeCheck::TooLarge;
            onlyTheBatch = check == SizeCheck::TooLargeForTheBatch;
            batchRefused = batchRefused || onlyTheBatch;
        }
        layer.memoryBytes = saturatingProduct({layer.output.size, spec.batch, std::int64_t(sizeof(float))});
        receptiveField(layer, spec.layers);
        layer.inputKnown = layer.outputKnown;
        layer.outputKnown = layer.outputKnown && (layer.valid() || onlyTheBatch);
        inputValid = layer.outputKnown;
        if (!sizeRefused && layer.figuresKnown()) { // totals of refused sizes would only overflow, and
                                                    // unknown figures are left out (shown as "?")
            spec.totalBflops += layer.costs.bflops;
            spec.totalParams += layer.costs.params;
            spec.maxWorkspaceBytes = std::max(spec.maxWorkspaceBytes, layer.costs.workspaceBytes);
            spec.totalMemoryBytes += layer.memoryBytes;
        } else {
            layer.leftOutOfTotals = true; // (the refused layer's figures are shown: "161 of 162 left out")
        }
        // A syntax slip in its lines (a stray line) marks the layer, after its shape is settled: the
        // values it did read still give a shape, and the layers after it keep theirs.
        layer.diagnostics.insert(layer.diagnostics.begin(), syntaxProblems[s - 1].begin(),
                                 syntaxProblems[s - 1].end());
        spec.diagnostics.insert(spec.diagnostics.end(), layer.diagnostics.begin(), layer.diagnostics.end());
        spec.layers.push_back(std::move(layer));
    }
    if (spec.layers.empty())
        spec.diagnostics.push_back({Severity::Error, spec.file, sections.front().headerLine(), -1,
                                    "the network has no layers after [net]"});
    // A detector's heads find the same classes (adapting a cfg, people change one head and not the
    // other; training then refuses it, far from the cause).
    // The line of a layer's key (where Properties and Source mark it), else of its header.
    const auto keyLine = [&spec](const LayerSpec& layer, std::string_view key) {
        const cfg::Line* line = spec.document && layer.section < spec.document->sections().size()
                                    ? spec.document->sections()[layer.section].find(key)
                                    : nullptr;
        return line ? line->number : layer.line;
    };
    const LayerSpec* firstHead = nullptr;
    std::vector<LayerSpec*> yoloHeads; // (for a mask= taken twice, below)
    for (LayerSpec& layer : spec.layers) {
        const auto head = detectionHeadInfo(layer.config.get());
        if (!head)
            continue;
        if (dynamic_cast<const YoloLayer*>(layer.config.get()))
            yoloHeads.push_back(&layer);
        // A [yolo] head reads raw scores: Darknet's cfgs end with a linear convolution without batch
        // norm before it (logistic with new_coords=1). A network built from the palette kept leaky and
        // batch norm there, and trained badly without a word.
        const auto* yoloHead = dynamic_cast<const YoloLayer*>(layer.config.get());
        LayerSpec* before = layer.index > 0 ? &spec.layers[std::size_t(layer.index - 1)] : nullptr;
        const auto* conv = before ? dynamic_cast<const ConvolutionalLayer*>(before->config.get()) : nullptr;
        // Anchors are in input pixels: one far larger than the whole input (a head pasted from a 416×416
        // cfg into a 96×96 network) overlaps any box by less than half, and trains nothing.
        if (yoloHead && spec.net.width > 0 && spec.net.height > 0)
            for (int index : yoloHead->mask) {
                if (index < 0 || 2 * std::size_t(index) + 1 >= yoloHead->anchors.size())
                    continue;
                const double w = yoloHead->anchors[2 * std::size_t(index)],
                             h = yoloHead->anchors[2 * std::size_t(index) + 1];
                const double best = w > 0 && h > 0 ? std::min(w, double(spec.net.width)) *
                                                         std::min(h, double(spec.net.height)) / (w * h)
                                                   : 1;
                if (best >= 0.5)
                    continue;
                char text[400];
                std::snprintf(text, sizeof text,
                              "anchor %d (%g,%g) is far larger than the %dx%d input: a box overlaps it by "
                              "%.0f %% at most (anchors are in input pixels; netwright-cli anchors DATA "
                              "--width %d --height %d computes them for this size)",
                              index, w, h, spec.net.width, spec.net.height, best * 100, spec.net.width,
                              spec.net.height);
                const Diagnostic d{Severity::Warning, spec.file, keyLine(layer, "anchors"), layer.index,
                                   text};
                layer.diagnostics.push_back(d);
                spec.diagnostics.push_back(d);
                break; // (one per head)
            }
        // (Darknet's default, logistic, is left alone: minimal cfgs omit the key; one mistake, one message)
        const bool convFails = before && std::ranges::any_of(before->diagnostics, &Diagnostic::isError);
        // With new_coords=1 the head applies no logistic: it reads probabilities, so a linear convolution
        // gave confidences of 155 % and boxes anywhere.
        const bool activationFits =
            conv && (yoloHead && yoloHead->newCoords
                         ? conv->activation == "logistic"
                         : conv->activation == "linear" || conv->activation == "logistic");
        if (yoloHead && conv && !convFails && (conv->batchNormalize || !activationFits)) {
            const std::string reads =
                yoloHead->newCoords
                    ? ": with new_coords=1 the head reads probabilities (scaled-YOLOv4's cfgs set "
                      "activation=logistic and no batch_normalize there)"
                    : ": the head reads raw scores (Darknet's cfgs set activation=linear and no "
                      "batch_normalize there; logistic with new_coords=1)";
            const Diagnostic d{Severity::Warning, spec.file,
                               keyLine(*before, conv->batchNormalize ? "batch_normalize" : "activation"),
                               before->index,
                               std::string("this convolution feeds the [") + layer.type + "] head (layer " +
                                   std::to_string(layer.index) + ") " +
                                   (conv->batchNormalize ? "with batch_normalize=1"
                                                         : "through activation=" + conv->activation) +
                                   reads};
            before->diagnostics.push_back(d);
            spec.diagnostics.push_back(d);
        }
        const auto first = firstHead ? detectionHeadInfo(firstHead->config.get()) : std::nullopt;
        if (!first) {
            firstHead = &layer;
            continue;
        }
        if (head->classes != first->classes) {
            const Diagnostic d{Severity::Warning, spec.file, layer.line, layer.index,
                               "classes=" + std::to_string(head->classes) + " but layer " +
                                   std::to_string(firstHead->index) + " [" + firstHead->type +
                                   "] has classes=" + std::to_string(first->classes) +
                                   ": every head of a detector finds the same classes; set classes= alike in "
                                   "each (and filters= in the [convolutional] before each)"};
            layer.diagnostics.push_back(d);
            spec.diagnostics.push_back(d);
        }
        // [yolo] heads share one anchor list, each taking its mask= of it (a head pasted from another cfg
        // brings its own list, and its masks then pick anchors of another size).
        const auto* yolo = dynamic_cast<const YoloLayer*>(layer.config.get());
        const auto* firstYolo = dynamic_cast<const YoloLayer*>(firstHead->config.get());
        if (yolo && firstYolo && (yolo->num != firstYolo->num || yolo->anchors != firstYolo->anchors)) {
            const Diagnostic d{Severity::Warning, spec.file, layer.line, layer.index,
                               std::string(yolo->num != firstYolo->num
                                               ? "num=" + std::to_string(yolo->num) + " and anchors= differ"
                                               : "anchors= differ") +
                                   " from layer " + std::to_string(firstHead->index) +
                                   " [yolo]'s: the heads of a detector share one anchor list (num= anchors), "
                                   "each taking its mask= of it; give every head the same anchors= and num="};
            layer.diagnostics.push_back(d);
            spec.diagnostics.push_back(d);
        }
    }
    // Two heads with one mask= while anchors of the list are in no mask: a head pasted with its
    // convolution keeps the mask it was copied with; both predict the same anchors, and the others train
    // nothing. (Heads that each take every anchor, on purpose, are left alone.)
    const auto yoloOf = [](const LayerSpec* layer) {
        return static_cast<const YoloLayer*>(layer->config.get());
    };
    std::vector<bool> masked;
    for (const LayerSpec* head : yoloHeads)
        for (int index : yoloOf(head)->mask)
            if (index >= 0 && index < 4096) {
                masked.resize(std::max(masked.size(), std::size_t(index) + 1));
                masked[std::size_t(index)] = true;
            }
    std::string unmasked;
    if (!yoloHeads.empty())
        for (int index = 0; index < std::min(yoloOf(yoloHeads[0])->num, 4096); ++index)
            if (std::size_t(index) >= masked.size() || !masked[std::size_t(index)])
                unmasked += (unmasked.empty() ? "" : ",") + std::to_string(index);
    for (std::size_t i = 1; i < yoloHeads.size() && !unmasked.empty(); ++i) {
        LayerSpec& layer = *yoloHeads[i];
        const std::vector<int>& mask = yoloOf(&layer)->mask;
        for (std::size_t j = 0; j < i; ++j)
            if (!mask.empty() && yoloOf(yoloHeads[j])->mask == mask) {
                std::string text;
                for (int index : mask)
                    text += (text.empty() ? "" : ",") + std::to_string(index);
                const Diagnostic d{Severity::Warning, spec.file, keyLine(layer, "mask"), layer.index,
                                   "mask=" + text + " is also layer " + std::to_string(yoloHeads[j]->index) +
                                       " [yolo]'s, and anchors " + unmasked +
                                       " are in no head's mask: both heads predict the same anchors (a "
                                       "pasted head?); give each head its own anchors of the list "
                                       "(Darknet's: 6,7,8 / 3,4,5 / 0,1,2)"};
                layer.diagnostics.push_back(d);
                spec.diagnostics.push_back(d);
                break;
            }
    }
    // A detector trained at a classifier's rate without a warm-up diverges in its first iterations
    // (a network built on File ▸ New's [net]: NaN at iteration 28). Darknet's detector cfgs all set
    // burn_in=1000 with rates of 0.001-0.00261.
    if (firstHead && spec.net.burnIn == 0 && spec.net.learningRate > 0.004f) {
        const cfg::Line* rate = sections.front().find("learning_rate");
        char text[300];
        std::snprintf(text, sizeof text,
                      "a detector at learning_rate=%g without burn_in diverges in its first iterations: "
                      "add burn_in=1000 to [net] (Darknet's detector cfgs: burn_in=1000, learning_rate "
                      "0.001 to 0.00261)",
                      double(spec.net.learningRate));
        spec.diagnostics.push_back(
            {Severity::Warning, spec.file, rate ? rate->number : sections.front().headerLine(), -1, text});
    }
    if (!sizeRefused) { // what an inference pass holds, its buffers reused (runtime::Net does the same)
        const ActivationPlan plan = planActivations(spec, spec.batch);
        spec.inferenceMemoryBytes = 0;
        for (std::size_t i = 0; i < spec.layers.size(); ++i) {
            spec.layers[i].inferenceBytes = plan.addedBytes[i];
            if (spec.layers[i].figuresKnown()) // (as the other totals: unknown figures left out)
                spec.inferenceMemoryBytes += plan.addedBytes[i];
        }
    }
    // Document syntax errors come first; keep the whole list in file order for readers.
    std::stable_sort(spec.diagnostics.begin(), spec.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
    return spec;
}

} // namespace nw
