#include "image/pixel_ops.h"

#include "image/portable_pixel_ops.h"

#include <algorithm>
#include <cstring>

#if NETWRIGHT_WITH_OPENCV
#include <opencv2/imgproc.hpp>
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

#else
Pixels placePixels(const Pixels& source, int width, int height, const Placement& placement)
{
    return portable::placePixels(source, width, height, placement);
}

#endif

// (one implementation for both builds: the float conversion through OpenCV's Mats was 2.6x slower)
void jitterHsv(Pixels& rgb, int hueShift, float saturation, float exposure)
{
    portable::jitterHsv(rgb, hueShift, saturation, exposure);
}

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
