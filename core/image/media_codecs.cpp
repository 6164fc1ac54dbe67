#include "image/media_codecs.h"

#include "util/lazy_library.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace nw::media {

namespace {

// Where the module is: beside the running program's install (<bindir>/NETWRIGHT_MEDIA_FROM_BINDIR,
// which is also its place in the build tree), else where this build made it.
std::string besideProgram()
{
    std::error_code ec;
    const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string()
              : (program.parent_path() / NETWRIGHT_MEDIA_FROM_BINDIR / "libnetwright_media.so")
                    .lexically_normal()
                    .string();
}

struct Loaded {
    const Codecs* codecs = nullptr;
    std::string error;
};

Loaded load()
{
    const std::string beside = besideProgram();
    const char* what = "OpenCV's image and video module";
    const char* remedy = "reinstall Netwright, or build it again (the module is built with netwright-cli)";
    const LazyLibrary library =
        beside.empty() ? openLazily({NETWRIGHT_MEDIA_BUILD_PATH}, {"netwright_media_codecs"}, what, remedy)
                       : openLazily({beside.c_str(), NETWRIGHT_MEDIA_BUILD_PATH}, {"netwright_media_codecs"},
                                    what, remedy);
    if (!library.handle)
        return {nullptr, library.error};
    auto* entry =
        reinterpret_cast<decltype(&netwright_media_codecs)>(lazySymbol(library, "netwright_media_codecs"));
    return {entry(), {}};
}

} // namespace

const Codecs* codecs(std::string& error)
{
    static const Loaded loaded = load(); // (a function's static: loaded once, safely from any thread)
    error = loaded.error;
    return loaded.codecs;
}

const Codecs& codecsOrThrow()
{
    std::string error;
    const Codecs* module = codecs(error);
    if (!module)
        throw std::runtime_error(error);
    return *module;
}

} // namespace nw::media
