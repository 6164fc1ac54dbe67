#include "layers/yolo_loss.h"

#include "layers/box.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace nw {

namespace {

// A value and its partial derivatives with respect to the predicted x, y, w, h: the IoU family's
// gradients come out of the same code that computes the score (forward-mode differentiation).
struct Dual {
    double v = 0;
    double d[4] = {0, 0, 0, 0};
};
Dual constant(double v)
{
    return Dual{v, {0, 0, 0, 0}};
}
Dual variable(double v, int which)
{
    Dual x = constant(v);
    x.d[which] = 1;
    return x;
}
template <class F> Dual combine(const Dual& a, const Dual& b, double v, F partials)
{
    Dual r = constant(v);
    for (int k = 0; k < 4; ++k)
        r.d[k] = partials(a.d[k], b.d[k]);
    return r;
}
Dual operator+(const Dual& a, const Dual& b)
{
    return combine(a, b, a.v + b.v, [](double x, double y) { return x + y; });
}
Dual operator-(const Dual& a, const Dual& b)
{
    return combine(a, b, a.v - b.v, [](double x, double y) { return x - y; });
}
Dual operator*(const Dual& a, const Dual& b)
{
    return combine(a, b, a.v * b.v, [&](double x, double y) { return x * b.v + a.v * y; });
}
Dual operator/(const Dual& a, const Dual& b)
{
    return combine(a, b, a.v / b.v, [&](double x, double y) { return (x * b.v - a.v * y) / (b.v * b.v); });
}
Dual minimum(const Dual& a, const Dual& b)
{
    return a.v <= b.v ? a : b;
}
Dual maximum(const Dual& a, const Dual& b)
{
    return a.v >= b.v ? a : b;
}
Dual atanOf(const Dual& a)
{
    Dual r = constant(std::atan(a.v));
    for (int k = 0; k < 4; ++k)
        r.d[k] = a.d[k] / (1 + a.v * a.v);
    return r;
}

using std::numbers::pi; // (two sources of one unity batch may both say it; two constants would clash)

float anchorAt(const std::vector<float>& anchors, std::size_t i)
{
    return i < anchors.size() ? anchors[i] : 0.5f;
}

struct Slot {
    const float* out;
    float* delta;
    std::size_t plane, cell;
    float value(int entry) const { return out[std::size_t(entry) * plane + cell]; }
    float& change(int entry) const { return delta[std::size_t(entry) * plane + cell]; }
};

class HeadLoss {
public:
    HeadLoss(const YoloLayer& c, const YoloGrid& g, const float* output, float* delta)
        : c_(c), g_(g), output_(output), delta_(delta), plane_(std::size_t(g.width) * std::size_t(g.height))
    {
    }

    Slot slot(std::size_t a, int i, int j) const
    {
        const std::size_t offset = a * plane_ * std::size_t(c_.entries());
        return {output_ + offset, delta_ + offset, plane_,
                std::size_t(j) * std::size_t(g_.width) + std::size_t(i)};
    }

    float anchorW(int k) const { return anchorAt(c_.anchors, 2 * std::size_t(k)); }
    float anchorH(int k) const { return anchorAt(c_.anchors, 2 * std::size_t(k) + 1); }

    float x(const Slot& s) const { return s.value(c_.xEntry()); }
    float y(const Slot& s) const { return s.value(c_.yEntry()); }
    float w(const Slot& s) const { return s.value(c_.wEntry()); }
    float h(const Slot& s) const { return s.value(c_.hEntry()); }
    float objectness(const Slot& s) const { return s.value(c_.objectnessEntry()); }
    float& objectnessChange(const Slot& s) const { return s.change(c_.objectnessEntry()); }
    Box predicted(const Slot& s, int k, int i, int j) const
    {
        Box b;
        b.x = (float(i) + x(s)) / float(g_.width);
        b.y = (float(j) + y(s)) / float(g_.height);
        if (c_.newCoords) {
            b.w = w(s) * w(s) * 4 * anchorW(k) / float(g_.netWidth);
            b.h = h(s) * h(s) * 4 * anchorH(k) / float(g_.netHeight);
        } else {
            b.w = std::exp(w(s)) * anchorW(k) / float(g_.netWidth);
            b.h = std::exp(h(s)) * anchorH(k) / float(g_.netHeight);
        }
        b.x -= c_.pointOffset * b.w; // (the centre, as the truth is)
        b.y -= c_.pointOffset * b.h;
        return b;
    }

    // The cell a truth belongs to: the one holding its centre (or its yolo_point corner).
    std::pair<int, int> cellOf(const Box& truth) const
    {
        return {std::clamp(int((truth.x + c_.pointOffset * truth.w) * float(g_.width)), 0, g_.width - 1),
                std::clamp(int((truth.y + c_.pointOffset * truth.h) * float(g_.height)), 0, g_.height - 1)};
    }

    // Box deltas toward `truth` for anchor k at cell (i, j); returns the IoU of the prediction.
    float boxDelta(const Slot& s, int k, int i, int j, const Box& truth) const
    {
        const Box pred = predicted(s, k, i, j);
        const float iou = boxIou(pred, truth);
        if (c_.gaussian) {
            gaussianBoxDelta(s, k, i, j, pred, truth);
            return iou;
        }
        if (c_.iouLoss == "mse") {
            const float scale = (2 - truth.w * truth.h) * c_.iouNormalizer;
            float tw = std::log(truth.w * float(g_.netWidth) / anchorW(k));
            float th = std::log(truth.h * float(g_.netHeight) / anchorH(k));
            if (c_.newCoords) {
                tw = std::sqrt(truth.w * float(g_.netWidth) / (4 * anchorW(k)));
                th = std::sqrt(truth.h * float(g_.netHeight) / (4 * anchorH(k)));
            }
            s.change(0) = scale * (truth.x * float(g_.width) - float(i) - s.value(0));
            s.change(1) = scale * (truth.y * float(g_.height) - float(j) - s.value(1));
            s.change(2) = scale * (tw - s.value(2));
            s.change(3) = scale * (th - s.value(3));
        } else {
            // AlexeyAB's convention: the score's gradient in box units for x and y, and through
            // e^tw (or 8·tw with new_coords) for the size, times iou_normalizer.
            const IouGradient g =
                iouScore(c_.iouLoss, pred.x, pred.y, pred.w, pred.h, truth.x, truth.y, truth.w, truth.h);
            const float sw = c_.newCoords ? 8 * s.value(2) : std::exp(s.value(2));
            const float sh = c_.newCoords ? 8 * s.value(3) : std::exp(s.value(3));
            const auto clipped = [&](float d) { // (max_delta, after the normalizer, as AlexeyAB)
                return std::clamp(finiteOrZero(d * c_.iouNormalizer), -c_.maxDelta, c_.maxDelta);
            };
            s.change(0) = clipped(g.dx);
            s.change(1) = clipped(g.dy);
            s.change(2) = clipped(g.dw * sw);
            s.change(3) = clipped(g.dh * sh);
        }
        return iou;
    }

    // [Gaussian_yolo] (AB's delta_gaussian_yolo_box): each of x, y, tw, th is the mean μ of a Gaussian
    // whose σ is the value after it; the deltas are the negative gradient of
    // ½·(2 − w·h)·[½((t − μ)/σ)² + ln(σ + 0.3)] (weighted by N/(N + 1e-9), N the Gaussian's density,
    // as AB does), μ's times iou_normalizer and σ's times uc_normalizer. With an IoU-family iou_loss
    // the means follow its gradient instead, as for [yolo].
    void gaussianBoxDelta(const Slot& s, int k, int i, int j, const Box& pred, const Box& truth) const
    {
        constexpr double sigmaConst = 0.3, epsilon = 1e-9;
        const double scale = 2.0 - double(truth.w) * truth.h;
        const double target[4] = {(truth.x + c_.pointOffset * truth.w) * g_.width - i,
                                  (truth.y + c_.pointOffset * truth.h) * g_.height - j,
                                  std::log(double(truth.w) * g_.netWidth / anchorW(k)),
                                  std::log(double(truth.h) * g_.netHeight / anchorH(k))};
        const int meanEntry[4] = {0, 2, 4, 6};
        double meanDelta[4];
        for (int v = 0; v < 4; ++v) {
            const double mu = s.value(meanEntry[v]), sigma = s.value(meanEntry[v] + 1);
            const double d = target[v] - mu;
            const double density =
                std::exp(-0.5 * d * d / (sigma * sigma)) / (std::sqrt(2 * pi) * (sigma + sigmaConst));
            const double weight = 0.5 * density / (density + epsilon) * scale;
            meanDelta[v] = weight * d / (sigma * sigma);
            s.change(meanEntry[v] + 1) = finiteOrZero(
                weight * (d * d / (sigma * sigma * sigma) - 1 / (sigma + sigmaConst)) * c_.ucNormalizer);
        }
        if (c_.iouLoss != "mse") {
            const IouGradient g =
                iouScore(c_.iouLoss, pred.x, pred.y, pred.w, pred.h, truth.x, truth.y, truth.w, truth.h);
            meanDelta[0] = g.dx + c_.pointOffset * g.dw; // (x, y place a corner: the size moves them too)
            meanDelta[1] = g.dy + c_.pointOffset * g.dh;
            meanDelta[2] = g.dw * std::exp(w(s));
            meanDelta[3] = g.dh * std::exp(h(s));
        }
        for (int v = 0; v < 4; ++v)
            s.change(meanEntry[v]) = finiteOrZero(meanDelta[v] * c_.iouNormalizer);
    }

    static float finiteOrZero(double value) { return std::isfinite(value) ? float(value) : 0.0f; }

    // Class deltas toward `classId`; returns the current score of that class.
    float classDelta(const Slot& s, int classId) const
    {
        auto target = [&](int n) {
            const float y = n == classId ? 1.0f : 0.0f;
            return c_.labelSmoothEps > 0 ? y * (1 - c_.labelSmoothEps) + 0.5f * c_.labelSmoothEps : y;
        };
        const int own = c_.classEntry(classId);
        const float score = s.value(own);
        if (s.change(own) != 0) { // a second truth on the same slot: only its own class moves
            s.change(own) = c_.clsNormalizer * (target(classId) - score);
            return score;
        }
        for (int n = 0; n < c_.classes; ++n)
            s.change(c_.classEntry(n)) += c_.clsNormalizer * (target(n) - s.value(c_.classEntry(n)));
        return score;
    }

    // Full positive treatment of one slot for one truth (box, objectness, class), with the stats.
    void assign(const Slot& s, int k, int i, int j, const Box& truth, int classId, HeadStats& stats) const
    {
        const float iou = boxDelta(s, k, i, j, truth);
        objectnessChange(s) = c_.objNormalizer * (1 - objectness(s));
        stats.classScore += classDelta(s, classId);
        stats.averageIou += iou;
        stats.objectness += objectness(s);
        stats.recall50 += iou > 0.5f;
        stats.recall75 += iou > 0.75f;
        ++stats.count;
    }

private:
    const YoloLayer& c_;
    const YoloGrid& g_;
    const float* output_;
    float* delta_;
    std::size_t plane_;
};

} // namespace

IouGradient iouScore(const std::string& kind, float x, float y, float w, float h, float tx, float ty,
                     float tw, float th)
{
    const Dual px = variable(x, 0), py = variable(y, 1), pw = variable(w, 2), ph = variable(h, 3);
    const Dual half = constant(0.5);
    const Dual pl = px - pw * half, pr = px + pw * half, pt = py - ph * half, pb = py + ph * half;
    const Dual tl = constant(tx - tw / 2), tr = constant(tx + tw / 2), tt = constant(ty - th / 2),
               tb = constant(ty + th / 2);
    const Dual zero = constant(0);
    const Dual iw = maximum(zero, minimum(pr, tr) - maximum(pl, tl));
    const Dual ih = maximum(zero, minimum(pb, tb) - maximum(pt, tt));
    const Dual inter = iw * ih;
    const Dual uni = pw * ph + constant(double(tw) * th) - inter;
    Dual score = uni.v > 0 ? inter / uni : zero;
    const double iou = score.v;
    const Dual cw = maximum(pr, tr) - minimum(pl, tl), ch = maximum(pb, tb) - minimum(pt, tt);
    if (kind == "giou") {
        const Dual hull = cw * ch;
        if (hull.v > 0)
            score = score - (hull - uni) / hull;
    } else if (kind == "diou" || kind == "ciou") {
        const Dual diagonal = cw * cw + ch * ch;
        const Dual dx = px - constant(tx), dy = py - constant(ty);
        if (diagonal.v > 0)
            score = score - (dx * dx + dy * dy) / diagonal;
        if (kind == "ciou" && h > 0 && th > 0) {
            const Dual angle = atanOf(constant(double(tw) / th)) - atanOf(pw / ph);
            const Dual v = constant(4 / (pi * pi)) * angle * angle;
            const double alpha = v.v > 0 ? v.v / (1 - iou + v.v) : 0; // a constant, as in the paper
            score = score - constant(alpha) * v;
        }
    }
    return {float(score.v), float(score.d[0]), float(score.d[1]), float(score.d[2]), float(score.d[3])};
}

void yoloDeltas(const YoloLayer& c, const YoloGrid& g, const float* output, const float* truth, int maxTruths,
                float* delta, HeadStats& stats)
{
    HeadLoss head(c, g, output, delta);
    std::vector<Box> truths;
    std::vector<int> classes;
    for (int t = 0; t < maxTruths; ++t) {
        const float* box = truth + 5 * t;
        if (box[2] <= 0)
            break;
        if (int(box[4]) < 0 || int(box[4]) >= c.classes)
            continue; // the data set checks classes; never index outside this head's planes
        truths.push_back({box[0], box[1], box[2], box[3]});
        classes.push_back(int(box[4]));
    }
    // 1. Every slot is pushed toward "no object" unless its box already overlaps a truth well.
    for (std::size_t a = 0; a < c.mask.size(); ++a)
        for (int j = 0; j < g.height; ++j)
            for (int i = 0; i < g.width; ++i) {
                const Slot s = head.slot(a, i, j);
                const Box pred = head.predicted(s, c.mask[a], i, j);
                float bestIou = 0;
                std::size_t best = 0;
                for (std::size_t t = 0; t < truths.size(); ++t) {
                    const float iou = boxIou(pred, truths[t]);
                    if (iou > bestIou) {
                        bestIou = iou;
                        best = t;
                    }
                }
                stats.noObject += head.objectness(s);
                head.objectnessChange(s) =
                    bestIou > c.ignoreThresh ? 0.0f : c.objNormalizer * (0 - head.objectness(s));
                if (bestIou > c.truthThresh) {
                    head.objectnessChange(s) = c.objNormalizer * (1 - head.objectness(s));
                    head.classDelta(s, classes[best]);
                    head.boxDelta(s, c.mask[a], i, j, truths[best]);
                }
            }
    // 2. Each truth goes to the cell holding its centre and the anchor whose shape fits it best; if
    //    that anchor belongs to another head, this head leaves it (AB: also anchors above iou_thresh).
    for (std::size_t t = 0; t < truths.size(); ++t) {
        const Box& truthBox = truths[t];
        const auto [i, j] = head.cellOf(truthBox);
        const Box shape{0, 0, truthBox.w, truthBox.h};
        int bestAnchor = 0;
        float bestIou = -1;
        for (int k = 0; k < c.num; ++k) {
            const float iou = boxIou(
                shape, {0, 0, head.anchorW(k) / float(g.netWidth), head.anchorH(k) / float(g.netHeight)});
            if (iou > bestIou) {
                bestIou = iou;
                bestAnchor = k;
            }
        }
        for (std::size_t a = 0; a < c.mask.size(); ++a) {
            const int k = c.mask[a];
            bool chosen = k == bestAnchor;
            if (!chosen && c.iouThresh < 1)
                chosen = boxIou(shape, {0, 0, head.anchorW(k) / float(g.netWidth),
                                        head.anchorH(k) / float(g.netHeight)}) > c.iouThresh;
            if (chosen)
                head.assign(head.slot(a, i, j), k, i, j, truthBox, classes[t], stats);
        }
    }
}

} // namespace nw
