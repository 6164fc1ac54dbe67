#include "widgets/flow_layout.h"

#include <QHBoxLayout>
#include <QStyle>
#include <QWidget>
#include <algorithm>

namespace nw::ui {

FlowLayout::FlowLayout(QWidget* parent) : QLayout(parent)
{
    if (!parent) // (nested in another layout: its margins are the parent's)
        setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem* item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem* item)
{
    items_.append(item);
}

int FlowLayout::count() const
{
    return int(items_.size());
}

QLayoutItem* FlowLayout::itemAt(int index) const
{
    return items_.value(index);
}

QLayoutItem* FlowLayout::takeAt(int index)
{
    return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

Qt::Orientations FlowLayout::expandingDirections() const
{
    return {};
}

bool FlowLayout::hasHeightForWidth() const
{
    return true;
}

int FlowLayout::heightForWidth(int width) const
{
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const
{
    QSize size;
    for (const QLayoutItem* item : items_)
        if (!item->isEmpty())
            size = size.expandedTo(item->minimumSize());
    const QMargins margins = contentsMargins();
    return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

QSize FlowLayout::sizeHint() const
{
    int width = 0, height = 0, shown = 0;
    for (const QLayoutItem* item : items_) {
        if (item->isEmpty())
            continue;
        width += item->sizeHint().width() + (shown++ > 0 ? gap(Qt::Horizontal) : 0);
        height = std::max(height, item->sizeHint().height());
    }
    const QMargins margins = contentsMargins();
    return {width + margins.left() + margins.right(), height + margins.top() + margins.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::gap(Qt::Orientation orientation) const
{
    if (spacing() >= 0)
        return spacing();
    // The style's spacing between two buttons (a style may answer -1: "no opinion", then 6 pixels).
    const QWidget* widget = parentWidget();
    const int styled = widget
                           ? widget->style()->layoutSpacing(QSizePolicy::PushButton, QSizePolicy::PushButton,
                                                            orientation, nullptr, widget)
                           : -1;
    return styled >= 0 ? styled : 6;
}

int FlowLayout::arrange(const QRect& rect, bool place) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    // Each line's items first, then placed centred on the line's height (a label beside a taller box).
    QList<QLayoutItem*> line;
    int y = area.y(), lineWidth = 0, lineHeight = 0;
    const auto finishLine = [&] {
        if (place) {
            int x = area.x();
            for (QLayoutItem* item : line) {
                const QSize size(std::min(item->sizeHint().width(), area.width()), item->sizeHint().height());
                item->setGeometry(QRect(QPoint(x, y + (lineHeight - size.height()) / 2), size));
                x += size.width() + gap(Qt::Horizontal);
            }
        }
        if (!line.isEmpty())
            y += lineHeight + gap(Qt::Vertical);
        line.clear();
        lineWidth = lineHeight = 0;
    };
    for (QLayoutItem* item : items_) {
        if (item->isEmpty()) // (hidden widgets and stretches take no room)
            continue;
        const QSize size = item->sizeHint();
        if (!line.isEmpty() && lineWidth + gap(Qt::Horizontal) + size.width() > area.width())
            finishLine();
        lineWidth += (line.isEmpty() ? 0 : gap(Qt::Horizontal)) + size.width();
        lineHeight = std::max(lineHeight, size.height());
        line.append(item);
    }
    finishLine();
    const int used = y > area.y() ? y - gap(Qt::Vertical) - area.y() : 0;
    return used + contentsMargins().top() + contentsMargins().bottom();
}

QWidget* labelled(QWidget* label, QWidget* field, QWidget* parent)
{
    auto* pair = new QWidget(parent);
    auto* row = new QHBoxLayout(pair);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(label);
    row->addWidget(field);
    return pair;
}

} // namespace nw::ui
