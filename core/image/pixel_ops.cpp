#include "image/pixel_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if NETWRIGHT_WITH_OPENCV
#include <opencv2/imgproc.hpp>
#else
#include "image/portable_pixel_ops.h"
#endif

namespace nw {

#if NETWRIGHT_WITH_OPENCV
namespace {

// OpenCV's view of our bytes (no copy).
cv::Mat matOf(Pixels& pixels)
{
    return cv::Mat(pixels.height, pixels.width, CV_8UC(pixels.channels), pixels.data.data());
}

} // namespace

Pixels placePixels(const Pixels& source, int width, int height, const Placement& p)
{
    Pixels out(width, height, source.channels);
    const cv::Mat transform = (cv::Mat_<double>(2, 3) << p.scaleX, 0, p.offsetX, 0, p.scaleY, p.offsetY);
    cv::Mat destination = matOf(out);
    cv::warpAffine(matOf(const_cast<Pixels&>(source)), destination, transform, cv::Size(width, height),
                   cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(127));
    return out;
}

void jitterHsv(Pixels& rgb, int hueShift, float saturation, float exposure)
{
    // In floats: OpenCV's 8-bit full-range HSV round trip moves hues by itself (pure blue came back
    // (6, 0, 255), up to 9 levels with no jitter at all).
    cv::Mat image = matOf(rgb), floats, hsv;
    image.convertTo(floats, CV_32FC3, 1.0 / 255);
    cv::cvtColor(floats, hsv, cv::COLOR_RGB2HSV); // hue in degrees, s and v in [0, 1]
    const float degrees = float(hueShift) * 360.0f / 256.0f;
    hsv.forEach<cv::Vec3f>([&](cv::Vec3f& p, const int*) {
        p[0] = std::fmod(p[0] + degrees + 720.0f, 360.0f);
        p[1] = std::min(p[1] * saturation, 1.0f);
        p[2] = std::min(p[2] * exposure, 1.0f);
    });
    cv::cvtColor(hsv, floats, cv::COLOR_HSV2RGB);
    floats.convertTo(image, CV_8UC3, 255.0);
}
#else
Pixels placePixels(const Pixels& source, int width, int height, const Placement& placement)
{
    return portable::placePixels(source, width, height, placement);
}

void jitterHsv(Pixels& rgb, int hueShift, float saturation, float exposure)
{
    portable::jitterHsv(rgb, hueShift, saturation, exposure);
}
#endif

void copyArea(const Pixels& from, Pixels& to, int x, int y, int w, int h)
{
    x = std::clamp(x, 0, to.width);
    y = std::clamp(y, 0, to.height);
    w = std::clamp(w, 0, to.width - x);
    h = std::clamp(h, 0, to.height - y);
    const std::size_t offset = std::size_t(x) * std::size_t(to.channels);
    for (int row = y; row < y + h; ++row)
        std::memcpy(to.row(row) + offset, from.row(row) + offset, std::size_t(w) * std::size_t(to.channels));
}

} // namespace nw
