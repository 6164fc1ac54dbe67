#include "editor/graph_items.h"

#include "editor/graph_colours.h"
#include "widgets/cost_text.h"

#include <QFontMetricsF>
#include <QLineF>
#include <QLocale>
#include <QPainter>
#include <QPainterPathStroker>

namespace nw::ui {

NodeItem::NodeItem(const LayerSpec& layer, const QRectF& box)
    : QGraphicsRectItem(box), layer_(layer.index), type_(layer.type)
{
    setFlags(ItemIsSelectable);
    setData(0, layer.index);
    title_ = QString("%1  %2").arg(layer.index).arg(QString::fromStdString(layer.type));
    QStringList detail;
    if (!layer.filters.empty())
        detail << QString::fromStdString(layer.filters);
    if (!layer.size.empty())
        detail << QString::fromStdString(layer.size);
    detail_ = detail.join("  ");
    // A layer refused for its own values shows the shape they make, as the table does ("13x13x0" for
    // filters=0 says why), marked as its error; one that makes none (a [yolo] or [route] refused) shows
    // "?" ("→ 0" looked like a shape); behind it nothing is known.
    if (!layer.inputKnown)
        shape_ = QString("→ ?   (an earlier layer's error)");
    else if (!layer.outputKnown)
        shape_ = QString("→ %1   (this layer's error)")
                     .arg(layer.output.empty() ? QString("?") : QString::fromStdString(layer.output.text()));
    else
        shape_ = QString("→ %1  %2 BFLOPs")
                     .arg(QString::fromStdString(layer.output.text()))
                     .arg(bflopsText(layer.costs.bflops)); // as the table writes it
    if (!layer.valid())
        problem_ = Problem::Error;
    else if (!layer.diagnostics.empty())
        problem_ = Problem::Warning;
    QStringList problems;
    for (const Diagnostic& d : layer.diagnostics)
        problems << QString::fromStdString(d.format());
    setToolTip(problems.isEmpty() ? title_ + "\n" + shape_ + "\nDrag from the bottom port to connect"
                                  : problems.join('\n'));
}

QRectF NodeItem::boundingRect() const
{
    const double reach = kPortRadius + 4; // onOutputPort's reach
    // (and the problem badge, a circle of 8 on the top right corner, and the 2.5 px border of a selected
    // or faulty card: what was painted outside stayed on screen once the problem was fixed)
    return QGraphicsRectItem::boundingRect().adjusted(-2, -reach, 9, reach);
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path = QGraphicsRectItem::shape();
    const double reach = kPortRadius + 4;
    path.addEllipse(outputPort(), reach, reach);
    path.addEllipse(inputPort(), kPortRadius, kPortRadius);
    return path.simplified();
}

bool NodeItem::onOutputPort(const QPointF& scenePoint) const
{
    return QLineF(scenePoint, mapToScene(outputPort())).length() <= kPortRadius + 4;
}

void NodeItem::setDropTarget(bool target)
{
    if (dropTarget_ != target) {
        dropTarget_ = target;
        update();
    }
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const GraphColours& colours = graphColours();
    const QColor border = problem_ == Problem::Error     ? colours.error
                          : problem_ == Problem::Warning ? colours.warning
                                                         : colours.plainBorder;
    const QRectF r = rect();
    painter->setRenderHint(QPainter::Antialiasing);
    const bool strong = isSelected() || dropTarget_ || problem_ != Problem::None;
    painter->setPen(QPen(isSelected() || dropTarget_ ? colours.selected : border, strong ? 2.5 : 1,
                         dropTarget_ ? Qt::DashLine : Qt::SolidLine));
    painter->setBrush(colours.category(type_));
    painter->drawRoundedRect(r, 6, 6);
    painter->setPen(colours.cardText);
    QFont font = painter->font();
    font.setPointSizeF(8.5);
    font.setBold(true);
    painter->setFont(font);
    const QRectF text = r.adjusted(8, 4, -8, -4);
    painter->drawText(text, Qt::AlignLeft | Qt::AlignTop, title_);
    const qreal titleWidth = QFontMetricsF(font).horizontalAdvance(title_);
    font.setBold(false);
    painter->setFont(font);
    // Beside the title when both fit ("104 convolutional" and "1024 1x1/1" ran into each other), else on
    // the middle row, elided if even that is too narrow.
    const QFontMetricsF metrics(font);
    const bool besideTitle = titleWidth + 8 + metrics.horizontalAdvance(detail_) <= text.width();
    painter->drawText(text, Qt::AlignRight | (besideTitle ? Qt::AlignTop : Qt::AlignVCenter),
                      besideTitle ? detail_ : metrics.elidedText(detail_, Qt::ElideRight, text.width()));
    painter->setPen(colours.cardDetail);
    // (elided, not cut mid-word: "→ 104x104x2400   5.607 BFLOF"; the tooltip has it whole)
    painter->drawText(text, Qt::AlignLeft | Qt::AlignBottom,
                      metrics.elidedText(shape_, Qt::ElideRight, text.width()));
    if (problem_ != Problem::None) { // a problem badge: red for errors, amber for warnings (details: tooltip)
        const QPointF centre(r.right() - 1, r.top() + 1);
        painter->setPen(Qt::NoPen);
        painter->setBrush(border);
        painter->drawEllipse(centre, 8, 8);
        painter->setPen(Qt::white);
        font.setBold(true);
        painter->setFont(font);
        painter->drawText(QRectF(centre - QPointF(8, 8), QSizeF(16, 16)), Qt::AlignCenter, "!");
    }
    // Ports: where data comes in (top) and goes out (bottom; drag from it to connect).
    painter->setPen(QPen(colours.portRing, 1));
    painter->setBrush(colours.portIn);
    painter->drawEllipse(inputPort(), kPortRadius - 1, kPortRadius - 1);
    painter->setBrush(colours.portOut);
    painter->drawEllipse(outputPort(), kPortRadius, kPortRadius);
}

EdgeItem::EdgeItem(int from, int to, const QPainterPath& path) : QGraphicsPathItem(path), from_(from), to_(to)
{
    setFlags(ItemIsSelectable);
    setZValue(-1); // under the cards
    setToolTip(
        QString("layer %1 → layer %2\nDrop a layer type here to insert it; Del disconnects a route input")
            .arg(from)
            .arg(to));
}

QPainterPath EdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(10);
    return stroker.createStroke(path());
}

void EdgeItem::setDropTarget(bool target)
{
    if (dropTarget_ != target) {
        dropTarget_ = target;
        update();
    }
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const bool highlighted = isSelected() || dropTarget_;
    const GraphColours& colours = graphColours();
    painter->setPen(QPen(highlighted ? colours.selected : colours.edge, highlighted ? 3 : 1.4));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
}

} // namespace nw::ui
