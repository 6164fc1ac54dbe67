#pragma once
// Images as networks see them: float32 CHW, RGB, values in [0, 1]; loaded with OpenCV and resized the
// way pjreddie's Darknet does (so detections match it).
#include <optional>
#include <string>
#include <vector>

namespace cv {
class Mat;
}

namespace nw {

struct Image {
    int width = 0, height = 0, channels = 0;
    std::vector<float> data; // CHW

    float& at(int x, int y, int c) { return data[std::size_t((c * height + y) * width + x)]; }
    float at(int x, int y, int c) const { return data[std::size_t((c * height + y) * width + x)]; }
};

// Reads an image file into an 8-bit BGR (channels 3) or grey (channels 1) frame. False and a message
// naming the file when it is missing, a directory, not an image, or beyond OpenCV's size limit (a
// header may declare 100000×100000 pixels); OpenCV's exceptions never escape.
bool readImageFile(const std::string& path, int channels, cv::Mat& frame, std::string& error);
// Reads an image file (any format OpenCV reads); nullopt and a message naming the file on failure.
std::optional<Image> loadImage(const std::string& path, int channels, std::string& error);
// From an OpenCV BGR (or grey) 8-bit frame.
Image imageFromMat(const cv::Mat& bgr, int channels);

// Darknet's resize_image: separable bilinear with source = destination·(in − 1)/(out − 1).
Image resizeDarknet(const Image& image, int width, int height);
// Darknet's letterbox_image: keep the aspect ratio, centre on a 0.5 grey canvas.
Image letterbox(const Image& image, int width, int height);
// Darknet's classifier preprocessing: scale the shorter side to `size`, then crop the centre.
Image resizeMinCrop(const Image& image, int width, int height);

} // namespace nw
