#pragma once
// Sorts the layer table by the model's SortRole (numbers as numbers, texts by the numbers in them) and
// keeps the totals row last in either order.
#include <QSortFilterProxyModel>

namespace nw::ui {

class LayerSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit LayerSortProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace nw::ui
