#pragma once
// A classifier's answers on a labelled set, counted by true class (rows) and chosen class (columns):
// which classes it mixes up, and each class's recall and precision. `valid` prints it, training's
// validation passes fill it and the studio's Per class view draws it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nw {

class ConfusionMatrix {
public:
    // Up to this many classes every cell is kept; beyond, only each class's images, answers and right
    // answers (ImageNet-22k's 21,843 classes would take 3.8 GB of cells).
    static constexpr int kLargestWithCells = 1024;

    explicit ConfusionMatrix(int classes = 0);

    int classes() const { return classes_; }
    bool hasCells() const { return classes_ <= kLargestWithCells; }
    // `times` images of class `truth` answered `chosen` (both in [0, classes), else ignored).
    void add(int truth, int chosen, std::size_t times = 1);
    // `times` images of class `truth` with no answer (a NaN score): counted against its recall.
    void addUndecided(int truth, std::size_t times = 1);

    // A cell; off the diagonal 0 without cells (hasCells()).
    std::size_t count(int truth, int chosen) const;
    std::size_t images() const;             // every image counted, undecided included
    std::size_t imagesOf(int truth) const;  // the row's sum, undecided included
    std::size_t chosenAs(int chosen) const; // the column's sum
    std::size_t undecided() const { return undecided_; }
    std::size_t undecidedOf(int truth) const;
    // Of the images of class c, the share answered c (nullopt: no image of c).
    std::optional<double> recall(int c) const;
    // Of the images answered c, the share that were c (nullopt: c was never chosen).
    std::optional<double> precision(int c) const;

    struct Confusion {
        int truth = 0, chosen = 0;
        std::size_t count = 0;
    };
    // The largest off-diagonal cells, largest first (ties: by truth, then chosen), at most `most`; none
    // without cells.
    std::vector<Confusion> mostConfused(std::size_t most) const;
    // The class row `truth`'s images were most often taken for (nullopt: none, or no cells).
    std::optional<int> mostOftenTakenFor(int truth) const;

private:
    bool inRange(int c) const { return c >= 0 && c < classes_; }
    int classes_ = 0;
    std::vector<std::size_t> cells_; // classes × classes, row-major by truth (when hasCells())
    std::vector<std::size_t> right_, ofTruth_, chosen_, undecidedOf_;
    std::size_t undecided_ = 0;
};

// The class a classifier's scores choose: the highest (the first of equal ones); a single score is a
// binary classifier's probability of class 0 (class 0 from ½ up, as training scores it; its negatives
// are class 1). nullopt when a score is NaN.
std::optional<int> chosenClass(const float* scores, std::size_t count);

// The names of a matrix's `classes`: `names` in order, "not <name>" for a binary classifier's second
// class (its one name is class 0's), "class N" where a name is missing.
std::vector<std::string> confusionClassNames(std::vector<std::string> names, int classes);

} // namespace nw
