// Finite-difference checks of every trainable layer's backward pass: the −gradients a backward pass
// adds up must equal −(L(θ + ε) − L(θ − ε)) / 2ε for the cross-entropy loss of a small network.
// Tolerance: 3% relative (floor 0.02) with ε = 1e-3; leaky/relu kinks and max-pool switches make the
// float central difference that inexact on a few entries, real bugs give errors of 10–100%.
// The floor: float rounding in the forward pass makes the loss itself noisy by a few ulps, which gives
// central differences an absolute error up to ≈ 4e-4 (seen with OpenBLAS's Haswell/Zen kernels; its
// SkylakeX kernels round differently: there batch norm over 3 images amplified it to 3.2% on one
// entry); networks without a kink take ε = 1e-2 (errors ≤ 0.3% on all three kernels), the others
// keep 1e-3, as a larger ε would cross leaky/max-pool kinks.
#include "runtime/net.h"
#include "test_support.h"

#include <QSet>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace nw;

namespace {

struct Case {
    std::unique_ptr<Net> net;
    std::vector<float> input, truth;
};

Case makeCase(const std::string& layers, int batch, unsigned seed,
              const std::string& net = "[net]\nwidth=6\nheight=6\nchannels=2\n\n")
{
    Case c;
    std::string error;
    c.net = Net::create(test::specFromText(net + layers, "grad.cfg"), batch, error);
    if (!c.net) {
        qWarning("%s", error.c_str());
        return c;
    }
    c.net->initialize(seed);
    if (auto problem = c.net->setTraining(true)) {
        qWarning("%s", problem->c_str());
        c.net.reset();
        return c;
    }
    std::mt19937 random(seed + 1);
    std::uniform_real_distribution<float> uniform(-1, 1);
    c.input.resize(std::size_t(c.net->inputShape().size) * std::size_t(batch));
    for (float& v : c.input)
        v = uniform(random);
    const std::size_t classes = c.net->output().itemSize();
    c.truth.assign(classes * std::size_t(batch), 0.0f);
    for (int b = 0; b < batch; ++b)
        c.truth[std::size_t(b) * classes + std::size_t(b) % classes] = 1;
    // Non-trivial parameters everywhere (biases and BN scales too).
    for (auto& layer : c.net->trainableParameters())
        for (Parameter& p : layer.parameters)
            for (float& v : *p.values)
                v += 0.3f * uniform(random);
    return c;
}

double loss(Case& c)
{
    std::mt19937 dropout(99); // the same dropout mask on every pass
    return c.net->forwardTraining(c.input.data(), c.truth.data(), dropout);
}

// Returns the worst relative error over `samples` entries of every parameter array.
// `floor`: below it, errors count as absolute (float rounding in the loss makes tiny gradients noisy).
double worstRelativeError(Case& c, int samples, double floor = 2e-2, float eps = 1e-3f)
{
    auto layers = c.net->trainableParameters();
    for (auto& layer : layers)
        for (Parameter& p : layer.parameters)
            std::fill(p.gradient->begin(), p.gradient->end(), 0.0f);
    loss(c);
    c.net->backward();
    double worst = 0;
    std::mt19937 pick(7);
    for (auto& layer : layers)
        for (Parameter& p : layer.parameters) {
            for (int s = 0; s < samples; ++s) {
                const std::size_t i = pick() % p.values->size();
                const float saved = (*p.values)[i];
                (*p.values)[i] = saved + eps;
                const double plus = loss(c);
                (*p.values)[i] = saved - eps;
                const double minus = loss(c);
                (*p.values)[i] = saved;
                const double numeric = -(plus - minus) / (2 * eps);
                const double analytic = (*p.gradient)[i];
                const double error =
                    test::worseOf(0, std::fabs(numeric - analytic) /
                                         std::max({std::fabs(numeric), std::fabs(analytic), floor}));
                if (error > worst)
                    qDebug("layer %d array of %zu, entry %zu: numeric %.6f analytic %.6f", layer.layer,
                           p.values->size(), i, numeric, analytic);
                worst = std::max(worst, error);
            }
        }
    return worst;
}

} // namespace

class TestGradients : public QObject {
    Q_OBJECT
private slots:
    void layersMatchFiniteDifferences_data();
    void layersMatchFiniteDifferences();
    void untrainableLayersAreNamed();
    void stopbackwardFreezesEarlierLayers();
    void evenMaxpoolRoutesDeltasAsTheGeneralRule();
    void dontUpdatePassesDeltasWithoutWeightGradients();
    void costLayerDeltasByHand();
    void deadBranchesGetNoBackward();
    void convolutionsShareTheirTrainingBuffers();
    void recurrentThroughTimeMatchesFiniteDifferences_data();
    void recurrentThroughTimeMatchesFiniteDifferences();
};

void TestGradients::layersMatchFiniteDifferences_data()
{
    QTest::addColumn<QString>("layers");
    const QString head = "[connected]\noutput=3\nactivation=linear\n\n[softmax]\n";
    QTest::newRow("conv + batch norm + leaky")
        << "[convolutional]\nbatch_normalize=1\nfilters=3\nsize=3\nstride=1\npad=1\n"
           "activation=leaky\n\n" +
               head;
    QTest::newRow("conv + batch norm, linear")
        << "[convolutional]\nbatch_normalize=1\nfilters=3\nsize=3\nstride=1\npad=1\n"
           "activation=linear\n\n" +
               head;
    QTest::newRow("conv leaky") << "[convolutional]\nfilters=3\nsize=3\nstride=1\npad=1\n"
                                   "activation=leaky\n\n" +
                                       head;
    QTest::newRow("conv stride 2, logistic, bias") << "[convolutional]\nfilters=4\nsize=3\nstride=2\npad=1\n"
                                                      "activation=logistic\n\n" +
                                                          head;
    QTest::newRow("grouped conv, tanh") << "[convolutional]\nfilters=4\ngroups=2\nsize=3\nstride=1\npad=0\n"
                                           "activation=tanh\n\n" +
                                               head;
    QTest::newRow("conv → maxpool → connected leaky")
        << "[convolutional]\nbatch_normalize=1\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=relu\n\n"
           "[maxpool]\nsize=2\nstride=2\n\n[connected]\noutput=5\nactivation=leaky\n\n" +
               head;
    QTest::newRow("maxpool 3/2 odd")
        << "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n[maxpool]\nsize=3\nstride=2\n\n" + head;
    QTest::newRow("maxpool_depth") << "[convolutional]\nfilters=4\nsize=3\npad=1\nactivation=tanh\n\n"
                                      "[maxpool]\nmaxpool_depth=1\nout_channels=2\n\n" +
                                          head;
    QTest::newRow("avgpool") << "[convolutional]\nfilters=4\nsize=3\npad=1\nactivation=elu\n\n[avgpool]\n\n" +
                                    head;
    QTest::newRow("route concatenating two branches")
        << "[convolutional]\nfilters=2\nsize=1\nactivation=leaky\n\n[convolutional]\nfilters=3\nsize=3\npad="
           "1\n"
           "activation=tanh\n\n[route]\nlayers=-1,-2\n\n" +
               head;
    QTest::newRow("route groups")
        << "[convolutional]\nfilters=4\nsize=1\nactivation=linear\n\n[route]\nlayers=-1\n"
           "groups=2\ngroup_id=1\n\n" +
               head;
    QTest::newRow("shortcut")
        << "[convolutional]\nfilters=3\nsize=1\nactivation=leaky\n\n[convolutional]\nfilters=3\n"
           "size=3\npad=1\nactivation=linear\n\n[shortcut]\nfrom=-2\nactivation=leaky\n\n" +
               head;
    QTest::newRow("shortcut alpha beta, resampled")
        << "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n"
           "[convolutional]\nfilters=2\nsize=3\nstride=2\npad=1\n"
           "activation=linear\n\n[shortcut]\nfrom=-2\nalpha=0.5\nbeta=2\n\n" +
               head;
    QTest::newRow("upsample both ways, activation")
        << "[convolutional]\nfilters=2\nsize=3\nstride=2\npad=1\nactivation=linear\n\n[upsample]\nstride="
           "2\n\n"
           "[upsample]\nstride=-3\nscale=0.5\n\n[activation]\nactivation=logistic\n\n" +
               head;
    QTest::newRow("dropout") << "[connected]\noutput=8\nactivation=selu\n\n[dropout]\nprobability=0.4\n\n" +
                                    head;
    // Activations whose derivative needs their input (kept by the layer while training).
    for (const char* activation : {"mish", "swish", "gelu", "hard_mish"}) {
        QTest::newRow(qPrintable(QString("conv + batch norm, %1").arg(activation)))
            << QString("[convolutional]\nbatch_normalize=1\nfilters=3\nsize=3\npad=1\nactivation=%1\n\n")
                       .arg(activation) +
                   head;
        QTest::newRow(qPrintable(QString("conv, %1").arg(activation)))
            << QString("[convolutional]\nfilters=3\nsize=3\npad=1\nactivation=%1\n\n").arg(activation) + head;
    }
    QTest::newRow("activation layer, mish") << "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n"
                                               "[activation]\nactivation=mish\n\n" +
                                                   head;
    QTest::newRow("connected + batch norm, leaky")
        << "[connected]\noutput=7\nbatch_normalize=1\nactivation=leaky\n\n" + head;
    QTest::newRow("connected + batch norm, swish")
        << "[connected]\noutput=7\nbatch_normalize=1\nactivation=swish\n\n" + head;
    const QString conv4 =
        "[convolutional]\nfilters=4\nsize=3\npad=1\nactivation=tanh\n\n"; // smooth: no kinks
    QTest::newRow("reorg stride 2") << conv4 + "[reorg]\nstride=2\n\n" + head;
    QTest::newRow("reorg reverse") << conv4 + "[reorg]\nstride=2\nreverse=1\n\n" + head;
    QTest::newRow("reorg flatten") << conv4 + "[reorg]\nflatten=1\n\n" + head;
    QTest::newRow("reorg extra") << conv4 + "[reorg]\nextra=5\n\n" + head;
    QTest::newRow("logistic in the middle") << conv4 + "[logistic]\n\n" + head;
    QTest::newRow("logistic as the loss") << "[connected]\noutput=3\nactivation=linear\n\n[logistic]\n";
    QTest::newRow("l2norm") << conv4 + "[l2norm]\n\n" + head;
    QTest::newRow("scale_channels (squeeze-excite)")
        << conv4 +
               "[avgpool]\n\n[connected]\noutput=4\nactivation=logistic\n\n[scale_channels]\nfrom=-3\n\n" +
               head;
    QTest::newRow("sam")
        << conv4 + "[convolutional]\nfilters=4\nsize=1\nactivation=logistic\n\n[sam]\nfrom=-2\n\n" + head;
    QTest::newRow("reorg3d, stride 2")
        << "[convolutional]\nfilters=3\nsize=3\npad=1\nactivation=tanh\n\n[reorg3d]\nstride=2\n\n" + head;
    QTest::newRow("batchnorm layer")
        << "[convolutional]\nfilters=3\nsize=3\npad=1\nactivation=linear\n\n[batchnorm]\n\n" + head;
    // pjreddie's window never adds channel size/2 but takes it away at channel 5 (count −1): a small α
    // keeps every norm positive (a large one makes them negative, and the output NaN, in Darknet too).
    QTest::newRow("normalization (LRN), window quirk")
        << "[convolutional]\nfilters=7\nsize=3\npad=1\nactivation=linear\n\n[normalization]\nsize=5\n"
           "alpha=0.1\nbeta=0.75\nkappa=1\n\n" +
               head;
    // Five channels (no negative count), a small κ and a large α: the window's cross term (Σ_k w_kj·…) is a
    // large part of the gradient.
    QTest::newRow("normalization (LRN), strong window")
        << "[convolutional]\nfilters=5\nsize=3\npad=1\nactivation=linear\n\n[normalization]\nsize=5\n"
           "alpha=4\nbeta=0.75\nkappa=0.05\n\n" +
               head;
    QTest::newRow("local, tanh") << "[local]\nfilters=3\nsize=3\nstride=1\npad=1\nactivation=tanh\n\n" + head;
    QTest::newRow("local 5x5, pad 2 pixels")
        << "[local]\nfilters=2\nsize=5\nstride=1\npad=2\nactivation=tanh\n\n" + head;
    QTest::newRow("local stride 2, no pad")
        << "[local]\nfilters=2\nsize=3\nstride=2\npad=0\nactivation=logistic\n\n" + head;
    QTest::newRow("deconvolutional, tanh")
        << conv4 + "[deconvolutional]\nfilters=3\nsize=2\nstride=2\nactivation=tanh\n\n" + head;
    QTest::newRow("deconvolutional + batch norm, swish")
        << conv4 +
               "[deconvolutional]\nbatch_normalize=1\nfilters=3\nsize=3\nstride=1\npad=1\nactivation="
               "swish\n\n" +
               head;
    QTest::newRow("crop (random window and flip)")
        << conv4 + "[crop]\ncrop_width=4\ncrop_height=4\nflip=1\n\n" + head;
    // AlexeyAB's weighted shortcuts: the weights learn through each normalisation.
    for (const char* kind : {"per_feature", "per_channel"})
        for (const char* normalization : {"none", "relu", "softmax"})
            QTest::newRow(qPrintable(QString("shortcut weights %1 %2").arg(kind, normalization)))
                << QString(
                       "[convolutional]\nfilters=3\nsize=1\nactivation=leaky\n\n[convolutional]\nfilters=3\n"
                       "size=3\npad=1\nactivation=linear\n\n[shortcut]\nfrom=-2\nweights_type=%1\n"
                       "weights_normalization=%2\nactivation=mish\n\n")
                           .arg(kind, normalization) +
                       head;
}

void TestGradients::layersMatchFiniteDifferences()
{
    QFETCH(QString, layers);
    Case c = makeCase(layers.toStdString(), 3, 11);
    QVERIFY(c.net);
    // Networks without a kink (no leaky, relu or max-pool) take a larger step: its float rounding
    // noise is ten times smaller, and the second-order error stays far below the tolerance.
    static const QSet<QByteArray> smooth = {
        "conv + batch norm, linear", "grouped conv, tanh",
        "conv + batch norm, mish",   "conv + batch norm, swish",
        "conv + batch norm, gelu",   "connected + batch norm, swish",
        "batchnorm layer",           "deconvolutional + batch norm, swish"};
    const float eps = smooth.contains(QTest::currentDataTag()) ? 1e-2f : 1e-3f;
    const double worst = worstRelativeError(c, 12, 2e-2, eps);
    QVERIFY2(worst < 3e-2, qPrintable(QString("worst relative error %1").arg(worst)));
}

void TestGradients::untrainableLayersAreNamed()
{
    std::string error;
    auto net =
        Net::create(test::specFromText("[net]\nwidth=4\nheight=4\nchannels=3\n[iseg]\nclasses=1\nids=2\n"
                                       "[connected]\noutput=2\n[softmax]\n"),
                    1, error);
    QVERIFY(net);
    const auto problem = net->setTraining(true);
    QVERIFY(problem);
    QCOMPARE(QString::fromStdString(*problem),
             QString("layer 0 [iseg] (line 5) cannot be trained: no backward pass yet"));
}

// The 2×2/2 max-pool over even sizes trains through its own kernel (a winning corner per window);
// padding=0 gives the same windows through the general rule. A 1×1 convolution weighing its two
// input channels alike turns inputs (1, 0) and (0, 1) into equal values whose winner its weight
// gradients can tell apart: the first of equal values must win in both (a tie sent to another corner
// changes them).
void TestGradients::evenMaxpoolRoutesDeltasAsTheGeneralRule()
{
    const auto withPadding = [](const std::string& padding) {
        return "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n\n[maxpool]\nsize=2\nstride=2\n" +
               padding + "\n[connected]\noutput=4\nactivation=leaky\n\n[softmax]\n";
    };
    // 36 wide: a row of 18 windows is sixteen in vectors and two one by one.
    const int w = 36, h = 4;
    const std::string net =
        "[net]\nwidth=" + std::to_string(w) + "\nheight=" + std::to_string(h) + "\nchannels=2\n\n";
    Case even = makeCase(withPadding(""), 2, 5, net),
         general = makeCase(withPadding("padding=0\n"), 2, 5, net);
    QVERIFY(even.net && general.net);
    for (Case* c : {&even, &general}) {
        auto layers = c->net->trainableParameters();
        for (Parameter& p : layers[0].parameters)
            std::fill(p.values->begin(), p.values->end(), 0.5f); // (its bias and both weights)
    }
    std::mt19937 random(3);
    for (float& v : even.input)
        v = float(random() % 2);
    general.input = even.input;
    int ties = 0; // windows whose largest sum x0 + x1 appears in two places or more
    for (int b = 0; b < 2; ++b)
        for (int y = 0; y < h; y += 2)
            for (int x = 0; x < w; x += 2) {
                float sums[4];
                for (int k = 0; k < 4; ++k) {
                    const std::size_t at = std::size_t(b * 2 * w * h + (y + k / 2) * w + x + k % 2);
                    sums[k] = even.input[at] + even.input[at + std::size_t(w * h)];
                }
                ties += std::count(sums, sums + 4, *std::max_element(sums, sums + 4)) > 1;
            }
    QVERIFY(ties > 20);
    for (Case* c : {&even, &general}) {
        loss(*c);
        c->net->backward();
    }
    const auto a = even.net->trainableParameters(), b = general.net->trainableParameters();
    QCOMPARE(a.size(), b.size());
    double largest = 0;
    for (std::size_t l = 0; l < a.size(); ++l)
        for (std::size_t p = 0; p < a[l].parameters.size(); ++p) {
            const auto& ga = *a[l].parameters[p].gradient;
            const auto& gb = *b[l].parameters[p].gradient;
            QCOMPARE(ga.size(), gb.size());
            for (std::size_t i = 0; i < ga.size(); ++i) {
                QVERIFY2(std::fabs(ga[i] - gb[i]) <= 1e-6f * std::max(1.0f, std::fabs(gb[i])),
                         qPrintable(QString("layer %1 array %2 entry %3: %4 vs %5")
                                        .arg(a[l].layer)
                                        .arg(p)
                                        .arg(i)
                                        .arg(ga[i])
                                        .arg(gb[i])));
                largest = std::max(largest, double(std::fabs(gb[i])));
            }
        }
    QVERIFY(largest > 1e-3); // (gradients that are there to compare)
}

void TestGradients::stopbackwardFreezesEarlierLayers()
{
    Case c = makeCase("[iseg]\nclasses=1\nids=1\n\n[connected]\noutput=4\nstopbackward=1\n"
                      "activation=linear\n\n[connected]\noutput=3\nactivation=linear\n\n[softmax]\n",
                      2, 5);
    QVERIFY(c.net); // the [iseg] head cannot train, but it is frozen
    const auto layers = c.net->trainableParameters();
    QCOMPARE(layers.size(), std::size_t(1));
    QCOMPARE(layers[0].layer, 2);
}

// dont_update layers keep their weights but pass the deltas on: the layer before two of them (a conv
// with batch norm, a connected one) gets exact gradients, and theirs are not even computed.
void TestGradients::dontUpdatePassesDeltasWithoutWeightGradients()
{
    // Smooth activations: finite differences across leaky's kink are noisy (0.07 here with leaky).
    Case c = makeCase("[convolutional]\nfilters=3\nsize=3\nstride=1\npad=1\nactivation=logistic\n\n"
                      "[convolutional]\nbatch_normalize=1\nfilters=3\nsize=3\nstride=1\npad=1\n"
                      "activation=logistic\ndont_update=1\n\n"
                      "[connected]\noutput=5\nactivation=logistic\ndont_update=1\n\n"
                      "[connected]\noutput=3\nactivation=linear\n\n[softmax]\n",
                      3, 13);
    QVERIFY(c.net);
    std::vector<int> trained;
    for (const auto& layer : c.net->trainableParameters())
        trained.push_back(layer.layer);
    QCOMPARE(trained, (std::vector<int>{0, 3}));
    const double worst = worstRelativeError(c, 12); // runs the backward pass
    QVERIFY2(worst < 3e-2, qPrintable(QString("worst relative error %1").arg(worst)));
    for (int frozen : {1, 2})
        for (const Parameter& p : c.net->runtimeLayer(frozen).parameters())
            QVERIFY2(std::all_of(p.gradient->begin(), p.gradient->end(), [](float g) { return g == 0.0f; }),
                     qPrintable(QString("layer %1 computed a weight gradient").arg(frozen)));
}

namespace {

// The net in training mode, its first layer (a 3 → 3 [connected]) the identity with zero biases; its
// parameters, none when it cannot train.
auto identityForTraining(Net& net)
{
    auto layers = net.trainableParameters();
    if (net.setTraining(true)) {
        layers.clear();
        return layers;
    }
    layers = net.trainableParameters();
    ParamArray& weights = *layers[0].parameters.back().values;
    std::fill(weights.begin(), weights.end(), 0.0f);
    for (int i = 0; i < 3; ++i)
        weights[std::size_t(i * 3 + i)] = 1;
    return layers;
}

} // namespace

void TestGradients::costLayerDeltasByHand()
{
    // connected (identity weights, no bias) → [cost]: the bias gradient is the cost's delta.
    const float input[3] = {0.2f, 0.5f, 3.0f};
    struct Expect {
        const char* type;
        float truth[3];
        float delta[3]; // scale 2 included
        double loss;
    };
    const Expect cases[] = {
        {"sse", {0, 1, 0.5f}, {-0.4f, 1.0f, -5.0f}, 2 * (0.04 + 0.25 + 6.25)},
        {"L1", {0, 1, 0.5f}, {-2, 2, -2}, 2 * (0.2 + 0.5 + 2.5)},
        {"smooth", {0, 1, 0.5f}, {-0.4f, 1.0f, -2}, 2 * (0.04 + 0.25 + 4.0)},
        {"masked", {-1234, 1, -1234}, {0, 1.0f, 0}, 2 * 0.25},
    };
    for (const Expect& e : cases) {
        std::string error;
        auto net = Net::create(test::specFromText(std::string("[net]\nwidth=1\nheight=1\nchannels=3\n\n"
                                                              "[connected]\noutput=3\nactivation=linear\n\n"
                                                              "[cost]\nscale=2\ntype=") +
                                                  e.type + "\n"),
                               1, error);
        QVERIFY2(net, error.c_str());
        auto layers = identityForTraining(*net);
        QVERIFY(!layers.empty());
        QVERIFY(!layers.empty());
        std::mt19937 random(1);
        const double loss = net->forwardTraining(input, e.truth, random);
        QVERIFY2(std::abs(loss - e.loss) < 1e-4, qPrintable(QString("%1: loss %2").arg(e.type).arg(loss)));
        net->backward();
        const ParamArray& biasGradient = *layers[0].parameters.front().gradient;
        for (int i = 0; i < 3; ++i)
            QVERIFY2(std::abs(biasGradient[std::size_t(i)] - e.delta[i]) < 1e-5,
                     qPrintable(QString("%1[%2]: %3").arg(e.type).arg(i).arg(biasGradient[std::size_t(i)])));
    }

    // [softmax] then [cost] (cifar_small's ending): two loss layers, and the pass reports their mean as
    // Darknet's get_network_cost does; the gradient is their sum's, the cost's delta passed on by softmax.
    std::string error;
    auto net =
        Net::create(test::specFromText("[net]\nwidth=1\nheight=1\nchannels=3\n\n[connected]\noutput=3\n"
                                       "activation=linear\n\n[softmax]\n\n[cost]\ntype=sse\n"),
                    1, error);
    QVERIFY2(net, error.c_str());
    auto layers = identityForTraining(*net);
    QVERIFY(!layers.empty());
    const float truth[3] = {0, 1, 0};
    const double sum = std::exp(0.2) + std::exp(0.5) + std::exp(3.0);
    const double p[3] = {std::exp(0.2) / sum, std::exp(0.5) / sum, std::exp(3.0) / sum};
    const double crossEntropy = -std::log(p[1]);
    const double squares = p[0] * p[0] + (1 - p[1]) * (1 - p[1]) + p[2] * p[2];
    std::mt19937 random(1);
    const double loss = net->forwardTraining(input, truth, random);
    QVERIFY2(std::abs(loss - (crossEntropy + squares) / 2) < 1e-5,
             qPrintable(QString("loss %1, expected (%2 + %3) / 2").arg(loss).arg(crossEntropy).arg(squares)));
    net->backward();
    const ParamArray& biasGradient = *layers[0].parameters.front().gradient;
    for (int i = 0; i < 3; ++i)
        QVERIFY2(std::abs(biasGradient[std::size_t(i)] - 2 * (truth[i] - p[i])) < 1e-5,
                 qPrintable(QString("bias gradient [%1]: %2").arg(i).arg(biasGradient[std::size_t(i)])));
}

void TestGradients::recurrentThroughTimeMatchesFiniteDifferences_data()
{
    QTest::addColumn<QString>("net");
    QTest::addColumn<QString>("layers");
    const QString head = "[connected]\noutput=3\nactivation=linear\n\n[softmax]\n";
    const QString flat = "[net]\ninputs=5\ntime_steps=3\n\n";
    const QString image = "[net]\nwidth=4\nheight=4\nchannels=2\ntime_steps=3\n\n";
    QTest::newRow("rnn, tanh") << flat << "[rnn]\noutput=4\nactivation=tanh\n\n" + head;
    QTest::newRow("rnn + batch norm, shortcut, tanh")
        << flat << "[rnn]\noutput=4\nbatch_normalize=1\nshortcut=1\nactivation=tanh\n\n" + head;
    QTest::newRow("gru") << flat << "[gru]\noutput=4\n\n" + head;
    QTest::newRow("gru + batch norm, tanh candidate")
        << flat << "[gru]\noutput=4\nbatch_normalize=1\ntanh=1\n\n" + head;
    QTest::newRow("lstm") << flat << "[lstm]\noutput=4\n\n" + head;
    QTest::newRow("lstm + batch norm") << flat << "[lstm]\noutput=3\nbatch_normalize=1\n\n" + head;
    QTest::newRow("two rnn layers, logistic")
        << flat << "[rnn]\noutput=5\nactivation=logistic\n\n[rnn]\noutput=4\nactivation=tanh\n\n" + head;
    // Convolutions through the state; each step's forward runs again before its backward.
    QTest::newRow("crnn, tanh") << image << "[crnn]\noutput=2\nhidden=3\nactivation=tanh\n\n" + head;
    QTest::newRow("crnn + batch norm, shortcut, tanh")
        << image << "[crnn]\noutput=2\nhidden=3\nbatch_normalize=1\nshortcut=1\nactivation=tanh\n\n" + head;
}

void TestGradients::recurrentThroughTimeMatchesFiniteDifferences()
{
    // Three time steps of four sequences (batch 12 = 3 steps × 4; batch norm needs a few rows per
    // step): the gradients flow back through the state from the last step to the first.
    QFETCH(QString, net);
    QFETCH(QString, layers);
    Case c = makeCase(layers.toStdString(), 12, 13, net.toStdString());
    QVERIFY(c.net);
    // The loss of 12 rows is ≈ 13, so float32 forward passes leave ≈ 4e-4 of noise in each central
    // difference (ε = 1e-3): errors below 0.05 count as absolute.
    const double worst = worstRelativeError(c, 12, 5e-2);
    QVERIFY2(worst < 3e-2, qPrintable(QString("worst relative error %1").arg(worst)));
}

// The convolutions' per-thread training buffers are one set that the layers take in turn: a second,
// smaller convolution adds nothing to them (kept per layer, yolov4-tiny's added up to 300 MB at 416).
void TestGradients::convolutionsShareTheirTrainingBuffers()
{
    const std::string first = "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n";
    const std::string rest = "[connected]\noutput=3\nactivation=linear\n\n[softmax]\n";
    Case one = makeCase(first + rest, 4, 5);
    Case two = makeCase(first + "[convolutional]\nfilters=2\nsize=1\nactivation=leaky\n\n" + rest, 4, 5);
    QVERIFY(one.net && two.net);
    for (Case* c : {&one, &two}) {
        loss(*c);
        c->net->backward();
    }
    QVERIFY(one.net->threadScratchBytes() > 0);
    QCOMPARE(two.net->threadScratchBytes(), one.net->threadScratchBytes());
}

void TestGradients::deadBranchesGetNoBackward()
{
    // Layer 1 is read by nobody (the route takes layer 0): its backward is skipped, the others run.
    Case c = makeCase("[convolutional]\nfilters=2\nsize=1\nactivation=tanh\n\n"
                      "[convolutional]\nfilters=3\nsize=3\npad=1\nactivation=tanh\n\n"
                      "[route]\nlayers=-2\n\n[connected]\noutput=3\nactivation=linear\n\n[softmax]\n",
                      2, 3);
    QVERIFY(c.net);
    loss(c);
    std::vector<double> milliseconds;
    c.net->backward(&milliseconds);
    QCOMPARE(milliseconds[1], 0.0);
    for (int layer : {0, 2, 3, 4})
        QVERIFY2(milliseconds[std::size_t(layer)] > 0, qPrintable(QString::number(layer)));
    const auto reaches = c.net->layersReachingLoss();
    QCOMPARE(reaches, std::vector<bool>({true, false, true, true, true}));
}

QTEST_GUILESS_MAIN(TestGradients)
#include "test_gradients.moc"
