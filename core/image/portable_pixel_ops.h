#pragma once
// Dependency-free versions of pixel_ops.h: what a build without OpenCV uses, and what the tests compare
// with OpenCV's (within a few levels of 255 where OpenCV's fixed-point bilinear differs; a level in HSV).
#include "image/pixel_ops.h"

namespace nw::portable {

Pixels placePixels(const Pixels& source, int width, int height, const Placement& placement);
void jitterHsv(Pixels& rgb, int hueShift, float saturation, float exposure);

// Float HSV as OpenCV's float conversion and Darknet's: hue in degrees [0, 360), s and v in [0, 1].
void rgbToHsv(float r, float g, float b, float& h, float& s, float& v);
void hsvToRgb(float h, float s, float v, float& r, float& g, float& b);

} // namespace nw::portable
