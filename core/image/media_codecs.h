#pragma once
// OpenCV's image files and video (its imgcodecs and videoio modules) behind a module that is loaded on
// first use instead of linked. With them come about 230 libraries (GDAL, FFmpeg, GStreamer, codecs) that
// every start mapped and relocated: 0.35 s, nine tenths of `netwright-cli summary`. A command or panel
// that never reads an image file or a video now never loads them.
// The module, libnetwright_media.so (core/media_module/), is installed in <libdir>/netwright and found
// from the program's own folder; the build tree keeps it at the same place relative to its programs.
// Those libraries now load mid-run (RTLD_LOCAL) on whichever thread reads first; one that cannot be
// loaded so (static TLS exhausted) is reported like a missing module, in words.
#include <memory>
#include <string>
#include <vector>

namespace cv {
class Mat;
}

namespace nw::media {

// A video file or camera being read: the calls of cv::VideoCapture that Netwright makes.
class VideoReader {
public:
    virtual ~VideoReader() = default;
    virtual bool read(cv::Mat& frame) = 0;
    virtual bool grab() = 0; // (a camera: take the newest frame, dropping what queued up)
    virtual bool retrieve(cv::Mat& frame) = 0;
    virtual double frameCount() const = 0; // as the container declares it; 0 or less when it does not
    virtual double fps() const = 0;        // likewise
};

// A Motion-JPEG AVI file being written (every OpenCV build writes it).
class VideoWriter {
public:
    virtual ~VideoWriter() = default;
    virtual void write(const cv::Mat& bgr) = 0;
    virtual void release() = 0;
};

// What the module offers. Its calls throw what OpenCV's throw (cv::Exception, std::bad_alloc).
class Codecs {
public:
    virtual ~Codecs() = default;
    virtual cv::Mat readImage(const std::string& path, int imreadFlags) const = 0;
    virtual bool canWriteImage(const std::string& path) const = 0;
    virtual bool encodeImage(const std::string& suffix, const cv::Mat& image, const std::vector<int>& params,
                             std::vector<unsigned char>& bytes) const = 0;
    virtual bool hasFfmpeg() const = 0;
    // nullptr when the file or camera cannot be opened.
    virtual std::unique_ptr<VideoReader> openVideo(const std::string& path, bool ffmpegOnly) const = 0;
    virtual std::unique_ptr<VideoReader> openCamera(int device) const = 0;
    virtual std::unique_ptr<VideoWriter> openMotionJpeg(const std::string& path, double fps, int width,
                                                        int height) const = 0;
};

// The module, loaded by the first call from any thread; nullptr and `error` (the files tried, the
// loader's reasons and what to do) when it cannot be.
const Codecs* codecs(std::string& error);
// The same, throwing std::runtime_error with that message (for callers that report exceptions).
const Codecs& codecsOrThrow();

} // namespace nw::media

// The module's one exported function. Its name carries the interface's version: a module built with
// another Codecs (a newer vtable) then lacks it and is refused in words instead of called wrongly.
extern "C" const nw::media::Codecs* netwright_media_codecs_v1();
inline constexpr const char* kMediaEntryPoint = "netwright_media_codecs_v1";
