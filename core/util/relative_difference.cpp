#include "util/relative_difference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nw {

double largestRelativeDifference(std::span<const float> values, std::span<const float> reference,
                                 double floor)
{
    constexpr double unusable = std::numeric_limits<double>::infinity();
    if (values.size() != reference.size())
        return unusable;
    double largest = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double a = values[i], b = reference[i];
        if (!std::isfinite(a) || !std::isfinite(b))
            return unusable;
        largest = std::max(largest, std::fabs(a - b) / std::max(floor, std::fabs(b)));
    }
    return largest;
}

bool allFinite(std::span<const float> values)
{
    return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

} // namespace nw
