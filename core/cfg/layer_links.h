#pragma once
// Editing which earlier layers a layer reads: route `layers=`, shortcut/sam/scale_channels `from=`.
// New references are written relative (source − layer), as Darknet's own cfgs write them; existing
// ones keep their style. Layer i is section i + 1.
#include "cfg/document.h"

#include <string>
#include <vector>

namespace nw::cfg {

// The layers `layer` reads through its reference key, as absolute indices in the order written.
std::vector<int> referencedLayers(const Document& document, int layer);
// Makes `layer` read `source`: a [route] gains it as one more input (concatenated last); a
// shortcut/sam/scale_channels reads it instead of its current `from`. Returns why it cannot (empty
// when done): the source is not an earlier layer, or the layer reads only the one before it.
std::string connectLayers(Document& document, int source, int layer);
// Stops route `layer` from reading `source` (a route keeps at least one input; the other layer types
// always read one, so they are reconnected rather than disconnected). Returns why not, or empty.
std::string disconnectLayers(Document& document, int source, int layer);
// Makes the reference of `layer` that points at `oldSource` point at `newSource`, in its own style.
void repointReference(Document& document, int layer, int oldSource, int newSource);

} // namespace nw::cfg
