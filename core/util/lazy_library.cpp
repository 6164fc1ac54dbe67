#include "util/lazy_library.h"

#include <dlfcn.h>

namespace nw {

LazyLibrary openLazily(std::initializer_list<const char*> files, std::initializer_list<const char*> functions,
                       const std::string& what, const std::string& remedy)
{
    LazyLibrary library;
    std::string tried;
    std::string opened;
    for (const char* file : files) {
        if ((library.handle = dlopen(file, RTLD_NOW | RTLD_LOCAL))) {
            opened = file;
            break;
        }
        const char* why = dlerror();
        tried += std::string(tried.empty() ? "" : "; ") + (why ? why : file);
    }
    if (!library.handle) {
        library.error = "cannot load " + what + " (" + tried + "): " + remedy;
        return library;
    }
    for (const char* function : functions)
        if (!dlsym(library.handle, function)) {
            library.error = "the " + what + " found (" + opened + ") lacks " + function +
                            " (another version?): " + remedy;
            dlclose(library.handle);
            library.handle = nullptr;
            break;
        }
    return library;
}

void* lazySymbol(const LazyLibrary& library, const char* name)
{
    return library.handle ? dlsym(library.handle, name) : nullptr;
}

} // namespace nw
