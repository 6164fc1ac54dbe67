#include "util/closest_name.h"

#include <algorithm>

namespace nw {

std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::string closestName(std::string_view word, const std::vector<std::string>& candidates)
{
    std::string closest;
    std::size_t closestDistance = std::min<std::size_t>(3, (word.size() + 1) / 2); // two edits at most
    for (const std::string& candidate : candidates)
        if (const std::size_t d = editDistance(word, candidate); d > 0 && d < closestDistance) {
            closestDistance = d;
            closest = candidate;
        }
    return closest;
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates)
{
    const std::string closest = closestName(word, candidates);
    return closest.empty() ? std::string() : " (did you mean " + closest + "?)";
}

} // namespace nw
