#include "backend/device_choice.h"

#include "backend/gpu_devices.h"

#include <cstdlib>

namespace nw {

std::optional<DeviceChoice> chooseDevice(const std::string& text, std::string& error)
{
    const std::string option = "--device " + text;
    if (text.empty() || text == "cpu")
        return DeviceChoice{};
    DeviceChoice choice{true, 0};
    if (text != "cuda" && text != "gpu") {
        const std::string prefix = text.rfind("cuda:", 0) == 0  ? "cuda:"
                                   : text.rfind("gpu:", 0) == 0 ? "gpu:"
                                                                : "";
        char* end = nullptr;
        const std::string number = text.substr(prefix.size());
        const long index = prefix.empty() ? -1 : std::strtol(number.c_str(), &end, 10);
        if (prefix.empty() || number.empty() || *end != '\0' || index < 0 || index > 1024) {
            error = option + ": expected cpu, cuda or cuda:N (N: a GPU's number in netwright-cli devices)";
            return std::nullopt;
        }
        choice.index = int(index);
    }
    const GpuInventory inventory = listGpus(false); // no context on the GPUs not chosen
    if (inventory.devices.empty()) {
        error = option + ": no GPU: " + inventory.problem;
        return std::nullopt;
    }
    for (const GpuDevice& device : inventory.devices)
        if (device.index == choice.index)
            return choice;
    error = option + ": this machine has " + std::to_string(inventory.devices.size()) + " GPU" +
            (inventory.devices.size() == 1 ? "" : "s") + ":";
    for (const GpuDevice& device : inventory.devices)
        error += " cuda:" + std::to_string(device.index) + " " + device.name + ";";
    error.pop_back();
    return std::nullopt;
}

} // namespace nw
