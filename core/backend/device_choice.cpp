#include "backend/device_choice.h"

#include "backend/gpu_devices.h"

#include <cstdlib>

namespace nw {

std::optional<DeviceChoice> parseDevice(const std::string& text, std::string& error)
{
    if (text.empty() || text == "cpu")
        return DeviceChoice{};
    if (text == "cuda" || text == "gpu")
        return DeviceChoice{true, 0};
    const std::string prefix = text.rfind("cuda:", 0) == 0  ? "cuda:"
                               : text.rfind("gpu:", 0) == 0 ? "gpu:"
                                                            : "";
    const std::string number = text.substr(prefix.size());
    const bool digits = !prefix.empty() && !number.empty() && number.size() <= 4 &&
                        number.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
        error = "--device " + text +
                ": expected cpu, cuda or cuda:N (N: a GPU's number in netwright-cli devices)";
        return std::nullopt;
    }
    return DeviceChoice{true, std::atoi(number.c_str())};
}

std::optional<DeviceChoice> chooseDevice(const std::string& text, std::string& error)
{
    const std::string option = "--device " + text;
    const auto parsed = parseDevice(text, error);
    if (!parsed || !parsed->cuda)
        return parsed;
    const DeviceChoice choice = *parsed;
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
