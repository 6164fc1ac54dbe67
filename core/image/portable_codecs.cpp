#include "image/portable_codecs.h"

#include "util/memory_info.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#if NETWRIGHT_WITH_LIBJPEG
#include <jpeglib.h>
#endif
#if NETWRIGHT_WITH_LIBPNG
#include <png.h>
#endif

namespace nw::portable {

namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File openFile(const std::string& path)
{
    return File(std::fopen(path.c_str(), "rb"), &std::fclose);
}

// OpenCV's limit (CV_IO_MAX_IMAGE_PIXELS), and the float copy the network needs, checked from the
// header before anything is allocated.
bool sizeAcceptable(const std::string& path, std::size_t width, std::size_t height, int channels,
                    std::string& error)
{
    // OpenCV's limit and the variable that changes it, so both builds refuse the same images.
    std::size_t limit = std::size_t(1) << 30;
    if (const char* text = std::getenv("OPENCV_IO_MAX_IMAGE_PIXELS"); text && std::atoll(text) > 0)
        limit = std::size_t(std::atoll(text));
    if (width == 0 || height == 0 || width * height > limit) {
        error = path + ": cannot read the image: its header declares " + std::to_string(width) + "x" +
                std::to_string(height) + " pixels (at most " + std::to_string(limit) +
                " are read: OPENCV_IO_MAX_IMAGE_PIXELS)";
        return false;
    }
    if (auto shortfall =
            memoryShortfall(double(width) * double(height) * channels * sizeof(float),
                            std::to_string(width) + "x" + std::to_string(height) + " pixels as floats",
                            "scale the image down first")) {
        error = path + ": the image " + *shortfall;
        return false;
    }
    return true;
}

// Opens `path` and runs a decoder on it: the pixels, or nullopt with the decoder's (or the open's) message.
template <typename Run> std::optional<Pixels> decodeFile(const std::string& path, std::string& error, Run run)
{
    File file = openFile(path);
    if (!file) {
        error = path + ": cannot open the image";
        return std::nullopt;
    }
    Pixels pixels;
    if (!run(file.get(), pixels))
        return std::nullopt;
    return pixels;
}

} // namespace

ImageFormat sniffImageFormat(const std::string& path)
{
    File file = openFile(path);
    unsigned char head[8] = {};
    if (!file || std::fread(head, 1, sizeof head, file.get()) < 4)
        return ImageFormat::Other;
    if (head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF)
        return ImageFormat::Jpeg;
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (std::memcmp(head, png, 8) == 0)
        return ImageFormat::Png;
    return ImageFormat::Other;
}

#if NETWRIGHT_WITH_LIBJPEG || NETWRIGHT_WITH_LIBPNG
namespace {

// The EXIF orientation (1..8; 1 when absent or unreadable) from EXIF data: a TIFF header (II or MM byte
// order), then IFD0's entries, of which tag 0x0112 is the orientation. (As OpenCV 4.6's ExifReader.)
int tiffOrientation(const unsigned char* tiff, std::size_t size)
{
    if (size < 8 || !((tiff[0] == 'I' && tiff[1] == 'I') || (tiff[0] == 'M' && tiff[1] == 'M')))
        return 1;
    // Offsets come from the file: 64-bit arithmetic, so no sum of them can wrap past a bound.
    const bool big = tiff[0] == 'M';
    const auto u16 = [&](std::size_t at) -> std::size_t {
        return at + 2 > size ? 0
               : big         ? std::size_t(tiff[at]) << 8 | tiff[at + 1]
                             : std::size_t(tiff[at + 1]) << 8 | tiff[at];
    };
    const auto u32 = [&](std::size_t at) -> std::size_t {
        return at + 4 > size ? 0 : big ? (u16(at) << 16 | u16(at + 2)) : (u16(at + 2) << 16 | u16(at));
    };
    const std::size_t ifd = u32(4);
    const std::size_t entries = u16(ifd);
    for (std::size_t e = 0; e < entries && ifd + 2 + 12 * (e + 1) <= size; ++e) {
        const std::size_t at = ifd + 2 + 12 * e;
        if (u16(at) == 0x0112) {
            const std::size_t value = u16(at + 8);
            return value >= 1 && value <= 8 ? int(value) : 1;
        }
    }
    return 1;
}

// The stored pixels turned as EXIF `orientation` says they are meant to be seen (what OpenCV's imread
// does): 2 mirror, 3 half turn, 4 flip, 5 transpose, 6 quarter turn clockwise, 7 transverse, 8 quarter
// turn counter-clockwise.
Pixels oriented(const Pixels& in, int orientation)
{
    if (orientation <= 1)
        return in;
    const bool swap = orientation >= 5;
    Pixels out(swap ? in.height : in.width, swap ? in.width : in.height, in.channels);
    const int w = in.width, h = in.height, c = in.channels;
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) {
            int sx = x, sy = y;
            switch (orientation) {
            case 2:
                sx = w - 1 - x;
                break;
            case 3:
                sx = w - 1 - x, sy = h - 1 - y;
                break;
            case 4:
                sy = h - 1 - y;
                break;
            case 5:
                sx = y, sy = x;
                break;
            case 6:
                sx = y, sy = h - 1 - x;
                break;
            case 7:
                sx = w - 1 - y, sy = h - 1 - x;
                break;
            default:
                sx = w - 1 - y, sy = x;
                break; // 8
            }
            std::memcpy(out.row(y) + std::size_t(x) * std::size_t(c),
                        in.row(sy) + std::size_t(sx) * std::size_t(c), std::size_t(c));
        }
    return out;
}

} // namespace
#endif

#if NETWRIGHT_WITH_LIBJPEG
namespace {

struct JpegError {
    jpeg_error_mgr manager;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpegFail(j_common_ptr info)
{
    auto* error = reinterpret_cast<JpegError*>(info->err);
    info->err->format_message(info, error->message);
    std::longjmp(error->jump, 1);
}

// The libjpeg calls, with no C++ object alive across setjmp (a longjmp would skip its destructor):
// the pixels are allocated by the caller once the header is read.
bool runJpeg(std::FILE* file, int channels, Pixels& out, int& orientation, const std::string& path,
             std::string& error)
{
    jpeg_decompress_struct info;
    JpegError failure;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpegFail;
    failure.manager.output_message = [](j_common_ptr) {
    }; // a truncated file's warning: decoded as far as it goes
    failure.message[0] = 0;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&info);
        error = path + ": cannot read the image: damaged JPEG (" + failure.message + ")";
        return false;
    }
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file);
    jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    // The first APP1 only, its 6-byte header skipped unread, as OpenCV 4.6 reads it (an XMP APP1 before
    // the Exif one: no orientation there; "Exif\0\xFF": turned): the two builds see the same picture.
    for (jpeg_saved_marker_ptr marker = info.marker_list; marker; marker = marker->next)
        if (marker->marker == JPEG_APP0 + 1) {
            if (marker->data_length > 6)
                orientation = tiffOrientation(marker->data + 6, marker->data_length - 6);
            break;
        }
    // CMYK and YCCK (print and Photoshop files) cannot be decoded to RGB by libjpeg: their four
    // channels come out as they are and are converted afterwards, as OpenCV does.
    const bool fourChannels = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
    info.out_color_space = fourChannels ? JCS_CMYK : channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    if (!sizeAcceptable(path, info.image_width, info.image_height, fourChannels ? 4 : channels, error)) {
        jpeg_destroy_decompress(&info);
        return false;
    }
    jpeg_start_decompress(&info);
    out.width = int(info.output_width);
    out.height = int(info.output_height);
    out.channels = fourChannels ? 4 : channels;
    out.data.resize(std::size_t(out.width) * std::size_t(out.height) * std::size_t(out.channels));
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = out.row(int(info.output_scanline));
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return true;
}

// OpenCV's CMYK conversion (Adobe's inverted values, as Photoshop writes them): each of C, M, Y becomes
// k − (255 − v)·k / 256 for R, G, B; one channel: the integer BT.601 grey of those (OpenCV's weights).
void fromCmyk(Pixels& pixels, int channels)
{
    const std::size_t count = std::size_t(pixels.width) * std::size_t(pixels.height);
    std::uint8_t* data = pixels.data.data();
    for (std::size_t i = 0; i < count; ++i) { // in place: each pixel is written at or before its source
        const std::uint8_t* cmyk = data + 4 * i;
        const int k = cmyk[3];
        const int r = k - (((255 - cmyk[0]) * k) >> 8), g = k - (((255 - cmyk[1]) * k) >> 8),
                  b = k - (((255 - cmyk[2]) * k) >> 8);
        if (channels == 1) {
            data[i] = std::uint8_t((b * 1868 + g * 9617 + r * 4899 + (1 << 13)) >> 14);
        } else {
            std::uint8_t* rgb = data + 3 * i;
            rgb[0] = std::uint8_t(r), rgb[1] = std::uint8_t(g), rgb[2] = std::uint8_t(b);
        }
    }
    pixels.channels = channels;
    pixels.data.resize(count * std::size_t(channels));
}

} // namespace

std::optional<Pixels> decodeJpeg(const std::string& path, int channels, std::string& error)
{
    int orientation = 1;
    auto pixels = decodeFile(path, error, [&](std::FILE* file, Pixels& out) {
        return runJpeg(file, channels, out, orientation, path, error);
    });
    if (!pixels)
        return std::nullopt;
    if (pixels->channels == 4)
        fromCmyk(*pixels, channels);
    return oriented(*pixels, orientation);
}
#else
std::optional<Pixels> decodeJpeg(const std::string& path, int, std::string& error)
{
    error = path + ": cannot read the image: this build reads JPEG through OpenCV or libjpeg and has "
                   "neither (install libjpeg-dev and rebuild)";
    return std::nullopt;
}
#endif

#if NETWRIGHT_WITH_LIBPNG
namespace {

// libpng's messages are kept for ours instead of printed.
struct PngMessages {
    char error[200] = {};
};

void pngError(png_structp png, png_const_charp message)
{
    auto* messages = static_cast<PngMessages*>(png_get_error_ptr(png));
    std::snprintf(messages->error, sizeof messages->error, "%s", message);
    png_longjmp(png, 1);
}

bool runPng(std::FILE* file, int channels, Pixels& out, int& orientation, const std::string& path,
            std::string& error)
{
    PngMessages messages;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &messages, pngError,
                                             [](png_structp, png_const_charp) {});
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, nullptr);
        error = path + ": cannot read the image: out of memory";
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        error = path + ": cannot read the image: damaged PNG (" + messages.error + ")";
        return false;
    }
    png_init_io(png, file);
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (!sizeAcceptable(path, width, height, channels, error)) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    // Whatever the file holds (palette, 1-16 bits, grey, alpha), 8-bit RGB or grey comes out; alpha is
    // dropped and 16-bit samples keep their high byte, as OpenCV's IMREAD_COLOR / IMREAD_GRAYSCALE.
    const int colorType = png_get_color_type(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    if (channels == 3 && !(colorType & PNG_COLOR_MASK_COLOR))
        png_set_gray_to_rgb(png);
    if (channels == 1 && (colorType & PNG_COLOR_MASK_COLOR))
        png_set_rgb_to_gray_fixed(png, 1, 29900, 58700); // ITU-R 601 weights, as OpenCV
    const int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    out.width = int(width);
    out.height = int(height);
    out.channels = channels;
    out.data.resize(std::size_t(width) * std::size_t(height) * std::size_t(channels));
    for (int pass = 0; pass < passes; ++pass)
        for (png_uint_32 y = 0; y < height; ++y)
            png_read_row(png, out.row(int(y)), nullptr);
    png_read_end(png, info); // (an eXIf chunk after the pixels too)
#ifdef PNG_eXIf_SUPPORTED
    // A PNG's eXIf chunk (raw TIFF data) turns it as a JPEG's EXIF does, as OpenCV's imread.
    png_bytep exif = nullptr;
    png_uint_32 exifSize = 0;
    if (png_get_eXIf_1(png, info, &exifSize, &exif) != 0 && exif)
        orientation = tiffOrientation(exif, exifSize);
#endif
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

} // namespace

std::optional<Pixels> decodePng(const std::string& path, int channels, std::string& error)
{
    int orientation = 1;
    auto pixels = decodeFile(path, error, [&](std::FILE* file, Pixels& out) {
        return runPng(file, channels, out, orientation, path, error);
    });
    if (!pixels)
        return std::nullopt;
    return oriented(*pixels, orientation);
}
#else
std::optional<Pixels> decodePng(const std::string& path, int, std::string& error)
{
    error = path + ": cannot read the image: this build reads PNG through OpenCV or libpng and has neither "
                   "(install libpng-dev and rebuild)";
    return std::nullopt;
}
#endif

} // namespace nw::portable
