#pragma once
// Which device a command runs on: `--device cpu` (the default), `cuda` (the first GPU) or `cuda:N`,
// checked against what the machine has, so a wrong choice ends in words before any work starts.
#include <optional>
#include <string>

namespace nw {

struct DeviceChoice {
    bool cuda = false;
    int index = 0;
    std::string text() const { return cuda ? "cuda:" + std::to_string(index) : "cpu"; }
};

// Only the syntax: cpu, cuda, gpu, cuda:N or gpu:N; nullopt and a message otherwise.
std::optional<DeviceChoice> parseDevice(const std::string& text, std::string& error);
// Parses and checks `text`; nullopt and a message ("--device cuda:2: this machine has 1 GPU: cuda:0
// NVIDIA H100 80GB HBM3", "--device cuda: no GPU: no CUDA driver: ...") when it cannot be used.
std::optional<DeviceChoice> chooseDevice(const std::string& text, std::string& error);

} // namespace nw
