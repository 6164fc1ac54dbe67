#include "runtime/gpu_net.h"

#include "backend/cuda/cuda_check.h"
#include "graph/activation_plan.h"
#include "util/memory_info.h"

#include <new>

namespace nw {

namespace {

std::string layerName(const LayerSpec& layer)
{
    return "layer " + std::to_string(layer.index) + " [" + layer.type + "] (line " +
           std::to_string(layer.line) + ")";
}

// What layer `index` of `spec`, with its runtime `layer`, lacks on a GPU: each list holds its name or
// nothing.
// `firstTrained`: Net::firstTrainedLayer(spec), found once by the caller (per layer it made summary
// quadratic in the layer count: 160,000 layers took 77 s).
GpuCoverage coverageOf(const NetworkSpec& spec, int index, RuntimeLayer& layer, int firstTrained)
{
    GpuCoverage coverage;
    const LayerSpec& described = spec.layers[std::size_t(index)];
    std::vector<Shape> sources;
    for (int source : described.sources)
        sources.push_back(spec.layers[std::size_t(source)].output);
    const bool forward = layer.hasGpuForward(sources);
    if (!forward)
        coverage.inferenceMissing.push_back(layerName(described));
    // Training: layers before the first trained one train as no one; those that train nowhere are
    // refused by Net::setTraining first, on either device, so they are not a GPU gap. Frozen layers
    // still need a GPU training pass (batch statistics).
    const bool untrainable = index >= firstTrained && !layer.canTrain();
    if (untrainable)
        coverage.untrainable.push_back(layerName(described));
    else if (!(forward && layer.hasGpuBackward(sources)))
        coverage.trainingMissing.push_back(layerName(described));
    return coverage;
}

void add(GpuCoverage& all, const GpuCoverage& one)
{
    for (auto [to, from] : {std::pair{&all.inferenceMissing, &one.inferenceMissing},
                            {&all.trainingMissing, &one.trainingMissing},
                            {&all.untrainable, &one.untrainable}})
        to->insert(to->end(), from->begin(), from->end());
}

GpuCoverage coverageOf(Net& net)
{
    GpuCoverage coverage;
    const int firstTrained = net.firstTrainedLayer();
    for (const LayerSpec& layer : net.spec().layers)
        add(coverage, coverageOf(net.spec(), layer.index, net.runtimeLayer(layer.index), firstTrained));
    return coverage;
}

} // namespace

GpuCoverage GpuNet::coverage(const NetworkSpec& spec)
{
    GpuCoverage unchecked;
    unchecked.cudaBuilt = true;
    // One layer's runtime at a time, so memory peaks at the largest layer, not at the network; none
    // when the weights would not fit this machine at all (Net::create refuses it): no minutes of
    // allocating.
    if (memoryShortfall(double(spec.totalParams) * sizeof(float), "weights", ""))
        return unchecked;
    GpuCoverage coverage = unchecked;
    const int firstTrained = Net::firstTrainedLayer(spec);
    try {
        for (const LayerSpec& layer : spec.layers) {
            const auto runtime = layer.config ? layer.config->createRuntime(layer) : nullptr;
            if (!runtime)
                return unchecked;
            add(coverage, coverageOf(spec, layer.index, *runtime, firstTrained));
        }
    } catch (const std::bad_alloc&) { // a layer too large for this machine
        return unchecked;
    }
    coverage.checked = true;
    return coverage;
}

std::vector<std::string> GpuNet::layersWithoutGpu(Net& net)
{
    return coverageOf(net).inferenceMissing;
}

std::vector<std::string> GpuNet::layersWithoutGpuTraining(Net& net)
{
    return coverageOf(net).trainingMissing;
}

std::vector<std::string> GpuNet::layersThatCannotTrain(Net& net)
{
    return coverageOf(net).untrainable;
}

GpuNet::GpuNet(Net& net, int device)
    : net_(net), generation_(net.generation()), batch_(net.batch()), inputShape_(net.inputShape()),
      parameterCount_(net.parameterValues().size()), exec_(std::make_unique<GpuExec>(device))
{
    results_ = outputsKeptAfterInference(net.spec()); // the spec is fixed for this copy
    const NetworkSpec& spec = net.spec();
    const auto batch = std::size_t(net.batch());
    input_.resize(std::size_t(spec.input.size) * batch);
    outputs_.reserve(spec.layers.size());
    for (const LayerSpec& layer : spec.layers)
        outputs_.emplace_back(std::size_t(layer.output.size) * batch);
    refreshParameters();
}

void GpuNet::checkNetUnchanged() const
{
    const Shape input = net_.inputShape();
    if (net_.generation() != generation_ || net_.batch() != batch_ ||
        net_.parameterValues().size() != parameterCount_ || input.w != inputShape_.w ||
        input.h != inputShape_.h || input.c != inputShape_.c)
        throw GpuError("the network was rebuilt (batch or size) after its GPU copy was made: make a new one");
}

namespace {

// "a.cfg: layer 1 [convolutional] (line 18) has no GPU version yet (and 2 more layers); run it on the CPU".
std::string missingMessage(const Net& net, const std::vector<std::string>& missing, const char* problem,
                           const char* advice)
{
    std::string message = net.spec().file + ": " + missing.front() + problem;
    if (missing.size() > 1)
        message += " (and " + std::to_string(missing.size() - 1) +
                   (missing.size() == 2 ? " more layer)" : " more layers)");
    return message + "; " + advice;
}

} // namespace

std::optional<std::string> GpuNet::trainingProblem(Net& net)
{
    const auto missing = layersWithoutGpuTraining(net);
    if (missing.empty())
        return std::nullopt;
    return missingMessage(net, missing, " cannot train on the GPU yet", "train on the CPU (--device cpu)");
}

std::unique_ptr<GpuNet> GpuNet::create(Net& net, int device, std::string& error)
{
    if (const auto missing = layersWithoutGpu(net); !missing.empty()) {
        error = missingMessage(net, missing, " has no GPU version yet", "run it on the CPU (--device cpu)");
        return nullptr;
    }
    try {
        return std::unique_ptr<GpuNet>(new GpuNet(net, device));
    } catch (const GpuError& e) {
        error = std::string("cuda:") + std::to_string(device) + ": " + e.what();
        return nullptr;
    }
}

void GpuNet::refreshParameters()
{
    checkNetUnchanged();
    exec_->makeCurrent();
    exec_->mirrorParameters(net_.parameterValues());
    exec_->synchronize();
}

GpuNet::~GpuNet()
{
    cudaSetDevice(exec_->device()); // the buffers and handles are freed on their own device
    dropGraph();
}

void GpuNet::forward(const float* input, bool syncEachLayer)
{
    if (syncEachLayer || !graphs_) {
        run(input, nullptr, syncEachLayer);
        return;
    }
    checkNetUnchanged();
    exec_->makeCurrent();
    // The upload stays outside the graph: a copy from pageable host memory cannot be captured.
    input_.upload({input, input_.size()}, exec_->stream());
    if ((graph_ || captureTried_) && (graphWorkspace_ != exec_->workspaceGeneration() ||
                                      graphParameters_ != exec_->parameterGeneration())) {
        // The workspace it writes was reallocated (a training pass grew it), or new weights came whose
        // half copies the captured passes did not convert: capture anew.
        recaptureGraph();
    }
    if (!graph_ && !captureTried_ && ++passesBeforeGraph_ > 2) // cuDNN has measured, the workspace is sized
        capture();
    if (graph_ && cudaGraphLaunch(graph_, exec_->stream()) != cudaSuccess) {
        cudaGetLastError();
        dropGraph(); // the layers run one by one from now on
    }
    if (!graph_)
        runLayers(input_.data(), nullptr, false);
    exec_->synchronize();
}

void GpuNet::capture()
{
    // Once: a failed capture is tried again only after the workspace or the weights change (what
    // failed may have been a reallocation during it).
    captureTried_ = true;
    graphWorkspace_ = exec_->workspaceGeneration();
    graphParameters_ = exec_->parameterGeneration();
    const NetworkSpec& spec = net_.spec();
    for (const LayerSpec& layer : spec.layers)
        if (!net_.runtimeLayer(layer.index).gpuForwardCapturable())
            return; // a layer that waits for the host (a head run on the CPU) cannot be replayed
    const cudaStream_t stream = exec_->stream();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError(); // clear it: the layers then run one by one
        return;
    }
    std::exception_ptr failure;
    try {
        runLayers(input_.data(), nullptr, false);
    } catch (...) { // the capture is ended whatever happened, or the stream stays unusable
        failure = std::current_exception();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    cudaGraphExec_t instance = nullptr;
    if (!failure && ended == cudaSuccess && graph &&
        cudaGraphInstantiate(&instance, graph, 0) == cudaSuccess) {
        graph_ = instance;
        graphWorkspace_ = exec_->workspaceGeneration();
        graphParameters_ = exec_->parameterGeneration();
    }
    if (graph)
        cudaGraphDestroy(graph);
    cudaGetLastError();
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const GpuError&) {
            // something in a layer cannot be captured: the layers run one by one
        }
    }
}

void GpuNet::recaptureGraph()
{
    dropGraph();
    captureTried_ = false;
    passesBeforeGraph_ = 0;
}

void GpuNet::dropGraph()
{
    if (graph_)
        cudaGraphExecDestroy(graph_);
    graph_ = nullptr;
}

void GpuNet::run(const float* input, ExecContext* training, bool syncEachLayer)
{
    checkNetUnchanged();
    exec_->makeCurrent();
    const float* deviceInput = input_.data();
    if (training) // into one of two buffers, on the upload stream (the last backward may still run)
        deviceInput = trainingInput_ = stager_.stage(*exec_, input, input_.size());
    else
        input_.upload({input, input_.size()}, exec_->stream());
    runLayers(deviceInput, training, syncEachLayer);
    exec_->synchronize();
}

void GpuNet::runLayers(const float* input, ExecContext* training, bool syncEachLayer)
{
    const NetworkSpec& spec = net_.spec();
    const int batch = net_.batch();
    std::vector<const float*> sources;
    std::vector<std::size_t> sourceSizes;
    std::vector<Shape> sourceShapes;
    for (const LayerSpec& layer : spec.layers) {
        const auto i = std::size_t(layer.index);
        sources.clear();
        sourceSizes.clear();
        sourceShapes.clear();
        for (int source : layer.sources) {
            sources.push_back(outputs_[std::size_t(source)].data());
            sourceSizes.push_back(std::size_t(spec.layers[std::size_t(source)].output.size));
            sourceShapes.push_back(spec.layers[std::size_t(source)].output);
        }
        const bool first = i == 0;
        GpuForwardArgs args{first ? input : outputs_[i - 1].data(),
                            std::size_t(first ? spec.input.size : spec.layers[i - 1].output.size),
                            sources,
                            sourceSizes,
                            sourceShapes,
                            outputs_[i].data(),
                            std::size_t(layer.output.size),
                            batch,
                            *exec_,
                            training};
        try {
            net_.runtimeLayer(layer.index).forwardGpu(args);
            if (syncEachLayer)
                exec_->synchronize();
        } catch (const GpuError& e) {
            throw GpuError(layerName(layer) + ": " + e.what());
        }
    }
}

void GpuNet::setHalfPrecision(bool on)
{
    if (on && !deltas_.empty())
        throw GpuError("FP16 is for inference: this network is training on the GPU in FP32");
    if (on == exec_->halfPrecision())
        return;
    exec_->setHalfPrecision(on);
    recaptureGraph(); // the captured convolutions ran at the other precision
}

void GpuNet::setTensorFloat32(bool on)
{
    if (on && !deltas_.empty())
        throw GpuError("TF32 is for inference: this network is training on the GPU in exact FP32");
    if (on == exec_->tensorFloat32())
        return;
    exec_->setTensorFloat32(on);
    recaptureGraph();
}

void GpuNet::startTraining()
{
    checkNetUnchanged();
    if (exec_->halfPrecision() || exec_->tensorFloat32())
        throw GpuError(std::string(exec_->halfPrecision() ? "FP16" : "TF32") +
                       " is for inference: switch it off before training on the GPU");
    if (!net_.training())
        throw GpuError("internal error: GPU training needs the network in training mode first");
    if (auto problem = trainingProblem(net_))
        throw GpuError(*problem);
    exec_->makeCurrent();
    exec_->mirrorGradients(net_.parameterGradients());
    const auto batch = std::size_t(batch_);
    deltas_.clear();
    deltas_.reserve(outputs_.size());
    for (const LayerSpec& layer : net_.spec().layers)
        deltas_.emplace_back(std::size_t(layer.output.size) * batch);
    reachesLoss_ = net_.layersReachingLoss();
    exec_->synchronize();
}

double GpuNet::forwardTraining(const float* input, const float* truth, std::mt19937& random)
{
    if (deltas_.size() != outputs_.size())
        throw GpuError("internal error: forwardTraining before startTraining");
    exec_->makeCurrent();
    for (DeviceBuffer& delta : deltas_)
        delta.zero(exec_->stream());
    ExecContext context;
    context.training = true;
    context.truth = truth;
    context.truthStride = net_.truthFloats();
    context.netWidth = inputShape_.w;
    context.netHeight = inputShape_.h;
    context.seen = net_.seen();
    context.random = &random;
    headStats_.clear();
    context.heads = &headStats_;
    run(input, &context, false);
    return context.meanLoss();
}

void GpuNet::backward()
{
    checkNetUnchanged();
    if (deltas_.size() != outputs_.size())
        throw GpuError("internal error: backward before startTraining");
    exec_->makeCurrent();
    const NetworkSpec& spec = net_.spec();
    const int first = net_.firstTrainedLayer();
    std::vector<const float*> sources;
    std::vector<float*> sourceDeltas;
    std::vector<std::size_t> sourceSizes;
    std::vector<Shape> sourceShapes;
    for (int i = int(spec.layers.size()) - 1; i >= first; --i) {
        const auto index = std::size_t(i);
        if (!reachesLoss_[index]) // as on the CPU: its output feeds no loss
            continue;
        const LayerSpec& layer = spec.layers[index];
        sources.clear();
        sourceDeltas.clear();
        sourceSizes.clear();
        sourceShapes.clear();
        for (int source : layer.sources) {
            sources.push_back(outputs_[std::size_t(source)].data());
            sourceDeltas.push_back(source >= first ? deltas_[std::size_t(source)].data() : nullptr);
            sourceSizes.push_back(std::size_t(spec.layers[std::size_t(source)].output.size));
            sourceShapes.push_back(spec.layers[std::size_t(source)].output);
        }
        GpuBackwardArgs args{index == 0 ? trainingInput_ : outputs_[index - 1].data(),
                             i > first ? deltas_[index - 1].data() : nullptr,
                             sources,
                             sourceDeltas,
                             sourceSizes,
                             sourceShapes,
                             outputs_[index].data(),
                             deltas_[index].data(),
                             std::size_t(index == 0 ? spec.input.size : spec.layers[index - 1].output.size),
                             std::size_t(layer.output.size),
                             batch_,
                             !layer.flags.dontupdate,
                             *exec_};
        try {
            net_.runtimeLayer(i).backwardGpu(args);
        } catch (const GpuError& e) {
            throw GpuError(layerName(layer) + ": " + e.what());
        }
    }
    // Not waited for: the solver's step queues behind it, and the next batch's upload (InputStager)
    // runs meanwhile. A fault surfaces at the next synchronize (the next pass, or a download).
}

void GpuNet::downloadParameters()
{
    checkNetUnchanged();
    exec_->makeCurrent();
    exec_->downloadParameters(net_.parameterValues());
}

void GpuNet::downloadGradients()
{
    exec_->makeCurrent();
    exec_->downloadGradients(net_.parameterGradients());
}

void GpuNet::forwardToHost(const float* input, bool resultsOnly)
{
    forward(input);
    for (const LayerSpec& layer : net_.spec().layers)
        if (resultsOnly ? bool(results_[std::size_t(layer.index)]) : net_.outputKept(layer.index)) {
            Tensor& host = net_.outputStorage(layer.index);
            outputs_[std::size_t(layer.index)].download(host.span(), exec_->stream());
        }
    exec_->synchronize();
}

std::vector<float> GpuNet::output(int layer) const
{
    exec_->makeCurrent();
    const DeviceBuffer& buffer = outputs_[std::size_t(layer)];
    std::vector<float> host(buffer.size());
    buffer.download(host, exec_->stream());
    exec_->synchronize();
    return host;
}

std::size_t GpuNet::deviceBytes() const
{
    std::size_t floats =
        input_.size() + stager_.deviceBytes() / sizeof(float) + net_.parameterValues().size();
    for (const DeviceBuffer& buffer : outputs_)
        floats += buffer.size();
    for (const DeviceBuffer& buffer : deltas_)
        floats += buffer.size();
    return (floats + exec_->deviceGradients().size()) * sizeof(float) + exec_->workspaceBytes() +
           exec_->cublasWorkspaceBytes() + exec_->halfBytes();
}

} // namespace nw
