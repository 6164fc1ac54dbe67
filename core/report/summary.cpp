#include "report/summary.h"
#include "util/json_text.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace nw {

std::string humanBytes(std::int64_t bytes)
{
    char text[32];
    if (bytes >= 1024LL * 1024 * 1024) // (119504.9 MB read worse than 116.7 GB)
        std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / (1024.0 * 1024.0 * 1024.0));
    else if (bytes >= 1024 * 1024)
        std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / (1024.0 * 1024.0));
    else if (bytes >= 1024)
        std::snprintf(text, sizeof text, "%.1f KB", double(bytes) / 1024.0);
    else
        std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
    return text;
}

namespace {

// printf into a string of any length (a route's layers= list makes rows past any fixed buffer); the
// attribute keeps the compiler checking the arguments against the format.
__attribute__((format(printf, 1, 2))) std::string formatted(const char* format, ...)
{
    std::va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    std::string text(std::size_t(std::max(0, std::vsnprintf(nullptr, 0, format, args))), '\0');
    std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    va_end(args);
    return text;
}

} // namespace

std::string summaryTable(const NetworkSpec& spec)
{
    std::string out = formatted("%5s  %-16s %9s %9s  %16s  %16s %9s %12s %10s\n", "layer", "type", "filters",
                                "size", "input", "output", "BFLOPs", "params", "workspace");
    for (const LayerSpec& layer : spec.layers) {
        // Behind an error, a layer's input is meaningless: its figures would be made up from it; a layer
        // whose own values could not be read (filters=abc) has none.
        const bool known = layer.figuresKnown();
        out += formatted("%5d%s %-16s %9s %9s  %16s  %16s %9s %12s %10s\n", layer.index,
                         layer.valid() ? " " : "!", layer.type.c_str(), layer.filters.c_str(),
                         layer.size.c_str(),
                         // (the row above's output: "?" there, "?" here, as the studio's table; a
                         // shape of no size, an error's, is "?" too: it read 0, and -256 for channels=-1)
                         (layer.index > 0 && !spec.layers[std::size_t(layer.index) - 1].figuresKnown()) ||
                                 layer.input.size <= 0
                             ? "?"
                             : layer.input.text().c_str(),
                         known && layer.output.size > 0 ? layer.output.text().c_str() : "?",
                         known ? formatted("%.3f", layer.costs.bflops).c_str() : "?",
                         known ? std::to_string(layer.costs.params).c_str() : "?",
                         !known                       ? "?"
                         : layer.costs.workspaceBytes ? humanBytes(layer.costs.workspaceBytes).c_str()
                                                      : "");
    }
    const int leftOut = spec.layersLeftOutOfTotals();
    out += formatted(
        "Total: %.3f BFLOPs, %lld params, largest workspace %s, activations %s (batch %d; %s at inference, "
        "buffers reused)%s\n",
        spec.totalBflops, static_cast<long long>(spec.totalParams),
        humanBytes(spec.maxWorkspaceBytes).c_str(), humanBytes(spec.totalMemoryBytes).c_str(), spec.batch,
        humanBytes(spec.inferenceMemoryBytes).c_str(),
        leftOut
            ? formatted("; %d layer%s at or behind an error left out (?)", leftOut, leftOut == 1 ? "" : "s")
                  .c_str()
            : "");
    return out;
}

namespace {

nlohmann::json shapeJson(const Shape& shape)
{
    return nlohmann::json::array({shape.w, shape.h, shape.c});
}

nlohmann::json diagnosticsJson(const Diagnostics& diagnostics, Severity severity)
{
    auto list = nlohmann::json::array();
    for (const Diagnostic& d : diagnostics)
        if (d.severity == severity)
            list.push_back(
                {{"line", d.line}, {"layer", d.layer}, {"message", d.message}, {"text", d.format()}});
    return list;
}

} // namespace

std::string summaryJson(const NetworkSpec& spec, int indent)
{
    nlohmann::json root;
    root["file"] = spec.file;
    root["input"] = shapeJson(spec.input);
    root["inputs"] = spec.input.size; // (a flat input, [net] inputs=N, has no w, h, c: [0,0,0] above)
    root["batch"] = spec.batch;
    auto layers = nlohmann::json::array();
    for (const LayerSpec& layer : spec.layers) {
        // Behind an error the shapes are made up from a meaningless input: null, as the table's "?" (they
        // read [0,0,0] beside "valid": true).
        const auto known = [](bool isKnown, const Shape& shape) {
            return isKnown ? shapeJson(shape) : nlohmann::json(nullptr);
        };
        // (and its costs: a layer whose filters=abc could not be read read 0 BFLOPs and 0 params)
        const auto figure = [&](auto value) {
            return layer.figuresKnown() ? nlohmann::json(value) : nlohmann::json(nullptr);
        };
        layers.push_back({{"index", layer.index},
                          {"type", layer.type},
                          {"line", layer.line},
                          {"filters", layer.filters},
                          {"size", layer.size},
                          {"input", known(layer.inputKnown, layer.input)},
                          {"output", known(layer.inputKnown && layer.outputKnown, layer.output)},
                          {"shape_known", layer.inputKnown && layer.outputKnown},
                          {"outputs", layer.output.size},
                          {"bflops", figure(layer.costs.bflops)},
                          {"params", figure(layer.costs.params)},
                          {"workspace_bytes", figure(layer.costs.workspaceBytes)},
                          {"memory_bytes", figure(layer.memoryBytes)},
                          {"inference_bytes", figure(layer.inferenceBytes)},
                          {"receptive_field", layer.receptiveField},
                          {"sources", layer.sources},
                          {"valid", layer.valid()}});
    }
    root["layers"] = std::move(layers);
    root["total_bflops"] = spec.totalBflops;
    root["total_params"] = spec.totalParams;
    root["max_workspace_bytes"] = spec.maxWorkspaceBytes;
    root["memory_bytes"] = spec.totalMemoryBytes;
    root["inference_memory_bytes"] = spec.inferenceMemoryBytes;
    root["warnings"] = diagnosticsJson(spec.diagnostics, Severity::Warning);
    root["errors"] = diagnosticsJson(spec.diagnostics, Severity::Error);
    return jsonText(root, indent) + "\n";
}

} // namespace nw
