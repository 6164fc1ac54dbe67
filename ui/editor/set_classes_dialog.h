#pragma once
// Edit ▸ Set classes: the number of classes asked once, and every edit it takes shown before it is
// made (each head's classes=, the filters=/output= before it, optionally AlexeyAB's max_batches and
// steps) — the chore AlexeyAB's README describes, done in one undo step (core/graph/set_classes.h).
#include "graph/set_classes.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace nw::ui {

class SetClassesDialog : public QDialog {
    Q_OBJECT
public:
    // `suggested` (0: none) is the classes of the .data file `dataName` chosen for training.
    SetClassesDialog(const NetworkSpec& spec, int suggested, const QString& dataName,
                     QWidget* parent = nullptr);

    // The edits for the classes and options chosen (empty with an error, or when nothing changes).
    const ClassesPlan& plan() const { return plan_; }

    // For tests.
    QSpinBox* classesBox() const { return classes_; }
    QCheckBox* scheduleBox() const { return schedule_; }
    QLabel* preview() const { return preview_; }
    QPushButton* okButton() const { return ok_; }

private:
    void replan();

    const NetworkSpec& spec_;
    ClassesPlan plan_;
    QSpinBox* classes_ = nullptr;
    QCheckBox* schedule_ = nullptr;
    QLabel* scheduleRule_ = nullptr; // the rule the box applies, in words that wrap
    QLabel* preview_ = nullptr;
    QPushButton* ok_ = nullptr;
};

// "Set classes = 5 (4 edits)": the undo step's text.
QString setClassesStepText(int classes, const ClassesPlan& plan);

} // namespace nw::ui
