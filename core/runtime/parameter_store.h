#pragma once
// ParameterStore: every parameter of a net in one flat buffer, and every trained array's gradient in
// another (Caffe's flat parameter blob). Each layer's arrays are views of their ranges (param_array.h),
// so the solver, checkpoints and the data-parallel all-reduce work on whole buffers, and a device
// backend mirrors two buffers instead of hundreds of arrays.
#include "runtime/layer_runtime.h"

#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

namespace nw {

// Leaves new elements uninitialised: the store's buffers are filled array by array (bindTo), so their
// pages become resident only as they are filled (parameter_store.cpp says why that matters).
template <class T> struct UninitialisedAllocator : std::allocator<T> {
    template <class U> struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <class U> UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <class U> void construct(U* place) noexcept { ::new (static_cast<void*>(place)) U; }
    template <class U, class... Args> void construct(U* place, Args&&... args)
    {
        ::new (static_cast<void*>(place)) U(std::forward<Args>(args)...);
    }
};

class ParameterStore {
public:
    // Moves every array of every layer, in .weights order, into the value buffer; the arrays' values
    // are kept. Called when the net is built.
    void bindValues(std::span<const std::unique_ptr<RuntimeLayer>> layers);
    // Moves the gradient of every parameter in `trained` (sized by the layers on first use) into the
    // gradient buffer, with what they hold. Called when training starts, and again after the layers
    // were rebuilt for another input size.
    void bindGradients(std::span<const std::vector<Parameter>> trained);

    std::span<float> values() { return values_; }
    std::span<const float> values() const { return values_; }
    // Empty until training starts.
    std::span<float> gradients() { return gradients_; }

private:
    using Buffer = std::vector<float, UninitialisedAllocator<float>>;
    Buffer values_, gradients_;
};

} // namespace nw
