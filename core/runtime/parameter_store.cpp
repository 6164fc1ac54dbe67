#include "runtime/parameter_store.h"

// Under AddressSanitizer the heap is its allocator's, not glibc's: trimming glibc's unused arenas
// from a worker thread crashed in mtrim (a CI run, ONNX export's thread). Trim only a glibc heap.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define NW_SANITIZED_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NW_SANITIZED_HEAP 1
#endif
#if defined(__GLIBC__) && !defined(NW_SANITIZED_HEAP)
#define NW_TRIM_GLIBC_HEAP 1
#include <malloc.h>
#endif

namespace nw {

namespace {

// Moves `array` into the store at `place`. Its own storage is freed, and freed memory goes back to the
// system at once: glibc keeps freed blocks under its (rising) mmap threshold in the heap, and every
// parameter stayed resident twice — yolov3-tiny's peak was 35 MB higher, yolov4's 256 MB (the store's
// pages are not touched before their array moves in: Buffer is not zeroed).
void moveInto(ParamArray& array, float* place)
{
    const bool large = array.size() >= (std::size_t(1) << 18); // 1 MB of floats
    array.bindTo(place);
#if defined(NW_TRIM_GLIBC_HEAP)
    if (large)
        malloc_trim(0);
#else
    (void)large;
#endif
}

} // namespace

void ParameterStore::bindValues(std::span<const std::unique_ptr<RuntimeLayer>> layers)
{
    std::vector<ParamArray*> arrays;
    std::size_t total = 0;
    for (const auto& layer : layers)
        for (const WeightArray& array : layer->weightArrays()) {
            arrays.push_back(array.data);
            total += array.data->size();
        }
    // A new buffer first, then the moves: arrays already bound to the old one copy from it.
    Buffer values(total); // (uninitialised: every element is written by a move below)
    std::size_t at = 0;
    for (ParamArray* array : arrays) {
        moveInto(*array, values.data() + at);
        at += array->size();
    }
    values_ = std::move(values); // the vector's buffer moves with it: the views stay valid
}

void ParameterStore::bindGradients(std::span<const std::vector<Parameter>> trained)
{
    std::size_t total = 0;
    for (const auto& parameters : trained)
        for (const Parameter& p : parameters)
            total += p.gradient->size();
    Buffer gradients(total); // each array's gradient so far is moved in, filling every element
    std::size_t at = 0;
    for (const auto& parameters : trained)
        for (const Parameter& p : parameters) {
            moveInto(*p.gradient, gradients.data() + at);
            at += p.gradient->size();
        }
    gradients_ = std::move(gradients);
}

} // namespace nw
