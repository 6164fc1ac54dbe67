#include "image/image_opencv.h"

#include "image/jpeg_truncation.h"
#include "image/mp4_index.h"
#include "util/atomic_file.h"
#include "util/file_check.h"
#include "util/memory_info.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp> // (its flags and constants only: the calls go through media_codecs.h)
#include <opencv2/imgproc.hpp>

namespace nw {

Pixels pixelsFromMat(const cv::Mat& frame, int channels)
{
    // A Mat of its own: one sharing `frame`'s pixels has the output's size and type, so cvtColor would
    // convert `frame` itself in place (detect --out then drew and wrote RGB as BGR).
    cv::Mat converted;
    if (channels == 1 && frame.channels() == 3)
        cv::cvtColor(frame, converted, cv::COLOR_BGR2GRAY);
    else if (channels == 3 && frame.channels() == 1)
        cv::cvtColor(frame, converted, cv::COLOR_GRAY2RGB);
    else if (channels == 3)
        cv::cvtColor(frame, converted, cv::COLOR_BGR2RGB);
    else
        converted = frame; // (read only below)
    Pixels pixels(converted.cols, converted.rows, channels);
    for (int y = 0; y < pixels.height; ++y)
        std::memcpy(pixels.row(y), converted.ptr<unsigned char>(y), pixels.rowBytes());
    return pixels;
}

Image imageFromMat(const cv::Mat& frame, int channels)
{
    return imageFromPixels(pixelsFromMat(frame, channels));
}

namespace {

// DICOM ("DICM" after a 128-byte preamble): OpenCV hands it to GDCM, whose header lengths are trusted —
// a 250-byte file made it allocate 3 GB (fuzz_image). Not a training or camera image format anyway.
bool isDicom(const std::string& path)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file)
        return false;
    char head[132] = {};
    const bool dicom =
        std::fread(head, 1, sizeof head, file) == sizeof head && std::memcmp(head + 128, "DICM", 4) == 0;
    std::fclose(file);
    return dicom;
}

// FFmpeg prints its errors without the file's name ("moov atom not found"), before ours that name it
// and say why. OpenCV reads this variable when its FFmpeg backend first starts; a user who sets it (or
// OPENCV_FFMPEG_DEBUG) gets FFmpeg's own lines back.
void quietFfmpeg()
{
    static const bool once = [] {
        if (!std::getenv("OPENCV_FFMPEG_DEBUG"))
            setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0); // AV_LOG_QUIET; 0: never replaces the user's
        return true;
    }();
    (void)once;
}

// OpenCV's warnings come without the file's name ("[ WARN:0@0.173] … can not handle images with 32-bit
// samples") before ours that name it; a user who sets OPENCV_LOG_LEVEL gets them back.
void quietOpenCvWarnings()
{
    static const bool once = [] {
        if (!std::getenv("OPENCV_LOG_LEVEL"))
            cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
        return true;
    }();
    (void)once;
}

} // namespace

std::unique_ptr<media::VideoReader> openVideoFile(const std::string& path, std::string& error)
{
    if (auto reason = unreadableFileReason(path, "a video")) {
        error = *reason;
        return nullptr;
    }
    if (auto empty = emptyFileReason(path, "a video")) {
        error = *empty;
        return nullptr;
    }
    const media::Codecs* codecs = media::codecs(error);
    if (!codecs)
        return nullptr;
    quietFfmpeg();
    const bool ffmpeg = codecs->hasFfmpeg();
    auto video = codecs->openVideo(path, ffmpeg);
    if (!video)
        error = mp4MissingIndexReason(path).value_or(path + ": cannot open the video (damaged, or a format " +
                                                     (ffmpeg ? "FFmpeg" : "OpenCV") + " does not read)");
    return video;
}

std::optional<std::string> writeImageFile(const std::string& path, const cv::Mat& frame,
                                          const std::vector<int>& params)
{
    const std::string suffix = std::filesystem::path(path).extension().string();
    std::string unloadable;
    const media::Codecs* codecs = media::codecs(unloadable);
    if (!codecs)
        return "cannot write " + path + ": " + unloadable;
    std::vector<uchar> bytes;
    try {
        if (suffix.empty() || !codecs->canWriteImage(path))
            return "cannot write " + path + ": no image format for the name's ending '" + suffix + "'";
        if (!codecs->encodeImage(suffix, frame, params, bytes))
            return "cannot write " + path + ": cannot encode the image as " + suffix;
    } catch (const cv::Exception& e) { // (an ending OpenCV knows, with a frame it cannot encode so)
        return "cannot write " + path + ": cannot encode the image as " + suffix + " (" + e.err + ")";
    }
    const std::string_view content(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // An image written over (detect --out again): the old one stays whole until the new one is, so a
    // full disk does not leave it removed. A new file is written in place (a data set's thousands).
    std::error_code ec;
    return std::filesystem::exists(path, ec) ? writeFileAtomically(path, content, /*durable=*/false)
                                             : writeFileInPlace(path, content);
}

bool readImageFile(const std::string& path, int channels, cv::Mat& frame, std::string& error)
{
    if (auto reason = notAFileReason(path, "an image")) {
        error = *reason;
        return false;
    }
    if (isDicom(path)) {
        error = path + ": a DICOM file, which Netwright does not read: convert it to PNG or JPEG first";
        return false;
    }
    std::string unloadable;
    const media::Codecs* codecs = media::codecs(unloadable);
    if (!codecs) {
        error = path + ": cannot read the image: " + unloadable;
        return false;
    }
    quietOpenCvWarnings();
    try {
        frame = codecs->readImage(path, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
    } catch (const cv::Exception& e) {
        // OpenCV asserts on sizes it refuses (CV_IO_MAX_IMAGE_PIXELS, 2^30; a side past
        // CV_IO_MAX_IMAGE_WIDTH or _HEIGHT, 2^20) instead of returning empty.
        const bool tooLarge = e.err.find("CV_IO_MAX_IMAGE_") != std::string::npos;
        error = path + ": cannot read the image: " +
                (tooLarge ? std::string("its header declares more pixels than OpenCV accepts (2^30 in all, "
                                        "2^20 a side)")
                          : shortened(e.err, 200));
        frame.release();
        return false;
    } catch (const std::bad_alloc&) {
        error = path + ": cannot read the image: not enough memory for its declared size";
        frame.release();
        return false;
    }
    if (frame.empty()) { // (an empty file, an interrupted copy, is said as such)
        error =
            emptyFileReason(path, "an image")
                .value_or(
                    lowerExtension(path) == ".gif" // (OpenCV 4.6 has no GIF decoder; Darknet's stb reads one)
                        ? path + ": cannot read the image: GIF is not read here (OpenCV has no GIF "
                                 "decoder); convert it to PNG (ImageMagick: mogrify -format png "
                                 "*.gif)"
                        : lowerExtension(path) == ".tif" || lowerExtension(path) == ".tiff"
                              ? path + ": cannot read the TIFF image (damaged, or samples OpenCV does not "
                                       "read, such as 32-bit floats: save it with 8- or 16-bit samples)"
                              : path + ": cannot read the image (damaged, or not an image format OpenCV "
                                       "knows)");
        return false;
    }
    // Cut short: libjpeg filled the rest with grey, saying so on stderr without the file's name.
    if (frame.depth() == CV_8U &&
        jpegCutShort(path, frame.ptr(frame.rows - 1), frame.cols, frame.channels(), frame.channels())) {
        error = cutShortMessage(path);
        frame.release();
        return false;
    }
    // A small file may declare a huge image (30000×30000 is within OpenCV's limit): its float copy
    // for the network is 4× the decoded bytes, refused here rather than in bad_alloc or swap.
    const double floatBytes = double(frame.total()) * frame.channels() * sizeof(float);
    if (auto shortfall = memoryShortfall(
            floatBytes, std::to_string(frame.cols) + "x" + std::to_string(frame.rows) + " pixels as floats",
            "scale the image down first")) {
        error = path + ": the image " + *shortfall;
        frame.release();
        return false;
    }
    return true;
}

} // namespace nw
