#include "layers/convolutional.h"

#include "graph/layer_spec.h"
#include "kernels/cpu/batchnorm.h"
#include "kernels/cpu/bias_activation.h"
#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/conv_tiled.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/im2col.h"
#include "kernels/cpu/winograd_convolution.h"
#include "runtime/layer_runtime.h"
#include "runtime/weights_file.h"
#include "util/uniform_float.h"

#include <algorithm>
#include <cmath>
#include <omp.h>

#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cudnn_convolution.h"
#include "backend/cuda/gpu_exec.h"
#include "backend/cuda/gpu_output_training.h"
#include "kernels/cuda/inference_kernels.h"
#endif

namespace nw {

namespace {
// A dilated window must stay within the largest side an image may have (1048576): im2col's offsets are ints.
bool dilatedWindowFits(int dilation, int size)
{
    return dilation <= 1 || std::int64_t(dilation) * (size - 1) <= (std::int64_t(1) << 20);
}
} // namespace

std::unique_ptr<LayerConfig> ConvolutionalLayer::parse(cfg::SectionReader& r)
{
    auto l = std::make_unique<ConvolutionalLayer>();
    l->filters = r.getInt("filters", 1);
    l->size = r.getInt("size", 1);
    const int stride = r.getInt("stride", 1);
    l->strideX = r.getInt("stride_x", stride);
    l->strideY = r.getInt("stride_y", stride);
    const int pad = r.getInt("pad", 0);
    l->padding = r.getInt("padding", 0);
    if (pad)
        l->padding = l->size / 2;
    l->groups = r.getInt("groups", 1);
    // (read whatever the size, as AlexeyAB does: the editor lists the keys read from an empty section,
    // whose size is 1, and dilation was missing there)
    const int dilation = r.getInt("dilation", 1);
    l->dilation = l->size == 1 ? 1 : dilation;
    l->activation = readActivation(r, "logistic");
    l->batchNormalize = r.getFlag("batch_normalize", false);
    l->binary = r.getFlag("binary", false);
    l->xnor = r.getFlag("xnor", false);
    if (l->binary || l->xnor) // (read, and applied in silence by nothing: said, as AlexeyAB's keys are)
        r.warning(l->xnor ? "xnor" : "binary",
                  std::string(l->xnor ? "xnor=1 (XNOR-Net: weights and inputs binarised)"
                                      : "binary=1 (weights binarised)") +
                      " is not implemented: this convolution computes in full precision, so its outputs "
                      "differ from Darknet's" +
                      (l->xnor ? " (pjreddie's applies it on the CPU and on a GPU)"
                               : " (pjreddie's on a GPU: its CPU ignores binary=1)"));
    l->flipped = r.getFlag("flipped", false);
    r.accept({"dot", "cbn", "grad_centr", "stream", "wait_stream", "bin_output"});
    r.warnUnimplemented(
        {"antialiasing", "sway", "rotate", "stretch", "stretch_sway", "coordconv"},
        "this convolution computes without it, so its outputs differ from AlexeyAB's Darknet");
    r.accept({"share_index"});
    if (r.has("share_index")) // any value: 0 shares layer 0's weights
        r.error("share_index",
                "share_index (AlexeyAB's: this layer uses another layer's weights, and its own "
                "are left out of the .weights file) is not supported: remove it to give the "
                "layer weights of its own (then train them, or use weights made for that cfg)");
    if (l->filters < 1)
        r.error("filters", "filters must be at least 1 (found " + std::to_string(l->filters) + ")");
    if (l->size < 1)
        r.error("size", "size must be at least 1 (found " + std::to_string(l->size) + ")");
    // (stride_x=0 was blamed on a stride=1 line)
    const std::string_view xKey = r.writtenKey("stride_x", "stride"),
                           yKey = r.writtenKey("stride_y", "stride");
    r.requirePositive({{xKey, l->strideX}});
    if (yKey != xKey || l->strideX >= 1)
        r.requirePositive({{yKey, l->strideY}});
    if (l->groups < 1)
        r.error("groups", "groups must be at least 1 (found " + std::to_string(l->groups) + ")");
    if (l->padding < 0 && l->size >= 1) // (pad=1 derives it from a negative size: that one error is enough)
        r.error("padding", "padding must not be negative");
    if (l->dilation < 1)
        r.error("dilation", "dilation must be at least 1 (found " + std::to_string(l->dilation) + ")");
    else if (!dilatedWindowFits(l->dilation, l->size))
        r.error("dilation", "dilation=" + std::to_string(l->dilation) + " spreads the " +
                                std::to_string(l->size) + "x" + std::to_string(l->size) +
                                " window over more than 1048576 pixels, past any image's side");
    return l;
}

LayerResult ConvolutionalLayer::infer(LayerContext& ctx) const
{
    LayerResult result;
    if (filters < 1 || size < 1 || strideX < 1 || strideY < 1 || groups < 1 || dilation < 1 ||
        !dilatedWindowFits(dilation, size) || !ctx.requireImage("convolutional"))
        return result;
    const Shape& in = ctx.input();
    if (in.c % groups != 0 || filters % groups != 0) {
        ctx.error("groups=" + std::to_string(groups) + " must divide both the input channels (" +
                      std::to_string(in.c) + ") and filters (" + std::to_string(filters) + ")",
                  "groups");
        return result;
    }
    const std::int64_t outW = windowOutput(in.w, 2 * std::int64_t(padding), size, strideX);
    const std::int64_t outH = windowOutput(in.h, 2 * std::int64_t(padding), size, strideY);
    if (!sideFits(ctx, outW, "padding") || !sideFits(ctx, outH, "padding"))
        return result;
    if (outW <= 0 || outH <= 0) {
        ctx.error("output would be " + std::to_string(outW) + "x" + std::to_string(outH) + ": the " +
                      in.text() + " input is smaller than the " + std::to_string(size) + "x" +
                      std::to_string(size) + " kernel",
                  "size");
        return result;
    }
    result.output = Shape::image(int(outW), int(outH), filters);
    // Darknet's printed formula, evaluated in the same order (c/groups as a double).
    result.costs.bflops = (2.0 * filters * size * size * in.c / groups * double(outH) * double(outW)) / 1e9;
    result.costs.params = saturatingSum({saturatingProduct({in.c / groups, filters, size, size}), filters});
    result.costs.workspaceBytes =
        saturatingProduct({outH, outW, size, size, in.c / groups, std::int64_t(sizeof(float))});
    return result;
}

namespace {

class ConvolutionalRuntime final : public RuntimeLayer {
public:
    ConvolutionalRuntime(const ConvolutionalLayer& config, const Shape& in, const Shape& out)
        : config_(config),
          activation_(activationFromName(config.activation)), geometry_{in.c / config.groups,
                                                                        in.h,
                                                                        in.w,
                                                                        config.size,
                                                                        config.strideX,
                                                                        config.strideY,
                                                                        config.padding * config.dilation,
                                                                        config.dilation,
                                                                        out.h,
                                                                        out.w},
          winograd_(geometry_, config.filters, !config.flipped && config.groups == 1),
          direct_(!config.flipped && directConvolutionPays(geometry_, config.groups))
    {
        const auto filters = static_cast<std::size_t>(config.filters);
        biases_.assign(filters, 0.0f);
        if (config.batchNormalize) {
            scales_.assign(filters, 1.0f);
            mean_.assign(filters, 0.0f);
            variance_.assign(filters, 1.0f);
        }
        weights_.assign(filters * perFilter(), 0.0f);
    }

    std::vector<WeightArray> weightArrays() override
    {
        std::vector<WeightArray> arrays{{"biases", &biases_, false}};
        if (config_.batchNormalize) {
            arrays.push_back({"scales", &scales_, true});
            arrays.push_back({"rolling_mean", &mean_, true});
            arrays.push_back({"rolling_variance", &variance_, true});
        }
        arrays.push_back({"weights", &weights_, false});
        return arrays;
    }

    void initialize(std::mt19937& random) override
    {
        // Darknet: scale = sqrt(2 / fan_in); we draw uniformly in ±scale·sqrt(3) (same variance).
        const float scale = std::sqrt(2.0f / float(perFilter())) * std::sqrt(3.0f);
        for (float& w : weights_)
            w = uniformFloat(random, -scale, scale);
        std::fill(biases_.begin(), biases_.end(), 0.0f);
    }

    void prepare(const WeightsHeader&) override
    {
        winograd_.weightsChanged();
        packedWeights_.clear();
        if (config_.flipped) { // stored as a [c·size²][filters] matrix
            const std::size_t rows = perFilter(), columns = std::size_t(config_.filters);
            packedWeights_.resize(weights_.size());
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < columns; ++c)
                    packedWeights_[c * rows + r] = weights_[r * columns + c];
        }
    }

    std::size_t workspaceFloats() const override
    {
        // Only inference uses the shared workspace (training keeps its own buffers): the kernel it runs.
        if (winograd_.servesForward())
            return winograd_.workspaceFloats();
        if (direct_)
            return directWorkspaceFloats(geometry_, config_.filters, maxComputeThreads());
        return convWorkspaceFloats(geometry_, config_.groups, config_.filters / config_.groups,
                                   maxComputeThreads());
    }

    void forward(ForwardArgs& args) override
    {
        if (args.context.training) {
            forwardTraining(args);
            return;
        }
        // Bias and batch norm become one per-filter scale and shift applied in the output pass
        // (computed per call: a few dozen square roots, and never stale while training).
        batchNormScaleShift(biases_, scales_, mean_, variance_, scale_, shift_);
        if (winograd_.servesForward()) {
            for (int b = 0; b < args.output.batch(); ++b)
                winograd_.forward(weights_, scale_.data(), shift_.data(), activation_, 1, args.input.item(b),
                                  args.output.item(b), args.context.workspace);
            return;
        }
        if (direct_) {
            const DirectKernel kernel{geometry_,     config_.filters, weights_.data(),    scale_.data(),
                                      shift_.data(), activation_,     maxComputeThreads()};
            for (int b = 0; b < args.output.batch(); ++b)
                convolveDirect(kernel, args.input.item(b), args.output.item(b), args.context.workspace);
            return;
        }
        const ConvKernel kernel{
            geometry_,       config_.groups,
            config_.filters, packedWeights_.empty() ? weights_.data() : packedWeights_.data(),
            scale_.data(),   shift_.data(),
            activation_,     maxComputeThreads()};
        for (int b = 0; b < args.output.batch(); ++b)
            convolveTiled(kernel, args.input.item(b), args.output.item(b), args.context.workspace);
    }

    bool canTrain() const override { return !config_.flipped; }

#if NETWRIGHT_WITH_CUDA
    // cuDNN's convolution, then bias or folded batch norm and the activation in one pass. Weights in
    // the old flipped layout would need a transposed copy on the device: not yet.
    bool hasGpuForward(std::span<const Shape>) const override
    {
        // cuDNN sizes a dilated window as dilation·(size − 1) + 1; Darknet's shape rule does not, so the
        // two agree only where the padding keeps the size (the usual case).
        const auto cudnnSide = [&](int in, int stride) {
            return (in + 2 * geometry_.pad - (geometry_.dilation * (config_.size - 1) + 1)) / stride + 1;
        };
        return !config_.flipped && cudnnSide(geometry_.height, config_.strideY) == geometry_.outHeight &&
               cudnnSide(geometry_.width, config_.strideX) == geometry_.outWidth;
    }
    void forwardGpu(GpuForwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        if (gpu.halfPrecision() && !args.training)
            forwardHalf(args);
        else if (gpu.tensorFloat32() && !args.training)
            cudnnTf32_.forward(gpu, cudnnShape(), args.batch, args.input, gpu.device(weights_), args.output);
        else
            cudnn_.forward(gpu, cudnnShape(), args.batch, args.input, gpu.device(weights_), args.output);
        gpuTraining_.apply(args, config_.filters, geometry_.outHeight * geometry_.outWidth,
                           config_.batchNormalize ? &scales_ : nullptr, biases_, mean_, variance_,
                           activation_);
    }

    // FP16 inference: the input and weights rounded to half, cuDNN on tensor cores, the output back
    // to FP32 for the bias or batch norm and the activation (the layers around stay FP32).
    void forwardHalf(GpuForwardArgs& args)
    {
        GpuExec& gpu = args.gpu;
        const std::size_t in = std::size_t(args.batch) * args.inputItemSize;
        const std::size_t out = std::size_t(args.batch) * args.outputItemSize;
        void* x = gpu.halfScratch(0, in);
        void* y = gpu.halfScratch(1, out);
        cuda::toHalf(args.input, x, in, gpu.stream());
        cudnnHalf_.forward(gpu, cudnnShape(), args.batch, x, gpu.halfCopy(weights_), y);
        cuda::toFloat(y, args.output, out, gpu.stream());
    }

    bool hasGpuBackward(std::span<const Shape> sources) const override
    {
        return hasGpuForward(sources);
    }
    // As the CPU's backward: the activation's derivative, batch norm's backward (or the bias sums), then
    // cuDNN's weight and input gradients, both added into their buffers.
    void backwardGpu(GpuBackwardArgs& args) override
    {
        GpuExec& gpu = args.gpu;
        if (!args.parameterGradients && !args.inputDelta)
            return; // dont_update at the front: nothing to pass on
        if (args.parameterGradients)
            parameters(); // sizes the gradient arrays (and marks Winograd's weights stale)
        gpuTraining_.backward(args, config_.filters, geometry_.outHeight * geometry_.outWidth,
                              config_.batchNormalize ? &scales_ : nullptr, scaleGradient_, biasGradient_,
                              activation_);
        const ConvolutionShape shape = cudnnShape();
        if (args.parameterGradients)
            cudnn_.backwardFilter(gpu, shape, args.batch, args.input, args.outputDelta,
                                  gpu.gradient(weightGradient_));
        if (args.inputDelta)
            cudnn_.backwardData(gpu, shape, args.batch, gpu.device(weights_), args.outputDelta,
                                args.inputDelta);
    }

    ConvolutionShape cudnnShape() const
    {
        return {geometry_.channels * config_.groups,
                geometry_.height,
                geometry_.width,
                config_.filters,
                config_.groups,
                config_.size,
                config_.strideX,
                config_.strideY,
                geometry_.pad,
                geometry_.dilation,
                geometry_.outHeight,
                geometry_.outWidth};
    }
#endif

    std::vector<Parameter> parameters() override
    {
        winograd_.weightsChanged(); // the caller may change the weights through these
        return biasScaleWeightParameters(biases_, biasGradient_, config_.batchNormalize ? &scales_ : nullptr,
                                         scaleGradient_, weights_, weightGradient_);
    }

    void backward(BackwardArgs& args) override
    {
        const bool gradients = args.parameterGradients; // false: dont_update, only the input's delta
        if (!gradients && !args.inputDelta)
            return;
        const int batch = args.output.batch(), filters = config_.filters;
        const int plane = geometry_.outHeight * geometry_.outWidth;
        float* delta = args.outputDelta.data();
        // A leaky or relu fused into the batch norm's forward pass is taken through by its backward.
        const bool rectifierInBatchNorm =
            config_.batchNormalize && (activation_ == Activation::Leaky || activation_ == Activation::Relu);
        if (!rectifierInBatchNorm)
            activationCache_.multiplyByGradient(args.output.data(), args.output.size(), activation_, delta);
        if (gradients)
            parameters(); // sizes the gradient arrays (and marks Winograd's weights stale: an update follows)
        if (config_.batchNormalize) {
            const FusedRectifier rectifier{rectifierInBatchNorm ? biases_.data() : nullptr,
                                           activation_ == Activation::Leaky ? 0.1f : 0.0f};
            batchNorm_.backward(delta, scales_.data(), batch, filters, plane,
                                gradients ? scaleGradient_.data() : nullptr,
                                gradients ? biasGradient_.data() : nullptr, rectifier);
        } else if (gradients) {
            for (int b = 0; b < batch; ++b)
                for (int f = 0; f < filters; ++f) {
                    const float* d = args.outputDelta.item(b) + std::size_t(f) * std::size_t(plane);
                    float sum = 0;
                    for (int i = 0; i < plane; ++i)
                        sum += d[i];
                    biasGradient_[std::size_t(f)] += sum;
                }
        }
        const int groups = config_.groups, perGroup = filters / groups, K = int(perFilter());
        const std::size_t inPlane = std::size_t(geometry_.height) * std::size_t(geometry_.width);
        const int chunk = chunkImages(batch);
        std::vector<ThreadScratch>& pool = scratchPool(args.context);
        // Chunks of images in parallel, as in the forward pass, each thread summing its own weight gradient.
        // The same images go to the same threads and their sums are added in thread order, so a run is
        // repeatable to the bit (dynamic chunks added as threads finished differed from run to run).
        int team = 1;
#pragma omp parallel
        {
            ThreadScratch& mine = scratch(pool, std::size_t(K) * std::size_t(plane) * std::size_t(chunk),
                                          std::size_t(perGroup) * std::size_t(plane) * std::size_t(chunk));
            std::vector<float>& columns = mine.columns;
            std::vector<float>& gathered = mine.other;
            std::vector<float>& local = mine.weightGradient;
            local.assign(gradients ? weights_.size() : 0, 0.0f);
#pragma omp single
            team = omp_get_num_threads();
            // Each thread an equal run of images (whole chunks unevenly shared left one thread waiting).
            const int thread = omp_get_thread_num(), threads = omp_get_num_threads();
            const int last = int(std::int64_t(batch) * (thread + 1) / threads);
            for (int b0 = int(std::int64_t(batch) * thread / threads); b0 < last; b0 += chunk) {
                const int n = std::min(chunk, last - b0);
                const long width = long(n) * plane;
                for (int g = 0; g < groups; ++g) {
                    for (int j = 0; j < n; ++j) {
                        if (gradients) // the unrolled input serves the weight gradient only
                            im2colStrided(args.input.item(b0 + j) +
                                              std::size_t(g) * std::size_t(geometry_.channels) * inPlane,
                                          geometry_, columns.data() + long(j) * plane, width);
                        for (int f = 0; f < perGroup; ++f)
                            std::copy_n(args.outputDelta.item(b0 + j) +
                                            std::size_t(g * perGroup + f) * std::size_t(plane),
                                        plane, gathered.data() + long(f) * width + long(j) * plane);
                    }
                    if (gradients)
                        gemm(false, true, perGroup, K, int(width), 1.0f, gathered.data(), int(width),
                             columns.data(), int(width), 1.0f,
                             local.data() + std::size_t(g * perGroup) * std::size_t(K), K);
                    if (!args.inputDelta || winograd_.servesInputGradient())
                        continue;
                    gemm(true, false, K, int(width), perGroup, 1.0f,
                         weights_.data() + std::size_t(g * perGroup) * std::size_t(K), K, gathered.data(),
                         int(width), 0.0f, columns.data(), int(width));
                    for (int j = 0; j < n; ++j)
                        col2imAddStrided(columns.data() + long(j) * plane, geometry_,
                                         args.inputDelta->item(b0 + j) +
                                             std::size_t(g) * std::size_t(geometry_.channels) * inPlane,
                                         width);
                }
            }
        }
        if (gradients)
            for (int t = 0; t < team; ++t)
                for (std::size_t i = 0; i < weightGradient_.size(); ++i)
                    weightGradient_[i] += pool[std::size_t(t)].weightGradient[i];
        if (args.inputDelta && winograd_.servesInputGradient())
            winograd_.addInputGradient(weights_, batch, args.outputDelta.data(), args.inputDelta->data());
    }

private:
    std::size_t perFilter() const
    {
        return std::size_t(geometry_.channels) * std::size_t(config_.size) * std::size_t(config_.size);
    }

    const ConvolutionalLayer config_;
    Activation activation_;
    ConvGeometry geometry_;
    ParamArray biases_, scales_, mean_, variance_, weights_; // as in the .weights file
    std::vector<float> packedWeights_;                       // only for flipped weights
    WinogradConvolution winograd_;                           // 3×3 stride-1 layers where it pays
    bool direct_;                      // inference through the direct kernel (few input channels)
    std::vector<float> scale_, shift_; // per filter, applied in the output pass
    // Training: −gradients, batch statistics and what the backward pass needs from the forward.
    ParamArray biasGradient_, scaleGradient_, weightGradient_;
    BatchNormTraining batchNorm_;
    ActivationCache activationCache_; // the pre-activation values where the derivative needs them
#if NETWRIGHT_WITH_CUDA
    CudnnConvolution cudnn_;                                        // descriptors and the measured algorithms
    CudnnConvolution cudnnHalf_{CudnnConvolution::Precision::fp16}; // FP16 inference
    CudnnConvolution cudnnTf32_{CudnnConvolution::Precision::tf32}; // TF32 inference
    GpuOutputTraining gpuTraining_; // batch statistics and what the GPU backward needs
#endif

    // Images per GEMM in training: enough columns for an efficient product, few enough to share the
    // batch among the threads and keep the unrolled block around a few MB.
    int chunkImages(int batch) const
    {
        const int plane = geometry_.outHeight * geometry_.outWidth;
        const int byColumns = std::max(1, 8192 / std::max(1, plane));
        const int bySize = std::max(1, int((4u << 20) / (sizeof(float) * perFilter() * std::size_t(plane))));
        const int byThreads = std::max(1, (batch + maxComputeThreads() - 1) / maxComputeThreads());
        return std::max(1, std::min({byColumns, bySize, byThreads}));
    }

    // Per-thread training buffers, kept between iterations (allocating megabytes per pass costs page
    // faults every time): the net's set, shared by its layers in turn (ExecContext::threadScratch), or
    // this layer's own in a pass run without one. Sized for the threads before the parallel region.
    std::vector<ThreadScratch> ownScratch_;
    std::vector<ThreadScratch>& scratchPool(ExecContext& context)
    {
        std::vector<ThreadScratch>& pool = context.threadScratch ? *context.threadScratch : ownScratch_;
        const auto threads = std::size_t(std::max(omp_get_max_threads(), maxComputeThreads()));
        if (pool.size() < threads)
            pool.resize(threads);
        return pool;
    }
    // This thread's buffers, grown to the sizes asked (inside the parallel region).
    static ThreadScratch& scratch(std::vector<ThreadScratch>& pool, std::size_t columns, std::size_t other)
    {
        ThreadScratch& mine = pool[std::size_t(omp_get_thread_num())];
        if (mine.columns.size() < columns)
            mine.columns.resize(columns);
        if (mine.other.size() < other)
            mine.other.resize(other);
        return mine;
    }

    void forwardTraining(ForwardArgs& args)
    {
        const int batch = args.output.batch(), filters = config_.filters;
        const int plane = geometry_.outHeight * geometry_.outWidth;
        const bool bn = config_.batchNormalize;
        // Activations whose derivative needs their input run after the fused passes, through the cache.
        const Activation fused = gradientFromOutput(activation_) ? activation_ : Activation::Linear;
        if (winograd_.servesForward())
            winograd_.forward(weights_, nullptr, bn ? nullptr : biases_.data(),
                              bn ? Activation::Linear : fused, batch, args.input.data(), args.output.data(),
                              nullptr);
        else
            forwardTrainingGemm(args, fused);
        if (bn) {
            batchNorm_.forward(args.output.data(), batch, filters, plane, scales_.data(), biases_.data(),
                               mean_.data(), variance_.data(), fused);
        }
        if (fused != activation_)
            activationCache_.activate(args.output.data(), args.output.size(), activation_);
    }

    // The training forward through im2col + GEMM, without batch norm (applied after, over the batch).
    void forwardTrainingGemm(ForwardArgs& args, Activation fused)
    {
        const int batch = args.output.batch(), filters = config_.filters;
        const int plane = geometry_.outHeight * geometry_.outWidth;
        // Images in parallel, in chunks: each thread unrolls a few images side by side and runs one GEMM
        // over all of them (small training images alone make GEMMs too small to be efficient).
        const int groups = config_.groups, perGroup = filters / groups, K = int(perFilter());
        const std::size_t inPlane = std::size_t(geometry_.height) * std::size_t(geometry_.width);
        const bool bn = config_.batchNormalize;
        const int chunk = chunkImages(batch);
        std::vector<ThreadScratch>& pool = scratchPool(args.context);
#pragma omp parallel
        {
            ThreadScratch& mine = scratch(pool, std::size_t(K) * std::size_t(plane) * std::size_t(chunk),
                                          std::size_t(perGroup) * std::size_t(plane) * std::size_t(chunk));
            std::vector<float>& columns = mine.columns;
            std::vector<float>& product = mine.other;
#pragma omp for schedule(dynamic)
            for (int b0 = 0; b0 < batch; b0 += chunk) {
                const int n = std::min(chunk, batch - b0);
                const long width = long(n) * plane;
                for (int g = 0; g < groups; ++g) {
                    for (int j = 0; j < n; ++j)
                        im2colStrided(args.input.item(b0 + j) +
                                          std::size_t(g) * std::size_t(geometry_.channels) * inPlane,
                                      geometry_, columns.data() + long(j) * plane, width);
                    const float* w = weights_.data() + std::size_t(g * perGroup) * std::size_t(K);
                    gemm(false, false, perGroup, int(width), K, 1.0f, w, K, columns.data(), int(width), 0.0f,
                         product.data(), int(width));
                    for (int j = 0; j < n; ++j)
                        for (int f = 0; f < perGroup; ++f)
                            std::copy_n(product.data() + long(f) * width + long(j) * plane, plane,
                                        args.output.item(b0 + j) +
                                            std::size_t(g * perGroup + f) * std::size_t(plane));
                }
                if (!bn)
                    for (int j = 0; j < n; ++j)
                        addBiasActivate(args.output.item(b0 + j), std::size_t(filters), std::size_t(plane),
                                        biases_.data(), fused);
            }
        }
    }
};

} // namespace

std::unique_ptr<RuntimeLayer> ConvolutionalLayer::createRuntime(const LayerSpec& spec) const
{
    return std::make_unique<ConvolutionalRuntime>(*this, spec.input, spec.output);
}

} // namespace nw
