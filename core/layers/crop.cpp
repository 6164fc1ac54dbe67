#include "layers/crop.h"

#include "graph/layer_spec.h"
#include "kernels/cuda/index_maps.h"
#include "runtime/layer_runtime.h"

#include <algorithm>
#include <random>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/gpu_exec.h"
#include "kernels/cuda/training_kernels.h"
#endif

namespace nw {

std::unique_ptr<LayerConfig> CropLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<CropLayer>();
    l->cropHeight = r.getInt("crop_height", 1);
    l->cropWidth = r.getInt("crop_width", 1);
    l->flip = r.getFlag("flip", false);
    l->angle = r.getFloat("angle", 0);
    l->saturation = r.getFloat("saturation", 1);
    l->exposure = r.getFloat("exposure", 1);
    l->shift = r.getFloat("shift", 0);
    l->noadjust = r.getFlag("noadjust", false);
    if (l->cropHeight < 1 || l->cropWidth < 1)
        r.error("crop_width", "crop_width and crop_height must be at least 1");
    return l;
}

LayerResult CropLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (cropWidth < 1 || cropHeight < 1 || !ctx.requireImage("crop"))
        return result;
    const Shape& in = ctx.input();
    if (cropWidth > in.w || cropHeight > in.h) { // Darknet would read outside the image
        ctx.error("the crop " + std::to_string(cropWidth) + "x" + std::to_string(cropHeight) +
                      " is larger than the " + in.text() +
                      " input: make crop_width and crop_height at most the input's width and height",
                  cropWidth > in.w ? "crop_width" : "crop_height");
        return result;
    }
    result.output = Shape::image(cropWidth, cropHeight, in.c);
    return result;
}

namespace {

// Inference: the centred crop, mapped to [-1, 1] (2x − 1) unless noadjust=1.
class CropRuntime final : public RuntimeLayer {
public:
    CropRuntime(const CropLayer& config, const Shape& in, const Shape& out)
        : config_(config), in_(in), out_(out)
    {
    }
    void forward(ForwardArgs& args) override
    {
        const float scale = valueScale(), shift = valueShift();
        place(args.output.batch(), args.context.training ? args.context.random : nullptr);
        for (int b = 0; b < args.output.batch(); ++b) {
            float* out = args.output.item(b);
            const float* in = args.input.item(b);
            forEachPixel(placements_[std::size_t(b)],
                         [&](std::size_t o, std::size_t i) { out[o] = in[i] * scale + shift; });
        }
    }

    bool canTrain() const override { return true; }

    void backward(BackwardArgs& args) override
    {
        if (!args.inputDelta)
            return;
        const float scale = valueScale();
        for (int b = 0; b < args.output.batch(); ++b) {
            const float* delta = args.outputDelta.item(b);
            float* in = args.inputDelta->item(b);
            forEachPixel(placements_[std::size_t(b)],
                         [&](std::size_t o, std::size_t i) { in[i] += scale * delta[o]; });
        }
    }

#if NETWRIGHT_WITH_CUDA
    // The same windows (drawn on the host from the same random stream while training), uploaded when
    // they change: at inference the centre, once, into a buffer of its own, so a CUDA graph captured at
    // inference (validation during a GPU run) never reads a training pass's random windows.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        return true;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        const float scale = valueScale(), shift = valueShift();
        place(args.batch, args.training ? args.training->random : nullptr);
        GpuPlacements& placements = args.training ? gpuTraining_ : gpuCentre_;
        placements.upload(placements_, args.gpu);
        cuda::crop(args.input, args.output, args.batch, args.inputItemSize, args.outputItemSize, map(),
                   placements.device(), scale, shift, args.gpu.stream());
    }
    bool hasGpuBackward(std::span<const Shape>) const override
    {
        return true;
    }
    void backwardGpu(GpuBackwardArgs& args) override
    {
        if (args.inputDelta)
            cuda::cropBackward(args.outputDelta, args.inputDelta, args.batch, args.inputItemSize,
                               args.outputItemSize, map(), gpuTraining_.device(), valueScale(),
                               args.gpu.stream());
    }
    // Windows on the device, uploaded only when they differ from the last upload.
    class GpuPlacements {
    public:
        void upload(const std::vector<cuda::CropPlacement>& placements, GpuExec& gpu)
        {
            static_assert(sizeof(cuda::CropPlacement) % sizeof(float) == 0);
            const std::size_t floats = placements.size() * sizeof(cuda::CropPlacement) / sizeof(float);
            const auto same = [](const cuda::CropPlacement& a, const cuda::CropPlacement& b) {
                return a.dx == b.dx && a.dy == b.dy && a.flip == b.flip;
            };
            if (buffer_.size() == floats && uploaded_.size() == placements.size() &&
                std::equal(placements.begin(), placements.end(), uploaded_.begin(), same))
                return;
            buffer_.resize(floats);
            gpu.copyToDevice({reinterpret_cast<const float*>(placements.data()), floats}, buffer_.data());
            uploaded_ = placements;
        }
        const cuda::CropPlacement* device() { return buffer_.as<cuda::CropPlacement>(); }

    private:
        DeviceBuffer buffer_;
        std::vector<cuda::CropPlacement> uploaded_;
    };
    GpuPlacements gpuTraining_, gpuCentre_;
#endif

private:
    // Values mapped to [-1, 1] (2x − 1) unless noadjust=1.
    float valueScale() const
    {
        return config_.noadjust ? 1.0f : 2.0f;
    }
    float valueShift() const
    {
        return config_.noadjust ? 0.0f : -1.0f;
    }
    cuda::CropMap map() const
    {
        return {in_.w, in_.h, out_.w, out_.h};
    }

    // Each item's window: the centre at test time; while training a random one (and a random flip
    // with flip=1), as Darknet's forward_crop_layer (its colour jitter is left out).
    void place(int batch, std::mt19937* random)
    {
        placements_.assign(std::size_t(batch), {(in_.w - out_.w) / 2, (in_.h - out_.h) / 2, false});
        if (random)
            for (cuda::CropPlacement& p : placements_) {
                p.dx = int((*random)() % std::uint32_t(in_.w - out_.w + 1));
                p.dy = int((*random)() % std::uint32_t(in_.h - out_.h + 1));
                p.flip = config_.flip && (*random)() % 2;
            }
    }
    // visit(output index, input index) for every output value of one image.
    template <typename Visit> void forEachPixel(const cuda::CropPlacement& p, Visit visit) const
    {
        const cuda::CropMap m = map();
        const std::size_t n = std::size_t(out_.w) * std::size_t(out_.h) * std::size_t(out_.c);
        for (std::size_t o = 0; o < n; ++o)
            visit(o, cuda::cropSource(o, m, p));
    }

    std::vector<cuda::CropPlacement> placements_;
    const CropLayer config_;
    Shape in_, out_;
};

} // namespace

std::unique_ptr<RuntimeLayer> CropLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<CropRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
