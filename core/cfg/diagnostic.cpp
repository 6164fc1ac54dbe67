#include "cfg/diagnostic.h"

#include <algorithm>

namespace nw {

std::string Diagnostic::format() const
{
    std::string text;
    if (!file.empty())
        text += file + ":";
    if (line > 0)
        text += std::to_string(line) + ":";
    if (!text.empty())
        text += " ";
    text += severity == Severity::Error ? "error: " : "warning: ";
    if (layer >= 0)
        text += "layer " + std::to_string(layer) + ": ";
    // Messages quote values from the file; a megabyte-long line is cut in the middle.
    constexpr std::size_t kMax = 1000;
    if (message.size() <= kMax)
        return text + message;
    return text + message.substr(0, kMax - 200) + " ... (" + std::to_string(message.size() - kMax) +
           " characters cut) ... " + message.substr(message.size() - 200);
}

bool hasErrors(const Diagnostics& diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.isError(); });
}

} // namespace nw
