// A build without the CUDA backend (NETWRIGHT_WITH_CUDA off, or no CUDA toolkit when configured).
#include "backend/gpu_devices.h"

namespace nw {

GpuInventory listGpus(bool)
{
    GpuInventory inventory;
    inventory.problem = "this build has no CUDA backend (configure with -DNETWRIGHT_WITH_CUDA=ON where the "
                        "CUDA toolkit and cuDNN are installed)";
    return inventory;
}

} // namespace nw
