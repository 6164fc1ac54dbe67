#include "train/confusion_matrix.h"

#include <algorithm>
#include <cmath>

namespace nw {

ConfusionMatrix::ConfusionMatrix(int classes)
    : classes_(std::max(0, classes)), counts_(std::size_t(classes_) * std::size_t(classes_)),
      undecidedOf_(std::size_t(classes_))
{
}

void ConfusionMatrix::add(int truth, int chosen, std::size_t times)
{
    if (truth >= 0 && truth < classes_ && chosen >= 0 && chosen < classes_)
        counts_[std::size_t(truth) * std::size_t(classes_) + std::size_t(chosen)] += times;
}

void ConfusionMatrix::addUndecided(int truth, std::size_t times)
{
    if (truth >= 0 && truth < classes_) {
        undecidedOf_[std::size_t(truth)] += times;
        undecided_ += times;
    }
}

std::size_t ConfusionMatrix::undecidedOf(int truth) const
{
    return truth >= 0 && truth < classes_ ? undecidedOf_[std::size_t(truth)] : 0;
}

std::size_t ConfusionMatrix::count(int truth, int chosen) const
{
    if (truth < 0 || truth >= classes_ || chosen < 0 || chosen >= classes_)
        return 0;
    return counts_[std::size_t(truth) * std::size_t(classes_) + std::size_t(chosen)];
}

std::size_t ConfusionMatrix::imagesOf(int truth) const
{
    if (truth < 0 || truth >= classes_)
        return 0;
    std::size_t sum = undecidedOf_[std::size_t(truth)];
    for (int c = 0; c < classes_; ++c)
        sum += count(truth, c);
    return sum;
}

std::size_t ConfusionMatrix::chosenAs(int chosen) const
{
    std::size_t sum = 0;
    for (int t = 0; t < classes_; ++t)
        sum += count(t, chosen);
    return sum;
}

std::size_t ConfusionMatrix::images() const
{
    std::size_t sum = undecided_;
    for (std::size_t n : counts_)
        sum += n;
    return sum;
}

std::optional<double> ConfusionMatrix::recall(int c) const
{
    const std::size_t of = imagesOf(c);
    if (of == 0)
        return std::nullopt;
    return double(count(c, c)) / double(of);
}

std::optional<double> ConfusionMatrix::precision(int c) const
{
    const std::size_t as = chosenAs(c);
    if (as == 0)
        return std::nullopt;
    return double(count(c, c)) / double(as);
}

std::vector<ConfusionMatrix::Confusion> ConfusionMatrix::mostConfused(std::size_t most) const
{
    std::vector<Confusion> cells;
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

} // namespace nw
