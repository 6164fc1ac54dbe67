#include "backend/gpu_devices.h"

namespace nw {

std::string cudaVersionText(int version)
{
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string libraryVersionText(int version)
{
    return std::to_string(version / 10000) + "." + std::to_string(version % 10000 / 100) + "." +
           std::to_string(version % 100);
}

} // namespace nw
