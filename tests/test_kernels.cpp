// The fast convolution kernels against the plain path (im2col + GEMM, itself checked against libdarknet
// in test_runtime): every convolution shape they serve in the bundled, Darknet and AlexeyAB cfgs, random
// inputs, weights, scales and shifts, with one and two threads (the kernels split the work differently).
#include "graph/network_spec.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/conv_tiled.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/winograd.h"
#include "layers/convolutional.h"
#include "runtime/net.h"
#include "test_support.h"
#include "util/uniform_float.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <tuple>

using namespace nw;

namespace {

struct ConvShape {
    ConvGeometry geometry;
    int filters;
    Activation activation;
    std::string where; // cfg and layer, for messages
};

// The 3×3 stride-1 convolutions of every cfg, one per distinct shape.
std::vector<ConvShape> winogradShapes()
{
    QStringList cfgs = test::bundledCfgs() + test::darknetCfgs() + test::abCfgs();
    std::vector<ConvShape> shapes;
    std::set<std::tuple<int, int, int, int, int>> seen;
    for (const QString& path : cfgs) {
        const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(path.toStdString()), {1});
        for (std::size_t i = 0; i < spec.layers.size(); ++i) {
            const auto* conv = dynamic_cast<const ConvolutionalLayer*>(spec.layers[i].config.get());
            if (!conv)
                continue;
            const Shape& in = spec.layers[i].input;
            const Shape& out = spec.layers[i].output;
            const ConvGeometry g{in.c / conv->groups, in.h,          in.w, conv->size, conv->strideX,
                                 conv->strideY,       conv->padding, 1,    out.h,      out.w};
            if (!winogradApplies(g, conv->groups) || conv->dilation != 1)
                continue;
            if (!seen.insert({in.c, in.h, in.w, conv->filters, conv->padding}).second)
                continue;
            shapes.push_back({g, conv->filters, activationFromName(conv->activation),
                              QFileInfo(path).fileName().toStdString() + " layer " + std::to_string(i)});
        }
    }
    return shapes;
}

// A failure message: where the shape comes from, the shape, the threads and the error.
QString describe(const std::string& where, const ConvGeometry& g, int filters, int threads, double relative)
{
    return QString("%1 (%2x%3x%4 → %5, size %6, pad %7, %8 threads): relative error %9")
        .arg(QString::fromStdString(where))
        .arg(g.width)
        .arg(g.height)
        .arg(g.channels)
        .arg(filters)
        .arg(g.size)
        .arg(g.pad)
        .arg(threads)
        .arg(relative);
}

std::vector<float> randomFloats(std::size_t n, float low, float high, std::mt19937& random)
{
    std::vector<float> values(n);
    for (float& v : values)
        v = uniformFloat(random, low, high);
    return values;
}

} // namespace

class TestKernels : public QObject {
    Q_OBJECT
private slots:
    void activationsStayFiniteOnLargeInputs();
    void winogradMatchesGemmOnEveryCfgShape();
    void winogradTransformOfAnImpulse();
    void winogradFloatWeightTransformMatchesDouble();
    void winogradTrainingEqualsGemmTraining();
    void directMatchesGemm();
    void vectorActivationsMatchScalar();
    void winogradRunsWithFewerThreadsThanSized();
    void winogradBatchesAndAccumulates();
    void uniformFloatIsTheStandardDistribution();
};

// Tolerance: max |winograd − gemm| ≤ 1e-4 × max |gemm| per layer. The transforms multiply by up to
// 8 and 1/24 before the sums, and the narrow product sums the channels in another order than OpenBLAS,
// so the two round differently (measured worst 2.8e-5, yolov2-tiny-voc's 13×13×1024 → 1024); a wrong
// transform coefficient or tile edge gives errors of order 1.
void TestKernels::winogradMatchesGemmOnEveryCfgShape()
{
    const std::vector<ConvShape> shapes = winogradShapes();
    QVERIFY2(shapes.size() >= 40, qPrintable(QString("only %1 shapes found").arg(shapes.size())));
    std::mt19937 random(11);
    double worst = 0;
    std::string worstWhere;
    int skipped = 0;
    for (const ConvShape& s : shapes) {
        const ConvGeometry& g = s.geometry;
#ifdef NETWRIGHT_SANITIZE
        // Under the sanitizers, shapes up to 50 M multiply-adds: 99 of the 147, a sixth of the work
        // (34 s there instead of 104 s), with the same tile edges and channel blocks; the plain suite
        // runs every shape.
        if (double(g.outHeight) * g.outWidth * g.channels * s.filters > 50e6) {
            ++skipped;
            continue;
        }
#endif
        const std::size_t inSize = std::size_t(g.channels) * std::size_t(g.height) * std::size_t(g.width);
        const std::size_t outSize =
            std::size_t(s.filters) * std::size_t(g.outHeight) * std::size_t(g.outWidth);
        const std::vector<float> input = randomFloats(inSize, -1, 1, random);
        const float range = std::sqrt(3.0f / float(9 * g.channels)); // unit-variance outputs
        const std::vector<float> weights =
            randomFloats(std::size_t(s.filters) * std::size_t(g.channels) * 9, -range, range, random);
        const std::vector<float> scale = randomFloats(std::size_t(s.filters), 0.5f, 2.0f, random);
        const std::vector<float> shift = randomFloats(std::size_t(s.filters), -0.5f, 0.5f, random);
        for (int threads : {1, 2}) {
            setComputeThreads(threads);
            std::vector<float> reference(outSize, NAN), ours(outSize, NAN);
            std::vector<float> workspace(std::max(convWorkspaceFloats(g, 1, s.filters, threads),
                                                  winogradWorkspaceFloats(g, s.filters, 1, threads)));
            convolveTiled(
                {g, 1, s.filters, weights.data(), scale.data(), shift.data(), s.activation, threads},
                input.data(), reference.data(), workspace.data());
            // Weights transformed as used (threads 1) or kept transformed (threads 2): both paths.
            WinogradKernel kernel{g,      s.filters, weights.data(), scale.data(), shift.data(), s.activation,
                                  threads};
            std::vector<float> kept;
            if (threads == 2) {
                winogradTransformWeights(weights.data(), s.filters, g.channels, kept);
                kernel.transformed = kept.data();
            }
            convolveWinograd(kernel, 1, input.data(), ours.data(), workspace.data());
            double largest = 0, diff = 0;
            for (std::size_t i = 0; i < outSize; ++i) {
                largest = std::max(largest, double(std::fabs(reference[i])));
                diff = std::max(diff, std::isfinite(ours[i]) ? double(std::fabs(reference[i] - ours[i]))
                                                             : INFINITY);
            }
            const double relative = diff / largest;
            if (relative > worst) {
                worst = relative;
                worstWhere = s.where;
            }
            QVERIFY2(relative <= 1e-4, qPrintable(describe(s.where, g, s.filters, threads, relative)));
        }
    }
    setComputeThreads(0);
    qInfo("%zu shapes (%d left out under the sanitizers), worst relative error %.2g (%s)", shapes.size(),
          skipped, worst, worstWhere.c_str());
}

// By hand: a single 1 at the centre of the kernel is the identity convolution, and a 1 at the top-left
// tap shifts the image by one pixel down and right (with pad 1). Checks the weight transform and the
// tile placement on an image whose size is not a multiple of the 4×4 output tile.
void TestKernels::winogradTransformOfAnImpulse()
{
    const int w = 7, h = 6;
    const ConvGeometry g{1, h, w, 3, 1, 1, 1, 1, h, w};
    std::vector<float> image(std::size_t(w * h));
    for (std::size_t i = 0; i < image.size(); ++i)
        image[i] = float(i + 1);
    const float one = 1, zero = 0;
    for (int tap : {4, 0}) {
        std::vector<float> weights(9, 0.0f);
        weights[std::size_t(tap)] = 1;
        std::vector<float> out(image.size(), NAN), workspace(winogradWorkspaceFloats(g, 1, 1, 2));
        convolveWinograd({g, 1, weights.data(), &one, &zero, Activation::Linear, 2}, 1, image.data(),
                         out.data(), workspace.data());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int sy = tap == 4 ? y : y - 1, sx = tap == 4 ? x : x - 1;
                const float expected = sy < 0 || sx < 0 ? 0.0f : image[std::size_t(sy * w + sx)];
                QVERIFY2(std::fabs(out[std::size_t(y * w + x)] - expected) < 1e-4f,
                         qPrintable(QString("tap %1 at (%2, %3): %4, expected %5")
                                        .arg(tap)
                                        .arg(x)
                                        .arg(y)
                                        .arg(out[std::size_t(y * w + x)])
                                        .arg(expected)));
            }
    }
}

namespace {

// max |a − b| / max |a| over two arrays of the same size.
double relativeDifference(std::span<const float> a, std::span<const float> b)
{
    double largest = 1e-30, diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        largest = std::max(largest, double(std::fabs(a[i])));
        diff = test::worseOf(diff, std::fabs(a[i] - b[i])); // NaN: an output left unwritten
    }
    return diff / largest;
}

} // namespace

// Training through Winograd (forward, and the input gradient over whole batches) against the GEMM
// path, which test_gradients checks with finite differences: the same loss, layer outputs and
// gradients within 1e-4 (relative to each array's largest entry), and after the weights change, an
// inference pass that uses the new weights. Layers 1–5 are Winograd's in the forward pass (pad 1 and
// pad 0), and in the input gradient (pad 1 → 1, pad 0 → 2); layer 2 (128 × 136 weights) is past what
// a layer keeps transformed, so a training pass transforms it for the call; the 1×1 and the stride-2 layers
// after them must stay on GEMM in both passes (a Winograd input gradient for them once overran a buffer).
void TestKernels::winogradTrainingEqualsGemmTraining()
{
    const std::string cfg =
        "[net]\nwidth=16\nheight=16\nchannels=3\n\n"
        "[convolutional]\nfilters=32\nsize=3\npad=1\nactivation=leaky\n\n"
        "[convolutional]\nfilters=136\nsize=3\npad=1\nactivation=leaky\n\n"
        "[convolutional]\nbatch_normalize=1\nfilters=128\nsize=3\npad=1\nactivation=leaky\n\n"
        "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\npad=1\nactivation=leaky\n\n"
        "[convolutional]\nfilters=32\nsize=3\npad=1\nactivation=mish\n\n"
        "[convolutional]\nfilters=32\nsize=3\npad=0\nactivation=relu\n\n"
        "[convolutional]\nfilters=32\nsize=1\nactivation=leaky\n\n"
        "[convolutional]\nfilters=32\nsize=3\nstride=2\npad=1\nactivation=leaky\n\n"
        "[avgpool]\n\n[connected]\noutput=4\nactivation=linear\n\n[softmax]\n";
    const int batch = 3;
    std::unique_ptr<Net> nets[2];
    for (int fast : {0, 1}) {
        setWinogradEnabled(fast);
        std::string error;
        nets[fast] = Net::create(test::specFromText(cfg, "winograd.cfg"), batch, error);
        QVERIFY2(nets[fast], error.c_str());
        nets[fast]->initialize(5);
        QVERIFY(!nets[fast]->setTraining(true));
    }
    setWinogradEnabled(true);
    std::mt19937 random(3);
    const std::vector<float> input =
        randomFloats(std::size_t(nets[0]->inputShape().size) * batch, -1, 1, random);
    std::vector<float> truth(4 * batch, 0.0f);
    for (int b = 0; b < batch; ++b)
        truth[std::size_t(b * 4 + b)] = 1;
    double losses[2];
    for (int fast : {0, 1}) {
        std::mt19937 dropout(1);
        losses[fast] = nets[fast]->forwardTraining(input.data(), truth.data(), dropout);
        nets[fast]->backward();
    }
    QVERIFY2(std::fabs(losses[0] - losses[1]) <= 1e-4 * std::fabs(losses[0]),
             qPrintable(QString("loss %1 vs %2").arg(losses[0]).arg(losses[1])));
    bool differs = false; // the fast path really ran: its rounding differs somewhere
    for (int i = 0; i < 8; ++i) {
        const double relative = relativeDifference(nets[0]->output(i).span(), nets[1]->output(i).span());
        QVERIFY2(relative <= 1e-4, qPrintable(QString("layer %1 output: %2").arg(i).arg(relative)));
        differs = differs || relative > 0;
    }
    QVERIFY(differs);
    auto gemmParameters = nets[0]->trainableParameters(), fastParameters = nets[1]->trainableParameters();
    QCOMPARE(gemmParameters.size(), fastParameters.size());
    for (std::size_t l = 0; l < gemmParameters.size(); ++l)
        for (std::size_t p = 0; p < gemmParameters[l].parameters.size(); ++p) {
            const double relative = relativeDifference(*gemmParameters[l].parameters[p].gradient,
                                                       *fastParameters[l].parameters[p].gradient);
            QVERIFY2(
                relative <= 1e-4,
                qPrintable(
                    QString("layer %1 gradient %2: %3").arg(gemmParameters[l].layer).arg(p).arg(relative)));
        }
    // A step on both, then inference: the fast net must transform its changed weights again.
    for (std::size_t l = 0; l < gemmParameters.size(); ++l)
        for (std::size_t p = 0; p < gemmParameters[l].parameters.size(); ++p)
            for (Parameter* parameter : {&gemmParameters[l].parameters[p], &fastParameters[l].parameters[p]})
                for (std::size_t i = 0; i < parameter->values->size(); ++i)
                    (*parameter->values)[i] += 0.05f * (*parameter->gradient)[i];
    for (int fast : {0, 1})
        QVERIFY(!nets[fast]->setTraining(false));
    nets[0]->forward(input.data());
    nets[1]->forward(input.data());
    for (int i = 0; i < 8; ++i) {
        const double relative = relativeDifference(nets[0]->output(i).span(), nets[1]->output(i).span());
        QVERIFY2(relative <= 1e-4, qPrintable(QString("layer %1 after a step: %2").arg(i).arg(relative)));
    }
}

// The direct kernel against the GEMM path: every shape it serves in the cfgs (first layers) and
// shapes by hand around its edges (strides 1 and 2; 1–4 and 8 channels; sizes 3, 5, 7 with pad 0 and
// size/2; widths that are not multiples of its 16 columns; filter counts that are not multiples of
// its 16 filters), one and two threads. Tolerance 1e-5 of the largest output: at most 8·49
// products, summed in another order than OpenBLAS; a wrong tap or edge gives errors of order 1.
void TestKernels::directMatchesGemm()
{
    struct Case {
        ConvGeometry geometry;
        int filters;
        Activation activation;
        std::string where;
    };
    std::vector<Case> cases;
    std::set<std::tuple<int, int, int, int, int, int>> seen;
    for (const QString& path : test::bundledCfgs() + test::darknetCfgs() + test::abCfgs()) {
        const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(path.toStdString()), {1});
        for (std::size_t i = 0; i < spec.layers.size(); ++i) {
            const auto* conv = dynamic_cast<const ConvolutionalLayer*>(spec.layers[i].config.get());
            if (!conv || conv->flipped)
                continue;
            const Shape& in = spec.layers[i].input;
            const Shape& out = spec.layers[i].output;
            const ConvGeometry g{in.c / conv->groups,
                                 in.h,
                                 in.w,
                                 conv->size,
                                 conv->strideX,
                                 conv->strideY,
                                 conv->padding * conv->dilation,
                                 conv->dilation,
                                 out.h,
                                 out.w};
            if (!directConvolutionPays(g, conv->groups) ||
                !seen.insert({in.c, in.h, in.w, conv->size, conv->filters, conv->padding}).second)
                continue;
            cases.push_back({g, conv->filters, activationFromName(conv->activation),
                             QFileInfo(path).fileName().toStdString() + " layer " + std::to_string(i)});
        }
    }
    QVERIFY2(cases.size() >= 5, qPrintable(QString("only %1 cfg shapes found").arg(cases.size())));
    const std::size_t fromCfgs = cases.size();
    for (int stride : {1, 2})
        for (int channels : {1, 2, 3, 4, 8})
            for (int size : {3, 5, 7})
                for (int pad : {0, size / 2}) {
                    const int w = 37 * stride + channels, h = 9 + size; // odd widths for stride 2, too
                    const int outW = (w + 2 * pad - size) / stride + 1,
                              outH = (h + 2 * pad - size) / stride + 1;
                    const ConvGeometry g{channels, h, w, size, stride, stride, pad, 1, outH, outW};
                    if (!directConvolutionPays(g, 1))
                        continue;
                    cases.push_back({g, 3 + 7 * channels,
                                     channels % 2 ? Activation::Leaky : Activation::Logistic, "by hand"});
                }
    QCOMPARE(int(cases.size() - fromCfgs), 2 * 5 * 3 * 2); // every hand-made shape is the kernel's
    std::mt19937 random(13);
    double worst = 0;
    for (const Case& c : cases) {
        const ConvGeometry& g = c.geometry;
        const std::size_t taps = std::size_t(g.channels) * std::size_t(g.size) * std::size_t(g.size);
        const std::vector<float> input = randomFloats(
            std::size_t(g.channels) * std::size_t(g.height) * std::size_t(g.width), -1, 1, random);
        const std::vector<float> weights = randomFloats(std::size_t(c.filters) * taps, -0.5f, 0.5f, random);
        const std::vector<float> scale = randomFloats(std::size_t(c.filters), 0.5f, 2.0f, random);
        const std::vector<float> shift = randomFloats(std::size_t(c.filters), -0.5f, 0.5f, random);
        const std::size_t outSize =
            std::size_t(c.filters) * std::size_t(g.outHeight) * std::size_t(g.outWidth);
        for (int threads : {1, 2}) {
            setComputeThreads(threads);
            std::vector<float> reference(outSize, NAN), ours(outSize, NAN);
            std::vector<float> workspace(std::max(convWorkspaceFloats(g, 1, c.filters, threads),
                                                  directWorkspaceFloats(g, c.filters, threads)));
            convolveTiled(
                {g, 1, c.filters, weights.data(), scale.data(), shift.data(), c.activation, threads},
                input.data(), reference.data(), workspace.data());
            convolveDirect({g, c.filters, weights.data(), scale.data(), shift.data(), c.activation, threads},
                           input.data(), ours.data(), workspace.data());
            const bool finite =
                std::all_of(ours.begin(), ours.end(), [](float v) { return std::isfinite(v); });
            const double relative = finite ? relativeDifference(reference, ours) : INFINITY;
            worst = std::max(worst, relative);
            QVERIFY2(relative <= 1e-5, qPrintable(describe(c.where, g, c.filters, threads, relative)));
        }
    }
    setComputeThreads(0);
    qInfo("%zu shapes (%zu from cfgs), worst relative error %.2g", cases.size(), fromCfgs, worst);
}

// Every activation and its derivative are finite on ±100 (a diverging or untrained net's values), as
// Darknet's double exp() keeps them; elu and selu gave NaN from 0·∞ above 88.7 (hand values below).
void TestKernels::activationsStayFiniteOnLargeInputs()
{
    for (int a = int(Activation::Logistic); a <= int(Activation::Gelu); ++a)
        for (float x : {100.0f, -100.0f, 88.8f, -88.8f}) {
            const float y = activate(x, Activation(a));
            float input = x, delta = 1;
            multiplyByInputGradient(&input, 1, Activation(a), &delta);
            QVERIFY2(std::isfinite(y) && std::isfinite(delta),
                     qPrintable(
                         QString("activation %1 at %2: %3, derivative %4").arg(a).arg(x).arg(y).arg(delta)));
        }
    QCOMPARE(activate(100, Activation::Elu), 100.0f);
    QCOMPARE(activate(-100, Activation::Elu), -1.0f);
    QCOMPARE(activate(100, Activation::Selu), 1.0507f * 100);
    float y = 1e30f;
    activateArray(&y, 1, Activation::Elu);
    QCOMPARE(y, 1e30f);
}

// activateSpan's vector paths (lanes.h: a Cephes-style exp, mish through one exponential) against
// activate()'s std::exp / std::tanh / std::log1p, on every 1/1000 from −100 to 100 plus the edges
// (the exp clamp at ±87–88, mish's threshold at 20, huge values), in arrays whose length is not a
// multiple of 16 (the tail path). Measured worst: 2.1e-7 of max(1, |y|) (mish); tolerance 5e-7.
// The r³ coefficient 1/6 written as 0.16 gives 9.5e-5; a change in its fifth digit stays under 5e-7.
void TestKernels::vectorActivationsMatchScalar()
{
    std::vector<float> inputs;
    for (int i = -100000; i <= 100000; ++i)
        inputs.push_back(float(i) / 1000.0f);
    for (float edge : {0.0f,  -0.0f,  19.999f, 20.0f,  20.001f, 87.3f,  -87.3f, 87.4f,  -87.4f, 88.3f,
                       88.5f, -88.5f, 89.0f,   -89.0f, 1e10f,   -1e10f, 1e30f,  -1e30f, 1e-30f, -1e-30f})
        inputs.push_back(edge);
    inputs.push_back(NAN);  // stays NaN, as in the scalar functions (a diverged run must show)
    inputs.push_back(0.5f); // 200,023 values: a 7-value tail after the vectors
    for (Activation a : {Activation::Logistic, Activation::Swish, Activation::Mish, Activation::Leaky,
                         Activation::Relu, Activation::Linear, Activation::Tanh}) {
        std::vector<float> ours = inputs;
        activateSpan(ours.data(), ours.size(), a);
        double worst = 0;
        std::size_t worstAt = 0;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const double reference = activate(inputs[i], a);
            if (std::isnan(reference) && std::isnan(ours[i]))
                continue;
            const double error = std::fabs(ours[i] - reference) / std::max(1.0, std::fabs(reference));
            if (!(error <= worst)) { // NaN counts as the worst
                worst = std::isnan(error) ? INFINITY : error;
                worstAt = i;
            }
        }
        QVERIFY2(worst <= 5e-7, qPrintable(QString("activation %1 at x = %2: %3 vs %4 (error %5)")
                                               .arg(int(a))
                                               .arg(inputs[worstAt])
                                               .arg(ours[worstAt])
                                               .arg(activate(inputs[worstAt], a))
                                               .arg(worst)));
        qInfo("activation %d: worst %.2g at x = %g", int(a), worst, double(inputs[worstAt]));
    }
}

// Workspaces are sized for the most threads a net may use (every core); a run may use fewer
// (--threads, setComputeThreads). The blocks must then still fit: sized for 4 threads, run with 1–4,
// every float after the workspace must stay untouched and the output must equal the GEMM path's.
// Shapes where tiling for 3 threads once needed more room than tiling for 4 (found by a review's
// brute-force copy of the tiling rule), in inference and as a training batch.
void TestKernels::winogradRunsWithFewerThreadsThanSized()
{
    struct Case {
        int size, channels, filters, images;
    };
    std::mt19937 random(17);
    for (const Case& c :
         {Case{97, 16, 16, 1}, Case{100, 16, 16, 1}, Case{14, 32, 32, 32}, Case{26, 64, 32, 3}}) {
        const ConvGeometry g{c.channels, c.size, c.size, 3, 1, 1, 1, 1, c.size, c.size};
        const std::size_t inSize = std::size_t(c.channels) * std::size_t(c.size * c.size);
        const std::size_t outSize = std::size_t(c.filters) * std::size_t(c.size * c.size);
        const std::vector<float> input = randomFloats(inSize * std::size_t(c.images), -1, 1, random);
        const std::vector<float> weights =
            randomFloats(std::size_t(c.filters * c.channels * 9), -0.2f, 0.2f, random);
        const std::vector<float> scale(std::size_t(c.filters), 1.0f), shift(std::size_t(c.filters), 0.0f);
        std::vector<float> reference(outSize * std::size_t(c.images));
        std::vector<float> tiledWorkspace(convWorkspaceFloats(g, 1, c.filters, 1));
        setComputeThreads(1);
        for (int b = 0; b < c.images; ++b)
            convolveTiled(
                {g, 1, c.filters, weights.data(), scale.data(), shift.data(), Activation::Linear, 1},
                input.data() + std::size_t(b) * inSize, reference.data() + std::size_t(b) * outSize,
                tiledWorkspace.data());
        constexpr int sizedFor = 4;
        constexpr std::size_t guard = 4096;
        const std::size_t floats = winogradWorkspaceFloats(g, c.filters, c.images, sizedFor);
        for (int threads = 1; threads <= sizedFor; ++threads) {
            setComputeThreads(threads);
            std::vector<float> workspace(floats + guard, 12345.0f), ours(reference.size(), NAN);
            convolveWinograd(
                {g, c.filters, weights.data(), scale.data(), shift.data(), Activation::Linear, sizedFor},
                c.images, input.data(), ours.data(), workspace.data());
            const auto touched = std::find_if(workspace.begin() + std::ptrdiff_t(floats), workspace.end(),
                                              [](float v) { return v != 12345.0f; });
            QVERIFY2(
                touched == workspace.end(),
                qPrintable(
                    QString("%1x%1x%2 → %3, %4 images, %5 threads: wrote past the workspace (first at +%6)")
                        .arg(c.size)
                        .arg(c.channels)
                        .arg(c.filters)
                        .arg(c.images)
                        .arg(threads)
                        .arg(touched - workspace.begin() - std::ptrdiff_t(floats))));
            QVERIFY(relativeDifference(reference, ours) <= 1e-4);
        }
    }
    setComputeThreads(0);
}

// Several images in one call (their tiles in one set, blocks crossing from one image to the next) in
// both block modes — per-thread blocks (52×52, 32 → 32: many tiles, small weights) and shared ones
// (13×13, 512 → 256: weights too large to read once per thread) — and `accumulate`, which adds to
// what the output holds (the input gradient of a layer whose output several layers read), with
// explicit padding 0 and 2 besides 1.
void TestKernels::winogradBatchesAndAccumulates()
{
    struct Case {
        int size, channels, filters, images, pad;
    };
    std::mt19937 random(19);
    for (const Case& c :
         {Case{52, 32, 32, 3, 1}, Case{13, 512, 256, 2, 1}, Case{20, 16, 16, 2, 0}, Case{18, 16, 24, 2, 2}}) {
        const int out = c.size + 2 * c.pad - 2;
        const ConvGeometry g{c.channels, c.size, c.size, 3, 1, 1, c.pad, 1, out, out};
        const std::size_t inSize = std::size_t(c.channels) * std::size_t(c.size * c.size);
        const std::size_t outSize = std::size_t(c.filters) * std::size_t(out * out);
        const std::vector<float> input = randomFloats(inSize * std::size_t(c.images), -1, 1, random);
        const std::vector<float> weights =
            randomFloats(std::size_t(c.filters * c.channels * 9), -0.2f, 0.2f, random);
        const std::vector<float> scale(std::size_t(c.filters), 1.0f), shift(std::size_t(c.filters), 0.0f);
        const std::vector<float> before = randomFloats(outSize * std::size_t(c.images), -1, 1, random);
        setComputeThreads(2);
        std::vector<float> expected(before.size());
        std::vector<float> tiledWorkspace(convWorkspaceFloats(g, 1, c.filters, 2));
        for (int b = 0; b < c.images; ++b)
            convolveTiled(
                {g, 1, c.filters, weights.data(), scale.data(), shift.data(), Activation::Linear, 2},
                input.data() + std::size_t(b) * inSize, expected.data() + std::size_t(b) * outSize,
                tiledWorkspace.data());
        std::vector<float> workspace(winogradWorkspaceFloats(g, c.filters, c.images, 2));
        std::vector<float> fresh(before.size(), NAN), added = before;
        WinogradKernel kernel{g, c.filters, weights.data(), scale.data(), shift.data(), Activation::Linear,
                              2};
        convolveWinograd(kernel, c.images, input.data(), fresh.data(), workspace.data());
        kernel.accumulate = true;
        convolveWinograd(kernel, c.images, input.data(), added.data(), workspace.data());
        for (std::size_t i = 0; i < added.size(); ++i)
            added[i] -= before[i];
        QVERIFY2(relativeDifference(expected, fresh) <= 1e-4,
                 qPrintable(describe("batch", g, c.filters, 2, relativeDifference(expected, fresh))));
        QVERIFY2(relativeDifference(expected, added) <= 1e-4,
                 qPrintable(describe("accumulate", g, c.filters, 2, relativeDifference(expected, added))));
    }
    setComputeThreads(0);
}

// The kernel transforms weights in float, sixteen channels at a time, as it uses them; the reference
// is the transform in double. 35 channels: two full vectors and a partial one.
void TestKernels::winogradFloatWeightTransformMatchesDouble()
{
    std::mt19937 random(23);
    const int filters = 37, channels = 35;
    const std::vector<float> weights = randomFloats(std::size_t(filters * channels * 9), -1, 1, random);
    std::vector<float> reference, fast;
    winogradTransformWeights(weights.data(), filters, channels, reference);
    winogradTransformWeightsFast(weights.data(), filters, channels, fast);
    QCOMPARE(fast.size(), reference.size());
    double worst = 0;
    for (std::size_t i = 0; i < fast.size(); ++i)
        worst = test::worseOf(worst, std::fabs(fast[i] - reference[i]));
    QVERIFY2(worst <= 1e-6, qPrintable(QString("worst difference %1").arg(worst)));
}

// Weight initialisation and dropout draw with uniformFloat: the same floats, bit for bit, as libstdc++'s
// std::uniform_real_distribution<float> on the same engine (so networks initialised before are
// unchanged), over a million draws in ranges of either sign and width.
void TestKernels::uniformFloatIsTheStandardDistribution()
{
#ifndef __GLIBCXX__
    QSKIP("the reference is libstdc++'s std::uniform_real_distribution<float>");
#else
    const std::pair<float, float> ranges[] = {{0.0f, 1.0f}, {-0.0625f, 0.0625f}, {-3.7f, 2.5f}, {1.0f, 1e6f}};
    for (const auto& [low, high] : ranges) {
        std::mt19937 ours(7), theirs(7);
        std::uniform_real_distribution<float> standard(low, high);
        for (int i = 0; i < 250'000; ++i) {
            const float a = uniformFloat(ours, low, high), b = standard(theirs);
            if (a != b)
                QFAIL(qPrintable(QString("draw %1 in [%2, %3): %4, the standard distribution gives %5")
                                     .arg(i)
                                     .arg(double(low))
                                     .arg(double(high))
                                     .arg(double(a), 0, 'g', 9)
                                     .arg(double(b), 0, 'g', 9)));
            QVERIFY(a >= low && a <= high); // high only by rounding, as the standard allows
        }
    }
#endif
}

QTEST_GUILESS_MAIN(TestKernels)
#include "test_kernels.moc"
