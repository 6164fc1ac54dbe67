#include "table/layer_sort_proxy.h"

#include "table/layer_table_model.h"

namespace nw::ui {

LayerSortProxy::LayerSortProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(LayerTableModel::SortRole);
}

bool LayerSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const int totals = sourceModel()->rowCount() - 1;
    const bool descending = sortOrder() == Qt::DescendingOrder;
    if (left.row() == totals)
        return descending;
    if (right.row() == totals)
        return !descending;
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace nw::ui
