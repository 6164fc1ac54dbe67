#pragma once
// Images as networks see them: float32 CHW, RGB, values in [0, 1]; decoded with OpenCV (or, in a build
// without it, libjpeg/libpng) and resized the way pjreddie's Darknet does (so detections match it).
#include "image/pixels.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct Image {
    int width = 0, height = 0, channels = 0;
    std::vector<float> data; // CHW

    // (In std::size_t: an RGB image of 30000×30000 has more values than an int counts.)
    std::size_t offset(int x, int y, int c) const
    {
        return (std::size_t(c) * std::size_t(height) + std::size_t(y)) * std::size_t(width) + std::size_t(x);
    }
    float& at(int x, int y, int c) { return data[offset(x, y, c)]; }
    float at(int x, int y, int c) const { return data[offset(x, y, c)]; }
};

// Reads an image file into 8-bit RGB (channels 3) or grey (channels 1) pixels: any format OpenCV reads,
// or JPEG and PNG in a build without OpenCV. Nullopt and a message naming the file when it is missing,
// a directory, not an image, a JPEG cut short, or beyond the size limit (a header may declare
// 100000×100000 pixels).
std::optional<Pixels> readPixels(const std::string& path, int channels, std::string& error);
// The same as floats (CHW, [0, 1]).
std::optional<Image> loadImage(const std::string& path, int channels, std::string& error);
Image imageFromPixels(const Pixels& pixels);

// Darknet's resize_image: separable bilinear with source = destination·(in − 1)/(out − 1).
Image resizeDarknet(const Image& image, int width, int height);
// The columns × rows window at (left, top) of resizeDarknet(image, width, height), the same values,
// computed without the rest (a random crop of a scaled training image).
Image resizeDarknetWindow(const Image& image, int width, int height, int left, int top, int columns,
                          int rows);
// Darknet's letterbox_image: keep the aspect ratio, centre on a 0.5 grey canvas.
Image letterbox(const Image& image, int width, int height);
// Darknet's center_crop_image (its classifier validation): the centre square of the image, stretched to
// width × height (a non-square network gets no black bars).
Image centerCropResize(const Image& image, int width, int height);

} // namespace nw
