#pragma once
// The Train panel's live curves, one QCustomPlot each: loss, average loss and validation (top-1 or
// mAP@0.5); learning rate and images/s; for detectors each head's IoU, objectness and class score.
// The axes follow the run until the user drags or zooms; a double-click follows it again.
#include "train/run_history.h"
#include "train/trainer.h"

#include <QStringList>

#include <QWidget>
#include <limits>

class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace nw::ui {

class TrainingCurves : public QWidget {
    Q_OBJECT
public:
    explicit TrainingCurves(QWidget* parent = nullptr);

    // No points; the validation curve named for a detector (mAP@0.5) or a classifier (top-1).
    void clear(bool detector);
    // Names the validation curve for the network's kind while it has no points.
    void setDetector(bool detector);
    // One iteration's figures, drawn at the next repaint.
    void add(const nw::IterationStats& stats);
    // The rows of an earlier run's metrics.csv before iteration `before` (a resumed run trimmed those
    // after its checkpoint).
    void addEarlierRun(const QString& metricsCsv, int before);
    // Points of the run on show (the iterations its progress signals skipped), drawn with the next add.
    void addRows(const std::vector<nw::MetricsRow>& rows, int before = std::numeric_limits<int>::max());
    // Another run's curves beside this one's, kept across runs until removed: its average loss
    // (dashed) and validation figures, "· label" in the legend. `id` (its metrics.csv) tells runs apart;
    // one of the same id is replaced.
    void addComparison(const QString& id, const QString& label, const std::vector<nw::MetricsRow>& rows);
    void removeComparison(const QString& id);
    QStringList comparisons() const; // their ids
    // Axes fitted to the curves up to at least `iteration` and drawn now (an earlier run shown).
    void showUpTo(int iteration);
    void setLogScale(bool on);
    // The curves as a PNG written whole, under `title` and above the rate plot; empty on success, else
    // why not.
    QString savePng(const QString& path, const QString& title = QString());

    QCustomPlot* plot() const { return plot_; }
    QCustomPlot* ratePlot() const { return rates_; }
    QCustomPlot* headPlot() const { return heads_; }

protected:
    // A palette change (a dark desktop theme): the plots' background, axes, grid and legend follow.
    void changeEvent(QEvent* event) override;
    // A narrow dock: the loss legend two entries to a row, or one (three to a row set the panel's
    // smallest width, wider than its dock at 150 % scaling).
    void resizeEvent(QResizeEvent* event) override;

private:
    void followPalette();
    void fitAxes(int iteration);
    void addHeadPoints(const nw::IterationStats& stats);
    void showReadout(QMouseEvent* event);

    QCustomPlot* plot_ = nullptr;  // loss, average loss, validation
    QCustomPlot* rates_ = nullptr; // learning rate and images/s
    QCustomPlot* heads_ = nullptr; // detectors: IoU, objectness, class score per head
    bool logScale_ = false;
    bool followRun_ = true; // the axes follow the run until the user zooms or drags
    int lastIteration_ = 0; // where a double-click fits the axes to
    // The run's own graphs come first (loss, average loss, validation); comparisons after them.
    static constexpr int kOwnGraphs = 3;
    struct Comparison {
        QString id;
        QCPGraph* loss = nullptr;
        QCPGraph* validation = nullptr; // null without validation rows
    };
    std::vector<Comparison> comparisons_;
    int comparisonsMade_ = 0; // (each new one the next colour, also after one was removed)
};

} // namespace nw::ui
