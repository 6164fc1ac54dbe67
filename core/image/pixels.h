#pragma once
// Decoded 8-bit images before they become the network's floats: rows of interleaved RGB (or grey)
// bytes. The training data path works on these (decode once, cache, crop and colour-jitter per sample).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nw {

struct Pixels {
    int width = 0, height = 0, channels = 0; // channels 3: R, G, B; 1: grey
    std::vector<std::uint8_t> data;          // width × height × channels, row by row

    Pixels() = default;
    Pixels(int w, int h, int c, std::uint8_t fill = 0)
        : width(w), height(h), channels(c), data(std::size_t(w) * std::size_t(h) * std::size_t(c), fill)
    {
    }
    bool empty() const { return data.empty(); }
    std::size_t rowBytes() const { return std::size_t(width) * std::size_t(channels); }
    std::uint8_t* row(int y) { return data.data() + std::size_t(y) * rowBytes(); }
    const std::uint8_t* row(int y) const { return data.data() + std::size_t(y) * rowBytes(); }
};

} // namespace nw
