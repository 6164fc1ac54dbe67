#pragma once
// OpenCV frames (video, webcam, annotated output) to and from the network's images. Only in builds with
// OpenCV (NETWRIGHT_WITH_OPENCV): the studio, and the CLI's video input and annotated output.
#include "image/image.h"
#include "image/media_codecs.h"

#include <optional>
#include <string>
#include <vector>

namespace cv {
class Mat;
}

namespace nw {

// Reads an image file into an 8-bit BGR (channels 3) or grey (channels 1) frame. False and a message
// naming the file when it is missing, a directory, not an image, or beyond OpenCV's size limit (a
// header may declare 100000×100000 pixels); OpenCV's exceptions never escape.
bool readImageFile(const std::string& path, int channels, cv::Mat& frame, std::string& error);
// Writes `frame` as an image file in the format its name's suffix names (OpenCV's imwrite `params`).
// A message naming the file and the system's reason ("No space left on device") when it cannot, and
// then no partial file is left: imwrite said only false, and callers guessed "is the folder writable?".
// An existing file is replaced atomically (it stays whole when the new one cannot be written).
std::optional<std::string> writeImageFile(const std::string& path, const cv::Mat& frame,
                                          const std::vector<int>& params = {});
// Opens a video file through OpenCV's FFmpeg backend (every common container; asked first by name, so a
// file FFmpeg cannot read is not handed to GStreamer and the image-sequence reader, which printed lines of
// their own errors). nullptr and a message naming the file when it is missing, empty or cannot be opened.
std::unique_ptr<media::VideoReader> openVideoFile(const std::string& path, std::string& error);
// From an OpenCV BGR (or grey) 8-bit frame.
Image imageFromMat(const cv::Mat& bgr, int channels);
Pixels pixelsFromMat(const cv::Mat& bgr, int channels);

} // namespace nw
