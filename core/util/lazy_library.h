#pragma once
// A library opened on first use (dlopen) instead of linked. The GPU libraries (cublas_loader.cpp,
// cudnn_loader.cpp, nccl_loader.cpp): so the programs start, and run on the CPU, on machines without
// them, and a process that never touches the GPU never maps them; those loaders define the few functions
// the backend calls, each forwarding to the library's own, declared by the library's headers so the
// compiler checks every signature. OpenCV's image files and video (image/media_codecs.h): so a start
// does not map and relocate the 230 libraries that come with them.
#include <initializer_list>
#include <optional>
#include <string>

namespace nw {

struct LazyLibrary {
    void* handle = nullptr; // the library, with every function asked for; nullptr: `error` says why
    std::string error;
    // Why it cannot be used, or nullopt when it can.
    std::optional<std::string> problem() const { return handle ? std::nullopt : std::optional(error); }
};

// Opens the first of `files` (a soname, then a path) that loads, and checks that it has every one of
// `functions`. `what` names it in errors ("cuBLAS"), `remedy` says how to get it.
LazyLibrary openLazily(std::initializer_list<const char*> files, std::initializer_list<const char*> functions,
                       const std::string& what, const std::string& remedy);

// `name` in `library`, or nullptr without the library.
void* lazySymbol(const LazyLibrary& library, const char* name);

} // namespace nw

// Inside a forwarding definition: calls the library's own `name` with the arguments, or returns
// `missing` without it. `library` is an expression giving the LazyLibrary (a function's static, so a
// message function may answer with its `error`).
#define NW_LAZY_FORWARD(library, missing, name, ...)                                                         \
    static auto* const function = reinterpret_cast<decltype(&name)>(nw::lazySymbol(library, #name));         \
    return function ? function(__VA_ARGS__) : missing
