#include "editor/mini_map.h"

#include "editor/graph_colours.h"

#include <QMouseEvent>
#include <QScrollBar>
#include <utility>

namespace nw::ui {

MiniMap::MiniMap(QGraphicsView* canvas) : QGraphicsView(canvas->scene(), canvas), canvas_(canvas)
{
    setObjectName("miniMap");
    setInteractive(false); // clicks move the canvas, they never select in the overview
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRenderHint(QPainter::Antialiasing, false);
    setFrameShape(QFrame::Box);
    setBackgroundBrush(graphColours().miniMap);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    for (QScrollBar* bar : {canvas->horizontalScrollBar(), canvas->verticalScrollBar()})
        connect(bar, &QScrollBar::valueChanged, this, [this] { viewport()->update(); });
}

QRectF MiniMap::visibleArea() const
{
    return canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect();
}

void MiniMap::refresh()
{
    if (!scene())
        return;
    const QRectF all = scene()->sceneRect();
    const QRectF shown = visibleArea();
    // Only worth its room when the canvas is zoomed in too far to show the whole graph.
    setVisible(room_ && !all.isEmpty() &&
               (shown.width() < 0.98 * all.width() || shown.height() < 0.98 * all.height()));
    fitInView(all, Qt::KeepAspectRatio);
    viewport()->update();
}

void MiniMap::setRoom(bool room)
{
    if (std::exchange(room_, room) != room)
        refresh();
}

void MiniMap::drawForeground(QPainter* painter, const QRectF&)
{
    QColor selected = graphColours().selected;
    painter->setPen(QPen(selected, 0)); // cosmetic: one pixel at any scale
    selected.setAlpha(40);
    painter->setBrush(selected);
    painter->drawRect(visibleArea());
}

void MiniMap::mousePressEvent(QMouseEvent* event)
{
    canvas_->centerOn(mapToScene(event->position().toPoint()));
    viewport()->update();
}

void MiniMap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        mousePressEvent(event);
}

void MiniMap::mouseReleaseEvent(QMouseEvent* event)
{
    QGraphicsView::mouseReleaseEvent(event);
    emit released();
}

void MiniMap::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void MiniMap::wheelEvent(QWheelEvent*) {} // the overview never zooms

} // namespace nw::ui
