// The fast convolution kernels against the plain path (im2col + GEMM, itself checked against libdarknet
// in test_runtime): every convolution shape they serve in the bundled, Darknet and AlexeyAB cfgs, random
// inputs, weights, scales and shifts, with one and two threads (the kernels split the work differently).
#include "graph/network_spec.h"
#include "kernels/cpu/conv_tiled.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/winograd.h"
#include "layers/convolutional.h"
#include "test_support.h"

#include <QtTest>
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

std::vector<float> randomFloats(std::size_t n, float low, float high, std::mt19937& random)
{
    std::uniform_real_distribution<float> uniform(low, high);
    std::vector<float> values(n);
    for (float& v : values)
        v = uniform(random);
    return values;
}

} // namespace

class TestKernels : public QObject {
    Q_OBJECT
private slots:
    void winogradMatchesGemmOnEveryCfgShape();
    void winogradTransformOfAnImpulse();
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
    for (const ConvShape& s : shapes) {
        const ConvGeometry& g = s.geometry;
        const std::size_t inSize = std::size_t(g.channels) * std::size_t(g.height) * std::size_t(g.width);
        const std::size_t outSize =
            std::size_t(s.filters) * std::size_t(g.outHeight) * std::size_t(g.outWidth);
        const std::vector<float> input = randomFloats(inSize, -1, 1, random);
        const float range = std::sqrt(3.0f / float(9 * g.channels)); // unit-variance outputs
        const std::vector<float> weights =
            randomFloats(std::size_t(s.filters) * std::size_t(g.channels) * 9, -range, range, random);
        const std::vector<float> scale = randomFloats(std::size_t(s.filters), 0.5f, 2.0f, random);
        const std::vector<float> shift = randomFloats(std::size_t(s.filters), -0.5f, 0.5f, random);
        std::vector<float> transformed;
        winogradTransformWeights(weights.data(), s.filters, g.channels, transformed);
        for (int threads : {1, 2}) {
            setComputeThreads(threads);
            std::vector<float> reference(outSize, NAN), ours(outSize, NAN);
            std::vector<float> workspace(std::max(convWorkspaceFloats(g, 1, s.filters, threads),
                                                  winogradWorkspaceFloats(g, s.filters, threads)));
            convolveTiled(
                {g, 1, s.filters, weights.data(), scale.data(), shift.data(), s.activation, threads},
                input.data(), reference.data(), workspace.data());
            convolveWinograd(
                {g, s.filters, transformed.data(), scale.data(), shift.data(), s.activation, threads},
                input.data(), ours.data(), workspace.data());
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
            QVERIFY2(relative <= 1e-4,
                     qPrintable(QString("%1 (%2x%3x%4 → %5, pad %6, %7 threads): relative error %8")
                                    .arg(QString::fromStdString(s.where))
                                    .arg(g.width)
                                    .arg(g.height)
                                    .arg(g.channels)
                                    .arg(s.filters)
                                    .arg(g.pad)
                                    .arg(threads)
                                    .arg(relative)));
        }
    }
    setComputeThreads(0);
    qInfo("%zu shapes, worst relative error %.2g (%s)", shapes.size(), worst, worstWhere.c_str());
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
        std::vector<float> weights(9, 0.0f), transformed;
        weights[std::size_t(tap)] = 1;
        winogradTransformWeights(weights.data(), 1, 1, transformed);
        std::vector<float> out(image.size(), NAN), workspace(winogradWorkspaceFloats(g, 1, 2));
        convolveWinograd({g, 1, transformed.data(), &one, &zero, Activation::Linear, 2}, image.data(),
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

QTEST_GUILESS_MAIN(TestKernels)
#include "test_kernels.moc"
