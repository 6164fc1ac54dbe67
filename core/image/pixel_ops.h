#pragma once
// The pixel operations of training augmentation, on 8-bit RGB/grey images. With OpenCV in the build
// the placement is OpenCV's warpAffine (the HSV jitter is one float pass of our own); without it (a headless
// server build) the portable versions in portable_pixel_ops.h, which the tests hold to OpenCV's results.
#include "image/pixels.h"

namespace nw {

// An axis-aligned affine placement: destination (x, y) shows source ((x − offsetX)/scaleX,
// (y − offsetY)/scaleY), bilinear; a negative scaleX mirrors. Outside the source: grey 127.
struct Placement {
    double scaleX = 1, offsetX = 0, scaleY = 1, offsetY = 0;
};
Pixels placePixels(const Pixels& source, int width, int height, const Placement& placement);

// Darknet's colour jitter in HSV on an RGB image: hue moved by `hueShift` (of 256 steps around the
// circle), saturation and value multiplied, each clamped to 1 (as AlexeyAB's 8-bit HSV); computed in
// floats, so no jitter leaves the image as it was.
void jitterHsv(Pixels& rgb, int hueShift, float saturation, float exposure);

// Copies the rectangle [x, x + w) × [y, y + h) of `from` into the same place of `to` (same size).
void copyArea(const Pixels& from, Pixels& to, int x, int y, int w, int h);

} // namespace nw
