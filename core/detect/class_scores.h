#pragma once
// A classifier's scores for one image, as Darknet's predict_classifier gives them.
#include "runtime/net.h"

#include <vector>

namespace nw {

// The net's output for batch item `item`; after a hierarchical softmax (darknet9000's tree) the leaves'
// absolute probabilities, inner classes 0 (Darknet's hierarchy_predictions with only the leaves).
std::vector<float> classScores(const Net& net, int item);

// Whether those scores are probabilities: the network ends (before a [cost] or [dropout]) in a
// [softmax], a [logistic] or a layer with activation=logistic; otherwise they are raw scores.
bool scoresAreProbabilities(const NetworkSpec& spec);

} // namespace nw
