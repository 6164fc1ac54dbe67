#include "graph/shape.h"

#include <limits>

namespace nw {

std::int64_t saturatingProduct(std::initializer_list<std::int64_t> factors)
{
    std::int64_t product = 1;
    for (const std::int64_t factor : factors) {
        if (factor == 0)
            return 0;
        if (__builtin_mul_overflow(product, factor, &product))
            product = std::numeric_limits<std::int64_t>::max();
    }
    return product;
}

std::int64_t saturatingSum(std::initializer_list<std::int64_t> terms)
{
    std::int64_t sum = 0;
    for (const std::int64_t term : terms)
        if (__builtin_add_overflow(sum, term, &sum))
            return std::numeric_limits<std::int64_t>::max();
    return sum;
}

std::string Shape::text() const
{
    if (w == 0 && h == 0 && c == 0)
        return std::to_string(size);
    return std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c);
}

} // namespace nw
