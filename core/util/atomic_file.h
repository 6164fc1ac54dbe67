#pragma once
// Writes a whole file so that readers see either the old or the new content, never a mix: a
// temporary file in the same folder, fsync, then rename over the target.
#include <optional>
#include <string>
#include <string_view>

namespace nw {

// Returns an error message naming the file, or nullopt on success. A symbolic link is written through
// to its target; an existing file keeps its permissions (and owner, where allowed), and a read-only one
// is refused. /dev/stdout, /dev/stderr and /dev/fd/N are written through the descriptor the program
// holds; a device or a pipe (/dev/null, a FIFO) is written into, never replaced or removed; a pipe no
// program reads, a folder, a disk device or a socket is refused at once.
// `durable`: flushed to the disk before and after the rename (checkpoints, a saved cfg); false only
// replaces atomically (a re-run's thousands of images: whole, not worth a disk flush each).
std::optional<std::string> writeFileAtomically(const std::string& path, std::string_view content,
                                               bool durable = true);
// True when writing `path` writes the standard output (/dev/stdout, /dev/fd/1, or the file or terminal
// descriptor 1 is): a command writing its file there prints its report on stderr, not into the file.
bool isStandardOutput(const std::string& path);
// Writes a file in place, for the many small files of a data set (no fsync, no rename): a message
// naming it with the system's reason ("No space left on device") when it cannot, and then no cut-off
// file is left to pass for a whole one.
std::optional<std::string> writeFileInPlace(const std::string& path, std::string_view content);
// Deletes the temporaries a writer killed mid-write left beside `path` (a whole checkpoint each): only
// where no other process writes `path` now (the caller holds its folder's lock). Returns how many.
int removeLeftTemporaries(const std::string& path);

} // namespace nw
