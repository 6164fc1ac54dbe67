#include "table/layer_sort_proxy.h"

#include "table/layer_table_model.h"

namespace nw::ui {

namespace {

// Texts with numbers in them (filters "16", "128", "80 cls"; sizes "3x3/1") by their numbers: runs of
// digits compare as numbers, the rest as text. (QCollator's numeric mode needs ICU, which not every Qt
// build has.)
bool naturalLess(const QString& a, const QString& b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            const qsizetype startA = i, startB = j;
            while (i < a.size() && a[i].isDigit())
                ++i;
            while (j < b.size() && b[j].isDigit())
                ++j;
            const qulonglong x = a.mid(startA, i - startA).toULongLong(),
                             y = b.mid(startB, j - startB).toULongLong();
            if (x != y)
                return x < y;
        } else {
            if (a[i] != b[j])
                return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

} // namespace

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
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (a.typeId() == QMetaType::QString && b.typeId() == QMetaType::QString)
        return naturalLess(a.toString(), b.toString());
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace nw::ui
