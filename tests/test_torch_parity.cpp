// Solver steps against PyTorch (python3-torch): the same conv-BN-leaky-maxpool-connected-softmax net,
// the same starting weights and batch; after one SGD step (or three Adam steps) the weights, biases
// and BN scales must agree.
#include "runtime/net.h"
#include "test_support.h"
#include "train/adam.h"
#include "train/sgd.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace nw;

namespace {

std::vector<float> readWeights(const QString& path)
{
    const QByteArray bytes = test::readAll(path).mid(20);
    std::vector<float> values(std::size_t(bytes.size()) / sizeof(float));
    std::memcpy(values.data(), bytes.constData(), values.size() * sizeof(float));
    return values;
}

} // namespace

class TestTorchParity : public QObject {
    Q_OBJECT
private slots:
    void stepsMatchPyTorch_data();
    void stepsMatchPyTorch();
};

void TestTorchParity::stepsMatchPyTorch_data()
{
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<int>("steps");
    QTest::addColumn<float>("lr");
    QTest::addColumn<double>("tolerance"); // of the largest step in each array
    QTest::newRow("sgd, one step") << "sgd" << 1 << 0.05f << 2e-3;
    // Adam normalises each element's step: near-zero gradients, where summation order and eps differ
    // (ours are summed over the batch, PyTorch's averaged), move as far as large ones.
    QTest::newRow("adam, three steps") << "adam" << 3 << 0.002f << 1e-2;
}

void TestTorchParity::stepsMatchPyTorch()
{
    QFETCH(QString, optimizer);
    QFETCH(int, steps);
    QFETCH(float, lr);
    QFETCH(double, tolerance);
    const int B = 16, C = 1, H = 12, W = 12, F1 = 6, F2 = 8, hidden = 20, classes = 5;
    const float decay = 0.001f;
    const std::string cfg =
        "[net]\nbatch=" + std::to_string(B) +
        "\nwidth=12\nheight=12\nchannels=1\nlearning_rate=0.05\n"
        "momentum=0.9\ndecay=0.001\n\n"
        "[convolutional]\nbatch_normalize=1\nfilters=6\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
        "[maxpool]\nsize=2\nstride=2\n\n"
        "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
        "[maxpool]\nsize=2\nstride=2\n\n"
        "[connected]\noutput=20\nactivation=leaky\n\n[connected]\noutput=5\nactivation=linear\n\n[softmax]\n";
    std::string error;
    auto net = Net::create(test::specFromText(cfg), B, error);
    QVERIFY2(net, error.c_str());
    net->initialize(21);
    std::mt19937 random(5);
    std::uniform_real_distribution<float> uniform(-0.2f, 0.2f);
    for (const WeightArray& array : net->weightArrays()) // non-trivial BN scales and biases
        if (std::string(array.name) == "scales" || std::string(array.name) == "biases")
            for (float& v : *array.data)
                v += uniform(random);
    QTemporaryDir dir;
    QVERIFY(!net->saveWeights(dir.filePath("start.weights").toStdString()));

    std::vector<float> input(std::size_t(B * C * H * W)), truth(std::size_t(B * classes), 0.0f);
    std::uniform_real_distribution<float> pixel(0, 1);
    for (float& v : input)
        v = pixel(random);
    QString labels;
    for (int b = 0; b < B; ++b) {
        const int label = int(random() % classes);
        truth[std::size_t(b * classes + label)] = 1;
        labels += QString::number(label) + " ";
    }
    QFile inputFile(dir.filePath("input.f32")), labelFile(dir.filePath("labels.txt"));
    QVERIFY(inputFile.open(QIODevice::WriteOnly) && labelFile.open(QIODevice::WriteOnly));
    inputFile.write(reinterpret_cast<const char*>(input.data()), qint64(input.size() * sizeof(float)));
    labelFile.write(labels.toUtf8());
    inputFile.close();
    labelFile.close();

    QProcess torch;
    torch.start("/usr/bin/python3",
                {QString(NETWRIGHT_TEST_SOURCE_DIR) + "/reference/torch_sgd_step.py",
                 dir.filePath("start.weights"), inputFile.fileName(), labelFile.fileName(),
                 dir.filePath("torch.weights"), QString::number(B), QString::number(C), QString::number(H),
                 QString::number(W), QString::number(F1), QString::number(F2), QString::number(hidden),
                 QString::number(classes), QString::number(double(lr)), QString::number(double(decay)),
                 optimizer, QString::number(steps)});
    QVERIFY(torch.waitForFinished(300000));
    QVERIFY2(torch.exitCode() == 0, torch.readAllStandardError().constData());

    QVERIFY(!net->setTraining(true));
    std::unique_ptr<Solver> solver;
    if (optimizer == "adam")
        solver = std::make_unique<AdamSolver>(0.9f, 0.999f, 1e-7f, decay);
    else
        solver = std::make_unique<SgdSolver>(0.9f, decay);
    auto parameters = net->trainableParameters();
    for (int step = 0; step < steps; ++step) {
        std::mt19937 unused(1);
        net->forwardTraining(input.data(), truth.data(), unused);
        net->backward();
        solver->step(parameters, lr, B);
    }
    QVERIFY(!net->saveWeights(dir.filePath("ours.weights").toStdString()));

    const auto start = readWeights(dir.filePath("start.weights"));
    const auto theirs = readWeights(dir.filePath("torch.weights"));
    const auto ours = readWeights(dir.filePath("ours.weights"));
    QCOMPARE(theirs.size(), ours.size());
    // Compare the step each took (w_new − w_start), array by array; rolling statistics are skipped
    // (Darknet averages them 0.99/0.01, PyTorch 0.9/0.1).
    std::size_t offset = 0, compared = 0;
    for (const WeightArray& array : net->weightArrays()) {
        const std::size_t n = array.data->size();
        const std::string name = array.name;
        if (name != "rolling_mean" && name != "rolling_variance") {
            double largest = 0, diff = 0;
            for (std::size_t i = offset; i < offset + n; ++i) {
                largest = std::max(largest, double(std::fabs(theirs[i] - start[i])));
                diff = test::worseOf(diff, std::fabs((ours[i] - start[i]) - (theirs[i] - start[i])));
            }
            QVERIFY2(largest > 0, name.c_str());
            QVERIFY2(diff <= tolerance * largest + 1e-7,
                     qPrintable(QString("%1 at %2: step differs by %3 (largest step %4)")
                                    .arg(QString::fromStdString(name))
                                    .arg(offset)
                                    .arg(diff)
                                    .arg(largest)));
            ++compared;
        }
        offset += n;
    }
    QCOMPARE(compared,
             std::size_t(2 * 3 + 2 * 2)); // conv: biases, scales, weights; connected: biases, weights
}

QTEST_GUILESS_MAIN(TestTorchParity)
#include "test_torch_parity.moc"
