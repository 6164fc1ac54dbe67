#include "kernels/cpu/winograd.h"

#include "kernels/cpu/clones.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/lanes.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <omp.h>

namespace nw {

namespace {

constexpr int kTile = 6;                              // input tile side
constexpr int kOut = 4;                               // output tile side
constexpr std::size_t kBlockBytes = 640 * 1024;       // V and M of a block of tiles stay in L2 (1 MB here)
constexpr std::size_t kSharedBlockBytes = 8 << 20;    // blocks all threads share: the tiles of a 26×26 layer
constexpr std::size_t kSharedWeightPairs = 64 * 1024; // filters × channels: 9.4 MB of transformed weights
constexpr std::size_t kChunkBytes = 1536 * 1024;      // a thread's transformed weights for a few filters

// Floats between the chunk's U[ξ] and U[ξ + 1]: rows × channels and a little more, so the 36 points a
// pair's transform writes do not fall 2^k bytes apart (the same L1 set: 36 streams into 8 ways).
std::size_t chunkPointStride(int rows, int channels)
{
    return std::size_t(rows) * std::size_t(channels) + 16;
}

// Filters whose weights a thread transforms at a time (U[ξ] for those rows, all channels).
int chunkFilters(int channels, int filters)
{
    const int fit = int(kChunkBytes / (sizeof(float) * kWinogradPoints * std::size_t(std::max(1, channels))));
    return std::clamp(fit / 8 * 8, 8, std::max(8, filters));
}

// The 4×4 output tiles of every image, numbered image by image, row by row, cut into blocks.
struct Tiling {
    int tilesX, tilesY, perImage;
    int tiles; // all images
    int block; // workspace columns per block: the most tiles a block holds, rounded up to kLanes
    int blocks;
    // Each thread takes whole blocks, or (few tiles, or large weights streamed once per block) all
    // threads work on one block at a time, splitting the channels and then the filters.
    bool shared;
    std::size_t imageFloats, outputImageFloats;
};

Tiling tiling(const ConvGeometry& g, int filters, int images, int threads)
{
    Tiling t{};
    t.tilesX = (g.outWidth + kOut - 1) / kOut;
    t.tilesY = (g.outHeight + kOut - 1) / kOut;
    t.perImage = t.tilesX * t.tilesY;
    t.tiles = t.perImage * std::max(1, images);
    t.imageFloats = std::size_t(g.channels) * std::size_t(g.height) * std::size_t(g.width);
    t.outputImageFloats = std::size_t(filters) * std::size_t(g.outHeight) * std::size_t(g.outWidth);
    const std::size_t perTile = sizeof(float) * kWinogradPoints * std::size_t(g.channels + filters);
    const auto largestBlock = [&](std::size_t bytes, int cap) {
        return std::clamp(int(bytes / perTile) / kLanes * kLanes, kLanes, cap);
    };
    // Equal blocks, as many as a multiple of the threads, so no thread waits on a last short block.
    threads = std::max(1, threads);
    const int privateLargest = largestBlock(kBlockBytes, 256);
    t.blocks = (t.tiles + privateLargest - 1) / privateLargest;
    t.blocks = (t.blocks + threads - 1) / threads * threads;
    const bool largeWeights = std::size_t(filters) * std::size_t(g.channels) > kSharedWeightPairs;
    t.shared = t.blocks < 2 * threads || largeWeights;
    if (t.shared) {
        const int sharedLargest = largestBlock(kSharedBlockBytes, 1 << 20);
        t.blocks = (t.tiles + sharedLargest - 1) / sharedLargest;
    }
    t.blocks = std::min(t.blocks, t.tiles);
    t.block = ((t.tiles + t.blocks - 1) / t.blocks + kLanes - 1) / kLanes * kLanes;
    return t;
}

int blockFirst(const Tiling& t, int block)
{
    return int(long(t.tiles) * block / t.blocks);
}

// Tiles go kLanes at a time (lanes.h): one vector holds sixteen tiles' values of one tile position.

// 1-D transforms of the Winograd F(4, 3) algorithm with interpolation points 0, ±1, ±2 (Bᵀ and Aᵀ),
// written out so that no multiplication by zero is left.
NW_LANES_INLINE void inputTransform(const LaneVector (&d)[kTile], LaneVector (&out)[kTile])
{
    out[0] = 4 * d[0] - 5 * d[2] + d[4];
    out[1] = -4 * (d[1] + d[2]) + d[3] + d[4];
    out[2] = 4 * (d[1] - d[2]) - d[3] + d[4];
    out[3] = 2 * (d[3] - d[1]) - d[2] + d[4];
    out[4] = 2 * (d[1] - d[3]) - d[2] + d[4];
    out[5] = 4 * d[1] - 5 * d[3] + d[5];
}

NW_LANES_INLINE void outputTransform(const LaneVector (&m)[kTile], LaneVector (&out)[kOut])
{
    const LaneVector sum12 = m[1] + m[2], diff12 = m[1] - m[2], sum34 = m[3] + m[4], diff34 = m[3] - m[4];
    out[0] = m[0] + sum12 + sum34;
    out[1] = diff12 + 2 * diff34;
    out[2] = sum12 + 4 * sum34;
    out[3] = diff12 + 8 * diff34 + m[5];
}

// Where lane l's tile starts: its image, and its top-left input pixel (before padding is removed).
struct TileOrigin {
    std::size_t image;
    int y, x;
};

TileOrigin tileOrigin(const Tiling& t, int tile)
{
    const int inImage = tile % t.perImage;
    return {std::size_t(tile / t.perImage), inImage / t.tilesX * kOut, inImage % t.tilesX * kOut};
}

// The next tile's origin, without tileOrigin's divisions (run for every lane of every channel).
NW_LANES_INLINE void advanceTile(const Tiling& t, TileOrigin& origin)
{
    origin.x += kOut;
    if (origin.x < t.tilesX * kOut)
        return;
    origin.x = 0;
    origin.y += kOut;
    if (origin.y < t.tilesY * kOut)
        return;
    origin.y = 0;
    ++origin.image;
}

// The 6×6 input tiles of tiles [first, min(first + kLanes, end)) of one channel (`channel` points to
// it in the first image), lane by lane: a straight copy for tiles inside the image, zeros outside it
// and in lanes past `end`.
void gatherTiles(const float* channel, const ConvGeometry& g, const Tiling& t, int first, int end,
                 float (&d)[kTile][kTile][kLanes])
{
    TileOrigin origin = tileOrigin(t, first);
    for (int l = 0; l < kLanes; ++l, advanceTile(t, origin)) {
        if (first + l >= end) {
            for (auto& row : d)
                for (auto& column : row)
                    column[l] = 0.0f;
            continue;
        }
        const int y0 = origin.y - g.pad, x0 = origin.x - g.pad;
        const float* plane = channel + origin.image * t.imageFloats;
        if (y0 >= 0 && x0 >= 0 && y0 + kTile <= g.height && x0 + kTile <= g.width) {
            const float* p = plane + long(y0) * g.width + x0;
            for (int r = 0; r < kTile; ++r, p += g.width)
                for (int j = 0; j < kTile; ++j)
                    d[r][j][l] = p[j];
            continue;
        }
        // A tile over the edge (most tiles of small images): the rows and columns inside the image,
        // zeros around them.
        const int rowBegin = std::max(0, -y0), rowEnd = std::clamp(g.height - y0, 0, kTile);
        const int columnBegin = std::max(0, -x0), columnEnd = std::clamp(g.width - x0, 0, kTile);
        for (int r = 0; r < kTile; ++r) {
            if (r < rowBegin || r >= rowEnd) {
                for (int j = 0; j < kTile; ++j)
                    d[r][j][l] = 0.0f;
                continue;
            }
            const float* p = plane + long(y0 + r) * g.width + x0;
            for (int j = 0; j < kTile; ++j)
                d[r][j][l] = j >= columnBegin && j < columnEnd ? p[j] : 0.0f;
        }
    }
}

// V[ξ][c][·] of one channel for kLanes tiles starting at `first`: Bᵀ·d·B.
NW_KERNEL_CLONES
void transformInput(const float* channel, const ConvGeometry& g, const Tiling& t, int first, int end,
                    float* v, std::size_t pointStride)
{
    alignas(64) float d[kTile][kTile][kLanes];
    gatherTiles(channel, g, t, first, end, d);
    LaneVector rows[kTile][kTile]; // Bᵀ·d: rows[i][j]
    for (int j = 0; j < kTile; ++j) {
        LaneVector column[kTile], out[kTile];
        for (int r = 0; r < kTile; ++r)
            loadLanes(column[r], d[r][j]);
        inputTransform(column, out);
        for (int i = 0; i < kTile; ++i)
            rows[i][j] = out[i];
    }
    for (int i = 0; i < kTile; ++i) {
        LaneVector out[kTile];
        inputTransform(rows[i], out);
        for (int j = 0; j < kTile; ++j)
            storeLanes(v + std::size_t(i * kTile + j) * pointStride, out[j]);
    }
}

NW_LANES_INLINE void scaleShiftActivate(LaneVector& x, float scale, float shift, Activation act)
{
    x = x * scale + shift;
    activateLanes(x, act);
}

// Output tiles [first, first + kLanes) of one filter from M[ξ][filter][·]: Aᵀ·M·A, scale, shift,
// activation, written into the filter's output plane (tiles cut at the right and bottom edges).
NW_KERNEL_CLONES
void transformOutput(const float* m, std::size_t pointStride, const ConvGeometry& g, const Tiling& t,
                     int first, int end, float scale, float shift, Activation act, bool accumulate,
                     float* plane)
{
    LaneVector rows[kOut][kTile]; // Aᵀ·M
    for (int j = 0; j < kTile; ++j) {
        LaneVector column[kTile], out[kOut];
        for (int i = 0; i < kTile; ++i)
            loadLanes(column[i], m + std::size_t(i * kTile + j) * pointStride);
        outputTransform(column, out);
        for (int i = 0; i < kOut; ++i)
            rows[i][j] = out[i];
    }
    alignas(64) float o[kOut][kOut][kLanes];
    for (int i = 0; i < kOut; ++i) {
        LaneVector out[kOut];
        outputTransform(rows[i], out);
        for (int j = 0; j < kOut; ++j) {
            scaleShiftActivate(out[j], scale, shift, act);
            storeLanes(o[i][j], out[j]);
        }
    }
    const int count = std::min(kLanes, end - first);
    TileOrigin origin = tileOrigin(t, first);
    for (int l = 0; l < count; ++l, advanceTile(t, origin)) {
        float* out = plane + origin.image * t.outputImageFloats +
                     std::size_t(origin.y) * std::size_t(g.outWidth) + std::size_t(origin.x);
        const int rows4 = std::min(kOut, g.outHeight - origin.y),
                  columns4 = std::min(kOut, g.outWidth - origin.x);
        if (rows4 == kOut && columns4 == kOut && !accumulate) {
            for (int i = 0; i < kOut; ++i, out += g.outWidth)
                for (int j = 0; j < kOut; ++j)
                    out[j] = o[i][j][l];
            continue;
        }
        for (int i = 0; i < rows4; ++i, out += g.outWidth)
            for (int j = 0; j < columns4; ++j)
                out[j] = accumulate ? out[j] + o[i][j][l] : o[i][j][l];
    }
}

// M = U·V for blocks of at most kLanes tiles (13×13 and smaller images): OpenBLAS packs all of U for
// every one of these thin products and reaches a third of its speed; here each row of U is read once
// and multiplied into one vector of tiles. V's unused lanes are zeros, so all kLanes are computed.
NW_KERNEL_CLONES
void multiplyNarrow(const float* u, int rows, int channels, const float* v, std::size_t ldv, float* m,
                    std::size_t ldm)
{
    constexpr int kRows = 8; // accumulators held in registers
    int r0 = 0;
    for (; r0 + kRows <= rows; r0 += kRows) {
        LaneVector sum[kRows] = {};
        const float* row = u + std::size_t(r0) * std::size_t(channels);
        for (int c = 0; c < channels; ++c) {
            LaneVector x;
            std::memcpy(&x, v + std::size_t(c) * ldv, sizeof x);
#pragma GCC unroll 8
            for (int r = 0; r < kRows; ++r)
                sum[r] += row[std::size_t(r) * std::size_t(channels) + std::size_t(c)] * x;
        }
        for (int r = 0; r < kRows; ++r)
            std::memcpy(m + std::size_t(r0 + r) * ldm, &sum[r], sizeof sum[r]);
    }
    for (; r0 < rows; ++r0) {
        LaneVector sum = {};
        const float* row = u + std::size_t(r0) * std::size_t(channels);
        for (int c = 0; c < channels; ++c) {
            LaneVector x;
            std::memcpy(&x, v + std::size_t(c) * ldv, sizeof x);
            sum += row[c] * x;
        }
        std::memcpy(m + std::size_t(r0) * ldm, &sum, sizeof sum);
    }
}

// G·g for one column g of the 3×3 kernel (G: 6×3 for points 0, ±1, ±2 and ∞), sixteen pairs at a time.
NW_LANES_INLINE void weightTransform(const LaneVector (&g)[3], LaneVector (&out)[kTile])
{
    const LaneVector outer = g[0] + g[2], quarter = g[0] * (1.0f / 24) + g[2] * (1.0f / 6),
                     middle = g[1] * (1.0f / 12);
    out[0] = g[0] * 0.25f;
    out[1] = (outer + g[1]) * (-1.0f / 6);
    out[2] = (outer - g[1]) * (-1.0f / 6);
    out[3] = quarter + middle;
    out[4] = quarter - middle;
    out[5] = g[2];
}

// U[ξ][row][c] = (G·w·Gᵀ)[ξ] for filters [filter0, filter0 + rows), every channel: the weights a
// block needs, transformed where they are used instead of kept (36/9 = 4× the weights) for every
// layer. `weights`: filters × channels × 3 × 3, Darknet's order.
NW_KERNEL_CLONES
void transformWeightChunk(const float* weights, int channels, int filter0, int rows, float* u,
                          std::size_t pointStride)
{
    for (int r = 0; r < rows; ++r) {
        const float* w = weights + (std::size_t(filter0 + r) * std::size_t(channels)) * 9;
        for (int c0 = 0; c0 < channels; c0 += kLanes) {
            const int count = std::min(kLanes, channels - c0);
            alignas(64) float taps[9][kLanes];
            const float* first = w + std::size_t(c0) * 9;
            if (count == kLanes) { // tap by tap: one strided load (a gather) per tap
                for (int tap = 0; tap < 9; ++tap)
                    for (int l = 0; l < kLanes; ++l)
                        taps[tap][l] = first[l * 9 + tap];
            } else {
                for (int tap = 0; tap < 9; ++tap)
                    for (int l = 0; l < kLanes; ++l)
                        taps[tap][l] = l < count ? first[l * 9 + tap] : 0.0f;
            }
            LaneVector left[kTile][3]; // G·w: column by column
            for (int column = 0; column < 3; ++column) {
                LaneVector g[3], out[kTile];
                for (int row = 0; row < 3; ++row)
                    loadLanes(g[row], taps[row * 3 + column]);
                weightTransform(g, out);
                for (int i = 0; i < kTile; ++i)
                    left[i][column] = out[i];
            }
            float* at = u + std::size_t(r) * std::size_t(channels) + std::size_t(c0);
            for (int i = 0; i < kTile; ++i) { // (G·w)·Gᵀ: row by row
                LaneVector out[kTile];
                weightTransform(left[i], out);
                for (int j = 0; j < kTile; ++j) {
                    float* point = at + std::size_t(i * kTile + j) * pointStride;
                    if (count == kLanes)
                        storeLanes(point, out[j]);
                    else
                        std::memcpy(point, &out[j], sizeof(float) * std::size_t(count));
                }
            }
        }
    }
}

// Everything for the tiles of one block, filters [filter0, filter1): a chunk of filters at a time,
// their weights transformed into `u`, 36 GEMMs, then the output transforms.
void multiplyAndOutput(const WinogradKernel& k, const Tiling& t, int blockFirst, int blockTiles,
                       const float* v, float* m, float* u, int filter0, int filter1, float* output)
{
    const ConvGeometry& g = k.geometry;
    const int channels = g.channels;
    const std::size_t vPoint = std::size_t(channels) * std::size_t(t.block);
    const std::size_t mPoint = std::size_t(k.filters) * std::size_t(t.block);
    const std::size_t plane = std::size_t(g.outHeight) * std::size_t(g.outWidth);
    const int chunk = chunkFilters(channels, k.filters);
    for (int first = filter0; first < filter1; first += chunk) {
        const int rows = std::min(chunk, filter1 - first);
        // Kept transformed weights (small layers), or this chunk's transformed here.
        const std::size_t uPoint =
            k.transformed ? std::size_t(k.filters) * std::size_t(channels) : chunkPointStride(rows, channels);
        const float* uFirst = k.transformed ? k.transformed + std::size_t(first) * std::size_t(channels) : u;
        if (!k.transformed)
            transformWeightChunk(k.weights, channels, first, rows, u, uPoint);
        for (int point = 0; point < kWinogradPoints; ++point) {
            const float* weights = uFirst + std::size_t(point) * uPoint;
            float* product = m + std::size_t(point) * mPoint + std::size_t(first) * std::size_t(t.block);
            if (blockTiles <= kLanes)
                multiplyNarrow(weights, rows, channels, v + std::size_t(point) * vPoint, t.block, product,
                               t.block);
            else
                gemm(false, false, rows, blockTiles, channels, 1.0f, weights, channels,
                     v + std::size_t(point) * vPoint, t.block, 0.0f, product, t.block);
        }
        for (int f = first; f < first + rows; ++f)
            for (int lane0 = 0; lane0 < blockTiles; lane0 += kLanes)
                transformOutput(m + std::size_t(f) * std::size_t(t.block) + std::size_t(lane0), mPoint, g, t,
                                blockFirst + lane0, blockFirst + blockTiles, k.scale[f], k.shift[f],
                                k.activation, k.accumulate, output + std::size_t(f) * plane);
    }
}

std::atomic<bool> enabled{true};

} // namespace

void setWinogradEnabled(bool on)
{
    enabled = on;
}

bool winogradApplies(const ConvGeometry& g, int groups)
{
    return groups == 1 && g.size == 3 && g.strideX == 1 && g.strideY == 1 && g.dilation == 1;
}

bool winogradPays(const ConvGeometry& g, int groups, int filters)
{
    // Measured with bench/conv_kernels_bench (BENCHMARKS.md): with 8 input channels the transforms cost
    // more than they save (1.5× the GEMM's time), with 16 they pay (0.8–0.95×); outputs under 10×10
    // (9×9: 1.2×, 8×8: 1.2×) have too few tiles and too much of them past the edge.
    return enabled && winogradApplies(g, groups) && g.channels >= 16 && filters >= 16 && g.outWidth >= 10 &&
           g.outHeight >= 10;
}

void winogradTransformWeights(const float* weights, int filters, int channels,
                              std::vector<float>& transformed)
{
    // G (6×3) for points 0, ±1, ±2 and ∞; U = G·w·Gᵀ per (filter, channel), in double.
    static constexpr double G[kTile][3] = {{1.0 / 4, 0, 0},
                                           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                           {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                           {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                           {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                           {0, 0, 1}};
    const std::size_t pairs = std::size_t(filters) * std::size_t(channels);
    transformed.resize(pairs * kWinogradPoints); // every entry is written below
    // Runs when a net is built and after every weight change (a 512 → 1024 layer: 131 ms on one thread,
    // 67 ms on two).
#pragma omp parallel for schedule(static)
    for (std::size_t pair = 0; pair < pairs; ++pair) {
        const float* w = weights + pair * 9;
        double left[kTile][3]; // G·w
        for (int i = 0; i < kTile; ++i)
            for (int s = 0; s < 3; ++s)
                left[i][s] = G[i][0] * w[s] + G[i][1] * w[3 + s] + G[i][2] * w[6 + s];
        for (int i = 0; i < kTile; ++i)
            for (int j = 0; j < kTile; ++j)
                transformed[std::size_t(i * kTile + j) * pairs + pair] =
                    float(left[i][0] * G[j][0] + left[i][1] * G[j][1] + left[i][2] * G[j][2]);
    }
}

void winogradTransformWeightsFast(const float* weights, int filters, int channels,
                                  std::vector<float>& transformed)
{
    transformed.resize(std::size_t(kWinogradPoints) * std::size_t(filters) * std::size_t(channels));
    winogradTransformWeightsFast(weights, filters, channels, transformed.data());
}

void winogradTransformWeightsFast(const float* weights, int filters, int channels, float* transformed)
{
    transformWeightChunk(weights, channels, 0, filters, transformed,
                         std::size_t(filters) * std::size_t(channels));
}

std::size_t winogradWorkspaceFloats(const ConvGeometry& g, int filters, int images, int threads)
{
    const Tiling t = tiling(g, filters, images, threads);
    const std::size_t block =
        std::size_t(kWinogradPoints) * std::size_t(g.channels + filters) * std::size_t(t.block);
    const std::size_t chunk =
        std::size_t(kWinogradPoints) * chunkPointStride(chunkFilters(g.channels, filters), g.channels);
    threads = std::max(1, threads);
    return (t.shared ? block : block * std::size_t(threads)) + chunk * std::size_t(threads);
}

void convolveWinograd(const WinogradKernel& k, int images, const float* input, float* output,
                      float* workspace)
{
    const ConvGeometry& g = k.geometry;
    // Tiled as the workspace was sized (for k.maxThreads): tiling for fewer threads can need more room.
    const Tiling t = tiling(g, k.filters, images, k.maxThreads);
    const int threads = std::max(1, std::min(omp_get_max_threads(), k.maxThreads));
    const std::size_t inPlane = std::size_t(g.height) * std::size_t(g.width);
    const std::size_t pointStride = std::size_t(g.channels) * std::size_t(t.block);
    const std::size_t vFloats = std::size_t(kWinogradPoints) * pointStride;
    const std::size_t blockFloats =
        vFloats + std::size_t(kWinogradPoints) * std::size_t(k.filters) * std::size_t(t.block);
    // After the blocks' V and M: each thread's transformed-weight chunk.
    const std::size_t chunkFloats =
        std::size_t(kWinogradPoints) * chunkPointStride(chunkFilters(g.channels, k.filters), g.channels);
    float* chunks =
        workspace + (t.shared ? blockFloats : blockFloats * std::size_t(std::max(1, k.maxThreads)));
    const auto transformBlockInput = [&](float* v, int first, int end, int c, int lane0) {
        transformInput(input + std::size_t(c) * inPlane, g, t, first + lane0, end,
                       v + std::size_t(c) * std::size_t(t.block) + std::size_t(lane0), pointStride);
    };

    if (t.shared) { // block after block: the input transform split over channels, then the filters
        float* v = workspace;
        float* m = workspace + vFloats;
#pragma omp parallel num_threads(threads)
        for (int block = 0; block < t.blocks; ++block) {
            const int first = blockFirst(t, block), end = blockFirst(t, block + 1);
            const int laneGroups = (end - first + kLanes - 1) / kLanes;
#pragma omp for collapse(2) schedule(static)
            for (int c = 0; c < g.channels; ++c)
                for (int group = 0; group < laneGroups; ++group)
                    transformBlockInput(v, first, end, c, group * kLanes);
            const int parts = omp_get_num_threads();
#pragma omp for schedule(static)
            for (int part = 0; part < parts; ++part)
                multiplyAndOutput(k, t, first, end - first, v, m,
                                  chunks + std::size_t(omp_get_thread_num()) * chunkFloats,
                                  k.filters * part / parts, k.filters * (part + 1) / parts, output);
        }
        return;
    }

#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int block = 0; block < t.blocks; ++block) {
        float* v = workspace + std::size_t(omp_get_thread_num()) * blockFloats;
        float* m = v + vFloats;
        const int first = blockFirst(t, block), end = blockFirst(t, block + 1);
        for (int c = 0; c < g.channels; ++c)
            for (int lane0 = 0; lane0 < end - first; lane0 += kLanes)
                transformBlockInput(v, first, end, c, lane0);
        multiplyAndOutput(k, t, first, end - first, v, m,
                          chunks + std::size_t(omp_get_thread_num()) * chunkFloats, 0, k.filters, output);
    }
}

} // namespace nw
