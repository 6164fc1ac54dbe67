#pragma once
// JPEG (libjpeg-turbo) and PNG (libpng) decoding without OpenCV, for headless builds; the tests hold
// them to OpenCV's imread pixel for pixel. Each is compiled where its library was found
// (NETWRIGHT_WITH_LIBJPEG, NETWRIGHT_WITH_LIBPNG).
#include "image/pixels.h"

#include <optional>
#include <string>

namespace nw::portable {

enum class ImageFormat { Jpeg, Png, Other };
// From the file's first bytes (its signature), not its name.
ImageFormat sniffImageFormat(const std::string& path);

// Decodes to RGB (channels 3) or grey (channels 1), JPEGs turned by their EXIF orientation as OpenCV's
// imread (and so AlexeyAB's Darknet) does; nullopt and a message naming the file when the
// file is damaged, or declares more than 2^30 pixels or more than the machine's memory can hold.
std::optional<Pixels> decodeJpeg(const std::string& path, int channels, std::string& error);
std::optional<Pixels> decodePng(const std::string& path, int channels, std::string& error);

} // namespace nw::portable
