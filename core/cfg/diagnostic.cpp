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
    return text + message;
}

bool hasErrors(const Diagnostics& diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.isError(); });
}

} // namespace nw
