#include "editor/graph_view.h"

#include "editor/graph_layout.h"
#include "report/summary.h"

#include <QDragEnterEvent>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QMimeData>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>

namespace nw::ui {

namespace {

constexpr QSizeF kNodeSize(190, 58);

QColor categoryColor(const std::string& type)
{
    if (type == "convolutional" || type == "deconvolutional" || type == "local")
        return QColor(225, 236, 250);
    if (type == "maxpool" || type == "avgpool")
        return QColor(230, 245, 230);
    if (type == "route" || type == "shortcut" || type == "sam" || type == "scale_channels")
        return QColor(250, 240, 220);
    if (type == "yolo" || type == "region" || type == "detection" || type == "softmax" || type == "cost")
        return QColor(245, 228, 240);
    return QColor(238, 238, 238);
}

// One layer's card. It holds the layer index only; the text is painted from a snapshot of the spec.
class NodeItem : public QGraphicsRectItem {
public:
    NodeItem(const LayerSpec& layer, const QRectF& box) : QGraphicsRectItem(box), layer_(layer.index)
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
        shape_ = QString("→ %1   %2 BFLOPs")
                     .arg(QString::fromStdString(layer.output.text()))
                     .arg(layer.costs.bflops, 0, 'f', 3);
        fill_ = categoryColor(layer.type);
        if (!layer.valid())
            border_ = QColor(200, 30, 30);
        else if (!layer.diagnostics.empty())
            border_ = QColor(230, 150, 20);
        QStringList problems;
        for (const Diagnostic& d : layer.diagnostics)
            problems << QString::fromStdString(d.format());
        setToolTip(problems.isEmpty() ? title_ + "\n" + shape_ : problems.join('\n'));
    }
    int layer() const { return layer_; }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        const QRectF r = rect();
        painter->setRenderHint(QPainter::Antialiasing);
        QPen pen(isSelected() ? QColor(30, 90, 200) : border_, isSelected() || border_ != Qt::gray ? 2.5 : 1);
        painter->setPen(pen);
        painter->setBrush(fill_);
        painter->drawRoundedRect(r, 6, 6);
        painter->setPen(Qt::black);
        QFont font = painter->font();
        font.setPointSizeF(8.5);
        font.setBold(true);
        painter->setFont(font);
        const QRectF text = r.adjusted(8, 4, -8, -4);
        painter->drawText(text, Qt::AlignLeft | Qt::AlignTop, title_);
        font.setBold(false);
        painter->setFont(font);
        painter->drawText(text, Qt::AlignRight | Qt::AlignTop, detail_);
        painter->setPen(QColor(60, 60, 60));
        painter->drawText(text, Qt::AlignLeft | Qt::AlignBottom, shape_);
    }

private:
    int layer_;
    QString title_, detail_, shape_;
    QColor fill_, border_ = Qt::gray;
};

} // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), scene_(new QGraphicsScene(this))
{
    setObjectName("graphView");
    setScene(scene_);
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setAcceptDrops(true);
    setBackgroundBrush(QColor(250, 250, 252));
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        if (!updatingSelection_)
            if (const int layer = selectedLayer(); layer >= 0)
                emit layerSelected(layer);
    });
}

void GraphView::setSpec(const NetworkSpec& spec)
{
    const int selected = selectedLayer();
    updatingSelection_ = true;
    scene_->clear();
    const GraphLayout layout = layoutNetwork(spec, kNodeSize);
    QPen edgePen(QColor(110, 110, 130), 1.4);
    for (const LaidOutEdge& edge : layout.edges) {
        auto* item = scene_->addPath(edge.path, edgePen);
        item->setZValue(-1); // under the cards
    }
    for (const LaidOutNode& node : layout.nodes)
        scene_->addItem(new NodeItem(spec.layers[std::size_t(node.layer)], node.box));
    scene_->setSceneRect(layout.bounds.adjusted(-40, -40, 40, 40));
    updatingSelection_ = false;
    if (selected >= 0)
        selectLayer(selected);
}

int GraphView::nodeCount() const
{
    int count = 0;
    for (QGraphicsItem* item : scene_->items())
        count += item->data(0).isValid();
    return count;
}

void GraphView::selectLayer(int layer)
{
    updatingSelection_ = true;
    scene_->clearSelection();
    for (QGraphicsItem* item : scene_->items())
        if (item->data(0).isValid() && item->data(0).toInt() == layer) {
            item->setSelected(true);
            ensureVisible(item, 60, 60);
        }
    updatingSelection_ = false;
}

int GraphView::selectedLayer() const
{
    for (QGraphicsItem* item : scene_->selectedItems())
        if (item->data(0).isValid())
            return item->data(0).toInt();
    return -1;
}

void GraphView::fitAll()
{
    fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    const double factor = event->angleDelta().y() > 0 ? 1.15 : 1 / 1.15;
    scale(factor, factor);
}

int GraphView::layerAt(const QPoint& viewPosition) const
{
    for (QGraphicsItem* item : items(viewPosition))
        if (item->data(0).isValid())
            return item->data(0).toInt();
    return -1;
}

void GraphView::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasFormat("application/x-netwright-layer"))
        event->acceptProposedAction();
}

void GraphView::dragMoveEvent(QDragMoveEvent* event)
{
    if (event->mimeData()->hasFormat("application/x-netwright-layer"))
        event->acceptProposedAction();
}

void GraphView::dropEvent(QDropEvent* event)
{
    const QString type = QString::fromUtf8(event->mimeData()->data("application/x-netwright-layer"));
    if (type.isEmpty())
        return;
    emit insertRequested(type, layerAt(event->position().toPoint()));
    event->acceptProposedAction();
}

} // namespace nw::ui
