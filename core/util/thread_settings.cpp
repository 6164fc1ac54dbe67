#include "util/thread_settings.h"

#include <cblas.h>
#include <cstdlib>
#include <unistd.h>
#include <utility>

namespace nw {

void restartWithThreadSettings(char** argv)
{
    bool changed = false;
    for (const auto& [name, value] :
         {std::pair{"OPENBLAS_NUM_THREADS", "1"}, std::pair{"GOMP_SPINCOUNT", "100000"}})
        if (!std::getenv(name) && setenv(name, value, 1) == 0)
            changed = true;
    if (!changed)
        return;
    // The executable by its own path, not /proc/self/exe: the process keeps its name ("netwright-cli"
    // in ps, top and pkill, not "exe").
    char path[4096];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length > 0) {
        path[length] = '\0';
        execv(path, argv); // only returns on failure: then the next try, or go on as we are
    }
    execv("/proc/self/exe", argv);
}

const char* blasCoreName()
{
    const char* name = openblas_get_corename();
    return name ? name : "unknown";
}

} // namespace nw
