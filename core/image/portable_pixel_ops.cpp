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
    // In floats, in one pass without branches on the hue's sector (OpenCV's 8-bit conversion moved hues
    // by itself; its float one goes through whole-image Mats): hue in sixths of the circle, value in
    // levels, rounded once at the end. About 25 ns a pixel, 2.4x OpenCV's 8-bit round trip.
    const float shift = float((hueShift % 256 + 256) % 256) * 6.0f / 256.0f;
    std::uint8_t* pixel = rgb.data.data();
    for (const std::uint8_t* end = pixel + rgb.data.size() / 3 * 3; pixel != end; pixel += 3) {
        const float r = pixel[0], g = pixel[1], b = pixel[2];
        const float high = std::max(r, std::max(g, b)), low = std::min(r, std::min(g, b)), delta = high - low;
        const float inverse = 1.0f / std::max(delta, 1e-20f);
        float h = high == r ? (g - b) * inverse : high == g ? 2 + (b - r) * inverse : 4 + (r - g) * inverse;
        h = (delta > 0 ? h : 0.0f) + shift; // in [-1, 11): back into [0, 6)
        h = h < 0 ? h + 6 : h;
        h = h >= 6 ? h - 6 : h;
        h = h >= 6 ? h - 6 : h;
        const float s = std::min(delta / std::max(high, 1e-20f) * saturation, 1.0f);
        const float v = std::min(high * exposure, 255.0f), vs = v * s;
        // Channel c (k = 5, 3, 1 for R, G, B): v − v·s·clamp(min(k', 4 − k'), 0, 1), k' = (k + h) mod 6.
        for (const float k : {5.0f, 3.0f, 1.0f}) {
            const float at = k + h >= 6 ? k + h - 6 : k + h;
            const float weight = std::clamp(std::min(at, 4 - at), 0.0f, 1.0f);
            *pixel++ = std::uint8_t(std::max(v - vs * weight, 0.0f) + 0.5f);
        }
        pixel -= 3;
    }
}

} // namespace nw::portable
