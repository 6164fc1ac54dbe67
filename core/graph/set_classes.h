#pragma once
// Set classes: the edits that take a network to another number of classes, as AlexeyAB's README says to
// do by hand — classes= in every detection head and, in the layer that feeds each head, filters=
// ((classes + 5)·anchors for [yolo]) or output= (before a [detection]); for a classifier, the
// filters=/output= of the layer that gives its outputs. Planned from the network description (which
// layer feeds which head), applied to the document as plain key edits.
#include "cfg/document.h"
#include "graph/network_spec.h"

#include <string>
#include <vector>

namespace nw {

struct KeyEdit {
    std::size_t section = 0; // the document's section ([net] is 0)
    std::string key, value;
    std::string where; // "layer 30 [yolo]" or "[net]", for previews
};

struct ClassesPlan {
    std::vector<KeyEdit> edits; // empty when the network already has these classes (or on error)
    std::string error;          // why it cannot be done, naming the layer and what to do instead
    int currentClasses = 0;     // the classes the network has now (0 when not known)
    bool detector = false;      // heads were changed (else a classifier's output)
};

// `schedule`: also [net] max_batches = 2000·classes (at least 6000 and at least `trainingImages`, the
// training list's images when known) and, for the steps policy, steps at 80 % and 90 % of it:
// AlexeyAB's rule for training a detector on new classes (a classifier: ignored).
ClassesPlan planClasses(const NetworkSpec& spec, int classes, bool schedule = false,
                        long long trainingImages = 0);
void applyEdits(cfg::Document& document, const std::vector<KeyEdit>& edits);

// The layer whose filters=/output= gives a classifier its outputs: the last layer that sets a channel
// count (Darknet's conv → avgpool → softmax: the convolution); nullptr when there is none.
const LayerSpec* outputSizeLayer(const NetworkSpec& spec);
// Its key as the section spells it: "filters", "output" ([connected], recurrent layers) or, for a
// [crnn], "output_filters" unless the section writes AlexeyAB's "output".
std::string outputSizeKey(const NetworkSpec& spec, const LayerSpec& layer);

} // namespace nw
