#pragma once
// A problem found in a cfg file or a network: what, where (file:line, layer) and how bad.
// The core never throws these across its API; they are values the CLI prints and the UI shows.
#include <string>
#include <vector>

namespace nw {

enum class Severity { Warning, Error };

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string file; // may be empty for text that has no file
    int line = 0;     // 1-based; 0 when the problem has no single line
    int layer = -1;   // layer index (the [net] section is -1)
    std::string message;

    bool isError() const { return severity == Severity::Error; }
    // "file:line: error: layer 3: message" (the parts that are known).
    std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

bool hasErrors(const Diagnostics& diagnostics);

} // namespace nw
