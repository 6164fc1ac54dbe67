#pragma once
// Helpers shared by the test suites: the cfg files to test on and small file utilities.
#include "graph/network_spec.h"

#include <QByteArray>

#include <QString>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace nw::test {

// The larger of `worst` and `e`, a NaN counting as infinitely bad: std::max(worst, NaN) keeps `worst`,
// which lets a NaN pass every comparison after it.
inline double worseOf(double worst, double e)
{
    return std::isnan(e) ? INFINITY : std::max(worst, e);
}

// Whether a row's network is skipped in the sanitizer build (scripts/sanitize.sh): over 40 M parameters
// (yolov2, yolov4, alexnet), it runs the same code as the smaller rows on hundreds of MB, which ASan
// stretched into minutes of CI; the plain suite runs every row. Use: if (tooLargeForSanitizers(n))
// QSKIP(kLargeUnderSanitizers);
inline bool tooLargeForSanitizers([[maybe_unused]] long long parameters)
{
#ifdef NETWRIGHT_SANITIZE
    return parameters > 40'000'000;
#else
    return false;
#endif
}
inline constexpr const char* kLargeUnderSanitizers =
    "over 40 M parameters: skipped under the sanitizers, run by the plain suite";

// Every .cfg in a directory, sorted; fails the calling test when there are fewer than `atLeast`.
QStringList cfgFiles(const QString& dir);
QStringList darknetCfgs(); // /usr/share/darknet/cfg (Debian's darknet package)
QStringList abCfgs();      // tests/data/ab-cfgs (AlexeyAB's yolov4 family)
QStringList bundledCfgs(); // cfg/
QByteArray readAll(const QString& path);
// A raw float32 file (.f32, or a .weights body) as floats.
std::vector<float> readFloats(const QString& path);

// netwright-cli run to completion: exit code (−1 if it crashed), stdout, stderr.
struct Run {
    int exitCode = -1;
    QByteArray out, err;
};
Run cli(const QStringList& arguments);
NetworkSpec specFromText(const std::string& text, const std::string& name = "test.cfg");
// The first diagnostic whose formatted text contains `needle`, or nullptr.
const Diagnostic* findDiagnostic(const Diagnostics& diagnostics, const std::string& needle);
// "file:line:" of a diagnostic, for messages in failed comparisons.
std::string allText(const Diagnostics& diagnostics);

// A 70-byte PNG whose header declares width × height pixels (OpenCV refuses past 2^30 by throwing).
QByteArray pngDeclaring(std::uint32_t width, std::uint32_t height);
// Writes bytes to a file; fails the calling test when it cannot.
void writeFile(const QString& path, const QByteArray& bytes);
// A tiny [yolo] detector (16×16) and weights that diverged: every value 1e30, so its heads' outputs are
// infinite or NaN. True when both were written.
bool writeDivergedDetector(const QString& cfg, const QString& weights);

// IDX files for tests: `magic` 0x803 (images) or 0x801 (labels), big-endian dims, gzip optional.
void writeIdx(const QString& path, std::uint32_t magic, const std::vector<std::uint32_t>& dims,
              const std::vector<unsigned char>& payload, bool gzip);
// A learnable toy set in `dir`: toy-images.gz and toy-labels, 6×6 grey images of 3 classes (class =
// which quadrant is brightest), and toy.data naming them for training and validation.
void writeToySet(const QString& dir, int count);
// A small classifier for the toy set: batch 8 in 2 subdivisions, 12 iterations.
extern const char* const kToyCfg;
// A tiny detector (64×64 input, one [yolo] head of 5 classes, batch 8, 500 iterations) for the
// make-shapes data sets.
extern const char* const kTinyDetectorCfg;

} // namespace nw::test
