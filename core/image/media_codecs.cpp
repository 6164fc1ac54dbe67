#include "image/media_codecs.h"

#include "util/lazy_library.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace nw::media {

namespace {

struct Loaded {
    const Codecs* codecs = nullptr;
    std::string error;
};

// The module beside the running program: <bindir>/NETWRIGHT_MEDIA_FROM_BINDIR, installed or in the build
// tree (which keeps the same layout), so an installed program never picks up a build tree's module.
Loaded load()
{
    std::error_code ec;
    const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {nullptr, "cannot find OpenCV's image and video module: /proc/self/exe is unreadable (" +
                             ec.message() + ")"};
    const std::string file = (program.parent_path() / NETWRIGHT_MEDIA_FROM_BINDIR / "libnetwright_media.so")
                                 .lexically_normal()
                                 .string();
    const LazyLibrary library =
        openLazily({file.c_str()}, {kMediaEntryPoint}, "OpenCV's image and video module",
                   "reinstall Netwright, or build it again (the module is built with netwright-cli)");
    if (!library.handle)
        return {nullptr, library.error};
    auto* entry =
        reinterpret_cast<decltype(&netwright_media_codecs_v1)>(lazySymbol(library, kMediaEntryPoint));
    return {entry(), {}};
}

} // namespace

const Codecs* codecs(std::string& error)
{
    // A function's static: loaded once, safely from any thread. A failure is kept too: a studio whose
    // module was missing needs a restart after it is installed.
    static const Loaded loaded = load();
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
