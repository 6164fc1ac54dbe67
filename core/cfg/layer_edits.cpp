#include "cfg/layer_edits.h"

#include "cfg/reference_text.h"

#include <algorithm>
#include <numeric>

namespace nw::cfg {

bool isReferenceKey(const std::string& type, const std::string& key)
{
    if (key == "layers")
        return type == "route";
    if (key == "from")
        return type == "shortcut" || type == "sam" || type == "scale_channels";
    return false;
}

int layerCount(const Document& document)
{
    return std::max(0, int(document.sections().size()) - 1);
}

bool startsWithNet(const Document& document)
{
    const auto& sections = document.sections();
    return !sections.empty() && (sections.front().type == "net" || sections.front().type == "network");
}

void addNetSection(Document& document, const std::vector<std::pair<std::string, std::string>>& entries)
{
    if (!startsWithNet(document))
        document.insertSection(0, "net", entries);
}

namespace {

// Rewrites every reference after a change of layer positions: `newIndex[old]` is the new index of
// old layer `old` (−1 if it was removed). A reference from layer p to layer q becomes one from
// newIndex[p] to newIndex[q], written in the same style (relative or absolute). Returns the first
// reference the change breaks — its target removed, or now after its reader — ("" when none), and the
// other readers it breaks: no number can say what they said (kept as written, they would silently read
// another layer).
std::string renumber(Document& document, const std::vector<int>& oldIndexOfSection,
                     const std::vector<int>& newIndex)
{
    std::string broken;
    std::vector<std::string> alsoBroken; // the other readers, each once (the user fixes them all)
    for (std::size_t s = 1; s < document.sections().size(); ++s) {
        const int oldSelf = oldIndexOfSection[s];
        if (oldSelf < 0)
            continue; // a new layer: its references are as the caller wrote them
        Section& section = document.section(s);
        const int newSelf = int(s) - 1;
        for (Line& line : section.lines) {
            if (line.kind != Line::Kind::Entry || !isReferenceKey(section.type, line.key))
                continue;
            const auto brokenHere = [&](int oldTarget, const char* why) {
                const std::string reader = "layer " + std::to_string(oldSelf) + " [" + section.type + "] (" +
                                           line.key + " = " + line.value + ")";
                if (broken.empty())
                    broken = reader + " reads layer " + std::to_string(oldTarget) + ", which " + why +
                             ": point it elsewhere (or remove it) first";
                else if (broken.rfind(reader, 0) != 0 &&
                         std::find(alsoBroken.begin(), alsoBroken.end(), reader) == alsoBroken.end())
                    alsoBroken.push_back(reader);
            };
            rewriteReferenceNumbers(line, [&](int reference) -> std::optional<int> {
                const int oldTarget = reference < 0 ? oldSelf + reference : reference;
                if (oldTarget < 0 || oldTarget >= int(newIndex.size()))
                    return std::nullopt; // broken before this change: the description reports it
                if (newIndex[std::size_t(oldTarget)] < 0) {
                    brokenHere(oldTarget, "this removes");
                    return std::nullopt;
                }
                const int newTarget = newIndex[std::size_t(oldTarget)];
                if (oldTarget < oldSelf && newTarget >= newSelf)
                    brokenHere(oldTarget, "this moves after it");
                const int updated = reference < 0 ? newTarget - newSelf : newTarget;
                // A relative reference that would point forward cannot be written relatively (Darknet
                // reads non-negative numbers as absolute): it stays, and the description reports it.
                if (reference < 0 && updated >= 0)
                    return std::nullopt;
                return updated;
            });
        }
    }
    for (std::size_t i = 0; i < alsoBroken.size(); ++i)
        broken += (i == 0                       ? "; the same goes for "
                   : i + 1 == alsoBroken.size() ? " and "
                                                : ", ") +
                  alsoBroken[i];
    return broken;
}

std::vector<int> identity(int n)
{
    std::vector<int> v(std::size_t(std::max(0, n)));
    std::iota(v.begin(), v.end(), 0);
    return v;
}

} // namespace

// (An insertion breaks no reference: renumber's report is empty.)
void insertLayer(Document& document, int index, const std::string& type,
                 const std::vector<std::pair<std::string, std::string>>& entries)
{
    if (document.sections().empty()) // an empty file: the layer would have become its [net]
        document.insertSection(0, "net", {});
    const int count = layerCount(document);
    index = std::clamp(index, 0, count);
    std::vector<int> newIndex = identity(count);
    for (int& i : newIndex)
        if (i >= index)
            ++i;
    std::vector<int> oldOfSection(document.sections().size() + 1, -1);
    for (int old = 0; old < count; ++old)
        oldOfSection[std::size_t(newIndex[std::size_t(old)] + 1)] = old;
    document.insertSection(std::size_t(index) + 1, type, entries);
    renumber(document, oldOfSection, newIndex);
}

std::string removeLayer(Document& document, int index)
{
    return removeLayerSet(document, {index});
}

std::string removeLayerSet(Document& document, const std::vector<int>& layers)
{
    const int count = layerCount(document);
    std::vector<int> newIndex(std::size_t(std::max(0, count)), 0);
    for (int layer : layers)
        if (layer >= 0 && layer < count)
            newIndex[std::size_t(layer)] = -1;
    // One renumbering for the whole set, so a refusal names the layers as the user sees them (removed
    // one at a time, the message numbered a half-edited copy).
    int next = 0;
    for (int& i : newIndex)
        i = i < 0 ? -1 : next++;
    std::vector<int> oldOfSection(std::size_t(next) + 1, -1);
    for (int old = 0; old < count; ++old)
        if (newIndex[std::size_t(old)] >= 0)
            oldOfSection[std::size_t(newIndex[std::size_t(old)] + 1)] = old;
    for (int old = count - 1; old >= 0; --old)
        if (newIndex[std::size_t(old)] < 0)
            document.removeSection(std::size_t(old) + 1);
    return renumber(document, oldOfSection, newIndex);
}

std::string moveLayer(Document& document, int from, int to)
{
    const int count = layerCount(document);
    if (from < 0 || from >= count || to < 0 || to >= count || from == to)
        return {};
    std::vector<int> order = identity(count); // order[new] = old
    order.erase(order.begin() + from);
    order.insert(order.begin() + to, from);
    std::vector<int> newIndex(static_cast<std::size_t>(count));
    for (int n = 0; n < count; ++n)
        newIndex[std::size_t(order[std::size_t(n)])] = n;
    std::vector<int> oldOfSection(document.sections().size(), -1);
    for (int n = 0; n < count; ++n)
        oldOfSection[std::size_t(n + 1)] = order[std::size_t(n)];
    document.moveSection(std::size_t(from) + 1, std::size_t(to) + 1);
    return renumber(document, oldOfSection, newIndex);
}

} // namespace nw::cfg
