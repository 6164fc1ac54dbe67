#pragma once
// The Training panel's Compare menu: the earlier runs in the output folder (those a fresh start set aside
// in previous-… folders), each with its iterations, last average loss and best validation figure, to
// draw beside the run shown; any other run's metrics.csv; and a way to clear them again.
#include <QMenu>
#include <functional>

namespace nw::ui {

class TrainingCurves;

class CompareMenu : public QMenu {
    Q_OBJECT
public:
    // `folder`: the output folder as the panel has it now.
    CompareMenu(TrainingCurves& curves, std::function<QString()> folder, QWidget* parent = nullptr);
    // The legend's name of a run in folder `runFolder` ("run 11-30 10:12" for previous-20261130-101200).
    static QString runName(const QString& runFolder);
    // Adds the run whose metrics.csv is `metricsCsv`; false (with `error`) when it has no rows.
    bool compareWith(const QString& metricsCsv, QString& error);

signals:
    // Why a run could not be compared.
    void message(const QString& text);
    // A run was drawn beside this one (its legend name).
    void compared(const QString& name);

private:
    void rebuild();

    TrainingCurves& curves_;
    std::function<QString()> folder_;
};

} // namespace nw::ui
