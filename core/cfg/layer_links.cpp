#include "cfg/layer_links.h"

#include "cfg/layer_edits.h"
#include "cfg/reference_text.h"
#include "cfg/section_reader.h"

#include <algorithm>
#include <utility>

namespace nw::cfg {

namespace {

// The entry holding `layer`'s references, or null.
const Line* referenceLine(const Document& document, int layer)
{
    if (layer < 0 || layer >= layerCount(document))
        return nullptr;
    const Section& section = document.sections()[std::size_t(layer) + 1];
    for (const Line& line : section.lines)
        if (line.kind == Line::Kind::Entry && isReferenceKey(section.type, line.key))
            return &line;
    return nullptr;
}

Line* referenceLine(Document& document, int layer)
{
    return const_cast<Line*>(referenceLine(std::as_const(document), layer));
}

std::string referenceKey(const std::string& type)
{
    return type == "route" ? "layers" : isReferenceKey(type, "from") ? "from" : "";
}

std::string describe(const Document& document, int layer)
{
    return "layer " + std::to_string(layer) + " [" + document.sections()[std::size_t(layer) + 1].type + "]";
}

} // namespace

std::vector<int> referencedLayers(const Document& document, int layer)
{
    std::vector<int> result;
    if (const Line* line = referenceLine(document, layer)) {
        // (A comment after the list is not part of it: "layers = -1, 8  # 2 inputs".)
        const std::string_view value = valueBeforeComment(line->value);
        std::size_t start = 0;
        while (start <= value.size()) {
            const std::size_t comma = std::min(value.find(',', start), value.size());
            if (const auto written = parseInt(value.substr(start, comma - start)))
                result.push_back(*written < 0 ? layer + *written : *written);
            start = comma + 1;
        }
    }
    return result;
}

std::string connectLayers(Document& document, int source, int layer)
{
    const int count = layerCount(document);
    if (layer < 0 || layer >= count || source < 0 || source >= count)
        return "there is no layer " + std::to_string(layer < 0 || layer >= count ? layer : source);
    if (source >= layer)
        return "a layer reads only earlier layers: layer " + std::to_string(source) + " comes after " +
               describe(document, layer) + "; connect from an earlier layer, or move one of them";
    Section& section = document.section(std::size_t(layer) + 1);
    const std::string key = referenceKey(section.type);
    if (key.empty() && source == layer - 1)
        return describe(document, layer) + " already reads layer " + std::to_string(source) +
               ", the layer before it";
    if (key.empty())
        return describe(document, layer) + " reads the layer before it; to use layer " +
               std::to_string(source) +
               " as well, connect it into a [route] (concatenation) or a [shortcut] (sum)";
    const std::string relative = std::to_string(source - layer);
    if (key == "layers") {
        const std::vector<int> current = referencedLayers(document, layer);
        if (std::find(current.begin(), current.end(), source) != current.end())
            return describe(document, layer) + " already reads layer " + std::to_string(source);
        const Line* line = section.find(key);
        const std::string raw = line ? line->writtenValue() : std::string();
        const std::string separator = raw.find(", ") != std::string::npos ? ", " : ",";
        section.set(key, raw.empty() ? relative : raw + separator + relative, document.preferredEol());
        return {};
    }
    // ([shortcut], [sam], [scale_channels]: the layer before it and one other, from=)
    if (source == layer - 1)
        return describe(document, layer) + " combines the layer before it (" + std::to_string(source) +
               ") with the one its from= names: connect an earlier layer into it";
    if (Line* line = referenceLine(document, layer)) {
        const std::vector<int> current = referencedLayers(document, layer);
        // (it added an undo step that changed nothing; a from= of several layers, `from=-2,-3`: any of them)
        if (std::find(current.begin(), current.end(), source) != current.end())
            return describe(document, layer) + " already reads layer " + std::to_string(source);
        bool first = true; // from= holds one layer: rewrite its first number in its own style
        rewriteReferenceNumbers(*line, [&](int written) -> std::optional<int> {
            if (!std::exchange(first, false))
                return std::nullopt;
            return written < 0 ? source - layer : source;
        });
        return {};
    }
    section.set(key, relative, document.preferredEol());
    return {};
}

std::string disconnectLayers(Document& document, int source, int layer)
{
    if (layer < 0 || layer >= layerCount(document))
        return "there is no layer " + std::to_string(layer);
    Section& section = document.section(std::size_t(layer) + 1);
    if (section.type != "route")
        return referenceKey(section.type).empty()
                   ? describe(document, layer) + " reads the layer before it, as every layer of its kind: " +
                         "move it, or delete a layer between them"
                   : describe(document, layer) + " always reads one layer in " + referenceKey(section.type) +
                         "=: connect another layer into it instead, or delete the layer";
    const std::vector<int> current = referencedLayers(document, layer);
    if (std::find(current.begin(), current.end(), source) == current.end())
        return describe(document, layer) + " does not read layer " + std::to_string(source);
    if (current.size() == 1)
        return describe(document, layer) + " reads only layer " + std::to_string(source) +
               "; a route needs at least one input (delete the route instead)";
    // Rebuild the list without that entry, the others (and their spacing) as written.
    const std::string raw = section.find("layers")->writtenValue();
    std::string kept;
    bool dropped = false;
    std::size_t start = 0;
    while (start <= raw.size()) {
        const std::size_t comma = std::min(raw.find(',', start), raw.size());
        const std::string token = raw.substr(start, comma - start);
        const auto written = parseInt(darknetStrip(token));
        // Only the first entry naming it: `layers=-1,1` may name one layer twice, and dropping both left
        // `layers=` empty, which Darknet cannot read.
        const bool drop = !dropped && written && (*written < 0 ? layer + *written : *written) == source;
        dropped = dropped || drop;
        if (!drop && !darknetStrip(token).empty())
            kept += kept.empty() ? token.substr(token.find_first_not_of(" \t")) : "," + token;
        start = comma + 1;
    }
    section.set("layers", kept, document.preferredEol());
    return {};
}

void repointReference(Document& document, int layer, int oldSource, int newSource)
{
    if (Line* line = referenceLine(document, layer))
        rewriteReferenceNumbers(*line, [&](int written) -> std::optional<int> {
            if ((written < 0 ? layer + written : written) != oldSource)
                return std::nullopt;
            return written < 0 ? newSource - layer : newSource;
        });
}

} // namespace nw::cfg
