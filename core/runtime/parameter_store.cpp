#include "runtime/parameter_store.h"

namespace nw {

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
    std::vector<float> values(total);
    std::size_t at = 0;
    for (ParamArray* array : arrays) {
        array->bindTo(values.data() + at);
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
    std::vector<float> gradients(total); // bindTo brings each array's gradient so far
    std::size_t at = 0;
    for (const auto& parameters : trained)
        for (const Parameter& p : parameters) {
            p.gradient->bindTo(gradients.data() + at);
            at += p.gradient->size();
        }
    gradients_ = std::move(gradients);
}

} // namespace nw
