#include "train/checkpoint.h"

#include "util/atomic_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <zlib.h>

namespace nw {

namespace {

// Version 3 holds the run's seed after the header's figures (a resume without --seed went on with seed
// 1, and drew other batches); version 2 ends with a CRC-32 of everything before it (so does 3); version
// 1 (no checksum) still loads.
// Version 4 adds the run's --learning-rate, version 5 its length (--max-batches: a resume without it
// went on to the cfg's max_batches, another schedule).
constexpr char kMagic[8] = {'N', 'W', 'S', 'T', 'A', 'T', 'E', '5'};
constexpr char kMagicV4[8] = {'N', 'W', 'S', 'T', 'A', 'T', 'E', '4'};
constexpr char kMagicV3[8] = {'N', 'W', 'S', 'T', 'A', 'T', 'E', '3'};
constexpr char kMagicV2[8] = {'N', 'W', 'S', 'T', 'A', 'T', 'E', '2'};
constexpr char kMagicV1[8] = {'N', 'W', 'S', 'T', 'A', 'T', 'E', '1'};

bool startsWith(const std::vector<char>& bytes, const char (&magic)[8])
{
    return bytes.size() >= sizeof magic && std::memcmp(bytes.data(), magic, sizeof magic) == 0;
}

std::uint32_t checksum(const char* data, std::size_t size)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (size > 0) { // zlib takes uInt lengths
        const auto chunk = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data), chunk);
        data += chunk;
        size -= chunk;
    }
    return static_cast<std::uint32_t>(crc);
}

template <typename T> void put(std::string& out, const T& value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void putArray(std::string& out, std::span<const float> values)
{
    put(out, std::uint64_t(values.size()));
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

struct Reader {
    const std::vector<char>& bytes;
    std::size_t offset = 0;
    template <typename T> bool get(T& value)
    {
        if (bytes.size() - offset < sizeof value)
            return false;
        std::memcpy(&value, bytes.data() + offset, sizeof value);
        offset += sizeof value;
        return true;
    }
    bool getArray(std::vector<float>& values)
    {
        std::uint64_t n = 0;
        if (!get(n) || (bytes.size() - offset) / sizeof(float) < n)
            return false;
        values.resize(std::size_t(n));
        std::memcpy(values.data(), bytes.data() + offset, std::size_t(n) * sizeof(float));
        offset += std::size_t(n) * sizeof(float);
        return true;
    }
};

std::vector<ParamArray*> allArrays(Net& net)
{
    std::vector<ParamArray*> arrays;
    for (const WeightArray& array : net.weightArrays())
        arrays.push_back(array.data);
    return arrays;
}

// "layer 12 [convolutional] (line 80), array 'weights'": the `index`-th of allArrays.
std::string describeArray(Net& net, std::size_t index)
{
    for (const LayerSpec& layer : net.spec().layers) {
        const std::size_t count = net.layerWeightArrays(layer.index).size();
        if (index < count)
            return "layer " + std::to_string(layer.index) + " [" + layer.type + "] (line " +
                   std::to_string(layer.line) + "), array '" +
                   net.layerWeightArrays(layer.index)[index].name + "'";
        index -= count;
    }
    return "weight array " + std::to_string(index);
}

} // namespace

std::optional<std::string> saveCheckpoint(const std::string& path, Net& net, const TrainState& state)
{
    std::string out(kMagic, sizeof kMagic);
    put(out, std::int32_t(state.iteration));
    put(out, state.seen);
    put(out, state.averageLoss);
    put(out, state.elapsedSeconds);
    put(out, std::uint32_t(state.seed.value_or(0)));
    put(out, state.learningRate);
    put(out, std::int32_t(state.maxBatches));
    const auto arrays = allArrays(net);
    put(out, std::uint64_t(arrays.size()));
    for (const auto* array : arrays)
        putArray(out, *array);
    put(out, std::uint64_t(state.velocity.size()));
    for (const auto& velocity : state.velocity)
        putArray(out, velocity);
    put(out, checksum(out.data(), out.size()));
    return writeFileAtomically(path, out);
}

std::optional<TrainState> readCheckpointHeader(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[sizeof kMagic] = {};
    std::int32_t iteration = 0;
    TrainState state;
    const auto read = [&](auto& value) {
        return bool(in.read(reinterpret_cast<char*>(&value), sizeof value));
    };
    if (!in.read(magic, sizeof magic) || !read(iteration) || !read(state.seen) || !read(state.averageLoss) ||
        !read(state.elapsedSeconds))
        return std::nullopt;
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0 &&
        std::memcmp(magic, kMagicV4, sizeof kMagicV4) != 0 &&
        std::memcmp(magic, kMagicV3, sizeof kMagicV3) != 0 &&
        std::memcmp(magic, kMagicV2, sizeof kMagicV2) != 0 &&
        std::memcmp(magic, kMagicV1, sizeof kMagicV1) != 0)
        return std::nullopt;
    if (iteration < 0)
        return std::nullopt;
    state.iteration = iteration;
    return state;
}

std::optional<std::string> loadCheckpoint(const std::string& path, Net& net, TrainState& state)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return path + ": cannot open the training state (nothing to resume?)";
    std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const bool v5 = startsWith(bytes, kMagic), v4 = v5 || startsWith(bytes, kMagicV4),
               v3 = v4 || startsWith(bytes, kMagicV3), v2 = startsWith(bytes, kMagicV2),
               v1 = startsWith(bytes, kMagicV1);
    if (!v1 && !v2 && !v3)
        return path + ": not a Netwright training state";
    if (v2 || v3) {
        std::uint32_t stored = 0;
        if (bytes.size() < sizeof kMagic + sizeof stored)
            return path + ": the training state is truncated";
        std::memcpy(&stored, bytes.data() + bytes.size() - sizeof stored, sizeof stored);
        bytes.resize(bytes.size() - sizeof stored);
        if (checksum(bytes.data(), bytes.size()) != stored)
            return path + ": the training state is damaged (its checksum does not match): resume from "
                          "the _last.weights beside it as starting weights instead";
    }
    Reader reader{bytes, sizeof kMagic};
    TrainState loaded;
    std::int32_t iteration = 0;
    std::uint64_t count = 0;
    std::uint32_t seed = 0;
    std::int32_t maxBatches = 0;
    if (!reader.get(iteration) || !reader.get(loaded.seen) || !reader.get(loaded.averageLoss) ||
        !reader.get(loaded.elapsedSeconds) || (v3 && !reader.get(seed)) ||
        (v4 && !reader.get(loaded.learningRate)) || (v5 && !reader.get(maxBatches)) || !reader.get(count))
        return path + ": the training state is truncated";
    loaded.maxBatches = std::max(0, maxBatches);
    if (v3)
        loaded.seed = seed;
    loaded.iteration = iteration;
    const auto arrays = allArrays(net);
    if (count != arrays.size())
        return path + ": the state holds " + std::to_string(count) + " weight arrays but the network has " +
               std::to_string(arrays.size()) + ": was it saved from another cfg?";
    std::vector<std::vector<float>> values(arrays.size());
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        if (!reader.getArray(values[i]))
            return path + ": the training state is truncated";
        if (values[i].size() != arrays[i]->size())
            return path + ": " + describeArray(net, i) + " holds " + std::to_string(values[i].size()) +
                   " values in the state but " + std::to_string(arrays[i]->size()) +
                   " in the network: was the state saved from another cfg (filters, classes, size)?";
    }
    if (!reader.get(count))
        return path + ": the training state is truncated";
    if (count > arrays.size() * 2 + 1) // Adam: m and v per array, and its step count
        return path + ": the training state is damaged (" + std::to_string(count) + " solver buffers)";
    loaded.velocity.resize(std::size_t(count));
    for (auto& velocity : loaded.velocity)
        if (!reader.getArray(velocity))
            return path + ": the training state is truncated";
    for (std::size_t i = 0; i < arrays.size(); ++i)
        arrays[i]->assign(values[i]);
    net.prepareAll(); // derived forms of the weights (Winograd's transforms) follow the new values
    net.setSeen(loaded.seen);
    state = std::move(loaded);
    return std::nullopt;
}

} // namespace nw
