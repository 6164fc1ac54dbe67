#pragma once
// A video read to its end that gave fewer frames than its container declares was cut short (a copy or
// download interrupted) or is damaged: the decoder stops there without an error of its own.
#include <optional>
#include <string>

namespace nw {

// nullopt when `read` frames are all `declared` ones (one short is allowed: some containers count one
// more than they hold), or when the container declares none (a stream); otherwise the warning to give.
inline std::optional<std::string> videoEndedEarly(const std::string& path, int read, double declared)
{
    const long frames = long(declared + 0.5);
    if (frames <= 0 || read + 1 >= frames)
        return std::nullopt;
    return path + ": read " + std::to_string(read) + " of the " + std::to_string(frames) +
           " frames the file declares: it is cut short or damaged";
}

} // namespace nw
