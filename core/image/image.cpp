#include "image/image.h"

#include "image/jpeg_truncation.h"
#include "util/file_check.h"
#include "util/memory_info.h"

#include <algorithm>
#include <cstdint>

#if NETWRIGHT_WITH_OPENCV
#include "image/image_opencv.h"

#include <opencv2/core/mat.hpp>
#else
#include "image/portable_codecs.h"
#endif

namespace nw {

Image imageFromPixels(const Pixels& pixels)
{
    Image image;
    image.width = pixels.width;
    image.height = pixels.height;
    image.channels = pixels.channels;
    image.data.resize(pixels.data.size());
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* row = pixels.row(y);
        for (int x = 0; x < image.width; ++x)
            for (int c = 0; c < image.channels; ++c)
                image.at(x, y, c) = float(row[x * image.channels + c]) / 255.0f;
    }
    return image;
}

std::optional<Pixels> readPixels(const std::string& path, int channels, std::string& error)
{
    if (channels != 1 && channels != 3) {
        error = path + ": the network wants " + std::to_string(channels) + " channels; images give 1 or 3";
        return std::nullopt;
    }
    if (auto reason = notAFileReason(path, "an image")) {
        error = *reason;
        return std::nullopt;
    }
#if NETWRIGHT_WITH_OPENCV
    cv::Mat frame;
    if (!readImageFile(path, channels, frame, error))
        return std::nullopt;
    return pixelsFromMat(frame, channels);
#else
    if (auto empty = emptyFileReason(path, "an image")) {
        error = *empty;
        return std::nullopt;
    }
    switch (portable::sniffImageFormat(path)) {
    case portable::ImageFormat::Jpeg: {
        auto pixels = portable::decodeJpeg(path, channels, error);
        // Cut short: the decoder filled the rest with grey (image_opencv.cpp checks the same).
        if (pixels && pixels->height > 0 &&
            jpegCutShort(path, pixels->row(pixels->height - 1), pixels->width, channels, channels)) {
            error = cutShortMessage(path);
            return std::nullopt;
        }
        return pixels;
    }
    case portable::ImageFormat::Png:
        return portable::decodePng(path, channels, error);
    case portable::ImageFormat::Other:
        break;
    }
    error = path + ": cannot read the image: this build (without OpenCV) reads JPEG and PNG only";
    return std::nullopt;
#endif
}

std::optional<Image> loadImage(const std::string& path, int channels, std::string& error)
{
    auto pixels = readPixels(path, channels, error);
    if (!pixels)
        return std::nullopt;
    return imageFromPixels(*pixels);
}

Image resizeDarknetWindow(const Image& in, int width, int height, int left, int top, int columns, int rows)
{
    const float xScale = float(in.width - 1) / float(std::max(1, width - 1));
    const float yScale = float(in.height - 1) / float(std::max(1, height - 1));
    // Darknet's first pass (along x) gives a width × in.height image; here only the window's columns
    // of the one or two input rows each output row reads, kept while the next output row reads them
    // too. (The whole pass held network width × image height floats: GBs for a 1×1,000,000 image.)
    std::vector<float> rowsAlongX(2 * std::size_t(columns));
    int held[2] = {-1, -1}; // which input row each half of rowsAlongX holds
    const auto alongX = [&](int y, int c) -> const float* {
        for (int k = 0; k < 2; ++k)
            if (held[k] == y)
                return rowsAlongX.data() + std::size_t(k) * std::size_t(columns);
        const int k = held[0] == y - 1 ? 1 : 0; // (keep the row just above: the next may read it)
        held[k] = y;
        float* row = rowsAlongX.data() + std::size_t(k) * std::size_t(columns);
        for (int x = left; x < left + columns; ++x) {
            float value;
            if (x == width - 1 || in.width == 1) {
                value = in.at(in.width - 1, y, c);
            } else {
                const float sx = float(x) * xScale;
                const int ix = int(sx);
                const float dx = sx - float(ix);
                value = (1 - dx) * in.at(ix, y, c) + dx * in.at(ix + 1, y, c);
            }
            row[x - left] = value;
        }
        return row;
    };
    Image out{columns, rows, in.channels, {}};
    out.data.resize(std::size_t(columns) * std::size_t(rows) * std::size_t(in.channels));
    for (int c = 0; c < in.channels; ++c) {
        held[0] = held[1] = -1;
        for (int y = top; y < top + rows; ++y) {
            const float sy = float(y) * yScale;
            const int iy = int(sy);
            const float dy = sy - float(iy);
            const float* upper = alongX(iy, c);
            for (int x = 0; x < columns; ++x)
                out.at(x, y - top, c) = (1 - dy) * upper[x];
            if (y == height - 1 || in.height == 1)
                continue;
            const float* lower = alongX(iy + 1, c); // (into the half that does not hold row iy)
            for (int x = 0; x < columns; ++x)
                out.at(x, y - top, c) += dy * lower[x];
        }
    }
    return out;
}

Image resizeDarknet(const Image& in, int width, int height)
{
    return resizeDarknetWindow(in, width, height, 0, 0, width, height);
}

Image letterbox(const Image& in, int width, int height)
{
    int newWidth = in.width, newHeight = in.height;
    if (float(width) / float(in.width) < float(height) / float(in.height)) {
        newWidth = width;
        newHeight = int(std::int64_t(in.height) * width / in.width); // (a side of 2^20 × 608: past int)
    } else {
        newHeight = height;
        newWidth = int(std::int64_t(in.width) * height / in.height);
    }
    const Image resized = resizeDarknet(in, newWidth, newHeight);
    Image boxed{width, height, in.channels,
                std::vector<float>(std::size_t(width * height * in.channels), 0.5f)};
    const int dx = (width - newWidth) / 2, dy = (height - newHeight) / 2;
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < newHeight; ++y)
            for (int x = 0; x < newWidth; ++x)
                boxed.at(x + dx, y + dy, c) = resized.at(x, y, c);
    return boxed;
}

Image centerCropResize(const Image& in, int width, int height)
{
    const int side = std::min(in.width, in.height);
    const int dx = (in.width - side) / 2, dy = (in.height - side) / 2;
    Image square{side, side, in.channels,
                 std::vector<float>(std::size_t(side) * std::size_t(side) * std::size_t(in.channels))};
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x)
                square.at(x, y, c) = in.at(x + dx, y + dy, c);
    return resizeDarknet(square, width, height);
}

} // namespace nw
