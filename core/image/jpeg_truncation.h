#pragma once
// A JPEG file cut short (a copy or download that stopped). Decoders fill the missing part with mid grey
// and say so only on stderr ("Premature end of JPEG file", without the file's name), so a detector
// would train on boxes over a grey area. Two signs together make it: the markers, walked from the start,
// end before the end-of-image marker (data after it, a phone's appended video, does not matter), and
// the decoded image's last row is the decoders' fill. A file that lacks only its end marker decodes
// whole, and loads.
#include <string>

namespace nw {

// True when `path` starts as a JPEG (FF D8) and ends before its end-of-image marker (FF D9).
bool jpegLacksItsEnd(const std::string& path);

// Whether a decoded row is the fill libjpeg leaves where data is missing: every sample 128 (zero
// coefficients). `stride`: bytes from one pixel to the next (channels, or 4 for RGBX rows).
bool isDecoderFill(const unsigned char* row, int width, int channels, int stride);

// "PATH: the JPEG is cut short (…): copy or export it again".
std::string cutShortMessage(const std::string& path);

// Both signs at once, for a decoded image's last row (the cheap test first: the file is read only when
// that row is grey). What every image reader asks.
inline bool jpegCutShort(const std::string& path, const unsigned char* lastRow, int width, int channels,
                         int stride)
{
    return isDecoderFill(lastRow, width, channels, stride) && jpegLacksItsEnd(path);
}

} // namespace nw
