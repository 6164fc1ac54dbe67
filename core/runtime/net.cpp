#include "runtime/net.h"

#include "graph/activation_plan.h"
#include "util/file_check.h"
#include "util/memory_info.h"

#include "kernels/cpu/gemm.h"
#include "layers/detection_heads.h"
#include "util/atomic_file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>

namespace nw {

namespace {

// Bytes of every layer's output for `batch` images, and of all weights, as the description counts them.
struct SpecBytes {
    double outputs = 0, params = 0, workspace = 0;
};

SpecBytes specBytes(const NetworkSpec& spec, int batch)
{
    SpecBytes bytes;
    for (const LayerSpec& layer : spec.layers) {
        bytes.outputs += double(layer.output.size) * std::max(1, batch) * sizeof(float);
        bytes.params += double(layer.costs.params) * sizeof(float);
        bytes.workspace = std::max(bytes.workspace, double(layer.costs.workspaceBytes));
    }
    return bytes;
}

} // namespace

std::unique_ptr<Net> Net::create(const NetworkSpec& spec, int batch, std::string& error, Use use)
{
    for (const Diagnostic& d : spec.diagnostics)
        if (d.isError()) {
            error = "the network has errors; first: " + d.format();
            return nullptr;
        }
    // Weights, the layers' outputs for the batch and the shared workspace, before any of it is
    // allocated (small layers' kept Winograd weights come on top; this is the floor).
    SpecBytes need = specBytes(spec, batch);
    if (use == Use::InferenceOnly)
        need.outputs = double(planActivations(spec, batch).totalBytes);
    if (auto shortfall =
            memoryShortfall(need.outputs + need.params + need.workspace,
                            "weights, outputs for a batch of " + std::to_string(batch) + " and workspace",
                            "lower width/height in [net], the batch, or the filters")) {
        error = "the network " + *shortfall;
        return nullptr;
    }
    // A recurrent layer reads its batch as sequences of time_steps items: a remainder would be left
    // uncomputed.
    for (const LayerSpec& layer : spec.layers) {
        if (layer.config && layer.config->isRecurrent() && batch % layer.timeSteps != 0) {
            error = spec.file + ":" + std::to_string(layer.line) + ": layer " + std::to_string(layer.index) +
                    " [" + layer.type +
                    "] reads its batch as sequences of time_steps=" + std::to_string(layer.timeSteps) +
                    " items, but the batch is " + std::to_string(batch) + ": use a multiple of " +
                    std::to_string(layer.timeSteps);
            return nullptr;
        }
    }
    ensureComputeThreads();
    std::unique_ptr<Net> net(new Net());
    net->spec_ = spec;
    net->use_ = use;
    for (const LayerSpec& layer : spec.layers) {
        auto runtime = layer.config ? layer.config->createRuntime(layer) : nullptr;
        if (!runtime) {
            error = spec.file + ":" + std::to_string(layer.line) + ": layer " + std::to_string(layer.index) +
                    " [" + layer.type + "] has no CPU forward yet";
            return nullptr;
        }
        net->layers_.push_back(std::move(runtime));
    }
    net->setBatch(batch);
    net->initialize(0);
    net->store_.bindValues(net->layers_);
    return net;
}

void Net::setBatch(int batch)
{
    ++generation_;
    batch_ = std::max(1, batch);
    for (std::size_t i = 0; i < deltas_.size(); ++i)
        deltas_[i].reset(spec_.layers[i].output, batch_);
    input_.reset(spec_.input, batch_);
    outputs_.resize(spec_.layers.size());
    activationBuffers_.clear();
    kept_.clear();
    if (use_ == Use::InferenceOnly) {
        const ActivationPlan plan = planActivations(spec_, batch_);
        for (std::int64_t floats : plan.bufferFloats)
            activationBuffers_.emplace_back(std::size_t(floats), 0.0f);
        for (std::size_t i = 0; i < spec_.layers.size(); ++i)
            outputs_[i].view(spec_.layers[i].output, batch_,
                             activationBuffers_[std::size_t(plan.buffer[i])].data());
        kept_ = outputsKeptAfterInference(spec_);
    } else {
        for (std::size_t i = 0; i < spec_.layers.size(); ++i)
            outputs_[i].reset(spec_.layers[i].output, batch_);
    }
    sizeWorkspace();
}

void Net::setThreads(int threads)
{
    threads_ = threads;
    sizeWorkspace(); // the kernels split the workspace by thread: room for this many
}

void Net::sizeWorkspace()
{
    const ComputeThreadScope threads(threads_); // layers size their share by maxComputeThreads()
    std::size_t workspace = 0;
    for (const auto& layer : layers_)
        workspace = std::max(workspace, layer->workspaceFloats());
    workspace_.assign(workspace, 0.0f);
}

std::optional<std::string> Net::inputSizeProblem(int width, int height) const
{
    if (!spec_.document || (width == spec_.input.w && height == spec_.input.h))
        return std::nullopt;
    SpecOptions options;
    options.batch = spec_.batch;
    options.width = width;
    options.height = height;
    const NetworkSpec spec = buildNetworkSpec(*spec_.document, options);
    for (const Diagnostic& d : spec.diagnostics)
        if (d.isError())
            return "the network cannot take a " + std::to_string(width) + "x" + std::to_string(height) +
                   " input: " + d.format();
    return std::nullopt;
}

std::optional<std::string> Net::resizeInput(int width, int height)
{
    if (width == spec_.input.w && height == spec_.input.h)
        return std::nullopt;
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (!spec_.document)
        return "the network cannot be resized to " + size + ": it was not built from a cfg document";
    SpecOptions options;
    options.batch = spec_.batch;
    options.width = width;
    options.height = height;
    NetworkSpec spec = buildNetworkSpec(*spec_.document, options);
    for (const Diagnostic& d : spec.diagnostics)
        if (d.isError())
            return "the network cannot take a " + size + " input: " + d.format();
    // What the larger outputs (and their gradients while training) and workspace add, before any of it
    // is allocated: multi-scale training grows the input every 10 iterations, and a size that cannot fit
    // must stop the run with a message rather than in bad_alloc or swap.
    const SpecBytes now = specBytes(spec_, batch_), then = specBytes(spec, batch_);
    const double growth =
        (then.outputs - now.outputs) * (training_ ? 2 : 1) + (then.workspace - now.workspace);
    if (growth > 0)
        if (auto shortfall =
                memoryShortfall(growth,
                                "outputs" + std::string(training_ ? " and their gradients" : "") +
                                    " for a batch of " + std::to_string(batch_),
                                "set random=0 in the detection head (multi-scale training), or lower "
                                "the batch or width/height in [net]"))
            return "the network cannot be resized to " + size + ": it " + *shortfall;
    std::vector<std::unique_ptr<RuntimeLayer>> layers;
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        const LayerSpec& layer = spec.layers[i];
        auto runtime = layer.config->createRuntime(layer);
        // The same arrays of the same sizes, or the weights depend on the input size.
        auto before = layers_[i]->weightArrays(), after = runtime->weightArrays();
        bool same = before.size() == after.size();
        for (std::size_t k = 0; same && k < before.size(); ++k)
            same = before[k].data->size() == after[k].data->size();
        if (!same)
            return "layer " + std::to_string(i) + " [" + layer.type + "] (line " +
                   std::to_string(layer.line) +
                   ") has weights sized by its input, so the network cannot be resized to " + size +
                   " (multi-scale training needs a fully convolutional network: set random=0)";
        layers.push_back(std::move(runtime));
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        auto before = layers_[i]->weightArrays(), after = layers[i]->weightArrays();
        for (std::size_t k = 0; k < before.size(); ++k)
            after[k].data->swap(*before[k].data);
        layers[i]->prepare(header_);
    }
    layers_ = std::move(layers); // the swapped arrays took their places in the store with them
    spec_ = std::move(spec);
    setBatch(batch_);
    if (training_)
        bindGradients(); // the new layers' gradient arrays
    return std::nullopt;
}

int Net::maxTruthBoxes() const
{
    return nw::maxTruthBoxes(spec_.layers);
}

std::size_t Net::truthFloats() const
{
    const int boxes = maxTruthBoxes();
    return boxes > 0 ? std::size_t(boxes) * 5 : output().itemSize();
}

int Net::outputLayer() const
{
    for (int i = static_cast<int>(spec_.layers.size()) - 1; i > 0; --i)
        if (!spec_.layers[static_cast<std::size_t>(i)].isLossOnly())
            return i;
    return 0;
}

const Tensor& Net::output() const
{
    return outputs_[static_cast<std::size_t>(outputLayer())];
}

const Tensor& Net::forward(const float* input)
{
    ExecContext context;
    return run(input, nullptr, context);
}

const Tensor& Net::forward(const float* input, std::vector<double>& layerMilliseconds)
{
    layerMilliseconds.assign(layers_.size(), 0.0);
    ExecContext context;
    return run(input, &layerMilliseconds, context);
}

std::size_t Net::activationBytes() const
{
    std::size_t floats = 0;
    if (use_ == Use::InferenceOnly)
        for (const auto& buffer : activationBuffers_)
            floats += buffer.size();
    else
        for (const Tensor& output : outputs_)
            floats += output.size();
    return floats * sizeof(float);
}

std::optional<std::string> Net::setTraining(bool training)
{
    if (training && use_ == Use::InferenceOnly)
        return std::string("this network was built for inference only (its layers share output buffers); "
                           "build it for training");
    if (training)
        for (std::size_t i = 0, first = std::size_t(firstTrainedLayer()); i < layers_.size(); ++i)
            if (!layers_[i]->canTrain() && i >= first)
                return "layer " + std::to_string(i) + " [" + spec_.layers[i].type + "] (line " +
                       std::to_string(spec_.layers[i].line) +
                       ") cannot be trained: " + layers_[i]->whyNotTrainable();
    if (training && !training_) {
        // On top of inference: a gradient per output, and per weight a gradient and solver state
        // (m and v for Adam).
        const SpecBytes need = specBytes(spec_, batch_);
        // (the copies counted too: yolov4-tiny at 832 was let through a 310 MB limit and peaked at 2.1 GB)
        double copies = 0;
        for (const LayerSpec& layer : spec_.layers)
            if (layer.config)
                copies += double(layer.config->trainingOutputCopies()) * double(layer.output.size) *
                          std::max(1, batch_) * sizeof(float);
        if (auto shortfall =
                memoryShortfall(need.outputs + copies + 3 * need.params,
                                "gradients, batch-norm and activation copies and solver state for training",
                                "lower batch (or raise subdivisions) or width/height in [net]"))
            return "training " + *shortfall;
    }
    if (training && !training_)
        bindGradients();
    training_ = training;
    reachesLoss_ = training ? layersReachingLoss() : std::vector<bool>();
    deltas_.resize(training ? layers_.size() : 0);
    for (std::size_t i = 0; i < deltas_.size(); ++i)
        deltas_[i].reset(spec_.layers[i].output, batch_);
    return std::nullopt;
}

void Net::bindGradients()
{
    ++generation_;
    std::vector<std::vector<Parameter>> trained;
    for (LayerParameters& layer : trainableParameters())
        trained.push_back(std::move(layer.parameters));
    store_.bindGradients(trained);
}

int Net::firstTrainedLayer(const NetworkSpec& spec)
{
    for (int i = static_cast<int>(spec.layers.size()) - 1; i >= 0; --i)
        if (spec.layers[static_cast<std::size_t>(i)].flags.stopbackward)
            return i + 1;
    return 0;
}

double Net::forwardTraining(const float* input, const float* truth, std::mt19937& random,
                            std::vector<double>* layerMilliseconds)
{
    if (layerMilliseconds)
        layerMilliseconds->assign(layers_.size(), 0.0);
    for (Tensor& delta : deltas_)
        std::fill(delta.data(), delta.data() + delta.size(), 0.0f);
    ExecContext context;
    context.training = true;
    context.truth = truth;
    context.truthStride = truthFloats();
    context.seen = header_.seen;
    context.random = &random;
    context.threadScratch = &threadScratch_;
    headStats_.clear();
    context.heads = &headStats_;
    run(input, layerMilliseconds, context);
    return context.meanLoss();
}

void Net::backward(std::vector<double>* layerMilliseconds)
{
    if (layerMilliseconds)
        layerMilliseconds->assign(layers_.size(), 0.0);
    const ComputeThreadScope threads(threads_);
    ExecContext context;
    context.threads = threads.threads();
    context.training = true;
    context.workspace = workspace_.data();
    context.workspaceFloats = workspace_.size();
    context.threadScratch = &threadScratch_;
    std::vector<const Tensor*> sources;
    std::vector<Tensor*> sourceDeltas;
    const int first = firstTrainedLayer();
    for (int i = static_cast<int>(layers_.size()) - 1; i >= first; --i) {
        const auto index = static_cast<std::size_t>(i);
        if (!reachesLoss_[index]) // its output feeds no loss: nothing to propagate (Caffe's rule)
            continue;
        sources.clear();
        sourceDeltas.clear();
        for (int source : spec_.layers[index].sources) {
            sources.push_back(&outputs_[static_cast<std::size_t>(source)]);
            sourceDeltas.push_back(source >= first ? &deltas_[static_cast<std::size_t>(source)] : nullptr);
        }
        Tensor* inputDelta = i > first ? &deltas_[index - 1] : nullptr;
        BackwardArgs args{index == 0 ? input_ : outputs_[index - 1],
                          inputDelta,
                          sources,
                          sourceDeltas,
                          outputs_[index],
                          deltas_[index],
                          context,
                          !spec_.layers[index].flags.dontupdate};
        const auto start = std::chrono::steady_clock::now();
        layers_[index]->backward(args);
        if (layerMilliseconds)
            (*layerMilliseconds)[index] =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
}

std::vector<bool> Net::layersReachingLoss() const
{
    const int count = int(spec_.layers.size());
    std::vector<bool> reaches(std::size_t(count), false);
    for (int i = count - 1; i >= 0; --i) {
        const LayerSpec& layer = spec_.layers[std::size_t(i)];
        bool reach = i == outputLayer() || layer.isLossOnly() || detectionHeadInfo(layer.config.get());
        // Consumers come later: the next layer (unless a route, which reads only its sources) and every
        // layer naming this one as a source.
        if (i + 1 < count && spec_.layers[std::size_t(i + 1)].type != "route")
            reach = reach || reaches[std::size_t(i + 1)];
        for (int j = i + 1; j < count && !reach; ++j)
            for (int source : spec_.layers[std::size_t(j)].sources)
                if (source == i && reaches[std::size_t(j)])
                    reach = true;
        reaches[std::size_t(i)] = reach;
    }
    return reaches;
}

std::vector<WeightArray> Net::weightArrays()
{
    std::vector<WeightArray> arrays;
    for (auto& layer : layers_)
        for (const WeightArray& array : layer->weightArrays())
            arrays.push_back(array);
    return arrays;
}

std::vector<Net::LayerParameters> Net::trainableParameters()
{
    std::vector<LayerParameters> result;
    const int first = firstTrainedLayer();
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        const LayerSpec& layer = spec_.layers[i];
        if (int(i) < first || layer.flags.dontupdate)
            continue;
        auto parameters = layers_[i]->parameters();
        if (!parameters.empty())
            result.push_back({int(i), layer.flags.learningRateScale, std::move(parameters)});
    }
    return result;
}

const Tensor& Net::run(const float* input, std::vector<double>* layerMilliseconds, ExecContext& context)
{
    const ComputeThreadScope threads(threads_);
    context.threads = threads.threads();
    std::memcpy(input_.data(), input, input_.size() * sizeof(float));
    context.workspace = workspace_.data();
    context.workspaceFloats = workspace_.size();
    context.netWidth = spec_.input.w;
    context.netHeight = spec_.input.h;
    std::vector<const Tensor*> sources;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        sources.clear();
        for (int source : spec_.layers[i].sources)
            sources.push_back(&outputs_[static_cast<std::size_t>(source)]);
        ForwardArgs args{i == 0 ? input_ : outputs_[i - 1], sources, outputs_[i], context};
        const auto start = std::chrono::steady_clock::now();
        layers_[i]->forward(args);
        if (layerMilliseconds)
            (*layerMilliseconds)[i] =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return output();
}

void Net::prepareAll()
{
    for (auto& layer : layers_)
        layer->prepare(header_);
}

void Net::initialize(unsigned seed)
{
    header_ = WeightsHeader{}; // new weights, in today's layout (not a transposed file's)
    std::mt19937 random(seed);
    for (auto& layer : layers_)
        layer->initialize(random);
    prepareAll();
}

std::optional<std::string> Net::loadWeights(const std::string& path, std::vector<std::string>* warnings,
                                            WeightsFit fit)
{
    if (auto reason = notAFileReason(path, "a .weights file"))
        return *reason;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return path + ": cannot open the weights file: " + std::strerror(errno);
    const auto fileSize = static_cast<std::size_t>(in.tellg());
    in.seekg(0);
    std::vector<char> headerBytes(std::min<std::size_t>(fileSize, 20));
    in.read(headerBytes.data(), std::streamsize(headerBytes.size()));
    WeightsHeader header;
    if (auto problem = parseWeightsHeader(headerBytes, header); !problem.empty())
        return path + ": " + problem;

    // Where every array sits in the file. A short file is refused before anything is read, so a
    // wrong or damaged file never leaves the net half-loaded.
    struct Placement {
        ParamArray* target;
        std::size_t offset;
        std::size_t layer;
        std::string array;
    };
    std::vector<Placement> placements;
    std::size_t offset = header.bytes();
    std::optional<std::size_t> endsBefore; // the file ends just before this layer's arrays
    for (std::size_t i = 0; i < layers_.size() && !endsBefore; ++i) {
        const LayerSpec& layer = spec_.layers[i];
        if (layer.flags.dontload)
            continue;
        bool firstArray = true;
        for (const WeightArray& array : layers_[i]->weightArrays()) {
            if (array.batchNormStatistic && layer.flags.dontloadscales)
                continue;
            const std::size_t need = array.data->size() * sizeof(float);
            if (fileSize < offset + need && firstArray && offset == fileSize && !placements.empty()) {
                endsBefore = i;
                break;
            }
            if (fileSize < offset + need)
                return path + ": the file ends inside layer " + std::to_string(i) + " [" + layer.type +
                       "] (line " + std::to_string(layer.line) + "), array '" + array.name + "': it needs " +
                       std::to_string(need) + " bytes at offset " + std::to_string(offset) + " but only " +
                       std::to_string(fileSize - offset) +
                       " are left. Do these weights belong to this cfg (same filters, classes and layer "
                       "order)?";
            placements.push_back({array.data, offset, i, array.name});
            offset += need;
            firstArray = false;
        }
    }
    if (endsBefore) {
        const std::string layers = std::to_string(*endsBefore);
        const LayerSpec& last = spec_.layers[placements.back().layer];
        const LayerSpec& next = spec_.layers[*endsBefore];
        const std::string what = "the file ends after layer " + std::to_string(last.index) + " [" +
                                 last.type + "]: it holds the weights of layers 0.." +
                                 std::to_string(last.index) + ", none of layer " + layers + " [" + next.type +
                                 "] (line " + std::to_string(next.line) + ") onwards";
        if (!fit.allowPrefix)
            return path + ": " + what +
                   ": a backbone to train from (as yolov4.conv.137), not weights for this whole network. "
                   "Train with it (the other layers start from random weights), or use weights trained "
                   "for this cfg";
        if (warnings)
            warnings->push_back(path + ": " + what + ": layers " + layers + " to " +
                                std::to_string(layers_.size() - 1) + " start from random weights");
    }
    // A longer file belongs to another (larger) network: its first part would load as nonsense
    // weights, so it is refused unless the caller asks for exactly that (Darknet's partial loads).
    if (offset != fileSize) {
        const std::string extra = std::to_string(fileSize - offset) + " bytes more than this network's " +
                                  std::to_string(offset) + " (header and weights)";
        if (!fit.allowExtra)
            return path + ": the file holds " + extra +
                   ": it belongs to a larger network (another cfg, or this one with more filters, classes or "
                   "layers). Use the weights trained for this cfg. To train this cfg from that network's "
                   "first layers (as people start their own classes from yolov4.weights), make a backbone "
                   "with netwright-cli partial on the network it belongs to (137 layers of yolov4, 29 of "
                   "yolov4-tiny) and start from it" +
                   (fit.allowExtraAdvice.empty() ? std::string() : "; " + fit.allowExtraAdvice);
        if (warnings)
            warnings->push_back(path + ": " + extra + " were ignored (--allow-extra)");
    }
    // Straight into the arrays (no second copy of the weights in memory): the sizes were checked
    // above, so only an I/O error can stop half-way, and the message says so.
    for (const Placement& placement : placements) {
        ParamArray& target = *placement.target;
        in.seekg(std::streamoff(placement.offset));
        in.read(reinterpret_cast<char*>(target.data()), std::streamsize(target.size() * sizeof(float)));
        if (!in)
            return path + ": read error at offset " + std::to_string(placement.offset) +
                   "; the weights are incomplete, load them again";
        const auto bad =
            std::count_if(target.begin(), target.end(), [](float v) { return !std::isfinite(v); });
        if (bad && warnings) {
            const LayerSpec& layer = spec_.layers[placement.layer];
            warnings->push_back(path + ": layer " + std::to_string(placement.layer) + " [" + layer.type +
                                "] (line " + std::to_string(layer.line) + "): " + std::to_string(bad) +
                                " of " + std::to_string(target.size()) + " values of '" + placement.array +
                                "' are NaN or infinite (saved from a diverged run?): outputs will be NaN");
        }
    }
    header_ = header;
    prepareAll();
    return std::nullopt;
}

std::optional<std::string> Net::saveWeights(const std::string& path, int layers) const
{
    WeightsHeader header = header_;
    const std::size_t count = layers < 0 ? layers_.size() : std::min(layers_.size(), std::size_t(layers));
    if (layers >= 0)
        header.seen = 0; // a backbone starts a new run
    std::vector<char> bytes = encodeWeightsHeader(header);
    std::size_t floats = 0; // reserved first: grown by doubling, yolov4's 256 MB was copied twice over
    for (std::size_t i = 0; i < count; ++i)
        for (const WeightArray& array : layers_[i]->weightArrays())
            floats += array.data->size();
    bytes.reserve(bytes.size() + floats * sizeof(float));
    for (std::size_t i = 0; i < count; ++i)
        for (const WeightArray& array : layers_[i]->weightArrays()) {
            const auto* begin = reinterpret_cast<const char*>(array.data->data());
            bytes.insert(bytes.end(), begin, begin + array.data->size() * sizeof(float));
        }
    return writeFileAtomically(path, std::string_view(bytes.data(), bytes.size()));
}

} // namespace nw
