#include "train/confusion_matrix.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nw {

ConfusionMatrix::ConfusionMatrix(int classes)
    : classes_(std::max(0, classes)), right_(std::size_t(classes_)), ofTruth_(std::size_t(classes_)),
      chosen_(std::size_t(classes_)), undecidedOf_(std::size_t(classes_))
{
    if (hasCells())
        cells_.resize(std::size_t(classes_) * std::size_t(classes_));
}

void ConfusionMatrix::add(int truth, int chosen, std::size_t times)
{
    if (!inRange(truth) || !inRange(chosen))
        return;
    if (hasCells())
        cells_[std::size_t(truth) * std::size_t(classes_) + std::size_t(chosen)] += times;
    if (truth == chosen)
        right_[std::size_t(truth)] += times;
    ofTruth_[std::size_t(truth)] += times;
    chosen_[std::size_t(chosen)] += times;
}

void ConfusionMatrix::addUndecided(int truth, std::size_t times)
{
    if (!inRange(truth))
        return;
    undecidedOf_[std::size_t(truth)] += times;
    ofTruth_[std::size_t(truth)] += times;
    undecided_ += times;
}

std::size_t ConfusionMatrix::count(int truth, int chosen) const
{
    if (!inRange(truth) || !inRange(chosen))
        return 0;
    if (hasCells())
        return cells_[std::size_t(truth) * std::size_t(classes_) + std::size_t(chosen)];
    return truth == chosen ? right_[std::size_t(truth)] : 0;
}

std::size_t ConfusionMatrix::imagesOf(int truth) const
{
    return inRange(truth) ? ofTruth_[std::size_t(truth)] : 0;
}

std::size_t ConfusionMatrix::chosenAs(int chosen) const
{
    return inRange(chosen) ? chosen_[std::size_t(chosen)] : 0;
}

std::size_t ConfusionMatrix::undecidedOf(int truth) const
{
    return inRange(truth) ? undecidedOf_[std::size_t(truth)] : 0;
}

std::size_t ConfusionMatrix::images() const
{
    return std::accumulate(ofTruth_.begin(), ofTruth_.end(), std::size_t(0));
}

std::optional<double> ConfusionMatrix::recall(int c) const
{
    const std::size_t of = imagesOf(c);
    if (of == 0)
        return std::nullopt;
    return double(right_[std::size_t(c)]) / double(of);
}

std::optional<double> ConfusionMatrix::precision(int c) const
{
    const std::size_t as = chosenAs(c);
    if (as == 0)
        return std::nullopt;
    return double(right_[std::size_t(c)]) / double(as);
}

std::vector<ConfusionMatrix::Confusion> ConfusionMatrix::mostConfused(std::size_t most) const
{
    std::vector<Confusion> cells;
    if (!hasCells())
        return cells;
    for (int t = 0; t < classes_; ++t)
        for (int c = 0; c < classes_; ++c)
            if (t != c && count(t, c) > 0)
                cells.push_back({t, c, count(t, c)});
    // (stable: the row-major order breaks ties)
    std::stable_sort(cells.begin(), cells.end(),
                     [](const Confusion& a, const Confusion& b) { return a.count > b.count; });
    if (cells.size() > most)
        cells.resize(most);
    return cells;
}

std::optional<int> ConfusionMatrix::mostOftenTakenFor(int truth) const
{
    std::optional<int> worst;
    if (!hasCells() || !inRange(truth))
        return worst;
    for (int other = 0; other < classes_; ++other)
        if (other != truth && count(truth, other) > 0 &&
            (!worst || count(truth, other) > count(truth, *worst)))
            worst = other;
    return worst;
}

std::optional<int> chosenClass(const float* scores, std::size_t count)
{
    if (count == 0)
        return std::nullopt;
    if (count == 1)
        return std::isnan(scores[0]) ? std::nullopt : std::optional<int>(scores[0] >= 0.5f ? 0 : 1);
    std::size_t best = 0;
    for (std::size_t c = 0; c < count; ++c) {
        if (std::isnan(scores[c]))
            return std::nullopt;
        if (scores[c] > scores[best])
            best = c;
    }
    return int(best);
}

std::vector<std::string> confusionClassNames(std::vector<std::string> names, int classes)
{
    if (classes == 2 && names.size() == 1 && !names[0].empty())
        names.push_back("not " + names[0]);
    names.resize(std::size_t(std::max(0, classes)));
    for (std::size_t c = 0; c < names.size(); ++c)
        if (names[c].empty())
            names[c] = "class " + std::to_string(c);
    return names;
}

} // namespace nw
