// forward: one pass on an image or a raw float32 tensor; outputs written as raw float32.
#include "commands.h"
#include "image/image.h"
#include "net_loading.h"
#include "util/file_check.h"
#include "util/float_file.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace nw::cli {

int forward(const std::string& cfg, const std::string& weights, const std::string& inputPath,
            const std::string& outPath, const std::string& allLayersDir, const std::string& device)
{
    if (auto problem = outPath.empty() ? std::nullopt : outputIsAnInput(outPath, {cfg, weights, inputPath})) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    // Every layer's output stays readable only when --all-layers asks for them. A recurrent network
    // reads one sequence of its time_steps items (batch 1 was refused: "use a multiple of 576").
    const int steps = timeSteps(cfg);
    auto net = loadNet(cfg, weights, steps, {},
                       allLayersDir.empty() ? Net::Use::InferenceOnly : Net::Use::Everything);
    if (!net)
        return 1;
    auto runner = DeviceRunner::create(*net, device);
    if (!runner)
        return 1;
    std::vector<float> input;
    bool inputNotFinite = false;
    const Shape shape = net->inputShape();
    if (lowerExtension(inputPath) == ".f32") { // (x.F32 was read as an image)
        if (auto problem = readFloatFile(inputPath, std::size_t(shape.size) * std::size_t(steps), input)) {
            std::cerr << "error: " << *problem << "\n";
            return 1;
        }
        if (auto warning = nonFiniteWarning(inputPath, input)) {
            std::cerr << "warning: " << *warning << "\n";
            inputNotFinite = true;
        }
    } else if (steps > 1) {
        std::cerr << "error: " << cfg << ": a recurrent network (time_steps=" << steps
                  << ") reads a sequence, not an image: give --input a .f32 file of " << steps << " × "
                  << shape.size << " floats\n";
        return 1;
    } else if (!shape.isImage()) { // ("the network wants 0 channels; images give 1 or 3")
        std::cerr << "error: " << cfg << ": the network reads " << shape.size
                  << " numbers ([net] inputs=), not an image: give --input a .f32 file of " << shape.size
                  << " floats\n";
        return 1;
    } else {
        std::string error;
        auto image = loadImage(inputPath, shape.c, error);
        if (!image) {
            std::cerr << "error: " << error << "\n";
            return 1;
        }
        // The cfg's letter_box=1 letterboxes, as detect and map do: the tensor they decode.
        input = (net->spec().net.letterBox ? letterbox(*image, shape.w, shape.h)
                                           : resizeDarknet(*image, shape.w, shape.h))
                    .data;
    }
    runner->forward(input.data());
    const Tensor& output = net->output();
    if (!outPath.empty())
        if (auto problem = writeFloatFile(outPath, output.span())) {
            std::cerr << "error: " << *problem << "\n";
            return 1;
        }
    if (!allLayersDir.empty()) { // created as detect --out is
        std::error_code ec;
        std::filesystem::create_directories(allLayersDir, ec);
        if (ec) {
            std::cerr << "error: cannot create " << allLayersDir << ": " << ec.message() << "\n";
            return 1;
        }
    }
    for (std::size_t i = 0; !allLayersDir.empty() && i < net->spec().layers.size(); ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "/layer_%03zu.f32", i);
        if (auto problem = writeFloatFile(allLayersDir + name, net->output(int(i)).span())) {
            std::cerr << "error: " << *problem << "\n";
            return 1;
        }
    }
    // Files of a longer network's run left in the folder (a script comparing it mixed two networks).
    if (!allLayersDir.empty()) {
        std::error_code ec;
        std::size_t stale = 0, lowest = 0;
        std::string first;
        for (const auto& entry : std::filesystem::directory_iterator(allLayersDir, ec)) {
            // (this run's names only: layer_, digits, .f32)
            const std::string name = entry.path().filename().string();
            const std::string digits = name.size() > 10 ? name.substr(6, name.size() - 10) : std::string();
            if (!name.starts_with("layer_") || !name.ends_with(".f32") || digits.empty() ||
                digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
                continue;
            const std::size_t index = std::stoul(digits);
            if (index < net->spec().layers.size())
                continue;
            if (stale++ == 0 || index < lowest)
                lowest = index, first = name;
        }
        if (stale > 0)
            std::cerr << "warning: " << allLayersDir << " also holds " << first
                      << (stale > 1 ? " and " + std::to_string(stale - 1) + " more layer files"
                                    : std::string())
                      << " past this network's " << net->spec().layers.size()
                      << " layers, from another run: remove them before comparing the folder\n";
    }
    if (outPath.empty() && allLayersDir.empty())
        std::cerr << "forward: ran, but wrote nothing: add --out OUT.f32 or --all-layers DIR\n";
    // Written as computed, but not called a success: an output of NaN is what diverged weights (or
    // another network's) give, and exit status 0 hid it from scripts.
    if (const std::size_t bad = countNonFinite(output.span())) {
        const bool written = !outPath.empty() || !allLayersDir.empty();
        std::cerr << "error: " << bad << " of " << output.span().size()
                  << " output values are not numbers (NaN or infinite)"
                  << (written ? ", written as computed" : "")
                  << (inputNotFinite ? ": the input holds values that are not numbers (said above)"
                                     : ": " + std::string(kNotNumbersCause))
                  << "\n";
        return 1;
    }
    return 0;
}

} // namespace nw::cli
