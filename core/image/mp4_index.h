#pragma once
// An MP4 or QuickTime file without its index (the 'moov' box). Cameras, phones and screen recorders
// write the index last, so a recording that was cut off (battery, crash, a copy that stopped) has every
// frame and no index, and no player opens it. FFmpeg says "moov atom not found" without the file's
// name; this names the file and what happened.
#include <optional>
#include <string>

namespace nw {

// Walks the file's top-level boxes (size, type; 64-bit sizes too). True when it starts as MP4/QuickTime
// (an 'ftyp' box first) and no 'moov' box follows before the end of the file.
bool mp4LacksItsIndex(const std::string& path);

// "PATH: the MP4/MOV file has no index ('moov' box): …", or nothing when the file is not such a file.
std::optional<std::string> mp4MissingIndexReason(const std::string& path);

} // namespace nw
