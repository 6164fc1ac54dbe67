#include "image/jpeg_truncation.h"

#include <fstream>
#include <iterator>
#include <vector>

namespace nw {

bool jpegLacksItsEnd(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char start[2] = {};
    if (!in.read(start, 2) || static_cast<unsigned char>(start[0]) != 0xFF ||
        static_cast<unsigned char>(start[1]) != 0xD8)
        return false; // not a JPEG (a PNG with a grey last row): another decoder's business, not read
    in.seekg(0);
    const std::vector<unsigned char> b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::size_t i = 2;
    while (true) {
        // The next marker: FF, any fill FFs, then its code.
        if (i >= b.size() || b[i] != 0xFF)
            return i >= b.size(); // the end before EOI; a stray byte is the decoder's to judge
        while (i < b.size() && b[i] == 0xFF)
            ++i;
        if (i >= b.size())
            return true;
        const unsigned char code = b[i++];
        if (code == 0xD9)
            return false;                                   // end of image
        if (code == 0x01 || (code >= 0xD0 && code <= 0xD7)) // TEM, RSTn: no length
            continue;
        if (i + 2 > b.size())
            return true;
        const std::size_t length = std::size_t(b[i]) << 8 | b[i + 1];
        i += length;
        if (i > b.size())
            return true;
        if (code != 0xDA)
            continue;
        // After a start of scan, entropy-coded data up to the next marker: FF 00 is a stuffed byte,
        // FF D0..D7 a restart; any other FF xx ends the scan.
        while (true) {
            if (i + 1 >= b.size())
                return true;
            if (b[i] == 0xFF && b[i + 1] != 0x00 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7) &&
                b[i + 1] != 0xFF)
                break;
            ++i;
        }
    }
}

bool isDecoderFill(const unsigned char* row, int width, int channels, int stride)
{
    for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c)
            if (row[x * stride + c] != 128)
                return false;
    return width > 0;
}

std::string cutShortMessage(const std::string& path)
{
    return path + ": the JPEG is cut short (the file ends before the image does, the rest is grey): copy or "
                  "export it again";
}

} // namespace nw
