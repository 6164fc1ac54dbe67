#include "util/file_check.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nw {

namespace {

// A bare file name that Netwright installs (share/netwright/{cfg,weights} beside the running program's
// folder, /usr/bin → /usr/share/netwright) and is of the kind expected: "; Netwright's bundled one is
// PATH", else nothing. Someone who installed the package names them from anywhere.
std::string bundledAlternative(const std::string& path, std::string_view what)
{
    const std::filesystem::path name(path);
    if (name.has_parent_path())
        return {};
    const std::string extension = name.extension().string();
    const bool expected = (extension == ".cfg" && what.find("cfg") != std::string_view::npos) ||
                          (extension == ".weights" && what.find(".weights") != std::string_view::npos) ||
                          (extension == ".data" && what.find(".data") != std::string_view::npos) ||
                          (extension == ".names" && what.find("names") != std::string_view::npos);
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!expected || ec)
        return {};
    for (const char* folder : {"cfg", "weights"}) {
        const std::filesystem::path bundled =
            self.parent_path().parent_path() / "share" / "netwright" / folder / name;
        if (std::filesystem::is_regular_file(bundled, ec))
            return "; Netwright's bundled one is " + std::filesystem::weakly_canonical(bundled, ec).string();
    }
    return {};
}

} // namespace

std::optional<std::string> unreadableFileReason(const std::string& path, std::string_view what)
{
    if (path.empty())
        return "no file given (an empty path, where " + std::string(what) + " was expected)";
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        return path + ": cannot read it: " + ec.message() + " (expected " + std::string(what) + ")";
    if (ec || !std::filesystem::exists(status))
        return path + ": no such file (expected " + std::string(what) + ")" + bundledAlternative(path, what);
    if (std::filesystem::is_directory(status))
        return path + ": is a directory, not " + std::string(what);
    return std::nullopt;
}

std::optional<std::string> notAFileReason(const std::string& path, std::string_view what)
{
    if (auto reason = unreadableFileReason(path, what))
        return reason;
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode))
        return path + ": a named pipe, not " + std::string(what) +
               ": it is read from a file (save what the " + "pipe gives into one first)";
    return std::nullopt;
}

std::optional<std::string> emptyFileReason(const std::string& path, std::string_view what)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) != 0 || ec)
        return std::nullopt;
    return path + ": the file is empty (0 bytes), not " + std::string(what) +
           " (an interrupted copy or download)";
}

std::optional<std::string> unwritableFolderReason(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path folder = fs::absolute(path.empty() ? fs::path(".") : fs::path(path), ec).lexically_normal();
    if (ec)
        return path + ": " + ec.message();
    if (!folder.has_filename()) // ("a/b/" normalised)
        folder = folder.parent_path();
    // The folder, or the first one on its way that exists (the rest are made there).
    fs::path existing = folder;
    while (!fs::exists(existing, ec) && existing.has_relative_path())
        existing = existing.parent_path();
    if (!fs::is_directory(existing, ec))
        return existing == folder ? path + " is a file, not a folder"
                                  : path + ": " + existing.string() + " is a file, not a folder";
    if (::access(existing.c_str(), W_OK | X_OK) != 0) {
        const std::string reason = std::strerror(errno);
        return existing == folder
                   ? "cannot write in " + path + " (" + reason + ")"
                   : "cannot make " + path + ": cannot write in " + existing.string() + " (" + reason + ")";
    }
    return std::nullopt;
}

std::optional<std::string> outputIsAnInput(const std::string& out,
                                           std::initializer_list<std::string_view> inputs)
{
    for (const std::string_view input : inputs) {
        std::error_code ec;
        if (!input.empty() && std::filesystem::equivalent(out, input, ec) && !ec)
            return out + " is also the input " + std::string(input) +
                   ": writing it would replace that file; choose another output path";
    }
    return std::nullopt;
}

int openWithoutWaiting(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fd;
    // A pipe's writer may come a moment later (a producer started after the command): it gets two
    // seconds. A read then waits only while a writer holds the pipe; without one it reads as empty.
    struct stat info {};
    if (::fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode)) {
        pollfd ready{fd, POLLIN, 0};
        ::poll(&ready, 1, 2000);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

namespace {
constexpr std::size_t kBinaryHead = std::size_t(64) << 10; // what is read of a binary file
}

std::optional<std::string> readSmallTextFile(const std::string& path, std::size_t limit,
                                             std::string_view what, std::string& error)
{
    // Opened without waiting: a named pipe nobody writes to blocked the studio's File ▸ Open for good.
    // A pipe with a writer (`cat a.cfg | netwright-cli summary /dev/stdin`) is then read as usual.
    const int fd = openWithoutWaiting(path);
    if (fd < 0) {
        error = path + ": cannot open it (" + std::string(what) + "): " + std::strerror(errno);
        return std::nullopt;
    }
    struct stat info {};
    const bool pipe = ::fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode);
    std::string text;
    char chunk[1 << 16];
    ssize_t got = 0;
    while ((got = ::read(fd, chunk, sizeof chunk)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            error = path + ": read error (" + std::string(what) + "): " + std::strerror(errno);
            ::close(fd);
            return std::nullopt;
        }
        text.append(chunk, std::size_t(got));
        // A binary file (a zero byte in its first 4 KB) is read no further than its head: the callers
        // name it from there (/dev/zero as an image list filled 2 GB on its way to the size limit).
        if (text.size() >= kBinaryHead &&
            std::string_view(text).substr(0, 4096).find('\0') != std::string::npos)
            break;
        if (text.size() > limit) {
            error = path + ": more than " + std::to_string(limit >> 20) + " MB: too large for " +
                    std::string(what) + "; is it the right file?";
            ::close(fd);
            return std::nullopt;
        }
    }
    ::close(fd);
    if (pipe && text.empty()) {
        error = path + ": a pipe with nothing written to it, not " + std::string(what);
        return std::nullopt;
    }
    return text;
}

std::optional<std::string> loneCrProblem(std::string_view text, const std::string& path)
{
    // (CRs before a line's end are read past: CRLF, and Python's CR CR LF on Windows)
    for (std::size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1))
        if (at + 1 < text.size() && text[at + 1] != '\n' && text[at + 1] != '\r')
            return text.find('\n') == std::string_view::npos
                       ? path + ": its lines end in a lone CR (an old Mac file): convert them to LF (tr "
                                "'\\r' '\\n' < old > new); Darknet reads such a file as one line"
                       : path + ": a CR (carriage return) in the middle of a line: remove the CRs (tr -d "
                                "'\\r' < old > new); Darknet reads it as part of the line";
    return std::nullopt;
}

std::optional<std::string> binaryKindOf(std::string_view head)
{
    head = head.substr(0, 4096);
    if (head.find('\0') == std::string_view::npos) // no text holds a zero byte (but UTF-16's)
        return std::nullopt;
    if (head.starts_with("\xFF\xFE") || head.starts_with("\xFE\xFF")) // Windows PowerShell's `dir > list.txt`
        return "UTF-16 text (save it as UTF-8)";
    // IDX (MNIST's format) starts 00 00 08; gzip, as such sets usually come, 1f 8b.
    if (head.size() >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 0x08)
        return "IDX images or labels (MNIST's format)";
    if (head.starts_with("\x1f\x8b"))
        return "a gzip-compressed file";
    return "a binary file";
}

std::optional<std::string> binaryFileKind(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    char head[4096];
    in.read(head, sizeof head);
    return binaryKindOf(std::string_view(head, std::size_t(in.gcount())));
}

std::string shortened(std::string_view text, std::size_t limit)
{
    if (text.size() <= limit)
        return std::string(text);
    return std::string(text.substr(0, limit)) + "... (" + std::to_string(text.size() - limit) +
           " more characters)";
}

std::string lowerExtension(const std::string& path)
{
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return extension;
}

const std::vector<std::string>& videoExtensions()
{
    // (a phone's .3gp, a recorder's .ts/.mts/.m2ts and an IP camera's .mjpeg were taken for damaged images)
    static const std::vector<std::string> videos = {".mp4",  ".avi",  ".mkv", ".mov", ".webm",  ".mpg",
                                                    ".mpeg", ".m4v",  ".wmv", ".3gp", ".3g2",   ".ts",
                                                    ".mts",  ".m2ts", ".flv", ".ogv", ".mjpeg", ".mjpg"};
    return videos;
}

bool hasVideoExtension(const std::string& path)
{
    const std::string extension = lowerExtension(path);
    return std::find(videoExtensions().begin(), videoExtensions().end(), extension) !=
           videoExtensions().end();
}

const std::vector<std::string>& imageExtensions()
{
    static const std::vector<std::string> images = {".jpg", ".jpeg", ".jpe",  ".jfif", ".png", ".bmp",
                                                    ".tif", ".tiff", ".webp", ".ppm",  ".pgm"};
    return images;
}

bool hasImageExtension(const std::string& path)
{
    const std::string extension = lowerExtension(path);
    return std::find(imageExtensions().begin(), imageExtensions().end(), extension) !=
           imageExtensions().end();
}

} // namespace nw
