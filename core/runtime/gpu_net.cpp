#include "runtime/gpu_net.h"

#include "backend/cuda/cuda_check.h"

namespace nw {

namespace {

std::string layerName(const LayerSpec& layer)
{
    return "layer " + std::to_string(layer.index) + " [" + layer.type + "] (line " +
           std::to_string(layer.line) + ")";
}

} // namespace

std::vector<std::string> GpuNet::layersWithoutGpu(Net& net)
{
    std::vector<std::string> missing;
    const NetworkSpec& spec = net.spec();
    std::vector<Shape> sources;
    for (const LayerSpec& layer : spec.layers) {
        sources.clear();
        for (int source : layer.sources)
            sources.push_back(spec.layers[std::size_t(source)].output);
        if (!net.runtimeLayer(layer.index).hasGpuForward(sources))
            missing.push_back(layerName(layer));
    }
    return missing;
}

GpuNet::GpuNet(Net& net, int device)
    : net_(net), batch_(net.batch()), parameterCount_(net.parameterValues().size()),
      exec_(std::make_unique<GpuExec>(device))
{
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
    if (net_.batch() != batch_ || net_.parameterValues().size() != parameterCount_)
        throw GpuError("the network was rebuilt (batch or size) after its GPU copy was made: make a new one");
}

std::unique_ptr<GpuNet> GpuNet::create(Net& net, int device, std::string& error)
{
    if (const auto missing = layersWithoutGpu(net); !missing.empty()) {
        error = net.spec().file + ": " + missing.front() + " has no GPU version yet";
        if (missing.size() > 1)
            error += " (and " + std::to_string(missing.size() - 1) + " more layers)";
        error += "; run it on the CPU (--device cpu)";
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

void GpuNet::forward(const float* input, bool syncEachLayer)
{
    checkNetUnchanged();
    exec_->makeCurrent();
    const NetworkSpec& spec = net_.spec();
    const int batch = net_.batch();
    input_.upload({input, input_.size()}, exec_->stream());
    std::vector<const float*> sources;
    std::vector<std::size_t> sourceSizes;
    for (const LayerSpec& layer : spec.layers) {
        const auto i = std::size_t(layer.index);
        sources.clear();
        sourceSizes.clear();
        for (int source : layer.sources) {
            sources.push_back(outputs_[std::size_t(source)].data());
            sourceSizes.push_back(std::size_t(spec.layers[std::size_t(source)].output.size));
        }
        const bool first = i == 0;
        GpuForwardArgs args{first ? input_.data() : outputs_[i - 1].data(),
                            std::size_t(first ? spec.input.size : spec.layers[i - 1].output.size),
                            sources,
                            sourceSizes,
                            outputs_[i].data(),
                            std::size_t(layer.output.size),
                            batch,
                            *exec_};
        try {
            net_.runtimeLayer(layer.index).forwardGpu(args);
            if (syncEachLayer)
                exec_->synchronize();
        } catch (const GpuError& e) {
            throw GpuError(layerName(layer) + ": " + e.what());
        }
    }
    exec_->synchronize();
}

void GpuNet::forwardToHost(const float* input)
{
    forward(input);
    for (const LayerSpec& layer : net_.spec().layers)
        if (net_.outputKept(layer.index)) {
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
    std::size_t floats = input_.size() + net_.parameterValues().size();
    for (const DeviceBuffer& buffer : outputs_)
        floats += buffer.size();
    return floats * sizeof(float) + exec_->workspaceBytes();
}

} // namespace nw
