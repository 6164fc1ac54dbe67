#pragma once
// "1 image", "2 images": a count with its noun in the right number, for messages.
#include <string>
#include <string_view>

namespace nw {

inline std::string counted(std::size_t n, std::string_view one, std::string_view many)
{
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

} // namespace nw
