#pragma once
// The median every benchmark program reports, netwright-cli bench's rule: the middle value, or the
// mean of the two middle values of an even count (the upper middle one favoured the slower side).
#include <algorithm>
#include <vector>

namespace nw::bench {

inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace nw::bench
