#include "train/training_curves.h"

#include "window/whole_file.h"

#include <QFontMetrics>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>
#include <utility>

namespace nw::ui {

namespace {

// The legend in a row of its own above the axes, laid out left to right: inside the axes it covered
// the newest points (validation points come in at the right).
void legendAbove(QCustomPlot* plot)
{
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend); // moves it out of the axes' inset
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
}

QString validationName(bool detector)
{
    return detector ? QObject::tr("validation mAP@0.5") : QObject::tr("validation top-1");
}

} // namespace

TrainingCurves::TrainingCurves(QWidget* parent) : QWidget(parent)
{
    plot_ = new QCustomPlot(this);
    // (220 cut the axis's title off in the Training dock of a 1280×720 screen's window during a run)
    plot_->setMinimumHeight(190);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    legendAbove(plot_);
    plot_->legend->setWrap(3); // the run's three curves in a row, compared runs' in rows below
    plot_->xAxis->setLabel(tr("iteration"));
    plot_->yAxis->setLabel(tr("loss"));
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("validation (%)")); // top-1 or mAP@0.5: the legend says which
    plot_->yAxis2->setRange(0, 100);
    plot_->addGraph()->setName(tr("loss"));
    plot_->graph(0)->setPen(QPen(QColor(120, 160, 220), 1));
    plot_->addGraph()->setName(tr("average loss"));
    plot_->graph(1)->setPen(QPen(QColor(20, 70, 160), 2));
    plot_->addGraph(plot_->xAxis, plot_->yAxis2)->setName(validationName(false));
    plot_->graph(2)->setPen(QPen(QColor(220, 110, 20), 2));
    plot_->graph(2)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));

    rates_ = new QCustomPlot(this);
    rates_->setFixedHeight(140);
    rates_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    rates_->yAxis->setLabel(tr("learning rate"));
    rates_->yAxis2->setVisible(true);
    rates_->yAxis2->setLabel(tr("images/s"));
    rates_->addGraph()->setName(tr("learning rate"));
    rates_->graph(0)->setPen(QPen(QColor(120, 40, 160), 1.5));
    rates_->addGraph(rates_->xAxis, rates_->yAxis2)->setName(tr("images/s"));
    rates_->graph(1)->setPen(QPen(QColor(40, 150, 90), 1));
    legendAbove(rates_);
    // About 70 pixels of axis: three ticks each side (QCustomPlot's five came out as seven labels,
    // "6e-7" to "0", written over one another).
    for (QCPAxis* axis : {rates_->yAxis, rates_->yAxis2})
        axis->ticker()->setTickCount(3);
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), rates_->xAxis,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    heads_ = new QCustomPlot(this);
    heads_->setFixedHeight(150);
    heads_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    heads_->yAxis->setLabel(tr("detection heads"));
    heads_->yAxis->setRange(0, 1);
    // Its legend in a column of its own at the right (inside the axes six entries covered the curves),
    // one column per two heads; the plot keeps its height.
    heads_->legend->setVisible(true);
    heads_->legend->setFont(QFont(font().family(), 7));
    heads_->legend->setBorderPen(Qt::NoPen);
    heads_->legend->setRowSpacing(0);
    heads_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    heads_->legend->setWrap(6);
    heads_->plotLayout()->addElement(0, 1, heads_->legend); // moves it out of the axes' inset
    heads_->plotLayout()->setColumnStretchFactor(1, 0.001);
    heads_->setVisible(false); // shown when a detector reports its heads
    // Narrower than their legends need: resizeEvent wraps the legends to fit.
    for (QCustomPlot* p : {plot_, rates_, heads_})
        p->setMinimumWidth(200);
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), heads_->xAxis,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(plot_, &QCustomPlot::mouseMove, this, &TrainingCurves::showReadout);
    // A drag or a wheel turn looks closer and stops the axes following the run (each new point reset
    // them within 50 ms); a double-click follows it again.
    for (QCustomPlot* p : {plot_, rates_, heads_}) {
        if (p != plot_) // (the loss plot's tooltip is the readout, which says it too)
            p->setToolTip(tr("Drag or turn the wheel to look closer; double-click to follow the run again."));
        // (a plain click moves nothing: only a press that moves, a drag, stops the following)
        connect(p, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
            if (event->buttons() & Qt::LeftButton)
                followRun_ = false;
        });
        connect(p, &QCustomPlot::mouseWheel, this, [this] { followRun_ = false; });
        connect(p, &QCustomPlot::mouseDoubleClick, this, [this] {
            followRun_ = true;
            fitAxes(lastIteration_);
            plot_->replot();
            rates_->replot();
        });
    }

    // Figures as the status line and the log write them (0.001, 2.5·10⁻⁵): under a German locale the
    // axes wrote "2,5E-05", which QCustomPlot's powers of ten do not recognise, in overlapping rows.
    for (QCustomPlot* p : {plot_, rates_, heads_})
        p->setLocale(QLocale::c());

    followPalette();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_, 1);
    layout->addWidget(rates_);
    layout->addWidget(heads_);
}

void TrainingCurves::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int perRow = width() >= 380 ? 3 : width() >= 260 ? 2 : 1;
    for (QCustomPlot* p : {plot_, rates_})
        if (p->legend->wrap() != perRow) {
            p->legend->setWrap(perRow);
            p->replot(QCustomPlot::rpQueuedReplot);
        }
}

void TrainingCurves::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        followPalette();
}

// QCustomPlot paints white with black axes whatever the palette: on a dark desktop three white blocks.
void TrainingCurves::followPalette()
{
    const QColor base = palette().color(QPalette::Base), text = palette().color(QPalette::Text);
    QColor grid = palette().color(QPalette::Mid);
    grid.setAlpha(110);
    for (QCustomPlot* p : {plot_, rates_, heads_}) {
        p->setBackground(palette().color(QPalette::Window));
        p->axisRect()->setBackground(base);
        for (QCPAxis* axis : p->axisRect()->axes()) {
            axis->setBasePen(QPen(text));
            axis->setTickPen(QPen(text));
            axis->setSubTickPen(QPen(text));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
        }
        p->legend->setBrush(palette().color(QPalette::Window));
        p->legend->setTextColor(text);
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void TrainingCurves::clear(bool detector)
{
    for (int g = 0; g < kOwnGraphs; ++g) // (the comparisons stay: a new run is what they are for)
        plot_->graph(g)->data()->clear();
    for (int g = 0; g < rates_->graphCount(); ++g)
        rates_->graph(g)->data()->clear();
    heads_->clearGraphs();
    heads_->setVisible(false);
    plot_->graph(2)->setName(validationName(detector));
    followRun_ = true;
    lastIteration_ = 0;
    // Axes as for a new plot (the last run's loss range stayed over an empty plot: 0–108 for a network
    // whose loss is 2), then fitted to what is compared.
    plot_->yAxis->setRange(0, 1);
    for (int g = 0; g < 2; ++g)
        rates_->graph(g)->valueAxis()->setRange(0, 1);
    fitAxes(0);
    plot_->replot();
    rates_->replot();
}

void TrainingCurves::setDetector(bool detector)
{
    if (plot_->graph(2)->data()->isEmpty()) {
        plot_->graph(2)->setName(validationName(detector));
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void TrainingCurves::add(const nw::IterationStats& s)
{
    lastIteration_ = s.iteration;
    plot_->graph(0)->addData(s.iteration, s.loss);
    plot_->graph(1)->addData(s.iteration, s.averageLoss);
    rates_->graph(0)->addData(s.iteration, double(s.learningRate));
    rates_->graph(1)->addData(s.iteration, s.imagesPerSecond);
    if (s.validTop1)
        plot_->graph(2)->addData(s.iteration, *s.validTop1 * 100);
    if (s.map50 || !s.heads.empty()) // (the run's own word, should the edited cfg have changed kind)
        plot_->graph(2)->setName(validationName(true));
    if (s.map50)
        plot_->graph(2)->addData(s.iteration, *s.map50 * 100);
    addHeadPoints(s);
    if (followRun_)
        fitAxes(s.iteration);
    plot_->replot(QCustomPlot::rpQueuedReplot);
    rates_->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingCurves::addEarlierRun(const QString& metricsCsv, int before)
{
    addRows(readMetrics(metricsCsv.toStdString()), before);
}

void TrainingCurves::addRows(const std::vector<nw::MetricsRow>& rows, int before)
{
    for (const MetricsRow& row : rows) {
        if (row.iteration >= before)
            continue;
        plot_->graph(0)->addData(row.iteration, row.loss);
        plot_->graph(1)->addData(row.iteration, row.averageLoss);
        rates_->graph(0)->addData(row.iteration, row.learningRate); // the rates of the earlier run too
        rates_->graph(1)->addData(row.iteration, row.imagesPerSecond);
        if (row.validTop1)
            plot_->graph(2)->addData(row.iteration, *row.validTop1 * 100);
        if (row.map50)
            plot_->graph(2)->addData(row.iteration, *row.map50 * 100);
    }
}

void TrainingCurves::addComparison(const QString& id, const QString& name,
                                   const std::vector<nw::MetricsRow>& rows)
{
    removeComparison(id);
    // Colours apart from the run's own blues and orange, one per comparison in turn.
    const QColor colours[] = {QColor(150, 150, 150), QColor(190, 60, 120), QColor(60, 150, 140),
                              QColor(140, 110, 40)};
    const QColor colour = colours[comparisonsMade_++ % 4];
    Comparison comparison{id};
    comparison.loss = plot_->addGraph();
    comparison.loss->setName(tr("avg loss · %1").arg(name));
    comparison.loss->setPen(QPen(colour, 1.5, Qt::DashLine));
    const bool map =
        std::any_of(rows.begin(), rows.end(), [](const MetricsRow& r) { return r.map50.has_value(); });
    for (const MetricsRow& row : rows) {
        comparison.loss->addData(row.iteration, row.averageLoss);
        if (const std::optional<double> figure = map ? row.map50 : row.validTop1) {
            if (!comparison.validation) {
                comparison.validation = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
                comparison.validation->setName((map ? tr("mAP@0.5 · %1") : tr("top-1 · %1")).arg(name));
                comparison.validation->setPen(QPen(colour, 1.5, Qt::DotLine));
                comparison.validation->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 6));
            }
            comparison.validation->addData(row.iteration, *figure * 100);
        }
    }
    comparisons_.push_back(comparison);
    if (followRun_) // (a view the user zoomed stays)
        fitAxes(lastIteration_);
    plot_->replot();
    rates_->replot();
}

void TrainingCurves::removeComparison(const QString& id)
{
    for (auto it = comparisons_.begin(); it != comparisons_.end(); ++it)
        if (it->id == id) {
            plot_->removeGraph(it->loss);
            if (it->validation)
                plot_->removeGraph(it->validation);
            comparisons_.erase(it);
            plot_->replot();
            return;
        }
}

QStringList TrainingCurves::comparisons() const
{
    QStringList names;
    for (const Comparison& comparison : comparisons_)
        names << comparison.id;
    return names;
}

void TrainingCurves::showUpTo(int iteration)
{
    lastIteration_ = iteration;
    fitAxes(iteration);
    plot_->replot();
    rates_->replot();
}

void TrainingCurves::setLogScale(bool on)
{
    logScale_ = on;
    plot_->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    plot_->replot();
}

QString TrainingCurves::savePng(const QString& path, const QString& title)
{
    // A heading (what, how far, the best figure), the losses and validation, then the learning rate and
    // pace, as Darknet's chart.png has them on one image (the plot alone said none of it).
    const QImage curves = plot_->toPixmap().toImage();
    const QImage rates = rates_->isVisible() ? rates_->toPixmap().toImage() : QImage();
    const int heading = title.isEmpty() ? 0 : 34;
    QFont titleFont = plot_->font();
    titleFont.setPixelSize(15);
    titleFont.setBold(true);
    const int titleWidth = heading > 0 ? QFontMetrics(titleFont).horizontalAdvance(title) + 20 : 0;
    QImage whole(std::max({curves.width(), rates.width(), titleWidth}),
                 heading + curves.height() + rates.height(), QImage::Format_RGB32);
    whole.fill(curves.isNull() ? QColor(Qt::white) : curves.pixelColor(0, 0)); // (the plot's own background)
    QPainter painter(&whole);
    if (heading > 0) {
        painter.setFont(titleFont);
        painter.setPen(plot_->xAxis->labelColor());
        painter.drawText(QRect(10, 0, whole.width() - 20, heading), Qt::AlignVCenter | Qt::AlignLeft, title);
    }
    painter.drawImage(0, heading, curves);
    if (!rates.isNull())
        painter.drawImage(0, heading + curves.height(), rates);
    painter.end();
    return saveWholeImage(whole, path);
}

void TrainingCurves::fitAxes(int iteration)
{
    // Up to the last point drawn, which a resumed run's earlier curve may put past the progress bar
    // (a run stopped before its first iteration leaves the bar at 0).
    bool found = false;
    double lastKey = 0;
    for (int g = 0; g < plot_->graphCount(); ++g) // (a longer run compared with this one: all of it)
        if (const QCPRange keys = plot_->graph(g)->getKeyRange(found); found)
            lastKey = std::max(lastKey, keys.upper);
    // 2 % beyond it, so a validation point at the last iteration is drawn whole, not cut by the edge.
    plot_->xAxis->setRange(0, 1.02 * std::max({10.0, double(iteration), lastKey}));
    // The loss axis: this run's loss, else (before its first iteration) what is compared.
    found = false;
    QCPRange range = plot_->graph(0)->getValueRange(found);
    for (std::size_t c = 0; !found && c < comparisons_.size(); ++c)
        range = comparisons_[c].loss->getValueRange(found);
    if (found)
        plot_->yAxis->setRange(logScale_ ? std::max(1e-4, range.lower * 0.8) : 0, range.upper * 1.05);
    // From 0 to a little above the largest value: rescaling to the data alone centres a constant
    // learning rate on a ±2 range, drawing it as a flat line at 0.
    for (int g = 0; g < 2; ++g) {
        found = false;
        const QCPRange values = rates_->graph(g)->getValueRange(found);
        if (found && values.upper > 0)
            rates_->graph(g)->valueAxis()->setRange(0, values.upper * 1.15);
    }
}

// Three curves per head (IoU solid, objectness dashed, class score dotted), one colour per head.
void TrainingCurves::addHeadPoints(const nw::IterationStats& s)
{
    if (s.heads.empty())
        return;
    if (heads_->graphCount() != int(s.heads.size()) * 3) {
        heads_->clearGraphs();
        const QColor colours[] = {QColor(200, 60, 40), QColor(30, 110, 200), QColor(40, 150, 70),
                                  QColor(150, 60, 170)};
        for (std::size_t h = 0; h < s.heads.size(); ++h) {
            const QColor colour = colours[h % 4];
            const QString layer = QString::number(s.heads[h].layer);
            const std::pair<QString, Qt::PenStyle> kinds[] = {{tr("IoU L%1").arg(layer), Qt::SolidLine},
                                                              {tr("obj L%1").arg(layer), Qt::DashLine},
                                                              {tr("class L%1").arg(layer), Qt::DotLine}};
            for (const auto& [name, style] : kinds) {
                QCPGraph* graph = heads_->addGraph();
                graph->setName(name);
                graph->setPen(QPen(colour, 1.5, style));
            }
        }
        heads_->setVisible(true);
    }
    for (std::size_t h = 0; h < s.heads.size(); ++h) {
        const HeadStats& head = s.heads[h];
        heads_->graph(int(h) * 3)->addData(s.iteration, head.averageIou);
        heads_->graph(int(h) * 3 + 1)->addData(s.iteration, head.objectness);
        heads_->graph(int(h) * 3 + 2)->addData(s.iteration, head.classScore);
    }
    heads_->replot(QCustomPlot::rpQueuedReplot);
}

// Hovering the curves shows the values at that iteration.
void TrainingCurves::showReadout(QMouseEvent* event)
{
    const double x = plot_->xAxis->pixelToCoord(event->position().x());
    QStringList parts;
    for (int g = 0; g < plot_->graphCount(); ++g) {
        auto points = plot_->graph(g)->data();
        if (points->isEmpty())
            continue;
        auto it = points->findBegin(x);
        if (it == points->constEnd())
            --it;
        parts << QString("%1 %2 at %3").arg(plot_->graph(g)->name()).arg(it->value, 0, 'g', 4).arg(it->key);
    }
    parts << tr("(drag or wheel: look closer; double-click: follow the run)");
    plot_->setToolTip(parts.join('\n'));
}

} // namespace nw::ui
