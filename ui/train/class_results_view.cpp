#include "train/class_results_view.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

namespace nw::ui {

namespace {

// A cell that sorts by the number it shows (a percentage sorted as text puts 9 % above 80 %); cells
// without a figure sort first.
class FigureItem : public QTableWidgetItem {
public:
    FigureItem(const QString& text, std::optional<double> figure) : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, figure ? QVariant(*figure) : QVariant());
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (!a.isValid() || !b.isValid())
            return !a.isValid() && b.isValid();
        return a.toDouble() < b.toDouble();
    }
};

QString percent(std::optional<double> share)
{
    return share ? QString("%1 %").arg(*share * 100, 0, 'f', 1) : QString("–");
}

// Diagonal cells in blue, confusions in orange, deeper with the share of the row they hold.
QColor cellColour(bool diagonal, double share)
{
    const QColor full = diagonal ? QColor(31, 119, 180) : QColor(230, 110, 20);
    const double t = std::clamp(share, 0.0, 1.0);
    return QColor(int(255 + (full.red() - 255) * t), int(255 + (full.green() - 255) * t),
                  int(255 + (full.blue() - 255) * t));
}

// The table as CSV, in the order shown (headers first; the row headers, the matrix's true classes, as
// the first column): for a report or a spreadsheet.
QString tableCsv(const QTableWidget& table)
{
    const auto cell = [](QString text) {
        return text.contains(',') || text.contains('"') ? '"' + text.replace('"', "\"\"") + '"' : text;
    };
    const bool rowHeaders = !table.verticalHeader()->isHidden();
    QStringList lines, cells;
    if (rowHeaders)
        cells << QString();
    for (int c = 0; c < table.columnCount(); ++c)
        cells << cell(table.horizontalHeaderItem(c) ? table.horizontalHeaderItem(c)->text() : QString());
    lines << cells.join(',');
    for (int r = 0; r < table.rowCount(); ++r) {
        cells.clear();
        if (rowHeaders)
            cells << cell(table.verticalHeaderItem(r) ? table.verticalHeaderItem(r)->text() : QString());
        for (int c = 0; c < table.columnCount(); ++c)
            cells << cell(table.item(r, c) ? table.item(r, c)->text() : QString());
        lines << cells.join(',');
    }
    return lines.join('\n') + '\n';
}

QTableWidget* readOnlyTable(QWidget* parent)
{
    auto* table = new QTableWidget(parent);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    // Right-click: the whole table to the clipboard.
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(QObject::tr("Copy the table as CSV"), table);
    copy->setObjectName("copyTableCsv");
    QObject::connect(copy, &QAction::triggered, table,
                     [table] { QGuiApplication::clipboard()->setText(tableCsv(*table)); });
    table->addAction(copy);
    return table;
}

} // namespace

ClassResultsView::ClassResultsView(QWidget* parent) : QWidget(parent)
{
    headline_ = new QLabel(this);
    headline_->setObjectName("classResultsHeadline");
    headline_->setWordWrap(true);
    matrix_ = readOnlyTable(this);
    matrix_->setObjectName("confusionMatrix");
    matrix_->setAccessibleName(tr("Confusion matrix"));
    matrix_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    matrix_->setToolTip(tr("A row per true class, a column per class the network chose: the diagonal holds "
                           "the images it got right"));
    classes_ = readOnlyTable(this);
    classes_->setObjectName("classFigures");
    classes_->setAccessibleName(tr("Each class's figures"));
    classes_->verticalHeader()->hide();
    confused_ = new QLabel(this);
    confused_->setWordWrap(true);
    confused_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    split_ = new QSplitter(Qt::Vertical, this);
    split_->addWidget(matrix_);
    split_->addWidget(classes_);
    split_->setChildrenCollapsible(false);
    split_->setStretchFactor(0, 3); // (the matrix first, up to its height)
    split_->setStretchFactor(1, 2);
    evaluate_ = new QToolButton(this);
    evaluate_->setObjectName("evaluateButton");
    evaluate_->setText(tr("Evaluate"));
    evaluate_->setPopupMode(QToolButton::MenuButtonPopup);
    evaluate_->setToolTip(tr("Score the run's latest weights on the validation set of the chosen .data file "
                             "(the arrow: other weights)"));
    auto* top = new QHBoxLayout;
    top->addWidget(headline_, 1);
    top->addWidget(evaluate_, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(split_, 1);
    layout->addWidget(confused_);
    clear();
}

QString ClassResultsView::nameOf(int c) const
{
    return c < shown_.size() && !shown_[c].isEmpty() ? shown_[c] : tr("class %1").arg(c);
}

void ClassResultsView::clear()
{
    names_.clear(); // (the next run's or evaluation's come with it)
    shown_.clear();
    figuresHeadline_.clear();
    headline_->setText(tr("No validation yet: each class's figures appear here at every validation of a "
                          "run (Validate every N iterations, and at the end), or for any weights with "
                          "Evaluate."));
    matrix_->clear();
    matrix_->setRowCount(0);
    matrix_->setColumnCount(0);
    matrix_->hide();
    classes_->clear();
    classes_->setRowCount(0);
    classes_->setColumnCount(0);
    confused_->clear();
}

void ClassResultsView::showNote(const QString& text)
{
    // The figures below stay: what they are stays said under the note.
    headline_->setText(figuresHeadline_.isEmpty() ? text
                                                  : text + "\n" + tr("Shown: %1").arg(figuresHeadline_));
}

void ClassResultsView::showConfusion(const QString& source, const nw::ConfusionMatrix& m)
{
    const int n = m.classes();
    std::vector<std::string> given; // (a binary classifier's second class is "not <its name>")
    for (const QString& name : names_)
        given.push_back(name.toStdString());
    shown_.clear();
    for (const std::string& name : nw::confusionClassNames(given, n))
        shown_ << QString::fromStdString(name);
    std::size_t right = 0;
    for (int c = 0; c < n; ++c)
        right += m.count(c, c);
    headline_->setText(tr("%1: %2 images, top-1 %3 %")
                           .arg(source)
                           .arg(m.images())
                           .arg(m.images() ? 100.0 * double(right) / double(m.images()) : 0.0, 0, 'f', 2));
    figuresHeadline_ = headline_->text();
    // The matrix.
    matrix_->clear();
    matrix_->setVisible(n <= kLargestMatrix);
    if (n <= kLargestMatrix) {
        matrix_->setRowCount(n);
        matrix_->setColumnCount(n);
        for (int c = 0; c < n; ++c) {
            auto* column = new QTableWidgetItem(QString::number(c));
            column->setToolTip(tr("chosen: %1").arg(nameOf(c)));
            matrix_->setHorizontalHeaderItem(c, column);
            // (a long name elided: the matrix's columns keep their room; the tooltip has it whole)
            auto* row = new QTableWidgetItem(
                fontMetrics().elidedText(QString("%1 %2").arg(c).arg(nameOf(c)), Qt::ElideRight, 160));
            row->setToolTip(tr("true class: %1").arg(nameOf(c)));
            matrix_->setVerticalHeaderItem(c, row);
        }
        for (int t = 0; t < n; ++t) {
            const std::size_t of = m.imagesOf(t);
            for (int c = 0; c < n; ++c) {
                const std::size_t count = m.count(t, c);
                const double share = of ? double(count) / double(of) : 0.0;
                auto* cell = new QTableWidgetItem(QString::number(count));
                cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                cell->setBackground(cellColour(t == c, share));
                cell->setForeground(share > 0.55 ? Qt::white : Qt::black);
                cell->setToolTip(t == c ? tr("%1 found: %2 of its %3 images (%4)")
                                              .arg(nameOf(t))
                                              .arg(count)
                                              .arg(of)
                                              .arg(percent(share))
                                        : tr("%1 taken for %2: %3 of its %4 images (%5)")
                                              .arg(nameOf(t), nameOf(c))
                                              .arg(count)
                                              .arg(of)
                                              .arg(percent(share)));
                matrix_->setItem(t, c, cell);
            }
        }
    }
    // No taller than its rows: the splitter gives the rest to the table (half and half cut rows off).
    if (n <= kLargestMatrix)
        matrix_->setMaximumHeight(matrix_->horizontalHeader()->sizeHint().height() +
                                  n * matrix_->verticalHeader()->defaultSectionSize() +
                                  2 * matrix_->frameWidth() +
                                  matrix_->horizontalScrollBar()->sizeHint().height());
    // Each class's figures, sortable (by recall: the classes the network gets wrong most).
    classes_->setSortingEnabled(false);
    classes_->clear();
    classes_->setColumnCount(5);
    classes_->setHorizontalHeaderLabels(
        {tr("Class"), tr("Images"), tr("Recall"), tr("Precision"), tr("Most often taken for")});
    classes_->horizontalHeaderItem(2)->setToolTip(
        tr("Of the class's images, the share the network chose it for"));
    classes_->horizontalHeaderItem(3)->setToolTip(
        tr("Of the images the network chose it for, the share that were it"));
    classes_->setRowCount(n);
    for (int c = 0; c < n; ++c) {
        const int worst = m.mostOftenTakenFor(c).value_or(-1);
        auto* name = new FigureItem(QString("%1 %2").arg(c).arg(nameOf(c)), c);
        name->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        classes_->setItem(c, 0, name);
        classes_->setItem(c, 1, new FigureItem(QString::number(m.imagesOf(c)), double(m.imagesOf(c))));
        classes_->setItem(c, 2, new FigureItem(percent(m.recall(c)), m.recall(c)));
        classes_->setItem(c, 3, new FigureItem(percent(m.precision(c)), m.precision(c)));
        auto* taken =
            new FigureItem(worst < 0 ? QString("–") : tr("%1 (%2)").arg(nameOf(worst)).arg(m.count(c, worst)),
                           worst < 0 ? 0.0 : double(m.count(c, worst)));
        taken->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        classes_->setItem(c, 4, taken);
    }
    classes_->resizeColumnsToContents();
    classes_->setSortingEnabled(true);
    QStringList confusions;
    for (const auto& cell : m.mostConfused(3))
        confusions << tr("%1 taken for %2 %3×").arg(nameOf(cell.truth), nameOf(cell.chosen)).arg(cell.count);
    QString text = confusions.isEmpty() ? QString() : tr("Most confused: %1").arg(confusions.join(", "));
    if (m.undecided())
        text += (text.isEmpty() ? "" : " · ") +
                (m.undecided() == 1 ? tr("1 image with a NaN score (counted wrong)")
                                    : tr("%1 images with a NaN score (counted wrong)").arg(m.undecided()));
    if (n > kLargestMatrix)
        text +=
            (text.isEmpty() ? "" : " · ") +
            tr("%1 classes: too many to draw the matrix (netwright-cli valid --confusion prints it)").arg(n);
    confused_->setText(text);
}

void ClassResultsView::showClassAps(const QString& source, const std::vector<nw::ClassAp>& aps)
{
    shown_ = names_;
    double sum = 0, sum50to95 = 0;
    int counted = 0;
    long long truths = 0, found = 0, wrong = 0; // (at the confidence threshold, as map prints them)
    for (const nw::ClassAp& a : aps) {
        if (a.truths > 0) {
            sum += a.ap50;
            sum50to95 += a.ap50to95;
            ++counted;
        }
        truths += a.truths;
        found += a.truePositives;
        wrong += a.falsePositives;
    }
    // The figures netwright-cli map prints beside mAP@0.5 (the page gave that one alone).
    const double precision = found + wrong > 0 ? double(found) / double(found + wrong) : 0;
    const double recall = truths > 0 ? double(found) / double(truths) : 0;
    headline_->setText(
        tr("%1: mAP@0.5 %2 % over %3; mAP@0.5:0.95 %4 %; at confidence 0.25: precision %5, recall %6")
            .arg(source)
            .arg(counted ? 100 * sum / counted : 0.0, 0, 'f', 2)
            .arg(counted == 1 ? tr("the 1 class with boxes") : tr("%1 classes with boxes").arg(counted))
            .arg(counted ? 100 * sum50to95 / counted : 0.0, 0, 'f', 2)
            .arg(precision, 0, 'f', 2)
            .arg(recall, 0, 'f', 2));
    figuresHeadline_ = headline_->text();
    matrix_->clear();
    matrix_->hide();
    classes_->setSortingEnabled(false);
    classes_->clear();
    classes_->setColumnCount(6);
    classes_->setHorizontalHeaderLabels({tr("Class"), tr("AP@0.5"), tr("AP@0.5:0.95"), tr("Boxes"),
                                         tr("True positives"), tr("False positives")});
    classes_->horizontalHeaderItem(4)->setToolTip(
        tr("Detections at the confidence threshold (0.25) that match a box of the class"));
    classes_->horizontalHeaderItem(5)->setToolTip(
        tr("Detections at the confidence threshold (0.25) that match none"));
    classes_->setRowCount(int(aps.size()));
    int worst = -1;
    for (int c = 0; c < int(aps.size()); ++c) {
        const nw::ClassAp& a = aps[std::size_t(c)];
        const bool boxes = a.truths > 0;
        auto* name = new FigureItem(QString("%1 %2").arg(c).arg(nameOf(c)), c);
        name->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        classes_->setItem(c, 0, name);
        classes_->setItem(c, 1,
                          new FigureItem(boxes ? percent(a.ap50) : tr("no boxes"),
                                         boxes ? std::optional(a.ap50) : std::nullopt));
        classes_->setItem(c, 2,
                          new FigureItem(boxes ? percent(a.ap50to95) : QString("–"),
                                         boxes ? std::optional(a.ap50to95) : std::nullopt));
        classes_->setItem(c, 3, new FigureItem(QString::number(a.truths), double(a.truths)));
        classes_->setItem(c, 4, new FigureItem(QString::number(a.truePositives), double(a.truePositives)));
        classes_->setItem(c, 5, new FigureItem(QString::number(a.falsePositives), double(a.falsePositives)));
        if (boxes && (worst < 0 || a.ap50 < aps[std::size_t(worst)].ap50))
            worst = c;
    }
    classes_->resizeColumnsToContents();
    classes_->setSortingEnabled(true);
    confused_->setText(
        worst < 0 ? tr("No class has a box in the validation set.")
                  : tr("Lowest AP: %1, %2").arg(nameOf(worst), percent(aps[std::size_t(worst)].ap50)));
}

} // namespace nw::ui
