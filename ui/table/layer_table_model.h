#pragma once
// The layer table: one row per layer of a NetworkSpec (index, type, filters, size/stride, input,
// output, BFLOPs, params, workspace, memory) and a totals row. Rows with problems are tinted and
// carry the messages as tooltips.
#include "graph/network_spec.h"

#include <QAbstractTableModel>

namespace nw::ui {

class LayerTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Index,
        Type,
        Filters,
        Size,
        Input,
        Output,
        Bflops,
        Params,
        Workspace,
        Memory,
        Receptive,
        ColumnCount
    };
    // The table as text: tab-separated (or comma-separated with csv), header first, totals last.
    QString toText(bool csv) const;

    explicit LayerTableModel(QObject* parent = nullptr);

    void setSpec(NetworkSpec spec);
    const NetworkSpec& spec() const { return spec_; }
    // The row of the totals (after the last layer).
    int totalsRow() const { return static_cast<int>(spec_.layers.size()); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Sort key for a cell: numbers compare as numbers.
    static constexpr int SortRole = Qt::UserRole + 1;

private:
    QVariant layerData(const LayerSpec& layer, int column, int role) const;
    QVariant totalsData(int column, int role) const;

    NetworkSpec spec_;
};

} // namespace nw::ui
