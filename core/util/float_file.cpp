#include "util/float_file.h"

#include "util/atomic_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace nw {

std::optional<std::string> readFloatFile(const std::string& path, std::size_t expected,
                                         std::vector<float>& values)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return path + ": cannot open: " + std::strerror(errno);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (bytes.size() != expected * sizeof(float))
        return path + ": holds " + std::to_string(bytes.size()) + " bytes but the network's input is " +
               std::to_string(expected) + " floats (" + std::to_string(expected * sizeof(float)) +
               " bytes, CHW float32)";
    values.resize(expected);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return std::nullopt;
}

std::size_t countNonFinite(std::span<const float> values)
{
    return std::size_t(
        std::count_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }));
}

std::optional<std::string> nonFiniteWarning(const std::string& path, std::span<const float> values)
{
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]) && count++ == 0)
            first = i;
    if (count == 0)
        return std::nullopt;
    return path + ": " + std::to_string(count) + " of " + std::to_string(values.size()) +
           " values are not finite (NaN or infinity; the first is value " + std::to_string(first) +
           "): what the network computes from them means nothing";
}

std::optional<std::string> writeFloatFile(const std::string& path, std::span<const float> values)
{
    return writeFileAtomically(
        path, std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

} // namespace nw
