#pragma once
// Where values move in the layers that rearrange them, written once for their forward and backward
// kernels (each a twin of the CPU layer's own visiting rule, named below). Plain C++ as well as CUDA, so
// test_kernels holds them to the CPU layers on machines without a GPU.
#include "kernels/host_device.h"

#include <cstddef>

namespace nw::cuda {

// [reorg]'s rearrangement (layers/reorg.cpp): the input's dims and the cfg's options.
struct ReorgMap {
    int w, h, c, stride;
    bool extra, flatten, reverse;
};

// [shortcut]'s overlap of its output with one source of another size (layers/shortcut.cpp).
struct OverlapMap {
    int outW, outH, outC, fromW, fromH, fromC;
};

// [scale_channels]' pairing (layers/scale_channels.cpp) of each value of a batch item (channels × plane)
// with its scale: a channel's (1×1×C scales), or a pixel's (scale_wh: w×h×1 scales).
struct ScaleMap {
    std::size_t plane, channels;
    bool scaleWh;
};

// The scale of value j of an item, and the values of scale s (k < scaledCount).
NW_HOST_DEVICE inline std::size_t scaleOf(std::size_t j, const ScaleMap& m)
{
    return m.scaleWh ? j % m.plane : j / m.plane;
}
NW_HOST_DEVICE inline std::size_t scalesPerItem(const ScaleMap& m)
{
    return m.scaleWh ? m.plane : m.channels;
}
NW_HOST_DEVICE inline std::size_t scaledCount(const ScaleMap& m)
{
    return m.scaleWh ? m.channels : m.plane;
}
NW_HOST_DEVICE inline std::size_t scaledValue(std::size_t s, std::size_t k, const ScaleMap& m)
{
    return m.scaleWh ? k * m.plane + s : s * m.plane + k;
}

// [crop]'s window (layers/crop.cpp): an outW×outH window of each inW×inH plane at (dx, dy), mirrored
// left-right when flipped; one placement per batch item.
struct CropMap {
    int inW, inH, outW, outH;
};
struct CropPlacement {
    int dx, dy;
    bool flip;
};

// The input value (within its item) that output value o of the item reads.
NW_HOST_DEVICE inline std::size_t cropSource(std::size_t o, const CropMap& m, const CropPlacement& p)
{
    const int x = int(o % std::size_t(m.outW)), y = int(o / std::size_t(m.outW) % std::size_t(m.outH));
    const std::size_t c = o / (std::size_t(m.outW) * std::size_t(m.outH));
    const int sx = p.dx + (p.flip ? m.outW - 1 - x : x);
    return std::size_t(sx) + std::size_t(m.inW) * (std::size_t(y + p.dy) + std::size_t(m.inH) * c);
}

// im2col's column rule (kernels/cpu/im2col.cpp), which [local] applies per location: row r (channel ×
// size × size) of the unrolled input at output location j reads input value columnSource(r, j) of the
// item, or −1 where the window lies outside (a zero).
struct ColumnMap {
    int channels, height, width, size, strideX, strideY, pad, outH, outW;
};

NW_HOST_DEVICE inline long long columnSource(std::size_t r, std::size_t j, const ColumnMap& m)
{
    const int kx = int(r % std::size_t(m.size)), ky = int(r / std::size_t(m.size) % std::size_t(m.size));
    const long long c = (long long)(r / (std::size_t(m.size) * std::size_t(m.size)));
    const int x = int(j % std::size_t(m.outW)) * m.strideX + kx - m.pad;
    const int y = int(j / std::size_t(m.outW)) * m.strideY + ky - m.pad;
    if (x < 0 || y < 0 || x >= m.width || y >= m.height)
        return -1;
    return (c * m.height + y) * m.width + x;
}

struct IndexPair {
    std::size_t from, to; // an input index and the output index it moves to, within one batch item
};

// [reorg]'s forEachPair (layers/reorg.cpp) for the t-th value of the input (t < w·h·c): `extra`
// copies, `flatten` CHW ↔ HWC, else Darknet's quirky space-to-depth with the input's dims.
NW_HOST_DEVICE inline IndexPair reorgPair(std::size_t t, const ReorgMap& m)
{
    if (m.extra)
        return {t, t};
    if (m.flatten) {
        const std::size_t plane = std::size_t(m.w) * std::size_t(m.h), channels = std::size_t(m.c);
        const std::size_t c = t / plane, i = t % plane;
        const std::size_t chw = t, hwc = i * channels + c;
        return m.reverse ? IndexPair{hwc, chw} : IndexPair{chw, hwc};
    }
    const int s = m.stride, w = m.w, h = m.h;
    const int i = int(t % std::size_t(w)), j = int(t / std::size_t(w) % std::size_t(h));
    const int k = int(t / (std::size_t(w) * std::size_t(h)));
    const int outC = m.c / (s * s);
    const int c2 = k % outC, offset = k / outC;
    const int w2 = i * s + offset % s, h2 = j * s + offset / s;
    const std::size_t moved =
        std::size_t(w2) + std::size_t(w) * std::size_t(s) *
                              (std::size_t(h2) + std::size_t(h) * std::size_t(s) * std::size_t(c2));
    return m.reverse ? IndexPair{t, moved} : IndexPair{moved, t};
}

// [shortcut]'s forEachOverlap (layers/shortcut.cpp), pjreddie's shortcut_cpu pairing: over the
// overlap min(c) × min(h) × min(w), the t-th pair of output pixel o and source pixel a, a source of
// another size resampled by an integer stride.
NW_HOST_DEVICE inline int overlapStride(const OverlapMap& m)
{
    return m.fromW / m.outW > 1 ? m.fromW / m.outW : 1;
}
NW_HOST_DEVICE inline int overlapSample(const OverlapMap& m)
{
    return m.outW / m.fromW > 1 ? m.outW / m.fromW : 1;
}
NW_HOST_DEVICE inline int smaller(int a, int b)
{
    return a < b ? a : b;
}
NW_HOST_DEVICE inline std::size_t overlapPairs(const OverlapMap& m)
{
    return std::size_t(smaller(m.fromW, m.outW)) * std::size_t(smaller(m.fromH, m.outH)) *
           std::size_t(smaller(m.fromC, m.outC));
}

NW_HOST_DEVICE inline IndexPair overlapPair(std::size_t t, const OverlapMap& m)
{
    const int minW = smaller(m.fromW, m.outW), minH = smaller(m.fromH, m.outH);
    const int i = int(t % std::size_t(minW)), j = int(t / std::size_t(minW) % std::size_t(minH));
    const int k = int(t / (std::size_t(minW) * std::size_t(minH)));
    const int sample = overlapSample(m), stride = overlapStride(m);
    const std::size_t o =
        std::size_t(i * sample) +
        std::size_t(m.outW) * (std::size_t(j * sample) + std::size_t(m.outH) * std::size_t(k));
    const std::size_t a =
        std::size_t(i * stride) +
        std::size_t(m.fromW) * (std::size_t(j * stride) + std::size_t(m.fromH) * std::size_t(k));
    return {a, o};
}

} // namespace nw::cuda
