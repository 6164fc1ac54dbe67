#include "test_support.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTest>
#include <cstring>
#include <random>
#include <zlib.h>

namespace nw::test {

QStringList cfgFiles(const QString& dir)
{
    QStringList files;
    for (const QString& name : QDir(dir).entryList({"*.cfg"}, QDir::Files, QDir::Name))
        files << dir + "/" + name;
    return files;
}

QStringList darknetCfgs()
{
    return cfgFiles(DARKNET_CFG_DIR);
}
QStringList abCfgs()
{
    return cfgFiles(QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs");
}
QStringList bundledCfgs()
{
    return cfgFiles(NETWRIGHT_SOURCE_CFG_DIR);
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

std::vector<float> readFloats(const QString& path)
{
    const QByteArray bytes = readAll(path);
    std::vector<float> values(std::size_t(bytes.size()) / sizeof(float));
    std::memcpy(values.data(), bytes.constData(), values.size() * sizeof(float));
    return values;
}

Run cli(const QStringList& arguments)
{
    QProcess process;
    process.start(NETWRIGHT_CLI, arguments);
    process.waitForFinished(300000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

NetworkSpec specFromText(const std::string& text, const std::string& name)
{
    return buildNetworkSpec(cfg::Document::parse(text, name));
}

const Diagnostic* findDiagnostic(const Diagnostics& diagnostics, const std::string& needle)
{
    for (const Diagnostic& d : diagnostics)
        if (d.format().find(needle) != std::string::npos)
            return &d;
    return nullptr;
}

std::string allText(const Diagnostics& diagnostics)
{
    std::string text;
    for (const Diagnostic& d : diagnostics)
        text += d.format() + "\n";
    return text;
}

void writeIdx(const QString& path, std::uint32_t magic, const std::vector<std::uint32_t>& dims,
              const std::vector<unsigned char>& payload, bool gzip)
{
    std::string bytes;
    auto be = [&](std::uint32_t v) {
        for (int shift = 24; shift >= 0; shift -= 8)
            bytes += char((v >> shift) & 0xff);
    };
    be(magic);
    for (auto d : dims)
        be(d);
    bytes.append(reinterpret_cast<const char*>(payload.data()), payload.size());
    if (gzip) {
        gzFile file = gzopen(path.toStdString().c_str(), "wb");
        gzwrite(file, bytes.data(), unsigned(bytes.size()));
        gzclose(file);
    } else {
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write(bytes.data(), qint64(bytes.size()));
    }
}

void writeToySet(const QString& dir, int count)
{
    std::vector<unsigned char> images, labels;
    std::mt19937 random(3);
    for (int n = 0; n < count; ++n) {
        const int label = n % 3;
        labels.push_back(static_cast<unsigned char>(label));
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 6; ++x) {
                const int quadrant = (y / 3) * 2 + x / 3;
                images.push_back(static_cast<unsigned char>(random() % 80 + (quadrant == label ? 150 : 0)));
            }
    }
    writeIdx(dir + "/toy-images.gz", 0x803, {std::uint32_t(count), 6, 6}, images, true);
    writeIdx(dir + "/toy-labels", 0x801, {std::uint32_t(count)}, labels, false);
    QFile data(dir + "/toy.data");
    if (data.open(QIODevice::WriteOnly))
        data.write("classes=3\ntrain=toy-images.gz\ntrain_labels=toy-labels\nvalid=toy-images.gz\n"
                   "valid_labels=toy-labels\n");
}

const char* const kToyCfg =
    "[net]\nbatch=8\nsubdivisions=2\nwidth=6\nheight=6\nchannels=1\nlearning_rate=0.05\n"
    "momentum=0.9\ndecay=0.0005\nmax_batches=12\npolicy=steps\nsteps=8\nscales=0.5\n\n"
    "[convolutional]\nbatch_normalize=1\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
    "[maxpool]\nsize=2\nstride=2\n\n[connected]\noutput=3\nactivation=linear\n\n[softmax]\n";

const char* const kTinyDetectorCfg = R"([net]
batch=8
subdivisions=1
width=64
height=64
channels=3
learning_rate=0.01
momentum=0.9
decay=0.0005
burn_in=50
max_batches=500
policy=constant

[convolutional]
batch_normalize=1
filters=16
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=32
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
batch_normalize=1
filters=32
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
size=1
stride=1
pad=1
filters=30
activation=linear

[yolo]
mask=0,1,2
anchors=8,8, 16,16, 28,28
classes=5
num=3
jitter=0
ignore_thresh=.7
)";

QByteArray pngDeclaring(std::uint32_t width, std::uint32_t height)
{
    auto bigEndian = [](std::uint32_t v) {
        const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
        return QByteArray(bytes, 4);
    };
    auto chunk = [&](const QByteArray& type, const QByteArray& data) {
        const QByteArray typed = type + data;
        const auto crc =
            std::uint32_t(crc32(0, reinterpret_cast<const Bytef*>(typed.data()), uInt(typed.size())));
        return bigEndian(std::uint32_t(data.size())) + typed + bigEndian(crc);
    };
    // 8-bit RGB, no interlace; the image data is a token zlib stream (OpenCV refuses before reading it).
    const QByteArray header = bigEndian(width) + bigEndian(height) + QByteArray("\x08\x02\x00\x00\x00", 5);
    return QByteArray("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", header) +
           chunk("IDAT", qCompress(QByteArray(10, 0)).mid(4)) + chunk("IEND", {});
}

bool writeDivergedDetector(const QString& cfg, const QString& weights)
{
    writeFile(cfg, "[net]\nwidth=16\nheight=16\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\npad=1\n"
                   "activation=leaky\n\n[convolutional]\nfilters=18\nsize=1\nactivation=linear\n\n[yolo]\n"
                   "mask=0,1,2\nanchors=2,2, 4,4, 8,8\nclasses=1\nnum=3\n");
    if (cli({"init", cfg, weights}).exitCode != 0)
        return false;
    QByteArray bytes = readAll(weights);
    for (qsizetype at = 20; at + 4 <= bytes.size(); at += 4) { // after the header
        const float huge = 1e30f;
        std::memcpy(bytes.data() + at, &huge, 4);
    }
    writeFile(weights, bytes);
    return true;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace nw::test
