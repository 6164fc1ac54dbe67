#pragma once
// Tensor: a batch of float32 NCHW values (index ((b·C + c)·H + y)·W + x) with the shape of one item.
// Host memory for now; the CUDA backend will add a device mirror behind the same shape.
#include "graph/shape.h"

#include <cstddef>
#include <span>
#include <vector>

namespace nw {

class Tensor {
public:
    Tensor() = default;
    Tensor(Shape shape, int batch) { reset(shape, batch); }

    void reset(Shape shape, int batch)
    {
        shape_ = shape;
        batch_ = batch;
        data_.assign(static_cast<std::size_t>(shape.size) * static_cast<std::size_t>(batch), 0.0f);
    }
    const Shape& shape() const { return shape_; }
    int batch() const { return batch_; }
    std::size_t itemSize() const { return static_cast<std::size_t>(shape_.size); }
    std::size_t size() const { return data_.size(); }
    float* data() { return data_.data(); }
    const float* data() const { return data_.data(); }
    float* item(int b) { return data_.data() + itemSize() * static_cast<std::size_t>(b); }
    const float* item(int b) const { return data_.data() + itemSize() * static_cast<std::size_t>(b); }
    std::span<float> span() { return data_; }
    std::span<const float> span() const { return data_; }

private:
    Shape shape_;
    int batch_ = 0;
    std::vector<float> data_;
};

} // namespace nw
