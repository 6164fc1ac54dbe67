#include "image/image.h"

#include "util/file_check.h"
#include "util/memory_info.h"

#include <algorithm>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace nw {

Image imageFromMat(const cv::Mat& frame, int channels)
{
    cv::Mat converted = frame;
    if (channels == 1 && frame.channels() == 3)
        cv::cvtColor(frame, converted, cv::COLOR_BGR2GRAY);
    else if (channels == 3 && frame.channels() == 1)
        cv::cvtColor(frame, converted, cv::COLOR_GRAY2RGB);
    else if (channels == 3)
        cv::cvtColor(frame, converted, cv::COLOR_BGR2RGB);
    Image image;
    image.width = converted.cols;
    image.height = converted.rows;
    image.channels = channels;
    image.data.resize(std::size_t(image.width) * std::size_t(image.height) * std::size_t(channels));
    for (int y = 0; y < image.height; ++y) {
        const unsigned char* row = converted.ptr<unsigned char>(y);
        for (int x = 0; x < image.width; ++x)
            for (int c = 0; c < channels; ++c)
                image.at(x, y, c) = float(row[x * channels + c]) / 255.0f;
    }
    return image;
}

bool readImageFile(const std::string& path, int channels, cv::Mat& frame, std::string& error)
{
    if (auto reason = unreadableFileReason(path, "an image")) {
        error = *reason;
        return false;
    }
    try {
        frame = cv::imread(path, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
    } catch (const cv::Exception& e) {
        // OpenCV asserts on sizes it refuses (CV_IO_MAX_IMAGE_PIXELS, 2^30) instead of returning empty.
        error = path + ": cannot read the image: " +
                (e.err.find("CV_IO_MAX_IMAGE_PIXELS") != std::string::npos
                     ? std::string("its header declares more pixels than OpenCV accepts (2^30)")
                     : shortened(e.err, 200));
        frame.release();
        return false;
    } catch (const std::bad_alloc&) {
        error = path + ": cannot read the image: not enough memory for its declared size";
        frame.release();
        return false;
    }
    if (frame.empty()) {
        error = path + ": cannot read the image (damaged, or not an image format OpenCV knows)";
        return false;
    }
    // A small file may declare a huge image (30000×30000 is within OpenCV's limit): its float copy
    // for the network is 4× the decoded bytes, refused here rather than in bad_alloc or swap.
    const double floatBytes = double(frame.total()) * frame.channels() * sizeof(float);
    if (auto shortfall = memoryShortfall(
            floatBytes, std::to_string(frame.cols) + "x" + std::to_string(frame.rows) + " pixels as floats",
            "scale the image down first")) {
        error = path + ": the image " + *shortfall;
        frame.release();
        return false;
    }
    return true;
}

std::optional<Image> loadImage(const std::string& path, int channels, std::string& error)
{
    if (channels != 1 && channels != 3) {
        error = path + ": the network wants " + std::to_string(channels) + " channels; images give 1 or 3";
        return std::nullopt;
    }
    cv::Mat frame;
    if (!readImageFile(path, channels, frame, error))
        return std::nullopt;
    return imageFromMat(frame, channels);
}

Image resizeDarknet(const Image& in, int width, int height)
{
    Image part{width, in.height, in.channels, {}};
    part.data.resize(std::size_t(width) * std::size_t(in.height) * std::size_t(in.channels));
    const float xScale = float(in.width - 1) / float(std::max(1, width - 1));
    const float yScale = float(in.height - 1) / float(std::max(1, height - 1));
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < width; ++x) {
                float value;
                if (x == width - 1 || in.width == 1) {
                    value = in.at(in.width - 1, y, c);
                } else {
                    const float sx = float(x) * xScale;
                    const int ix = int(sx);
                    const float dx = sx - float(ix);
                    value = (1 - dx) * in.at(ix, y, c) + dx * in.at(ix + 1, y, c);
                }
                part.at(x, y, c) = value;
            }
    Image out{width, height, in.channels, {}};
    out.data.resize(std::size_t(width) * std::size_t(height) * std::size_t(in.channels));
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < height; ++y) {
            const float sy = float(y) * yScale;
            const int iy = int(sy);
            const float dy = sy - float(iy);
            for (int x = 0; x < width; ++x)
                out.at(x, y, c) = (1 - dy) * part.at(x, iy, c);
            if (y == height - 1 || in.height == 1)
                continue;
            for (int x = 0; x < width; ++x)
                out.at(x, y, c) += dy * part.at(x, iy + 1, c);
        }
    return out;
}

Image letterbox(const Image& in, int width, int height)
{
    int newWidth = in.width, newHeight = in.height;
    if (float(width) / float(in.width) < float(height) / float(in.height)) {
        newWidth = width;
        newHeight = in.height * width / in.width;
    } else {
        newHeight = height;
        newWidth = in.width * height / in.height;
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

Image resizeMinCrop(const Image& in, int width, int height)
{
    const int size = std::min(width, height);
    int w = in.width, h = in.height;
    if (w < h) {
        h = h * size / w;
        w = size;
    } else {
        w = w * size / h;
        h = size;
    }
    const Image resized = resizeDarknet(in, w, h);
    Image out{width, height, in.channels,
              std::vector<float>(std::size_t(width * height * in.channels), 0.0f)};
    const int dx = (w - width) / 2, dy = (h - height) / 2;
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const int sx = x + dx, sy = y + dy;
                if (sx >= 0 && sx < w && sy >= 0 && sy < h)
                    out.at(x, y, c) = resized.at(sx, sy, c);
            }
    return out;
}

} // namespace nw
