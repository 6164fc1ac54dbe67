#pragma once
// The shape of one layer's output for one batch item, as Darknet keeps it: out_w × out_h × out_c, plus
// the flat element count. "Flat" outputs (softmax, cost, recurrent layers, mismatched routes) have
// w = h = c = 0 and only a size, exactly as Darknet leaves them, because the next layer sees that.
#include <cstdint>
#include <initializer_list>
#include <string>

namespace nw {

// The largest width, height or channel count a layer output may have. Darknet keeps sizes in int;
// a side past a million is a typo, and refusing it keeps every size product within 64 bits.
inline constexpr std::int64_t kMaxSide = std::int64_t(1) << 20;

// a × b × … in 64 bits, held at INT64_MAX instead of overflowing: an absurd cfg value then reads as
// "too large" in the size checks rather than as a negative number.
std::int64_t saturatingProduct(std::initializer_list<std::int64_t> factors);

// a + b + … the same way.
std::int64_t saturatingSum(std::initializer_list<std::int64_t> terms);

struct Shape {
    int w = 0;
    int h = 0;
    int c = 0;
    std::int64_t size = 0; // elements per batch item (Darknet's `outputs`)

    static Shape image(int w, int h, int c) { return {w, h, c, std::int64_t(w) * h * c}; }
    static Shape flat(std::int64_t size) { return {0, 0, 0, size}; }
    bool isImage() const { return w > 0 && h > 0 && c > 0; }
    bool empty() const { return w == 0 && h == 0 && c == 0 && size == 0; } // (no shape was made)
    bool operator==(const Shape&) const = default;
    // "416×416×3", or "1000" for a flat output.
    std::string text() const;
};

} // namespace nw
