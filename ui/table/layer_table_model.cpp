#include "table/layer_table_model.h"

#include "report/summary.h"
#include "widgets/cost_text.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QLocale>

namespace nw::ui {

namespace {

QString toQ(const std::string& text)
{
    return QString::fromStdString(text);
}

QString diagnosticsText(const Diagnostics& diagnostics)
{
    QStringList lines;
    for (const Diagnostic& d : diagnostics)
        lines << toQ(d.format());
    return lines.join('\n');
}

} // namespace

LayerTableModel::LayerTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayerTableModel::setSpec(NetworkSpec spec)
{
    beginResetModel();
    spec_ = std::move(spec);
    endResetModel();
}

int LayerTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || spec_.layers.empty() ? 0 : static_cast<int>(spec_.layers.size()) + 1;
}

int LayerTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::ToolTipRole) { // what each figure counts, where conventions differ between tools
        static const char* tips[ColumnCount] = {
            "The layer's number, as routes and shortcuts refer to it",
            "The section's type",
            "Filters or outputs; a route: the layers it reads; a head: its classes",
            "Kernel size / stride",
            "What the layer reads (a route: its sources together)",
            "What the layer gives, for one image",
            "Darknet's figure: 2 × multiply-adds / 10⁹, for one image",
            "Weights and biases, as Darknet counts them: batch-norm scales and rolling statistics are not "
            "included (PyTorch's count adds the scales)",
            "Scratch memory of the convolution (im2col); one buffer the size of the largest serves every "
            "layer",
            "The output's size in memory, for one image",
            "How many input pixels across one output pixel sees"};
        return tr(tips[section]);
    }
    if (role != Qt::DisplayRole)
        return {};
    static const char* names[ColumnCount] = {"#",         "Type",   "Filters",  "Size/stride",
                                             "Input",     "Output", "BFLOPs",   "Params",
                                             "Workspace", "Memory", "Receptive"};
    return QVariant(tr(names[section]));
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() > totalsRow())
        return {};
    if (index.row() == totalsRow())
        return totalsData(index.column(), role);
    return layerData(spec_.layers[static_cast<std::size_t>(index.row())], index.column(), role);
}

QVariant LayerTableModel::layerData(const LayerSpec& layer, int column, int role) const
{
    if (role == Qt::ToolTipRole && !layer.diagnostics.empty())
        return diagnosticsText(layer.diagnostics);
    if (role == Qt::ToolTipRole && column == Memory)
        return tr("Output: %1. Inference keeps an output only until its last reader has run and puts later "
                  "outputs in its place: this layer adds %2.")
            .arg(toQ(humanBytes(layer.memoryBytes)), toQ(humanBytes(layer.inferenceBytes)));
    if (role == Qt::BackgroundRole && !layer.diagnostics.empty())
        return QBrush(layer.valid() ? QColor(255, 236, 179) : QColor(255, 205, 210));
    if (role == Qt::TextAlignmentRole)
        return column >= Bflops || column == Index ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == SortRole) {
        switch (column) {
        case Index:
            return layer.index;
        case Bflops:
            return layer.costs.bflops;
        case Params:
            return qlonglong(layer.costs.params);
        case Workspace:
            return qlonglong(layer.costs.workspaceBytes);
        case Memory:
            return qlonglong(layer.memoryBytes);
        case Receptive:
            return layer.receptiveField;
        case Input:
            return qlonglong(layer.input.size);
        case Output:
            return qlonglong(layer.output.size);
        default:
            return layerData(layer, column, Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    // After an error that leaves an input meaningless, this layer's figures would be made up from it;
    // refused without a shape (a value that is not a number, a [yolo] refused), it has none of its own.
    if (!layer.figuresKnown() && column >= Output)
        return QStringLiteral("?");
    // Its input is the row above's output: "?" there, "?" here.
    if (column == Input && layer.index > 0 && !spec_.layers[std::size_t(layer.index) - 1].figuresKnown())
        return QStringLiteral("?");
    switch (column) {
    case Index:
        return layer.index;
    case Type:
        return toQ(layer.type);
    case Filters:
        return toQ(layer.filters);
    case Size:
        return toQ(layer.size);
    case Input:
        return toQ(layer.input.text());
    case Output: // (a layer refused for its own values that makes no shape: "?", not "0")
        return !layer.outputKnown && layer.output.empty() ? QStringLiteral("?") : toQ(layer.output.text());
    case Bflops:
        return bflopsText(layer.costs.bflops);
    case Params:
        return QLocale().toString(qlonglong(layer.costs.params));
    case Workspace:
        return layer.costs.workspaceBytes ? toQ(humanBytes(layer.costs.workspaceBytes)) : QString();
    case Memory: // the output, and what an inference pass really adds for it (buffers are reused)
        if (layer.inferenceBytes >= layer.memoryBytes)
            return toQ(humanBytes(layer.memoryBytes));
        return toQ(humanBytes(layer.memoryBytes)) +
               (layer.inferenceBytes == 0 ? tr(" (reused)")
                                          : tr(" (+%1)").arg(toQ(humanBytes(layer.inferenceBytes))));
    case Receptive:
        return layer.receptiveField > 0 ? QString::number(layer.receptiveField) : QString();
    default:
        return {};
    }
}

QString LayerTableModel::toText(bool csv) const
{
    const QString separator = csv ? "," : "\t";
    auto quote = [csv](QString cell) {
        return csv && (cell.contains(',') || cell.contains('"')) ? '"' + cell.replace('"', "\"\"") + '"'
                                                                 : cell;
    };
    QStringList lines, cells;
    for (int c = 0; c < ColumnCount; ++c)
        cells << quote(headerData(c, Qt::Horizontal).toString());
    lines << cells.join(separator);
    // Numbers as a spreadsheet reads them in any locale: no digit grouping, a decimal point.
    for (int r = 0; r < rowCount(); ++r) {
        const bool totals = r == totalsRow();
        const LayerSpec* layer = totals ? nullptr : &spec_.layers[std::size_t(r)];
        cells.clear();
        for (int column = 0; column < ColumnCount; ++column) {
            QString cell = index(r, column).data().toString();
            if (layer && !layer->figuresKnown()) // ("?", as shown)
                ;
            else if (column == Bflops) // (as shown, without the locale's separators)
                cell = QString::number(totals ? spec_.totalBflops : layer->costs.bflops, 'f',
                                       bflopsDecimals(totals ? spec_.totalBflops : layer->costs.bflops));
            else if (column == Params)
                cell = QString::number(qlonglong(totals ? spec_.totalParams : layer->costs.params));
            cells << quote(cell);
        }
        lines << cells.join(separator);
    }
    return lines.join('\n') + '\n';
}

QVariant LayerTableModel::totalsData(int column, int role) const
{
    if (role == Qt::ToolTipRole && spec_.layersLeftOutOfTotals())
        return (spec_.layersLeftOutOfTotals() == 1
                    ? tr("Without the 1 layer at or behind an error")
                    : tr("Without the %1 layers at or behind an error").arg(spec_.layersLeftOutOfTotals())) +
               tr(" (shown as ?, or too large to add up): their figures would be made up or overflow");
    if (role == Qt::FontRole) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::TextAlignmentRole)
        return column >= Bflops ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == SortRole) // the totals row sorts after every layer whatever the order
        return {};
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Type:
        return spec_.layersLeftOutOfTotals() ? tr("Total (partial)") : tr("Total");
    case Bflops:
        return bflopsText(spec_.totalBflops);
    case Params:
        return QLocale().toString(qlonglong(spec_.totalParams));
    case Workspace:
        return toQ(humanBytes(spec_.maxWorkspaceBytes)) + tr(" (max)");
    case Memory:
        return toQ(humanBytes(spec_.totalMemoryBytes)) +
               tr("; inference %1").arg(toQ(humanBytes(spec_.inferenceMemoryBytes)));
    default:
        return {};
    }
}

} // namespace nw::ui
