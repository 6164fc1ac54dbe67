// Images without OpenCV (headless builds): the libjpeg/libpng decoders and the portable augmentation
// operations, held to OpenCV's results on real photographs (Darknet's sample images).
#include "detect/video_recorder.h"
#include "image/image.h"
#include "image/image_opencv.h"
#include "image/jpeg_truncation.h"
#include "image/mp4_index.h"
#include "image/pixel_ops.h"
#include "image/portable_codecs.h"
#include "image/portable_pixel_ops.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <array>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <random>
#include <zlib.h>

using namespace nw;

namespace {

const char* const kSamples[] = {"dog.jpg",    "eagle.jpg",  "giraffe.jpg",
                                "horses.jpg", "person.jpg", "kite.jpg"};

std::string sample(const char* name)
{
    return std::string("/usr/share/darknet/data/") + name;
}

// OpenCV's decoding as RGB (or grey) bytes.
// EXIF data as a camera writes it: a TIFF header, IFD0 with one SHORT entry 0x0112 = orientation.
QByteArray exifTiff(int orientation, bool bigEndian)
{
    QByteArray tiff = bigEndian ? QByteArray("MM\0\x2A\0\0\0\x08", 8) : QByteArray("II\x2A\0\x08\0\0\0", 8);
    const auto u16 = [&](int v) { // two bytes in the header's order
        const char high = char(v >> 8), low = char(v & 255);
        QByteArray bytes;
        bytes.append(bigEndian ? high : low).append(bigEndian ? low : high);
        return bytes;
    };
    tiff += u16(1);                                                                 // one entry
    tiff += u16(0x0112) + u16(3) + u16(bigEndian ? 0 : 1) + u16(bigEndian ? 1 : 0); // tag, SHORT, count 1
    tiff += u16(orientation) + u16(0) + QByteArray(4, '\0');                        // value, no next IFD
    return tiff;
}

// A JPEG APP1 segment holding `payload`.
QByteArray app1(const QByteArray& payload)
{
    const int length = payload.size() + 2;
    return QByteArray("\xFF\xE1", 2) + char(length >> 8) + char(length & 255) + payload;
}

Pixels openCvPixels(const std::string& path, int channels)
{
    cv::Mat frame = cv::imread(path, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
    if (channels == 3)
        cv::cvtColor(frame, frame, cv::COLOR_BGR2RGB);
    Pixels pixels(frame.cols, frame.rows, channels);
    for (int y = 0; y < frame.rows; ++y)
        std::memcpy(pixels.row(y), frame.ptr(y), pixels.rowBytes());
    return pixels;
}

struct Difference {
    int largest = 0;
    double mean = 0;
};

Difference compare(const Pixels& a, const Pixels& b)
{
    Difference d;
    if (a.data.size() != b.data.size())
        return {1000, 1000};
    double sum = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        const int step = std::abs(int(a.data[i]) - int(b.data[i]));
        d.largest = std::max(d.largest, step);
        sum += step;
    }
    d.mean = sum / double(std::max<std::size_t>(1, a.data.size()));
    return d;
}

} // namespace

class TestImageIo : public QObject {
    Q_OBJECT
private slots:
    void writingAnImageSaysWhyNot();
    void aVideoCutShortIsSaid();
    void jpegDecodesAsOpenCv();
    void pngDecodesAsOpenCvInEveryLayout();
    void jpegExifOrientationAsOpenCv();
    void cmykJpegDecodesAsOpenCv();
    void damagedAndHugeFilesAreRefusedByName();
    void truncatedJpegsAreRefusedByName();
    void mp4WithoutItsIndexIsNamed();
    void placementMatchesWarpAffine();
    void hsvJitterMatchesOpenCv();
    void floatHsvMatchesOpenCv();
    void resizeWindowsAreDarknetsResize();
};

// libjpeg-turbo with its defaults is what OpenCV's imread calls: the same bytes, colour and grey.
void TestImageIo::jpegDecodesAsOpenCv()
{
    for (const char* name : kSamples) {
        const std::string path = sample(name);
        QCOMPARE(portable::sniffImageFormat(path), portable::ImageFormat::Jpeg);
        for (int channels : {3, 1}) {
            std::string error;
            const auto ours = portable::decodeJpeg(path, channels, error);
            QVERIFY2(ours, error.c_str());
            const Difference d = compare(*ours, openCvPixels(path, channels));
            QVERIFY2(
                d.largest == 0,
                qPrintable(
                    QString("%1 channels %2: largest difference %3").arg(name).arg(channels).arg(d.largest)));
        }
    }
}

// Print and Photoshop JPEGs store CMYK or YCCK (tests/data/images, 40×24, written by libjpeg with its
// Adobe marker): converted as OpenCV converts them, in colour and grey, so both builds see one picture.
void TestImageIo::cmykJpegDecodesAsOpenCv()
{
    for (const char* name : {"cmyk.jpg", "ycck.jpg"}) {
        const std::string path = std::string(NETWRIGHT_TEST_DATA_DIR) + "/images/" + name;
        for (int channels : {3, 1}) {
            std::string error;
            const auto ours = portable::decodeJpeg(path, channels, error);
            QVERIFY2(ours, error.c_str());
            QCOMPARE(ours->channels, channels);
            QCOMPARE(ours->width, 40);
            const Pixels opencv = openCvPixels(path, channels);
            QCOMPARE(opencv.height, 24);
            const Difference d = compare(*ours, opencv);
            QVERIFY2(d.largest == 0, qPrintable(QString("%1, %2 channels: largest difference %3")
                                                    .arg(name)
                                                    .arg(channels)
                                                    .arg(d.largest)));
        }
    }
}

// A phone photo's EXIF orientation: the JPEG is turned as OpenCV's imread turns it (each of the seven
// non-trivial orientations, big- and little-endian TIFF headers), so both builds see one picture.
void TestImageIo::jpegExifOrientationAsOpenCv()
{
    QFile source(QString::fromStdString(sample("eagle.jpg"))); // JFIF, no EXIF of its own
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray jpeg = source.readAll();
    QVERIFY(jpeg.startsWith("\xFF\xD8\xFF\xE0"));
    const int app0End = 4 + ((uchar(jpeg[4]) << 8) | uchar(jpeg[5])); // after SOI and the JFIF segment
    QTemporaryDir dir;
    for (int orientation = 2; orientation <= 8; ++orientation)
        for (bool bigEndian : {true, false}) {
            const QString path = dir.filePath(QString("turned-%1-%2.jpg").arg(orientation).arg(bigEndian));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(jpeg.left(app0End) +
                       app1(QByteArray("Exif\0\0", 6) + exifTiff(orientation, bigEndian)) +
                       jpeg.mid(app0End));
            file.close();
            std::string error;
            const auto ours = portable::decodeJpeg(path.toStdString(), 3, error);
            QVERIFY2(ours, error.c_str());
            const Pixels opencv = openCvPixels(path.toStdString(), 3);
            QCOMPARE(opencv.width, orientation >= 5 ? 512 : 773); // OpenCV did turn it
            QVERIFY2(ours->width == opencv.width && ours->height == opencv.height,
                     qPrintable(QString("orientation %1: %2x%3, OpenCV %4x%5")
                                    .arg(orientation)
                                    .arg(ours->width)
                                    .arg(ours->height)
                                    .arg(opencv.width)
                                    .arg(opencv.height)));
            QCOMPARE(compare(*ours, opencv).largest, 0);
        }
    // Where OpenCV 4.6 reads it and where not, the headless build the same (they disagreed): only the
    // first APP1 (an XMP one first: not turned), its header unread ("Exif\0\xFF": turned), and a PNG's
    // eXIf chunk, before the pixels or after them (turned).
    const QByteArray xmp = app1(QByteArray("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>", 42));
    const QByteArray exif6 = exifTiff(6, false);
    const cv::Mat small = cv::imread(sample("eagle.jpg"))(cv::Rect(0, 0, 60, 40)).clone();
    QVERIFY(cv::imwrite(dir.filePath("small.png").toStdString(), small));
    QFile pngFile(dir.filePath("small.png"));
    QVERIFY(pngFile.open(QIODevice::ReadOnly));
    const QByteArray png = pngFile.readAll();
    const auto chunk = [](const QByteArray& type, const QByteArray& data) {
        QByteArray bytes;
        for (int shift : {24, 16, 8, 0})
            bytes += char((data.size() >> shift) & 255);
        const QByteArray body = type + data;
        const auto crc = crc32(0, reinterpret_cast<const Bytef*>(body.constData()), uInt(body.size()));
        bytes += body;
        for (int shift : {24, 16, 8, 0})
            bytes += char((crc >> shift) & 255);
        return bytes;
    };
    const struct {
        const char* name;
        QByteArray bytes;
        bool turned;
    } cases[] = {
        {"xmp-first.jpg",
         jpeg.left(app0End) + xmp + app1(QByteArray("Exif\0\0", 6) + exif6) + jpeg.mid(app0End), false},
        {"exif-ff.jpg", jpeg.left(app0End) + app1(QByteArray("Exif\0\xFF", 6) + exif6) + jpeg.mid(app0End),
         true},
        {"exif-first.png", png.left(33) + chunk("eXIf", exif6) + png.mid(33), true},
        {"exif-last.png", png.left(png.size() - 12) + chunk("eXIf", exif6) + png.right(12), true},
    };
    for (const auto& one : cases) {
        const QString path = dir.filePath(one.name);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(one.bytes);
        file.close();
        std::string error;
        const bool isPng = QString(one.name).endsWith(".png");
        const auto ours = isPng ? portable::decodePng(path.toStdString(), 3, error)
                                : portable::decodeJpeg(path.toStdString(), 3, error);
        QVERIFY2(ours, error.c_str());
        const Pixels opencv = openCvPixels(path.toStdString(), 3);
        const int storedWidth = isPng ? 60 : 773;
        QVERIFY2((opencv.width != storedWidth) == one.turned, one.name); // what OpenCV does
        QVERIFY2(ours->width == opencv.width && ours->height == opencv.height, one.name);
        QCOMPARE(compare(*ours, opencv).largest, 0);
    }
}

// PNG as OpenCV writes it in each layout a data set may hold: 8-bit RGB, grey, RGBA (alpha dropped),
// 16-bit (high byte kept); read as colour and as grey.
void TestImageIo::pngDecodesAsOpenCvInEveryLayout()
{
    QTemporaryDir dir;
    const cv::Mat bgr = cv::imread(sample("dog.jpg"));
    cv::Mat grey, bgra, deep;
    cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
    bgr.convertTo(deep, CV_16UC3, 257.0);
    const std::pair<const char*, const cv::Mat*> layouts[] = {
        {"rgb.png", &bgr}, {"grey.png", &grey}, {"rgba.png", &bgra}, {"deep.png", &deep}};
    for (const auto& [name, mat] : layouts) {
        const std::string path = dir.filePath(name).toStdString();
        QVERIFY(cv::imwrite(path, *mat));
        QCOMPARE(portable::sniffImageFormat(path), portable::ImageFormat::Png);
        for (int channels : {3, 1}) {
            std::string error;
            const auto ours = portable::decodePng(path, channels, error);
            QVERIFY2(ours, error.c_str());
            const Difference d = compare(*ours, openCvPixels(path, channels));
            // Colour → grey: libpng's fixed-point weights against OpenCV's rounding, one level at most.
            const int allowed = channels == 1 && mat->channels() > 1 ? 1 : 0;
            QVERIFY2(
                d.largest <= allowed,
                qPrintable(
                    QString("%1 channels %2: largest difference %3").arg(name).arg(channels).arg(d.largest)));
        }
    }
}

// A JPEG cut short decodes with a grey end and a stderr line without the file's name; a detector would
// train on boxes over the grey. Refused by name instead; data after the end marker (a phone's appended
// video) and progressive files read as before.
void TestImageIo::truncatedJpegsAreRefusedByName()
{
    QTemporaryDir dir;
    QFile source(QString::fromStdString(sample("dog.jpg")));
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray baseline = source.readAll();
    std::vector<unsigned char> encoded;
    QVERIFY(cv::imencode(".jpg", cv::imread(sample("dog.jpg")), encoded, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}));
    const QByteArray progressive(reinterpret_cast<const char*>(encoded.data()), qsizetype(encoded.size()));
    QByteArray trailer(4000, '\xFF');
    for (qsizetype i = 1; i < trailer.size(); i += 2)
        trailer[i] = char(i % 251); // markers of every kind after the end
    const auto write = [&](const QString& name, const QByteArray& bytes) {
        QFile file(dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
    };
    // (without its end marker only, a file decodes whole: it loads, as in Darknet)
    QVERIFY(write("whole.jpg", baseline) && write("trailer.jpg", baseline + trailer) &&
            write("progressive.jpg", progressive) && write("no-end-marker.jpg", baseline.chopped(2)) &&
            write("cut.jpg", baseline.left(baseline.size() / 2)));
    std::string error;
    for (const char* name : {"whole.jpg", "trailer.jpg", "progressive.jpg", "no-end-marker.jpg"}) {
        const auto pixels = readPixels(dir.filePath(name).toStdString(), 3, error);
        QVERIFY2(pixels && pixels->width == 768, name);
        cv::Mat frame; // (what detect reads with)
        QVERIFY2(readImageFile(dir.filePath(name).toStdString(), 3, frame, error), name);
    }
    const std::string cut = dir.filePath("cut.jpg").toStdString();
    const std::string said =
        cut + ": the JPEG is cut short (the file ends before the image does, the rest is grey): copy or "
              "export it again";
    QVERIFY(!readPixels(cut, 3, error));
    QCOMPARE(error, said);
    cv::Mat frame;
    QVERIFY(!readImageFile(cut, 3, frame, error));
    QCOMPARE(error, said);
    // The portable decoder (the headless build's) sees the same grey end.
    const auto portablePixels = portable::decodeJpeg(cut, 1, error);
    QVERIFY(portablePixels &&
            isDecoderFill(portablePixels->row(portablePixels->height - 1), portablePixels->width, 1, 1));
    QVERIFY(jpegLacksItsEnd(cut) && !jpegLacksItsEnd(dir.filePath("trailer.jpg").toStdString()));
}

// A recording cut off before its index was written: FFmpeg said only "moov atom not found".
void TestImageIo::mp4WithoutItsIndexIsNamed()
{
    QTemporaryDir dir;
    const auto path = [&](const char* name) { return dir.filePath(name).toStdString(); };
    const auto write = [&](const char* name, const QByteArray& bytes) {
        QFile file(dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
    };
    const auto box = [](const char* type, int payload) {
        QByteArray bytes(8 + payload, '\0');
        const int size = 8 + payload;
        bytes[2] = char(size >> 8);
        bytes[3] = char(size & 0xFF);
        bytes.replace(4, 4, type);
        return bytes;
    };
    QByteArray large(16, '\0'); // size 1: a 64-bit size (24) after the type
    large[3] = 1;
    large.replace(4, 4, "mdat");
    large[15] = 24;
    large += QByteArray(8, 'x');
    QByteArray toEnd = box("mdat", 20); // size 0: the box runs to the end of the file
    toEnd[2] = toEnd[3] = 0;
    QVERIFY(write("indexed.mp4", box("ftyp", 12) + box("mdat", 40) + box("moov", 30)) &&
            write("index-first.mp4", box("ftyp", 12) + box("moov", 30) + box("mdat", 40)) &&
            write("no-index.mp4", box("ftyp", 12) + box("free", 4) + box("mdat", 40)) &&
            write("cut-in-data.mp4", box("ftyp", 12) + box("mdat", 400).left(100)) &&
            write("large-then-index.mp4", box("ftyp", 12) + large + box("moov", 10)) &&
            write("runs-to-end.mp4", box("ftyp", 12) + toEnd) &&
            write("not-mp4.avi", QByteArray("RIFF") + QByteArray(60, '\0')) &&
            write("many-boxes.mp4", box("ftyp", 12) + box("free", 0).repeated(100000)));
    QVERIFY(!mp4LacksItsIndex(path("indexed.mp4")) && !mp4LacksItsIndex(path("index-first.mp4")) &&
            !mp4LacksItsIndex(path("large-then-index.mp4")) && !mp4LacksItsIndex(path("not-mp4.avi")) &&
            !mp4LacksItsIndex(path("missing.mp4")));
    QVERIFY(!mp4LacksItsIndex(path("many-boxes.mp4"))); // not judged (100 MB of them took a minute)
    QVERIFY(mp4LacksItsIndex(path("no-index.mp4")) && mp4LacksItsIndex(path("cut-in-data.mp4")) &&
            mp4LacksItsIndex(path("runs-to-end.mp4")));

    // A real recording (OpenCV writes its index last), whole and cut in half, opened as detect opens it.
    const std::string whole = path("recording.mp4");
    {
        cv::VideoWriter writer(whole, cv::VideoWriter::fourcc('m', 'p', '4', 'v'), 10, {64, 48});
        QVERIFY(writer.isOpened());
        for (int i = 0; i < 20; ++i)
            writer.write(cv::Mat(48, 64, CV_8UC3, cv::Scalar(i * 10, 80, 160)));
    }
    QFile recorded(QString::fromStdString(whole));
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    QVERIFY(write("recording-cut.mp4", recorded.readAll().left(recorded.size() / 2)));
    std::string error;
    const auto opened = openVideoFile(whole, error);
    QVERIFY2(opened, error.c_str());
    QCOMPARE(opened->frameCount(), 20.0);
    QVERIFY(!openVideoFile(path("recording-cut.mp4"), error));
    QVERIFY2(error.starts_with(path("recording-cut.mp4") + ": the MP4/MOV file has no index ('moov' box)"),
             error.c_str());
}

void TestImageIo::damagedAndHugeFilesAreRefusedByName()
{
    QTemporaryDir dir;
    // A TIFF of 32-bit float samples (OpenCV does not read them): said as such, without OpenCV's own
    // unnamed warning on stderr.
    {
        // One grey pixel of 0.5 as a 32-bit float (SampleFormat 3), uncompressed, as Pillow's mode F saves.
        QByteArray bytes("II*\0\x08\0\0\0", 8);
        const std::vector<std::array<quint32, 3>> tags = {
            {256, 3, 1},   {257, 3, 1}, {258, 3, 32}, {259, 3, 1}, {262, 3, 1},
            {273, 4, 134}, {277, 3, 1}, {278, 3, 1},  {279, 4, 4}, {339, 3, 3}};
        const auto put = [&bytes](quint32 value, int size) {
            for (int i = 0; i < size; ++i)
                bytes.append(char((value >> (8 * i)) & 0xff));
        };
        put(quint32(tags.size()), 2);
        for (const auto& [tag, type, value] : tags) {
            put(tag, 2);
            put(type, 2);
            put(1, 4);
            put(value, 4); // (a SHORT sits in the first two bytes of the field, little-endian)
        }
        put(0, 4); // no next directory; the pixel at 8 + 2 + 10·12 + 4 = 134
        const float half = 0.5f;
        bytes.append(reinterpret_cast<const char*>(&half), 4);
        const QString tiff = dir.filePath("float.tiff");
        QFile out(tiff);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        out.close();
        std::string tiffError;
        QVERIFY(!readPixels(tiff.toStdString(), 3, tiffError));
        QVERIFY2(tiffError.find("float.tiff: cannot read the TIFF image (damaged, or samples OpenCV does not "
                                "read, such as 32-bit floats") != std::string::npos,
                 tiffError.c_str());
    }
    QFile source(QString::fromStdString(sample("dog.jpg")));
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray jpeg = source.readAll();
    const QString cut = dir.filePath("cut.jpg");
    {
        QFile file(cut);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(jpeg.left(600)); // the header and the start of the first scan
    }
    std::string error;
    const auto partial = portable::decodeJpeg(cut.toStdString(), 3, error);
    // libjpeg decodes a truncated file as far as it goes (grey below): a warning, not a failure, as
    // OpenCV. What must not happen is a crash; the size is the header's.
    if (partial)
        QCOMPARE(partial->width, 768);
    else
        QVERIFY2(error.find("cut.jpg") != std::string::npos, error.c_str());

    const QString garbage = dir.filePath("garbage.jpg");
    {
        QFile file(garbage);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("\xFF\xD8\xFF\xE0 this is not a JPEG after its first bytes", 44));
    }
    QVERIFY(!portable::decodeJpeg(garbage.toStdString(), 3, error));
    QVERIFY2(error.find("garbage.jpg: cannot read the image: damaged JPEG") != std::string::npos,
             error.c_str());

    // DICOM (OpenCV would pass it to GDCM, which allocated 3 GB for fuzz_image's 250-byte finding):
    // refused by name before any decoder sees it.
    const QString dicom = dir.filePath("scan.png");
    {
        QFile file(dicom);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(128, '\0') + "DICM" + QByteArray(64, char(0xBC)));
    }
    QVERIFY(!loadImage(dicom.toStdString(), 3, error));
    QVERIFY2(error.find("scan.png: a DICOM file, which Netwright does not read") != std::string::npos,
             error.c_str());

    // An empty file (an interrupted copy): said as such, not as a format no decoder knows.
    const QString empty = dir.filePath("empty.jpg");
    {
        QFile file(empty);
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QVERIFY(!loadImage(empty.toStdString(), 3, error));
    QVERIFY2(error.find("empty.jpg: the file is empty (0 bytes), not an image") != std::string::npos,
             error.c_str());

    // A PNG header declaring 100000 × 100000 pixels: refused before anything is allocated.
    const QString huge = dir.filePath("huge.png");
    {
        cv::Mat tiny(1, 1, CV_8UC3, cv::Scalar(1, 2, 3));
        QVERIFY(cv::imwrite(huge.toStdString(), tiny));
        QFile file(huge);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        const char size[8] = {0, 1, char(0x86), char(0xA0), 0, 1, char(0x86), char(0xA0)}; // 100000, 100000
        bytes.replace(16, 8, QByteArray(size, 8));
        // The chunk's CRC covers its type and data (bytes 12..28), so the header stays valid.
        const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(bytes.constData() + 12), 17);
        const char crcBytes[4] = {char(crc >> 24), char(crc >> 16), char(crc >> 8), char(crc)};
        bytes.replace(29, 4, QByteArray(crcBytes, 4));
        file.seek(0);
        file.write(bytes);
    }
    QVERIFY(!portable::decodePng(huge.toStdString(), 3, error));
    QVERIFY2(error.find("huge.png: cannot read the image: its header declares 100000x100000 pixels") !=
                 std::string::npos,
             error.c_str());
    // A PGM 2,000,000,000 pixels wide: OpenCV's assertion on one side (its own words were the message).
    const QString wide = dir.filePath("wide.pgm");
    {
        QFile file(wide);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("P5\n2000000000 2\n255\n" + QByteArray(64, '\x7f'));
    }
    cv::Mat frame;
    QVERIFY(!readImageFile(wide.toStdString(), 3, frame, error));
    QVERIFY2(error.find("wide.pgm: cannot read the image: its header declares more pixels than OpenCV "
                        "accepts") != std::string::npos,
             error.c_str());
}

// The augmentation's crop/scale/flip: OpenCV interpolates in fixed point (1/32 pixel, 15-bit weights),
// the portable code in doubles; a few levels where the image is sharp, a twentieth of one on average.
void TestImageIo::placementMatchesWarpAffine()
{
    const Pixels source = openCvPixels(sample("horses.jpg"), 3);
    const Placement placements[] = {{0.54, -12.3, 0.61, 7.9},     // shrink, crop left, pad top
                                    {-0.54, 416 + 20.1, 0.5, -3}, // mirrored
                                    {1.7, -300.2, 1.3, -150.6}};  // enlarge a part
    for (const Placement& p : placements) {
        const Pixels opencv = placePixels(source, 416, 320, p);
        const Pixels portable = portable::placePixels(source, 416, 320, p);
        const Difference d = compare(opencv, portable);
        qInfo("placement %.2f: largest difference %d, mean %.4f", p.scaleX, d.largest, d.mean);
        QVERIFY2(d.largest <= 4 && d.mean < 0.1,
                 qPrintable(QString("largest %1, mean %2").arg(d.largest).arg(d.mean)));
    }
}

// Darknet's hue/saturation/exposure jitter in float HSV, one pass of our own in both builds: within a
// level (rounding) of OpenCV's float conversion through Mats (2.6x slower), a hue shift of any size
// wrapped (one past -2 turns gave wrong colours in the headless build), and no jitter leaves every
// pixel as it was (OpenCV's 8-bit full-range HSV round trip turned pure blue into (6, 0, 255) and moved
// hues up to 9 levels by itself).
void TestImageIo::hsvJitterMatchesOpenCv()
{
    Pixels source = openCvPixels(sample("giraffe.jpg"), 3);
    std::copy_n(std::array<std::uint8_t, 6>{0, 0, 255, 248, 12, 31}.begin(), 6, source.data.begin());
    const auto opencvs = [](Pixels pixels, int hue, float saturation, float exposure) {
        cv::Mat image(pixels.height, pixels.width, CV_8UC3, pixels.data.data()), floats, hsv;
        image.convertTo(floats, CV_32FC3, 1.0 / 255);
        cv::cvtColor(floats, hsv, cv::COLOR_RGB2HSV);
        const float degrees = float(hue) * 360.0f / 256.0f;
        hsv.forEach<cv::Vec3f>([&](cv::Vec3f& p, const int*) {
            p[0] = std::fmod(std::fmod(p[0] + degrees, 360.0f) + 360.0f, 360.0f);
            p[1] = std::min(p[1] * saturation, 1.0f);
            p[2] = std::min(p[2] * exposure, 1.0f);
        });
        cv::cvtColor(hsv, floats, cv::COLOR_HSV2RGB);
        floats.convertTo(image, CV_8UC3, 255.0);
        return pixels;
    };
    const struct {
        int hue;
        float saturation, exposure;
    } jitters[] = {{0, 1, 1}, {25, 1.4f, 0.7f}, {-30, 0.6f, 1.45f}, {-600, 1, 1}, {700, 1.2f, 1}};
    for (const auto& j : jitters) {
        Pixels ours = source;
        jitterHsv(ours, j.hue, j.saturation, j.exposure);
        const Difference d = compare(ours, opencvs(source, j.hue, j.saturation, j.exposure));
        qInfo("jitter hue %d: largest difference %d, mean %.4f", j.hue, d.largest, d.mean);
        QVERIFY2(d.largest <= 1 && d.mean < 0.05,
                 qPrintable(QString("hue %1: largest %2, mean %3").arg(j.hue).arg(d.largest).arg(d.mean)));
        Pixels headless = source;
        portable::jitterHsv(headless, j.hue, j.saturation, j.exposure);
        QCOMPARE(compare(headless, ours).largest, 0);
        if (j.hue == 0 && j.saturation == 1 && j.exposure == 1)
            QCOMPARE(compare(ours, source).largest, 0);
    }
}

// Darknet's resize_image as written there (a whole first pass along x, then along y): the resize and any
// window of it give its values bit for bit, growing and shrinking, without building that first pass.
void TestImageIo::resizeWindowsAreDarknetsResize()
{
    const auto darknets = [](const Image& in, int w, int h) {
        Image part{w, in.height, in.channels, std::vector<float>(std::size_t(w * in.height * in.channels))};
        const float wScale = float(in.width - 1) / float(w - 1), hScale = float(in.height - 1) / float(h - 1);
        for (int k = 0; k < in.channels; ++k)
            for (int r = 0; r < in.height; ++r)
                for (int c = 0; c < w; ++c) {
                    float val = 0;
                    if (c == w - 1 || in.width == 1) {
                        val = in.at(in.width - 1, r, k);
                    } else {
                        const float sx = float(c) * wScale;
                        const int ix = int(sx);
                        const float dx = sx - float(ix);
                        val = (1 - dx) * in.at(ix, r, k) + dx * in.at(ix + 1, r, k);
                    }
                    part.at(c, r, k) = val;
                }
        Image out{w, h, in.channels, std::vector<float>(std::size_t(w * h * in.channels))};
        for (int k = 0; k < in.channels; ++k)
            for (int r = 0; r < h; ++r) {
                const float sy = float(r) * hScale;
                const int iy = int(sy);
                const float dy = sy - float(iy);
                for (int c = 0; c < w; ++c)
                    out.at(c, r, k) = (1 - dy) * part.at(c, iy, k);
                if (r == h - 1 || in.height == 1)
                    continue;
                for (int c = 0; c < w; ++c)
                    out.at(c, r, k) += dy * part.at(c, iy + 1, k);
            }
        return out;
    };
    std::mt19937 random(5);
    std::uniform_real_distribution<float> unit(0, 1);
    for (const auto& [inW, inH, outW, outH] : {std::array{768, 576, 416, 320},
                                               {28, 28, 416, 416},
                                               {7, 5, 13, 11},
                                               {1, 300, 28, 90},
                                               {300, 1, 90, 28},
                                               {5, 9, 5, 9},
                                               {64, 48, 31, 97}}) {
        Image in{inW, inH, 3, std::vector<float>(std::size_t(inW * inH * 3))};
        for (float& v : in.data)
            v = unit(random);
        const Image expected = darknets(in, outW, outH);
        QVERIFY(resizeDarknet(in, outW, outH).data == expected.data);
        for (int trial = 0; trial < 5; ++trial) {
            const int columns = 1 + int(unit(random) * float(outW)),
                      rows = 1 + int(unit(random) * float(outH));
            const int left = int(unit(random) * float(outW - columns + 1)),
                      top = int(unit(random) * float(outH - rows + 1));
            const Image window = resizeDarknetWindow(in, outW, outH, left, top, columns, rows);
            QCOMPARE(window.width, columns);
            QCOMPARE(window.height, rows);
            for (int k = 0; k < 3; ++k)
                for (int y = 0; y < rows; ++y)
                    for (int x = 0; x < columns; ++x)
                        QVERIFY2(window.at(x, y, k) == expected.at(left + x, top + y, k),
                                 qPrintable(QString("%1x%2 -> %3x%4, window at %5,%6: (%7, %8)")
                                                .arg(inW)
                                                .arg(inH)
                                                .arg(outW)
                                                .arg(outH)
                                                .arg(left)
                                                .arg(top)
                                                .arg(x)
                                                .arg(y)));
        }
    }
}

void TestImageIo::floatHsvMatchesOpenCv()
{
    const Pixels source = openCvPixels(sample("kite.jpg"), 3);
    cv::Mat rgb(source.height, source.width, CV_8UC3, const_cast<std::uint8_t*>(source.data.data())), floats,
        hsv, back;
    rgb.convertTo(floats, CV_32FC3, 1.0 / 255);
    cv::cvtColor(floats, hsv, cv::COLOR_RGB2HSV);
    float worstHsv = 0, worstRgb = 0;
    for (int y = 0; y < hsv.rows; y += 3)
        for (int x = 0; x < hsv.cols; x += 3) {
            const cv::Vec3f in = floats.at<cv::Vec3f>(y, x), expected = hsv.at<cv::Vec3f>(y, x);
            float h, s, v, r, g, b;
            portable::rgbToHsv(in[0], in[1], in[2], h, s, v);
            const float hueDistance = std::min(std::abs(h - expected[0]), 360 - std::abs(h - expected[0]));
            worstHsv =
                std::max({worstHsv, hueDistance / 360, std::abs(s - expected[1]), std::abs(v - expected[2])});
            portable::hsvToRgb(h, s, v, r, g, b);
            worstRgb = std::max({worstRgb, std::abs(r - in[0]), std::abs(g - in[1]), std::abs(b - in[2])});
        }
    QVERIFY2(worstHsv < 1e-4f, qPrintable(QString::number(worstHsv)));
    QVERIFY2(worstRgb < 1e-5f, qPrintable(QString::number(worstRgb)));
}

// imwrite said only "false", and detect --out guessed "is the folder writable?" on a full disk. A disk
// that is full (/dev/full, through a link named .jpg) is named, and a bad ending too.
void TestImageIo::writingAnImageSaysWhyNot()
{
    QTemporaryDir dir;
    const cv::Mat frame(32, 48, CV_8UC3, cv::Scalar(10, 200, 30));
    const std::string good = dir.filePath("a.png").toStdString();
    QVERIFY(!writeImageFile(good, frame));
    QCOMPARE(cv::imread(good).size(), frame.size());
    const QString full = dir.filePath("full.jpg");
    QVERIFY(QFile::link("/dev/full", full));
    const auto problem = writeImageFile(full.toStdString(), frame);
    QVERIFY(problem);
    QCOMPARE(QString::fromStdString(*problem), "cannot write " + full + ": No space left on device");
    const auto ending = writeImageFile(dir.filePath("a.xyz").toStdString(), frame);
    QVERIFY(ending && ending->ends_with("no image format for the name's ending '.xyz'"));
    QVERIFY(!QFileInfo::exists(dir.filePath("a.xyz")));
}

// OpenCV's VideoWriter says nothing when its disk is full: the recording (the studio's Record video,
// detect --out) was left cut short as if whole. The file is asked how many frames it holds.
void TestImageIo::aVideoCutShortIsSaid()
{
    QTemporaryDir dir;
    std::vector<unsigned char> rgb(64 * 48 * 3, 120);
    // A partial video a gone process left (killed, a second Ctrl+C) is removed by the next writer there;
    // a recent one (another machine's, on a shared folder) is not.
    {
        QFile abandoned(dir.filePath(".good.partial-999999999.avi"));
        QVERIFY(abandoned.open(QIODevice::WriteOnly) && abandoned.write("abandoned") == 9 &&
                abandoned.flush());
        QVERIFY(abandoned.setFileTime(QDateTime::currentDateTime().addSecs(-7200),
                                      QFileDevice::FileModificationTime)); // (an hour untouched at least)
    }
    VideoRecorder whole;
    const std::string good = dir.filePath("good.avi").toStdString();
    QVERIFY(!whole.open(good, 64, 48, 10));
    for (int i = 0; i < 5; ++i)
        whole.write(rgb.data(), 64, 48, 64 * 3);
    QVERIFY(!whole.close());
    QVERIFY(!writtenVideoProblem(good, 5));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"good.avi"});
    {
        QFile recent(dir.filePath(".good.partial-999999998.avi"));
        QVERIFY(recent.open(QIODevice::WriteOnly) && recent.write("being written") == 13);
    }
    VideoRecorder again;
    QVERIFY(!again.open(good, 64, 48, 10));
    again.write(rgb.data(), 64, 48, 64 * 3);
    QVERIFY(!again.close());
    QVERIFY(QFileInfo::exists(dir.filePath(".good.partial-999999998.avi")));
    const QString full = dir.filePath("full.avi");
    QVERIFY(QFile::link("/dev/full", full));
    VideoRecorder cut;
    QVERIFY(!cut.open(full.toStdString(), 64, 48, 10));
    for (int i = 0; i < 5; ++i)
        cut.write(rgb.data(), 64, 48, 64 * 3);
    const auto problem = cut.close();
    QVERIFY(problem);
    QVERIFY2(
        QString::fromStdString(*problem).startsWith(full + ": the video holds 0 of the 5 frames written"),
        problem->c_str());
}

QTEST_GUILESS_MAIN(TestImageIo)
#include "test_image_io.moc"
