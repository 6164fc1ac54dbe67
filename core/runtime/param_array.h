#pragma once
// ParamArray: one array of a layer's parameters (biases, scales, rolling statistics, weights) or of
// their gradients. A layer sizes and fills it on its own; once the net is built, the ParameterStore
// moves it into the net's one flat buffer and the array becomes a view of its range there, so solvers,
// checkpoints, all-reduce and a GPU mirror see one buffer instead of hundreds of vectors. The element
// interface is std::vector's, so layer code reads the same either way.
#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

namespace nw {

class ParamArray {
public:
    ParamArray() = default;
    ParamArray(std::size_t n, float value) { assign(n, value); }
    ParamArray(const ParamArray&) = delete; // a bound array is a view: copies would alias
    ParamArray& operator=(const ParamArray&) = delete;
    ParamArray(ParamArray&&) = delete;
    ParamArray& operator=(ParamArray&&) = delete;

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    float* data() { return data_; }
    const float* data() const { return data_; }
    float& operator[](std::size_t i) { return data_[i]; }
    float operator[](std::size_t i) const { return data_[i]; }
    float* begin() { return data_; }
    float* end() { return data_ + size_; }
    const float* begin() const { return data_; }
    const float* end() const { return data_ + size_; }
    operator std::span<float>() { return {data_, size_}; }
    operator std::span<const float>() const { return {data_, size_}; }

    // n copies of value. A bound array keeps its place in the store, so its size cannot change.
    void assign(std::size_t n, float value)
    {
        if (bound_) {
            if (n != size_)
                throw std::logic_error("ParamArray: a stored array cannot be resized");
            std::fill(data_, data_ + size_, value);
            return;
        }
        owned_.assign(n, value);
        refresh();
    }
    // The values of `values` (same rule on size).
    void assign(std::span<const float> values)
    {
        if (bound_) {
            if (values.size() != size_)
                throw std::logic_error("ParamArray: a stored array cannot be resized");
            std::copy(values.begin(), values.end(), data_);
            return;
        }
        owned_.assign(values.begin(), values.end());
        refresh();
    }

    // Moves the values to `place` (size() floats owned by the store) and views them there.
    void bindTo(float* place)
    {
        std::copy(data_, data_ + size_, place);
        // Freed, not just emptied: `owned_ = {}` assigns an empty list and keeps the capacity, so every
        // parameter stayed allocated twice (yolov3-tiny's peak 35 MB higher, yolov4's 256 MB).
        std::vector<float>().swap(owned_);
        data_ = place;
        bound_ = true;
    }
    bool bound() const { return bound_; }
    // Bytes this array holds of its own (none once the store holds its values).
    std::size_t ownedBytes() const { return owned_.capacity() * sizeof(float); }
    // Exchanges contents with another array of the same size (a rebuilt layer takes over the
    // parameters of the one it replaces, store place included).
    void swap(ParamArray& other) noexcept
    {
        owned_.swap(other.owned_);
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(bound_, other.bound_);
    }

private:
    void refresh()
    {
        data_ = owned_.data();
        size_ = owned_.size();
    }

    std::vector<float> owned_;
    float* data_ = nullptr;
    std::size_t size_ = 0;
    bool bound_ = false;
};

// Zero-filled to n entries unless it already has them (gradients and batch statistics, sized on use).
inline void sizeTo(ParamArray& v, std::size_t n)
{
    if (v.size() != n)
        v.assign(n, 0.0f);
}

} // namespace nw
