#pragma once
// Tensor: a batch of float32 NCHW values (index ((b·C + c)·H + y)·W + x) with the shape of one item.
// It owns its values, or views memory it does not own (an inference net's reused activation buffers,
// see graph/activation_plan.h). Host memory for now; the CUDA backend will add a device mirror.
#include "graph/shape.h"

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace nw {

class Tensor {
public:
    Tensor() = default;
    Tensor(Shape shape, int batch) { reset(shape, batch); }
    // A view points into its owner's values: copying one would leave two owners of one buffer.
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;
    // The vector's buffer moves with it, so data_ stays valid; the moved-from tensor is left empty.
    Tensor(Tensor&& other) noexcept { *this = std::move(other); }
    Tensor& operator=(Tensor&& other) noexcept
    {
        shape_ = other.shape_;
        batch_ = other.batch_;
        owned_ = std::move(other.owned_);
        data_ = other.data_;
        size_ = other.size_;
        other.shape_ = {};
        other.batch_ = 0;
        other.owned_.clear();
        other.data_ = nullptr;
        other.size_ = 0;
        return *this;
    }

    // Owns shape.size × batch zeros.
    void reset(Shape shape, int batch)
    {
        shape_ = shape;
        batch_ = batch;
        owned_.assign(static_cast<std::size_t>(shape.size) * static_cast<std::size_t>(batch), 0.0f);
        data_ = owned_.data();
        size_ = owned_.size();
    }
    // Views shape.size × batch floats at `values` (owned elsewhere, at least that long).
    void view(Shape shape, int batch, float* values)
    {
        shape_ = shape;
        batch_ = batch;
        owned_ = {};
        data_ = values;
        size_ = static_cast<std::size_t>(shape.size) * static_cast<std::size_t>(batch);
    }
    const Shape& shape() const { return shape_; }
    int batch() const { return batch_; }
    std::size_t itemSize() const { return static_cast<std::size_t>(shape_.size); }
    std::size_t size() const { return size_; }
    float* data() { return data_; }
    const float* data() const { return data_; }
    float* item(int b) { return data_ + itemSize() * static_cast<std::size_t>(b); }
    const float* item(int b) const { return data_ + itemSize() * static_cast<std::size_t>(b); }
    std::span<float> span() { return {data_, size_}; }
    std::span<const float> span() const { return {data_, size_}; }

private:
    Shape shape_;
    int batch_ = 0;
    std::vector<float> owned_;
    float* data_ = nullptr;
    std::size_t size_ = 0;
};

} // namespace nw
