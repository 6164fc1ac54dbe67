#include "cfg/layer_clipboard.h"

#include "cfg/layer_edits.h"
#include "cfg/reference_text.h"

#include <algorithm>
#include <optional>

namespace nw::cfg {

namespace {

void sortUnique(std::vector<int>& layers, int count)
{
    std::sort(layers.begin(), layers.end());
    layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
    std::erase_if(layers, [&](int layer) { return layer < 0 || layer >= count; });
}

} // namespace

std::string layersText(const Document& document, std::vector<int> layers)
{
    sortUnique(layers, layerCount(document));
    std::string text;
    for (std::size_t p = 0; p < layers.size(); ++p) {
        const int layer = layers[p];
        const Section& section = document.sections()[std::size_t(layer) + 1];
        for (Line line : section.lines) {
            // A reference to another copied layer becomes relative within the copies, which paste as
            // one block: an absolute `layers = 1`, or a `-2` across a layer left out of a selection,
            // read the original instead of its copy.
            if (line.kind == Line::Kind::Entry && isReferenceKey(section.type, line.key))
                rewriteReferenceNumbers(line, [&](int written) -> std::optional<int> {
                    const int target = written < 0 ? layer + written : written;
                    const auto copy = std::find(layers.begin(), layers.end(), target);
                    if (copy == layers.end())
                        return std::nullopt;
                    return int(copy - layers.begin()) - int(p);
                });
            text += line.text + "\n";
        }
        if (!section.lines.empty() && section.lines.back().kind != Line::Kind::Blank)
            text += "\n";
    }
    return text;
}

int insertLayersText(Document& document, int index, std::string_view text, std::string& error)
{
    const Document pasted = Document::parse(text, "clipboard");
    int inserted = 0;
    index = std::clamp(index, 0, layerCount(document));
    for (const Section& section : pasted.sections()) {
        if (section.type == "net" || section.type == "network")
            continue;
        std::vector<std::pair<std::string, std::string>> entries;
        for (const Line* line : section.entries()) // a repeated key: the first, which Darknet reads
            if (std::none_of(entries.begin(), entries.end(),
                             [&](const auto& e) { return e.first == line->key; }))
                entries.emplace_back(line->key, line->writtenValue()); // (its spacing kept)
        insertLayer(document, index + inserted, section.type, entries);
        ++inserted;
    }
    if (inserted == 0)
        error = "nothing to paste: the text holds no layer section ([convolutional], [route], ...)";
    return inserted;
}

std::string removeLayers(Document& document, std::vector<int> layers)
{
    sortUnique(layers, layerCount(document));
    return removeLayerSet(document, layers);
}

} // namespace nw::cfg
