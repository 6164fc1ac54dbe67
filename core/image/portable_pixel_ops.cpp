#include "image/portable_pixel_ops.h"

#include <algorithm>
#include <cmath>

namespace nw::portable {

Pixels placePixels(const Pixels& source, int width, int height, const Placement& p)
{
    Pixels out(width, height, source.channels, 127);
    const int c = source.channels;
    for (int y = 0; y < height; ++y) {
        const double sy = (double(y) - p.offsetY) / p.scaleY;
        const int y0 = int(std::floor(sy));
        const double fy = sy - y0;
        std::uint8_t* row = out.row(y);
        for (int x = 0; x < width; ++x) {
            const double sx = (double(x) - p.offsetX) / p.scaleX;
            const int x0 = int(std::floor(sx));
            const double fx = sx - x0;
            if (x0 < -1 || y0 < -1 || x0 >= source.width || y0 >= source.height)
                continue; // no source pixel within reach: the border
            for (int ch = 0; ch < c; ++ch) {
                // Out-of-image neighbours are the grey border, as OpenCV's BORDER_CONSTANT.
                const auto at = [&](int xx, int yy) -> double {
                    if (xx < 0 || yy < 0 || xx >= source.width || yy >= source.height)
                        return 127.0;
                    return source.row(yy)[std::size_t(xx) * std::size_t(c) + std::size_t(ch)];
                };
                const double top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
                const double bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
                const double value = top * (1 - fy) + bottom * fy;
                row[std::size_t(x) * std::size_t(c) + std::size_t(ch)] =
                    std::uint8_t(std::clamp(std::lround(value), 0L, 255L));
            }
        }
    }
    return out;
}

void rgbToHsv(float r, float g, float b, float& h, float& s, float& v)
{
    const float maxValue = std::max({r, g, b}), minValue = std::min({r, g, b});
    const float delta = maxValue - minValue;
    v = maxValue;
    s = maxValue > 0 ? delta / maxValue : 0;
    if (delta <= 0) {
        h = 0;
        return;
    }
    if (maxValue == r)
        h = 60 * (g - b) / delta;
    else if (maxValue == g)
        h = 120 + 60 * (b - r) / delta;
    else
        h = 240 + 60 * (r - g) / delta;
    if (h < 0)
        h += 360;
}

void hsvToRgb(float h, float s, float v, float& r, float& g, float& b)
{
    if (s <= 0) {
        r = g = b = v;
        return;
    }
    const float sector = std::fmod(h, 360.0f) / 60.0f;
    const int i = int(std::floor(sector)) % 6;
    const float f = sector - std::floor(sector);
    const float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    switch (i) {
    case 0:
        r = v, g = t, b = p;
        break;
    case 1:
        r = q, g = v, b = p;
        break;
    case 2:
        r = p, g = v, b = t;
        break;
    case 3:
        r = p, g = q, b = v;
        break;
    case 4:
        r = t, g = p, b = v;
        break;
    default:
        r = v, g = p, b = q;
        break;
    }
}

void jitterHsv(Pixels& rgb, int hueShift, float saturation, float exposure)
{
    // In floats, as the OpenCV build's (hue in degrees, s and v in [0, 1], rounded once at the end).
    const auto level = [](float value) { return std::clamp(std::round(value), 0.0f, 255.0f); };
    const float degrees = float(hueShift) * 360.0f / 256.0f;
    for (std::size_t i = 0; i + 2 < rgb.data.size(); i += 3) {
        float h, s, v;
        rgbToHsv(rgb.data[i] / 255.0f, rgb.data[i + 1] / 255.0f, rgb.data[i + 2] / 255.0f, h, s, v);
        float r, g, b;
        hsvToRgb(std::fmod(h + degrees + 720.0f, 360.0f), std::min(s * saturation, 1.0f),
                 std::min(v * exposure, 1.0f), r, g, b);
        rgb.data[i] = std::uint8_t(level(r * 255.0f));
        rgb.data[i + 1] = std::uint8_t(level(g * 255.0f));
        rgb.data[i + 2] = std::uint8_t(level(b * 255.0f));
    }
}

} // namespace nw::portable
