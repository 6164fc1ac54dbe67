#include "layers/box.h"

#include <algorithm>

namespace nw {

float overlap(float x1, float w1, float x2, float w2)
{
    const float left = std::max(x1 - w1 / 2, x2 - w2 / 2);
    const float right = std::min(x1 + w1 / 2, x2 + w2 / 2);
    return right - left;
}

float boxIou(const Box& a, const Box& b)
{
    const float w = overlap(a.x, a.w, b.x, b.w), h = overlap(a.y, a.h, b.y, b.h);
    const float intersection = (w < 0 || h < 0) ? 0 : w * h;
    const float uni = a.w * a.h + b.w * b.h - intersection;
    return uni > 0 ? intersection / uni : 0;
}

} // namespace nw
