#pragma once
// Why a path cannot be read as a file of some kind, said before a reader gives a confusing message
// (a directory opens as a stream on Linux and then fails to read at some offset).
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace nw {

// nullopt for an existing regular file (or a device/pipe, which readers may stream); otherwise
// "PATH: no such file (the .cfg file)", "PATH: is a directory, not a .weights file", ...
// `what` names the expected kind with its article: "a cfg file", "an image".
std::optional<std::string> unreadableFileReason(const std::string& path, std::string_view what);

// When `out` is the same file as one of `inputs` (by path or through a link): "OUT is also the input
// INPUT: writing it would replace that file; choose another output path". nullopt otherwise.
std::optional<std::string> outputIsAnInput(const std::string& out,
                                           std::initializer_list<std::string_view> inputs);

// A value shown inside a message, cut to `limit` characters with the count of the rest, so a
// megabyte-long line never floods a terminal.
std::string shortened(std::string_view text, std::size_t limit = 80);

} // namespace nw
