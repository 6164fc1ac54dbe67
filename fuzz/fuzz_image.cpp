// fuzz_image: the input bytes are an image file (any format OpenCV decodes; through a scratch file)
// read with nw::loadImage as 3-channel RGB; when it loads, Darknet's resize, letterbox and min-crop
// scale it to 32x32. OpenCV's exceptions must not escape loadImage. The same bytes also go through the
// headless build's own decoders (libjpeg/libpng with the EXIF reader, portable_codecs.h), colour and
// grey, which must give a consistent image or an error.
// The fuzz tests run it with OPENCV_IO_MAX_IMAGE_PIXELS=4194304 (OpenCV reads it when it loads): a
// 100-byte PNG may declare 30000x30000 pixels, and with OpenCV's default limit (2^30) such inputs only
// measure memory (an RSS out-of-memory report) instead of exercising the decoders and Netwright's code.
#include "image/image.h"
#include "image/portable_codecs.h"
#include "temp_file.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void decodePortably(const std::string& path)
{
    using namespace nw::portable;
    const ImageFormat format = sniffImageFormat(path);
    if (format == ImageFormat::Other)
        return;
    for (int channels : {3, 1}) {
        std::string error;
        const auto pixels = format == ImageFormat::Jpeg ? decodeJpeg(path, channels, error)
                                                        : decodePng(path, channels, error);
        if (!pixels) {
            if (error.find(path) == std::string::npos) {
                std::fprintf(stderr, "fuzz_image: a portable decoder's error does not name the file: %s\n",
                             error.c_str());
                std::abort();
            }
            continue;
        }
        if (pixels->channels != channels || pixels->width <= 0 || pixels->height <= 0 ||
            pixels->data.size() !=
                std::size_t(pixels->width) * std::size_t(pixels->height) * std::size_t(channels)) {
            std::fprintf(stderr, "fuzz_image: a portable decoder gave %dx%dx%d with %zu bytes\n",
                         pixels->width, pixels->height, pixels->channels, pixels->data.size());
            std::abort();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const nw_fuzz::TempFile file("image");
    file.write(data, size);
    decodePortably(file.path());
    std::string error;
    const auto image = nw::loadImage(file.path(), 3, error);
    if (!image)
        return 0;
    if (image->channels != 3 || image->width <= 0 || image->height <= 0 ||
        image->data.size() != std::size_t(image->width) * std::size_t(image->height) * 3) {
        std::fprintf(stderr, "fuzz_image: loadImage gave %dx%dx%d with %zu floats\n", image->width,
                     image->height, image->channels, image->data.size());
        std::abort();
    }
    for (const nw::Image& scaled : {nw::resizeDarknet(*image, 32, 32), nw::letterbox(*image, 32, 32),
                                    nw::centerCropResize(*image, 32, 32)})
        if (scaled.width != 32 || scaled.height != 32 || scaled.data.size() != 32 * 32 * 3) {
            std::fprintf(stderr, "fuzz_image: scaling %dx%d gave %dx%d\n", image->width, image->height,
                         scaled.width, scaled.height);
            std::abort();
        }
    return 0;
}
