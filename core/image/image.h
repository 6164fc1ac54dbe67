#pragma once
// Images as networks see them: float32 CHW, RGB, values in [0, 1]; decoded with OpenCV (or, in a build
// without it, libjpeg/libpng) and resized the way pjreddie's Darknet does (so detections match it).
#include "image/pixels.h"

#include <optional>
#include <string>
#include <vector>

namespace nw {

struct Image {
    int width = 0, height = 0, channels = 0;
    std::vector<float> data; // CHW

    float& at(int x, int y, int c) { return data[std::size_t((c * height + y) * width + x)]; }
    float at(int x, int y, int c) const { return data[std::size_t((c * height + y) * width + x)]; }
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
// Darknet's letterbox_image: keep the aspect ratio, centre on a 0.5 grey canvas.
Image letterbox(const Image& image, int width, int height);
// Darknet's center_crop_image (its classifier validation): the centre square of the image, stretched to
// width × height (a non-square network gets no black bars).
Image centerCropResize(const Image& image, int width, int height);

} // namespace nw
