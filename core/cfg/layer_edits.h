#pragma once
// Structural edits of a cfg document's layers that keep every layer reference pointing at the same
// layer: route `layers=`, shortcut/sam/scale_channels `from=`. Relative references (-1, -4) stay
// relative and absolute ones stay absolute; only their numbers change, and only where they must.
// Layer i is section i + 1 (section 0 is [net]).
#include "cfg/document.h"

#include <string>
#include <utility>
#include <vector>

namespace nw::cfg {

// Inserts a new layer so that it becomes layer `index` (0 ≤ index ≤ layer count).
void insertLayer(Document& document, int index, const std::string& type,
                 const std::vector<std::pair<std::string, std::string>>& entries);
// Removes layer `index`; references across it are renumbered. Returns "" or, when another layer reads
// it, what that reference is (the document is then changed anyway: callers working on a copy refuse).
std::string removeLayer(Document& document, int index);
// Removes every layer of `layers` (valid indexes, any order) in one step, as removeLayer.
std::string removeLayerSet(Document& document, const std::vector<int>& layers);
// Moves layer `from` so that it becomes layer `to`. Returns "" or the reference the move would break (a
// layer that would come before what it reads), as removeLayer.
std::string moveLayer(Document& document, int from, int to);

int layerCount(const Document& document);
// Whether section 0 is [net] (or [network]). A cfg that starts with a layer has none: its sections are
// no layers until one is added.
bool startsWithNet(const Document& document);
// Puts a [net] section with `entries` at the top of a document that starts with a layer, whose sections
// become layers 0, 1, … (nothing else changes).
void addNetSection(Document& document, const std::vector<std::pair<std::string, std::string>>& entries);
// The keys that hold layer references, by section type (long names and aliases).
bool isReferenceKey(const std::string& sectionType, const std::string& key);

} // namespace nw::cfg
