#pragma once
// The Train panel's Per class page: how each class fared at the latest validation of the run. For a
// classifier, the confusion matrix (a row per true class, a column per class chosen, each cell shaded by
// its share of the row) and a sortable table of each class's images, recall, precision and the class
// its images were most often taken for; for a detector, each class's AP, boxes, true and false
// positives. Filled from the run's IterationStats (train_worker.h), so it follows a run live, from the
// run folder's <cfg>_classes.json after a restart, or by Evaluate for any weights.
#include "detect/map.h"
#include "train/confusion_matrix.h"

#include <QStringList>
#include <QWidget>
#include <vector>

class QLabel;
class QSplitter;
class QTableWidget;
class QToolButton;

namespace nw::ui {

class ClassResultsView : public QWidget {
    Q_OBJECT
public:
    explicit ClassResultsView(QWidget* parent = nullptr);

    // The names of the data set's classes (shorter lists: numbers stand in).
    void setClassNames(const QStringList& names) { names_ = names; }
    // `source` says what was scored: "Validation at iteration 200", "shapes-tiny.weights".
    void showConfusion(const QString& source, const nw::ConfusionMatrix& matrix);
    void showClassAps(const QString& source, const std::vector<nw::ClassAp>& classes);
    // Back to "no validation yet" (a new run).
    void clear();
    // A line in place of the headline while an evaluation runs (the last figures stay below it).
    void showNote(const QString& text);

    // For tests.
    QTableWidget* matrixTable() const { return matrix_; }
    QTableWidget* classTable() const { return classes_; }
    QLabel* headline() const { return headline_; }
    // Evaluate: scores weights on the validation set (its menu and clicks are the Train panel's).
    QToolButton* evaluateButton() const { return evaluate_; }

    // Matrices of more classes are left out (the table below still lists every class).
    static constexpr int kLargestMatrix = 60;

private:
    QString nameOf(int c) const;
    QLabel* headline_ = nullptr;
    QSplitter* split_ = nullptr; // the matrix above, the classes' table below
    QTableWidget* matrix_ = nullptr;
    QTableWidget* classes_ = nullptr;
    QLabel* confused_ = nullptr;
    QToolButton* evaluate_ = nullptr;
    QStringList names_;       // the data set's
    QStringList shown_;       // what the figures shown use
    QString figuresHeadline_; // what the figures shown are ("Validation at iteration 300: …"), or empty
};

} // namespace nw::ui
