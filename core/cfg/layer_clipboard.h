#pragma once
// Copy, paste and delete of several layers at once. Copied layers are plain cfg text (their sections
// as written), so they paste into any cfg or a text editor. Layer i is section i + 1.
#include "cfg/document.h"

#include <string>
#include <string_view>
#include <vector>

namespace nw::cfg {

// The sections of `layers` (in index order, each once) as cfg text. A reference from one of them to
// another is written relative, counted among the copies (they paste as one block).
std::string layersText(const Document& document, std::vector<int> layers);
// Inserts the layer sections of cfg `text` so that the first becomes layer `index` ([net] sections
// in it are skipped; keys and values kept, comments not). References in the inserted layers are left
// as written — relative ones between copied layers (layersText's) keep pointing at each other — and
// references of the layers already there are renumbered. Returns how many layers were inserted; 0 with
// `error` when the text holds no layer section.
int insertLayersText(Document& document, int index, std::string_view text, std::string& error);
// Removes `layers` (any order) as one edit; references across them are renumbered. Returns "" or the
// first reference of a kept layer to a removed one (as removeLayer).
std::string removeLayers(Document& document, std::vector<int> layers);

} // namespace nw::cfg
