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
    if (changed)
        execv("/proc/self/exe", argv); // only returns on failure: then go on as we are
}

const char* blasCoreName()
{
    const char* name = openblas_get_corename();
    return name ? name : "unknown";
}

} // namespace nw
