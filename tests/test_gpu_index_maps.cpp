// The index rules the CUDA kernels share with the CPU layers, checked on any machine (they are plain
// C++ too): the GPU's [reorg] pairs, [shortcut] overlap and max-pool window against what the CPU layers
// compute. A wrong pair would put a value in the wrong place on the GPU only, where no test here runs.
#if NETWRIGHT_WITH_CUDA
#include "backend/cuda/cudnn_algorithm_choice.h"
#endif
#include "kernels/cpu/im2col.h"
#include "kernels/cuda/index_maps.h"
#include "kernels/cuda/maxpool_window.h"
#include "runtime/net.h"
#include "test_support.h"
#include "util/relative_difference.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

using namespace nw;

namespace {

std::unique_ptr<Net> netFrom(const std::string& text)
{
    std::string error;
    auto net = Net::create(test::specFromText(text), 1, error);
    if (!net)
        qWarning("%s", error.c_str());
    return net;
}

std::vector<float> randomInput(const Net& net, unsigned seed)
{
    std::vector<float> input(std::size_t(net.inputShape().size));
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(-1, 1);
    for (float& v : input)
        v = unit(random);
    return input;
}

} // namespace

class TestGpuIndexMaps : public QObject {
    Q_OBJECT
private slots:
    void reorgPairsMoveWhatTheCpuMoves_data();
    void reorgPairsMoveWhatTheCpuMoves();
    void shortcutOverlapAddsWhatTheCpuAdds_data();
    void shortcutOverlapAddsWhatTheCpuAdds();
    void maxpoolWindowPicksWhatTheCpuPicks_data();
    void maxpoolWindowPicksWhatTheCpuPicks();
    void scaleSumsVisitEveryScaledValueOnce();
    void columnSourceReadsWhatIm2colReads();
    void checkDeviceRuleVouchesOnlyForFiniteValues();
    void cudnnChoiceKeepsFp32Exact();
};

void TestGpuIndexMaps::reorgPairsMoveWhatTheCpuMoves_data()
{
    QTest::addColumn<QString>("net");   // [net] lines
    QTest::addColumn<QString>("reorg"); // [reorg] lines
    QTest::newRow("space to depth") << "width=4\nheight=4\nchannels=8"
                                    << "stride=2";
    QTest::newRow("reverse") << "width=2\nheight=3\nchannels=16"
                             << "stride=2\nreverse=1";
    QTest::newRow("stride 3") << "width=6\nheight=3\nchannels=9"
                              << "stride=3";
    QTest::newRow("flatten") << "width=3\nheight=2\nchannels=5"
                             << "flatten=1";
    QTest::newRow("flatten reverse") << "width=3\nheight=2\nchannels=5"
                                     << "flatten=1\nreverse=1";
    QTest::newRow("extra") << "width=2\nheight=2\nchannels=2"
                           << "extra=3";
}

// The input holds 1, 2, 3, …, so each output value names the input it came from; the GPU's pairs must
// say the same, and leave zeros where nothing moves.
void TestGpuIndexMaps::reorgPairsMoveWhatTheCpuMoves()
{
    QFETCH(QString, net);
    QFETCH(QString, reorg);
    auto cpu = netFrom("[net]\n" + net.toStdString() + "\n[reorg]\n" + reorg.toStdString() + "\n");
    QVERIFY(cpu);
    const Shape in = cpu->inputShape();
    std::vector<float> input(std::size_t(in.size));
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = float(i + 1);
    const std::span<const float> out = cpu->forward(input.data()).span();
    const cuda::ReorgMap map{in.w,
                             in.h,
                             in.c,
                             reorg.contains("stride=3") ? 3 : 2,
                             reorg.contains("extra"),
                             reorg.contains("flatten"),
                             reorg.contains("reverse")};
    std::vector<float> gpu(out.size(), 0.0f);
    for (std::size_t t = 0; t < input.size(); ++t) {
        const cuda::IndexPair pair = cuda::reorgPair(t, map);
        QVERIFY(pair.from < input.size() && pair.to < gpu.size());
        gpu[pair.to] = input[pair.from];
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        QVERIFY2(
            gpu[i] == out[i],
            qPrintable(QString("output %1: GPU pair gives %2, the CPU %3").arg(i).arg(gpu[i]).arg(out[i])));
}

void TestGpuIndexMaps::shortcutOverlapAddsWhatTheCpuAdds_data()
{
    QTest::addColumn<QString>("layers"); // after [net]; the last is the shortcut
    const QString conv = "[convolutional]\nfilters=%1\nsize=3\npad=1\nactivation=leaky\n";
    QTest::newRow("source larger (stride 2)")
        << conv.arg(4) +
               "[maxpool]\nsize=2\nstride=2\n[shortcut]\nfrom=-2\nalpha=0.5\nbeta=2\nactivation=linear\n";
    QTest::newRow("source smaller (sampled)")
        << conv.arg(4) + "[upsample]\nstride=2\n[shortcut]\nfrom=-2\nalpha=0.5\nbeta=2\nactivation=linear\n";
    QTest::newRow("fewer channels") << conv.arg(6) + conv.arg(4) +
                                           "[shortcut]\nfrom=-2\nalpha=1.5\nbeta=0.25\nactivation=linear\n";
    QTest::newRow("two sources") << conv.arg(4) + conv.arg(4) + conv.arg(4) +
                                        "[shortcut]\nfrom=-2,-3\nalpha=0.5\nbeta=2\nactivation=linear\n";
}

// The GPU's rule: the output starts as the previous layer's, then for each source k over its overlap
// out[o] = alpha·out[o] + beta·source[a] (1 and 1 for sources after the first).
void TestGpuIndexMaps::shortcutOverlapAddsWhatTheCpuAdds()
{
    QFETCH(QString, layers);
    auto cpu = netFrom("[net]\nwidth=8\nheight=8\nchannels=3\n" + layers.toStdString());
    QVERIFY(cpu);
    cpu->initialize(5);
    const std::vector<float> input = randomInput(*cpu, 7);
    cpu->forward(input.data());
    const NetworkSpec& spec = cpu->spec();
    const LayerSpec& shortcut = spec.layers.back();
    const std::span<const float> previous = cpu->output(shortcut.index - 1).span();
    std::vector<float> gpu(previous.begin(), previous.end());
    const float alpha = layers.contains("alpha=1.5") ? 1.5f : 0.5f,
                beta = layers.contains("beta=2") ? 2.0f : 0.25f;
    for (std::size_t k = 0; k < shortcut.sources.size(); ++k) {
        const LayerSpec& from = spec.layers[std::size_t(shortcut.sources[k])];
        const std::span<const float> source = cpu->output(from.index).span();
        const cuda::OverlapMap map{shortcut.output.w, shortcut.output.h, shortcut.output.c,
                                   from.output.w,     from.output.h,     from.output.c};
        const std::size_t pairs = cuda::overlapPairs(map);
        QVERIFY(pairs > 0);
        for (std::size_t t = 0; t < pairs; ++t) {
            const cuda::IndexPair pair = cuda::overlapPair(t, map);
            QVERIFY(pair.from < source.size() && pair.to < gpu.size());
            gpu[pair.to] =
                (k == 0 ? alpha : 1.0f) * gpu[pair.to] + (k == 0 ? beta : 1.0f) * source[pair.from];
        }
    }
    const std::span<const float> out = cpu->output(shortcut.index).span();
    for (std::size_t i = 0; i < out.size(); ++i)
        QVERIFY2(std::fabs(gpu[i] - out[i]) <= 1e-6f * std::max(1.0f, std::fabs(out[i])),
                 qPrintable(QString("output %1: GPU rule %2, CPU %3").arg(i).arg(gpu[i]).arg(out[i])));
}

void TestGpuIndexMaps::maxpoolWindowPicksWhatTheCpuPicks_data()
{
    QTest::addColumn<QString>("net");
    QTest::addColumn<QString>("maxpool");
    QTest::addColumn<int>("padding");
    QTest::newRow("2x2/2") << "width=6\nheight=6\nchannels=3"
                           << "size=2\nstride=2" << 1;
    QTest::newRow("3x3/2 odd") << "width=7\nheight=7\nchannels=2"
                               << "size=3\nstride=2" << 2;
    QTest::newRow("SPP 5x5/1") << "width=5\nheight=4\nchannels=2"
                               << "size=5\nstride=1\npadding=4" << 4;
    QTest::newRow("stride_x 2, stride_y 1") << "width=6\nheight=5\nchannels=1"
                                            << "size=2\nstride_x=2\nstride_y=1" << 1;
    QTest::newRow("no padding") << "width=7\nheight=6\nchannels=2"
                                << "size=3\nstride=2\npadding=0" << 0;
}

void TestGpuIndexMaps::maxpoolWindowPicksWhatTheCpuPicks()
{
    QFETCH(QString, net);
    QFETCH(QString, maxpool);
    QFETCH(int, padding);
    auto cpu = netFrom("[net]\n" + net.toStdString() + "\n[maxpool]\n" + maxpool.toStdString() + "\n");
    QVERIFY(cpu);
    const std::vector<float> input = randomInput(*cpu, 3);
    const std::span<const float> out = cpu->forward(input.data()).span();
    const Shape in = cpu->inputShape(), o = cpu->spec().layers[0].output;
    const int strideX = maxpool.contains("stride_x=2") || maxpool.contains("stride=2") ? 2 : 1;
    const int strideY = maxpool.contains("stride=2") ? 2 : 1;
    const int size = maxpool.contains("size=5") ? 5 : maxpool.contains("size=3") ? 3 : 2;
    // The definition, step by step through the whole window (the CPU layer's general case calls
    // maxpoolWindow itself, so the CPU output alone would not check it there).
    const auto definition = [&](std::size_t i) {
        const std::size_t x = i % std::size_t(o.w), y = i / std::size_t(o.w) % std::size_t(o.h);
        const std::size_t plane = i / (std::size_t(o.w) * std::size_t(o.h));
        long best = -1;
        for (int dy = 0; dy < size; ++dy)
            for (int dx = 0; dx < size; ++dx) {
                const int iy = int(y) * strideY - padding / 2 + dy, ix = int(x) * strideX - padding / 2 + dx;
                if (iy < 0 || ix < 0 || iy >= in.h || ix >= in.w)
                    continue;
                const long at = long(plane) * in.w * in.h + long(iy) * in.w + ix;
                if (best < 0 || input[std::size_t(at)] > input[std::size_t(best)])
                    best = at;
            }
        return best;
    };
    for (std::size_t i = 0; i < out.size(); ++i) {
        const cuda::MaxpoolWinner winner =
            cuda::maxpoolWindow(input.data(), i, in.w, in.h, o.w, o.h, size, strideX, strideY, -padding / 2);
        QVERIFY(winner.index >= 0 && std::size_t(winner.index) < input.size());
        QCOMPARE(input[std::size_t(winner.index)], winner.value);
        QCOMPARE(long(winner.index), definition(i));
        QVERIFY2(
            winner.value == out[i],
            qPrintable(QString("output %1: GPU window %2, CPU %3").arg(i).arg(winner.value).arg(out[i])));
    }
}

// [scale_channels]' backward on the GPU sums, for each scale, the values scaledValue lists: they must be
// exactly those the forward (scaleOf, which the CPU layer uses too) multiplied by it, each once.
void TestGpuIndexMaps::scaleSumsVisitEveryScaledValueOnce()
{
    for (const bool scaleWh : {false, true})
        for (const auto& [plane, channels] : {std::pair<std::size_t, std::size_t>{1, 5}, {12, 1}, {35, 8}}) {
            const cuda::ScaleMap map{plane, channels, scaleWh};
            std::vector<int> visits(plane * channels, 0);
            for (std::size_t s = 0; s < cuda::scalesPerItem(map); ++s)
                for (std::size_t k = 0; k < cuda::scaledCount(map); ++k) {
                    const std::size_t j = cuda::scaledValue(s, k, map);
                    QVERIFY(j < visits.size());
                    QCOMPARE(cuda::scaleOf(j, map), s);
                    ++visits[j];
                }
            QVERIFY(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }));
            QCOMPARE(cuda::scalesPerItem(map), scaleWh ? plane : channels);
        }
}

// [local]'s GPU kernels read the input through columnSource; the CPU layer unrolls it with im2col.
// Each column entry must be the same value (0 outside the image), for paddings and strides.
void TestGpuIndexMaps::columnSourceReadsWhatIm2colReads()
{
    std::mt19937 random(9);
    std::uniform_real_distribution<float> unit(-1, 1);
    for (const auto& [size, stride, pad] :
         {std::tuple{3, 1, 1}, {3, 2, 1}, {1, 1, 0}, {4, 3, 2}, {5, 2, 0}}) {
        const int channels = 3, height = 9, width = 11;
        const int outH = (height + 2 * pad - size) / stride + 1, outW = (width + 2 * pad - size) / stride + 1;
        const ConvGeometry g{channels, height, width, size, stride, stride, pad, 1, outH, outW};
        std::vector<float> image(std::size_t(channels * height * width));
        for (float& v : image)
            v = unit(random);
        const std::size_t rows = std::size_t(channels * size * size), locations = std::size_t(outH * outW);
        std::vector<float> columns(rows * locations);
        im2col(image.data(), g, columns.data());
        const cuda::ColumnMap m{channels, height, width, size, stride, stride, pad, outH, outW};
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t j = 0; j < locations; ++j) {
                const long long at = cuda::columnSource(r, j, m);
                QCOMPARE(at >= 0 ? image[std::size_t(at)] : 0.0f, columns[r * locations + j]);
            }
    }
}

// check-device's judge: relative to max(floor, |reference|), and never a pass where the reference itself
// overflowed (a NaN on both sides used to count as equal, hiding every layer after it).
void TestGpuIndexMaps::checkDeviceRuleVouchesOnlyForFiniteValues()
{
    const std::vector<float> reference{0.5f, -200.0f, 3.0f};
    QCOMPARE(largestRelativeDifference(reference, reference), 0.0);
    QVERIFY(std::abs(largestRelativeDifference(std::vector<float>{0.5f, -200.1f, 3.0f}, reference) -
                     0.1 / 200) < 1e-7); // relative to |reference| beyond the floor
    QCOMPARE(largestRelativeDifference(std::vector<float>{0.25f, -200.0f, 3.0f}, reference), 0.25); // floor 1
    QCOMPARE(largestRelativeDifference(std::vector<float>{0.25f, -200.0f, 3.0f}, reference, 5.0), 0.05);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (const std::vector<float>& unusable : {std::vector<float>{nan, -200.0f, 3.0f},
                                               std::vector<float>{0.5f, inf, 3.0f}, std::vector<float>{0.5f}})
        QVERIFY(std::isinf(largestRelativeDifference(unusable, reference)));
    const std::vector<float> overflowed{0.5f, nan, inf};
    QVERIFY(
        std::isinf(largestRelativeDifference(overflowed, overflowed))); // the same NaN and ∞ on both sides
    QVERIFY(!allFinite(overflowed));
    QVERIFY(allFinite(reference));
}

// cudnnFind's results as the first GPU run saw them (sorted by time, transforms fastest): FP32 takes
// the fastest direct or GEMM-like one; FP16 and NETWRIGHT_CUDNN_TRANSFORMS take the fastest of all.
void TestGpuIndexMaps::cudnnChoiceKeepsFp32Exact()
{
#if NETWRIGHT_WITH_CUDA
    auto result = [](cudnnConvolutionBwdFilterAlgo_t algo, cudnnMathType_t math = CUDNN_FMA_MATH,
                     std::size_t memory = 1024) {
        cudnnConvolutionBwdFilterAlgoPerf_t r{};
        r.algo = algo;
        r.status = CUDNN_STATUS_SUCCESS;
        r.mathType = math;
        r.memory = memory;
        return r;
    };
    const cudnnConvolutionBwdFilterAlgoPerf_t filter[] = {
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED),
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_TENSOR_OP_MATH), // TF32
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING),
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, CUDNN_FMA_MATH, std::size_t(3) << 30), // 3 GiB of scratch
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1),
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0)};
    QCOMPARE(fastestAllowed(filter, 6, AlgorithmRules{}), 4);
    QCOMPARE(fastestAllowed(filter, 6, AlgorithmRules{false, true}), 0);    // transforms allowed
    QCOMPARE(fastestAllowed(filter, 3, AlgorithmRules{}), -1);              // none exact: the fallback
    QCOMPARE(fastestAllowed(filter + 1, 5, AlgorithmRules{true, true}), 0); // FP16: tensor cores too
    // FP32 data converted to half on the tensor cores: FP16's choice only, never TF32's.
    const cudnnConvolutionBwdFilterAlgoPerf_t converting[] = {
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION),
        result(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_TENSOR_OP_MATH)};
    QCOMPARE(fastestAllowed(converting, 2, AlgorithmRules{true, true}), 1); // TF32
    QCOMPARE(fastestAllowed(converting, 2, AlgorithmRules{true, true, std::size_t(1) << 30, true}),
             0); // FP16

    cudnnConvolutionFwdAlgoPerf_t forward[3]{};
    const cudnnConvolutionFwdAlgo_t forwardAlgos[] = {CUDNN_CONVOLUTION_FWD_ALGO_FFT,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM};
    for (int i = 0; i < 3; ++i) {
        forward[i].algo = forwardAlgos[i];
        forward[i].mathType = CUDNN_DEFAULT_MATH;
    }
    forward[2].status = CUDNN_STATUS_NOT_SUPPORTED; // (the fullness rule marks results so)
    QCOMPARE(fastestAllowed(forward, 3, AlgorithmRules{}), -1);
    forward[2].status = CUDNN_STATUS_SUCCESS;
    QCOMPARE(fastestAllowed(forward, 3, AlgorithmRules{}), 2);

    cudnnConvolutionBwdDataAlgoPerf_t data[2]{};
    data[0].algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    data[1].algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    QCOMPARE(fastestAllowed(data, 2, AlgorithmRules{}), 1);
#else
    QSKIP("built without the CUDA backend");
#endif
}

QTEST_GUILESS_MAIN(TestGpuIndexMaps)
#include "test_gpu_index_maps.moc"
