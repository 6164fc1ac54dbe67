#pragma once
// Darknet's .weights format: a header (major, minor, revision, seen) and then every layer's arrays in
// order, little-endian float32, with no per-layer framing. See docs/weights-format.md.
#include <cstdint>
#include <string>
#include <vector>

namespace nw {

struct WeightsHeader {
    std::int32_t major = 0, minor = 2, revision = 5; // what AlexeyAB's Darknet writes
    std::uint64_t seen = 0;                          // images trained on

    // `seen` is a uint64 when major·10 + minor ≥ 2 (and both < 1000), else an int32.
    bool wideSeen() const { return std::int64_t(major) * 10 + minor >= 2 && major < 1000 && minor < 1000; }
    // Connected-layer matrices are stored [inputs][outputs] when major or minor exceed 1000.
    bool transpose() const { return major > 1000 || minor > 1000; }
    std::size_t bytes() const { return 12 + (wideSeen() ? 8 : 4); }
};

// What a .weights file of another size than the net's may do.
struct WeightsFit {
    // A longer file (another network's): its first part loads, with a warning (--allow-extra).
    bool allowExtra = false;
    // A file that ends between two layers, as Darknet's backbones (yolov4.conv.137, darknet53.conv.74:
    // the first 137 or 74 layers): those layers load and the rest keep their values, with a warning
    // naming them. For starting weights of a training run; elsewhere such a file is refused.
    bool allowPrefix = false;
    // How this front end loads a longer file anyway, said after its refusal (the CLI's --allow-extra;
    // the studio has no such choice and says nothing).
    std::string allowExtraAdvice = {};
};

// Why a layer whose matrices came from a transposed file (WeightsHeader::transpose) does not train.
inline std::string transposedWeightsReason()
{
    return "its weights come from a transposed .weights file (header version over 1000), which runs but "
           "does not train: train from a file in today's layout, or from scratch";
}

// Parses the header from the start of a file's bytes; returns an error message on failure.
std::string parseWeightsHeader(const std::vector<char>& bytes, WeightsHeader& header);
std::vector<char> encodeWeightsHeader(const WeightsHeader& header);

} // namespace nw
