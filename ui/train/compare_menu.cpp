#include "train/compare_menu.h"

#include "train/run_history.h"
#include "train/training_curves.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>

namespace nw::ui {

CompareMenu::CompareMenu(TrainingCurves& curves, std::function<QString()> folder, QWidget* parent)
    : QMenu(parent), curves_(curves), folder_(std::move(folder))
{
    setObjectName("compareMenu");
    connect(this, &QMenu::aboutToShow, this, &CompareMenu::rebuild);
    rebuild();
}

QString CompareMenu::runName(const QString& runFolder)
{
    const QString name = QFileInfo(runFolder).fileName();
    if (const auto stamp = setAsideStamp(name.toStdString())) {
        const QString time = QString::fromStdString(stamp->first); // 20261130-101200
        return tr("run %1-%2 %3:%4:%5%6")                          // (no year: the legend has three to a row)
            .arg(time.mid(4, 2), time.mid(6, 2), time.mid(9, 2), time.mid(11, 2), time.mid(13, 2),
                 stamp->second > 1 ? "-" + QString::number(stamp->second) : QString());
    }
    return name.isEmpty() ? runFolder : name;
}

bool CompareMenu::compareWith(const QString& metricsCsv, QString& error)
{
    std::string problem;
    const std::vector<MetricsRow> rows = readMetrics(metricsCsv.toStdString(), &problem);
    if (rows.empty()) {
        error = problem.empty()
                    ? tr("%1 holds no rows of a run (iteration, loss, …): nothing to compare").arg(metricsCsv)
                    : QString::fromStdString(problem);
        return false;
    }
    const QString name = runName(QFileInfo(metricsCsv).absolutePath());
    curves_.addComparison(QFileInfo(metricsCsv).absoluteFilePath(), name, rows);
    emit compared(name);
    return true;
}

void CompareMenu::rebuild()
{
    clear();
    const QString folder = folder_();
    bool any = false;
    for (const RunSummary& run :
         folder.isEmpty() ? std::vector<RunSummary>() : runsIn(folder.toStdString())) {
        if (run.name == ".") // (the run the curves show already)
            continue;
        any = true;
        const QString name = runName(QString::fromStdString(run.folder));
        QString text = tr("%1 — %2 iterations, average loss %3")
                           .arg(name)
                           .arg(run.iterations)
                           .arg(run.averageLoss, 0, 'f', 4);
        if (run.best)
            text += tr(", best %1 %2 % at %3")
                        .arg(run.bestIsMap ? tr("mAP@0.5") : tr("top-1"))
                        .arg(*run.best * 100, 0, 'f', 2)
                        .arg(run.bestIteration);
        text += run.finished ? tr(", finished") : tr(", stopped");
        QAction* action = addAction(text);
        action->setCheckable(true);
        const QString metrics = QFileInfo(QString::fromStdString(run.metricsPath)).absoluteFilePath();
        action->setChecked(curves_.comparisons().contains(metrics));
        connect(action, &QAction::toggled, this, [this, metrics](bool on) {
            QString error;
            if (!on)
                curves_.removeComparison(metrics);
            else if (!compareWith(metrics, error))
                emit message(error);
        });
    }
    if (!any)
        addAction(tr("No earlier runs in %1 (a fresh start sets the previous one aside there)")
                      .arg(QDir::toNativeSeparators(folder)))
            ->setEnabled(false);
    addSeparator();
    addAction(tr("Another run's metrics.csv…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(parentWidget(), tr("Compare with a run"), folder_(),
                                                          tr("Training metrics (metrics.csv *.csv)"));
        QString error;
        if (!path.isEmpty() && !compareWith(path, error))
            emit message(error);
    });
    QAction* clearAll = addAction(tr("Clear comparisons"), this, [this] {
        for (const QString& id : curves_.comparisons())
            curves_.removeComparison(id);
    });
    clearAll->setEnabled(!curves_.comparisons().isEmpty());
}

} // namespace nw::ui
