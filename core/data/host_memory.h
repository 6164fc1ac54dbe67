#pragma once
// Host memory for training batches: the heap, or memory a GPU copies from directly (page-locked, given
// by the CUDA training backend), chosen when a BatchLoader is made. The allocator carries the choice,
// so a buffer is always freed the way it was allocated, whoever frees it.
#include <cstddef>
#include <new>
#include <type_traits>
#include <vector>

namespace nw {

class HostMemory {
public:
    virtual ~HostMemory() = default;
    virtual void* allocate(std::size_t bytes) = 0; // throws (std::bad_alloc or the backend's error)
    virtual void release(void* memory) noexcept = 0;
};

// A std::allocator that takes its memory from a HostMemory (null: the heap). The HostMemory must
// outlive every buffer allocated from it.
template <typename T> class HostAllocator {
public:
    using value_type = T;
    using propagate_on_container_copy_assignment = std::true_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;

    HostAllocator() noexcept = default;
    explicit HostAllocator(HostMemory* memory) noexcept : memory_(memory) {}
    template <typename U> HostAllocator(const HostAllocator<U>& other) noexcept : memory_(other.memory()) {}

    T* allocate(std::size_t n)
    {
        const std::size_t bytes = n * sizeof(T);
        return static_cast<T*>(memory_ ? memory_->allocate(bytes) : ::operator new(bytes));
    }
    void deallocate(T* p, std::size_t) noexcept
    {
        if (memory_)
            memory_->release(p);
        else
            ::operator delete(p);
    }
    HostMemory* memory() const noexcept { return memory_; }
    friend bool operator==(const HostAllocator& a, const HostAllocator& b) noexcept
    {
        return a.memory_ == b.memory_;
    }

private:
    HostMemory* memory_ = nullptr;
};

using HostFloats = std::vector<float, HostAllocator<float>>;

} // namespace nw
