#pragma once
// Whether a JPEG file ends before its image does (a copy cut short, a download that stopped). Decoders
// fill the missing part with grey and say so only on stderr ("Premature end of JPEG file", without the
// file's name), so a detector would train on boxes over a grey area. The markers are walked from the
// start to the end-of-image marker: data after it (a phone's appended video) does not matter.
#include <string>

namespace nw {

// True when `path` starts as a JPEG (FF D8) and ends before its end-of-image marker (FF D9).
bool jpegIsTruncated(const std::string& path);

} // namespace nw
