#include "layers/softmax_tree.h"

#include "kernels/cpu/softmax.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace nw {

std::optional<SoftmaxTree> SoftmaxTree::load(const std::string& path, std::string& error)
{
    // A regular file of sane size: the cfg is parsed on every edit in the studio, and a FIFO or
    // /dev/zero named here must not block or fill memory. (9k.tree is 150 KB.)
    std::error_code failed;
    if (!std::filesystem::is_regular_file(path, failed) ||
        std::filesystem::file_size(path, failed) > 64u << 20) {
        error = path +
                ": cannot read the class tree (expected a .tree file of at most 64 MB: one \"name parent\" " +
                "line per class)";
        return std::nullopt;
    }
    std::ifstream file(path);
    if (!file) {
        error = path + ": cannot read the class tree (a .tree file: one \"name parent\" line per class)";
        return std::nullopt;
    }
    SoftmaxTree tree;
    std::string line;
    int lineNumber = 0, lastParent = -1, groupSize = 0;
    // As Darknet's read_tree: a new group starts whenever the parent changes.
    while (std::getline(file, line)) {
        ++lineNumber;
        std::istringstream fields(line);
        std::string name;
        int parent = -1;
        if (!(fields >> name))
            continue; // blank line
        if (!(fields >> parent) || parent < -1 || parent >= tree.size()) {
            error = path + ":" + std::to_string(lineNumber) +
                    ": expected \"name parent\" with parent −1 or an " + "earlier line's index (0 to " +
                    std::to_string(tree.size() - 1) + ")";
            return std::nullopt;
        }
        if (parent != lastParent) {
            tree.groupOffset.push_back(tree.size() - groupSize);
            tree.groupSize.push_back(groupSize);
            groupSize = 0;
            lastParent = parent;
        }
        const int group = tree.groups();
        tree.names.push_back(name);
        tree.parent.push_back(parent);
        tree.child.push_back(-1);
        tree.leaf.push_back(true);
        if (parent >= 0) {
            tree.child[std::size_t(parent)] = group;
            tree.leaf[std::size_t(parent)] = false;
        }
        ++groupSize;
    }
    tree.groupOffset.push_back(tree.size() - groupSize);
    tree.groupSize.push_back(groupSize);
    if (tree.size() == 0) {
        error = path + ": the class tree is empty";
        return std::nullopt;
    }
    return tree;
}

std::shared_ptr<const SoftmaxTree> loadTreeFor(const std::string& path, const std::string& cfgFile,
                                               std::string& error)
{
    namespace fs = std::filesystem;
    std::string chosen = path;
    std::error_code ignored;
    if (fs::path(path).is_relative() && !fs::exists(path, ignored) && !cfgFile.empty()) {
        // Beside the cfg, or from the folder above it (Darknet's cfgs say data/9k.tree from its root).
        const fs::path folder = fs::path(cfgFile).parent_path();
        for (const fs::path& candidate : {folder / path, folder.parent_path() / path})
            if (fs::exists(candidate, ignored)) {
                chosen = candidate.string();
                break;
            }
    }
    auto tree = SoftmaxTree::load(chosen, error);
    if (!tree)
        return nullptr;
    return std::make_shared<const SoftmaxTree>(std::move(*tree));
}

void treeSoftmax(const float* in, float* out, const SoftmaxTree& tree, std::size_t stride, float temperature)
{
    for (int g = 0; g < tree.groups(); ++g) {
        const std::size_t offset = std::size_t(tree.groupOffset[std::size_t(g)]) * stride;
        softmax(in + offset, std::size_t(tree.groupSize[std::size_t(g)]), stride, temperature, out + offset);
    }
}

void hierarchyPredictions(float* p, const SoftmaxTree& tree, std::size_t stride, bool onlyLeaves)
{
    for (int j = 0; j < tree.size(); ++j) {
        const int parent = tree.parent[std::size_t(j)];
        if (parent >= 0)
            p[std::size_t(j) * stride] *= p[std::size_t(parent) * stride];
    }
    if (onlyLeaves)
        for (int j = 0; j < tree.size(); ++j)
            if (!tree.leaf[std::size_t(j)])
                p[std::size_t(j) * stride] = 0;
}

int hierarchyTopPrediction(const float* p, const SoftmaxTree& tree, float threshold, std::size_t stride)
{
    float product = 1;
    int group = 0;
    for (;;) {
        float best = 0;
        int bestClass = 0;
        const int offset = tree.groupOffset[std::size_t(group)];
        for (int i = 0; i < tree.groupSize[std::size_t(group)]; ++i) {
            const float value = p[std::size_t(offset + i) * stride];
            if (value > best) {
                best = value;
                bestClass = offset + i;
            }
        }
        if (product * best > threshold) {
            product *= best;
            group = tree.child[std::size_t(bestClass)];
            if (group < 0)
                return bestClass;
        } else if (group == 0) {
            return bestClass;
        } else {
            return tree.parent[std::size_t(offset)];
        }
    }
}

} // namespace nw
