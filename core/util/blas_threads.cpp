#include "util/blas_threads.h"

#include <cstdlib>
#include <unistd.h>

namespace nw {

void restartWithoutBlasThreads(char** argv)
{
    if (std::getenv("OPENBLAS_NUM_THREADS"))
        return;
    if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv); // only returns on failure: then go on with the pool as it is
}

} // namespace nw
