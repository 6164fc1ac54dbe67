#include "layers/box.h"

#include <algorithm>
#include <cmath>

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

NmsRule nmsRuleFromCfg(const std::string& nmsKind, float betaNms)
{
    // As AlexeyAB's parser: any other name (cornersnms too, for [yolo]) is the default.
    if (nmsKind == "greedynms")
        return {NmsRule::Kind::GreedyDiou, 0.6f};
    if (nmsKind == "diounms")
        return {NmsRule::Kind::Diou, betaNms};
    return {};
}

float nmsOverlap(const Box& a, const Box& b, const NmsRule& rule)
{
    const float iou = boxIou(a, b);
    if (rule.kind == NmsRule::Kind::Iou)
        return iou;
    const float w = std::max(a.x + a.w / 2, b.x + b.w / 2) - std::min(a.x - a.w / 2, b.x - b.w / 2);
    const float h = std::max(a.y + a.h / 2, b.y + b.h / 2) - std::min(a.y - a.h / 2, b.y - b.h / 2);
    const float c = w * w + h * h;
    if (c == 0)
        return iou;
    const float d = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
    return iou - std::pow(d / c, rule.kind == NmsRule::Kind::GreedyDiou ? 0.6f : rule.beta);
}

} // namespace nw
