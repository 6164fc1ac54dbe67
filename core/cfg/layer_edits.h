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
// Removes layer `index`. References to it are left as they are (the description then reports them),
// references across it are renumbered.
void removeLayer(Document& document, int index);
// Moves layer `from` so that it becomes layer `to`.
void moveLayer(Document& document, int from, int to);

int layerCount(const Document& document);
// The keys that hold layer references, by section type (long names and aliases).
bool isReferenceKey(const std::string& sectionType, const std::string& key);

} // namespace nw::cfg
