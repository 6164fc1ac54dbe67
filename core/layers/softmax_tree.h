#pragma once
// yolo9000's class hierarchy (Darknet's .tree files, e.g. 9k.tree): one "name parent" line per class,
// parents before their children, siblings on consecutive lines. Each run of siblings is a group; the
// hierarchical softmax normalises each group on its own, so a class's score is the probability given its
// parent, and multiplying down the tree (hierarchyPredictions) gives absolute ones.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct SoftmaxTree {
    std::vector<std::string> names;
    std::vector<int> parent; // −1 for a root
    std::vector<int> child;  // the group of a class's children, −1 for a leaf
    std::vector<bool> leaf;
    std::vector<int> groupOffset, groupSize;

    int size() const { return int(parent.size()); }
    int groups() const { return int(groupSize.size()); }

    // Reads a .tree file; nullopt and `error` naming the file (and line) when it cannot.
    static std::optional<SoftmaxTree> load(const std::string& path, std::string& error);
};

// The tree a [softmax] or [region] names with tree=: read from the path as given (Darknet reads it from
// the working directory), or, when relative and not found there, beside the cfg or from the folder
// above it (Darknet's cfg/ and data/ side by side). Errors as load's.
std::shared_ptr<const SoftmaxTree> loadTreeFor(const std::string& path, const std::string& cfgFile,
                                               std::string& error);

// softmax(x / temperature) over each group, the classes' values `stride` apart (in → out).
void treeSoftmax(const float* in, float* out, const SoftmaxTree& tree, std::size_t stride, float temperature);
// Darknet's hierarchy_predictions: each class's probability times its parent's (parents first), so
// every value becomes absolute; onlyLeaves zeroes the inner classes (the classifier's top-k).
void hierarchyPredictions(float* p, const SoftmaxTree& tree, std::size_t stride, bool onlyLeaves);
// Darknet's hierarchy_top_prediction: down from the roots, into the likeliest child while the running
// product of the winners stays above `threshold`; returns the class where it stops.
int hierarchyTopPrediction(const float* p, const SoftmaxTree& tree, float threshold, std::size_t stride);

} // namespace nw
