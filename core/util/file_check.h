#pragma once
// Why a path cannot be read as a file of some kind, said before a reader gives a confusing message
// (a directory opens as a stream on Linux and then fails to read at some offset).
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw {

// nullopt for an existing regular file (or a device/pipe, which readers may stream); otherwise
// "PATH: no such file (the .cfg file)", "PATH: is a directory, not a .weights file", ...
// `what` names the expected kind with its article: "a cfg file", "an image".
std::optional<std::string> unreadableFileReason(const std::string& path, std::string_view what);
// unreadableFileReason, and for a named pipe "PATH: a named pipe, not an image: …": readers that need a
// file they can seek in and read twice (images through OpenCV, .weights) waited on one for ever when
// nothing wrote to it, past SIGTERM.
std::optional<std::string> notAFileReason(const std::string& path, std::string_view what);
// "PATH: the file is empty (0 bytes), not an image; …" for a regular file of 0 bytes (an interrupted
// copy or download), where a decoder would only say it cannot read it; otherwise nullopt.
std::optional<std::string> emptyFileReason(const std::string& path, std::string_view what);

// Why files cannot be written in the folder `path` (made when missing): "PATH is a file, not a folder",
// "cannot write in PATH (Permission denied)", naming the first folder that exists on the way when
// `path` does not; nullopt when it can be (as far as access() tells: a full disk shows only on writing).
std::optional<std::string> unwritableFolderReason(const std::string& path);
// When `out` is the same file as one of `inputs` (by path or through a link): "OUT is also the input
// INPUT: writing it would replace that file; choose another output path". nullopt otherwise.
std::optional<std::string> outputIsAnInput(const std::string& out,
                                           std::initializer_list<std::string_view> inputs);

// The whole of a small text file (a cfg, a .data or names file), at most `limit` bytes: more is refused,
// so /dev/zero or a multi-GB file named by mistake ends in a message, not in memory filling up. Devices
// and pipes (<(...)) are read like files. nullopt with `error` ("PATH: more than 64 MB: too large for
// a cfg file; is it the right file?") when the file cannot be read or is too large. A binary file (a
// zero byte in its first 4 KB) is read no further than 64 KB, which names it (binaryKindOf).
// Opens `path` read-only without waiting in open() for a writer (a named pipe nobody wrote to held the
// command for good, past Ctrl+C); a pipe's writer gets two seconds to come, and without one the pipe
// reads as empty. Reads then block as usual. -1 with errno set when it cannot be opened.
int openWithoutWaiting(const std::string& path);

std::optional<std::string> readSmallTextFile(const std::string& path, std::size_t limit,
                                             std::string_view what, std::string& error);
inline constexpr std::size_t kSmallTextFileLimit = std::size_t(64) << 20;

// What a file that is no text is, from its first bytes (a zero byte among them): "IDX images or labels
// (MNIST's format)", "a gzip-compressed file", "UTF-16 text (save it as UTF-8)" or "a binary file";
// nullopt for text.
std::optional<std::string> binaryKindOf(std::string_view head);
// "PATH: its lines end in a lone CR (…): convert them to LF (…)" when `text` has a CR that is not before
// a line's end (an old Mac file: Darknet and getline read it as one line, its paths or keys run
// together; CRLF and CR CR LF are fine); else nullopt.
std::optional<std::string> loneCrProblem(std::string_view text, const std::string& path);
// binaryKindOf a regular file's first 4 KB; nullopt for text, and for a pipe or device (not read: what
// it gives would be lost to the reader after).
std::optional<std::string> binaryFileKind(const std::string& path);

// A file name's ending in lower case, with its dot (".jpg" for "a.JPG"; "" without one).
std::string lowerExtension(const std::string& path);
// The endings read as videos (".mp4", ".avi", …, ".3gp", ".ts", ".mjpeg"), and whether `path` has one;
// the same of images (".jpg", ".png", …, ".ppm"), as a folder's files are told apart.
const std::vector<std::string>& videoExtensions();
bool hasVideoExtension(const std::string& path);
const std::vector<std::string>& imageExtensions();
bool hasImageExtension(const std::string& path);

// What Windows editors put before UTF-8 text; read past by the cfg, .data, names and label readers.
inline constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

// A value shown inside a message, cut to `limit` characters with the count of the rest, so a
// megabyte-long line never floods a terminal.
std::string shortened(std::string_view text, std::size_t limit = 80);

} // namespace nw
