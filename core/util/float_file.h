#pragma once
// Raw float32 files (.f32): the exchange format for tensors between Netwright and other programs.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nw {

// Reads exactly `expected` floats; an error names the file and the sizes when it holds another count.
std::optional<std::string> readFloatFile(const std::string& path, std::size_t expected,
                                         std::vector<float>& values);
std::optional<std::string> writeFloatFile(const std::string& path, std::span<const float> values);

// A warning when values read from `path` hold NaN or ±infinity (how many, and the first's index): the
// network runs on them, and its outputs come out NaN or quietly wrong (a max pool drops a NaN).
std::optional<std::string> nonFiniteWarning(const std::string& path, std::span<const float> values);

// How many of `values` are NaN or ±infinity.
std::size_t countNonFinite(std::span<const float> values);
// Why a network's outputs are not numbers when its input was fine: said by detect, forward, map and
// the studio alike.
inline constexpr std::string_view kNotNumbersCause =
    "the weights diverged in training, or belong to another network";

} // namespace nw
