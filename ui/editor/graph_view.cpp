#include "editor/graph_view.h"

#include "cfg/layer_edits.h"
#include "editor/graph_colours.h"
#include "editor/graph_items.h"
#include "editor/graph_layout.h"
#include "editor/mini_map.h"

#include <QDragEnterEvent>
#include <QFocusEvent>
#include <QGraphicsLineItem>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <limits>
#include <utility>

namespace nw::ui {

namespace {

constexpr QSizeF kNodeSize(190, 58);
constexpr char kLayerMime[] = "application/x-netwright-layer";

} // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent), scene_(new QGraphicsScene(this)), miniMap_(nullptr)
{
    setObjectName("graphView");
    setScene(scene_);
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setAcceptDrops(true);
    setGraphColours(palette());
    setBackgroundBrush(graphColours().canvas);
    miniMap_ = new MiniMap(this);
    miniMap_->setFocusPolicy(Qt::NoFocus); // (a mouse aid: the keyboard moves through the cards)
    miniMap_->hide();
    connect(miniMap_, &MiniMap::released, this, [this] {
        placeMiniMap();
        miniMap_->refresh();
    });
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        if (updatingSelection_)
            return;
        if (const int layer = selectedLayer(); layer >= 0)
            emit layerSelected(layer);
        else if (scene_->selectedItems().isEmpty()) // a click on empty space (an edge keeps the layer)
            emit layerSelected(-1);
    });
}

void GraphView::changeEvent(QEvent* event)
{
    QGraphicsView::changeEvent(event);
    if (event->type() != QEvent::PaletteChange)
        return;
    setGraphColours(palette());
    setBackgroundBrush(graphColours().canvas);
    miniMap_->setBackgroundBrush(graphColours().miniMap);
    scene_->update();
}

void GraphView::focusInEvent(QFocusEvent* event)
{
    QGraphicsView::focusInEvent(event);
    switch (event->reason()) {
    case Qt::MouseFocusReason:
        keyboardFrame_ = false;
        break;
    case Qt::PopupFocusReason: // (back from a menu, another window or the menu bar: as it was)
    case Qt::ActiveWindowFocusReason:
    case Qt::MenuBarFocusReason:
        break;
    default: // Tab, Shift+Tab, F6, a shortcut, the window handing it on
        keyboardFrame_ = true;
    }
    viewport()->update();
}

void GraphView::focusOutEvent(QFocusEvent* event)
{
    QGraphicsView::focusOutEvent(event);
    if (event->reason() == Qt::PopupFocusReason || event->reason() == Qt::ActiveWindowFocusReason ||
        event->reason() == Qt::MenuBarFocusReason)
        return; // (a menu, another window or the menu bar: the keyboard comes back here)
    keyboardFrame_ = false;
    viewport()->update();
}

void GraphView::drawForeground(QPainter* painter, const QRectF& rect)
{
    QGraphicsView::drawForeground(painter, rect);
    if (!keyboardFrame_ || !hasFocus())
        return;
    painter->save();
    painter->resetTransform(); // (viewport pixels)
    painter->setPen(QPen(palette().color(QPalette::Highlight), 2));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(QRectF(viewport()->rect()).adjusted(1, 1, -1, -1));
    painter->restore();
}

GraphView::~GraphView()
{
    // The scene dies after this view: its last selection changes must not reach a window being torn down.
    scene_->blockSignals(true);
}

namespace {

// Each layer's type, size and filter count: what tells the cards apart across an edit (not the shape,
// which an edit above a layer may change).
std::vector<std::string> layerSignatures(const NetworkSpec& spec)
{
    std::vector<std::string> signatures;
    signatures.reserve(spec.layers.size());
    for (const LayerSpec& layer : spec.layers) {
        // (a filter count, not the sources a route's column names: their numbers change with an insert)
        const bool count = layer.type != "route";
        signatures.push_back(layer.type + ' ' + layer.size + ' ' + (count ? layer.filters : std::string()));
    }
    return signatures;
}

// Where layer `layer` of the `before` network is in `after`: layers before the first difference keep
// their number, those after the last one move by the change in count (an insert or delete above them).
// The layers an edit left alone before and after what it changed: (prefix, suffix) counts.
std::pair<std::size_t, std::size_t> unchangedEnds(const std::vector<std::string>& before,
                                                  const std::vector<std::string>& after)
{
    const std::size_t common = std::min(before.size(), after.size());
    std::size_t prefix = 0, suffix = 0;
    while (prefix < common && before[prefix] == after[prefix])
        ++prefix;
    while (suffix < common - prefix && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
        ++suffix;
    return {prefix, suffix};
}

int followLayer(int layer, const std::vector<std::string>& before, const std::vector<std::string>& after)
{
    const std::size_t suffix = unchangedEnds(before, after).second;
    if (std::size_t(layer) >= before.size() - suffix)
        layer += int(after.size()) - int(before.size());
    return std::min(layer, int(after.size()) - 1);
}

} // namespace

std::pair<int, QPointF> GraphView::visibleAnchor() const
{
    const QRectF shown = mapToScene(viewport()->rect()).boundingRect();
    const QPointF middle = shown.center();
    int anchor = -1;
    QPointF at;
    double nearest = 1e300;
    for (QGraphicsItem* item : scene_->items()) {
        if (item->type() != NodeItem::Type || !shown.intersects(item->sceneBoundingRect()))
            continue;
        const QPointF centre = item->sceneBoundingRect().center();
        const double distance = item->isSelected() ? -1 : QLineF(centre, middle).length();
        if (distance < nearest) {
            nearest = distance;
            anchor = static_cast<NodeItem*>(item)->layer();
            at = mapFromScene(centre);
        }
    }
    return {anchor, at};
}

void GraphView::setSpec(const NetworkSpec& spec)
{
    const std::vector<int> selected = selectedLayers();
    // An edit lays the graph out anew (dot moved a card 300 px sideways when a layer below it went):
    // the card the user is looking at stays where it was on screen.
    const auto [anchor, anchorOnScreen] = visibleAnchor();
    drawnBefore_ = std::exchange(drawnLayers_, layerSignatures(spec));
    const std::vector<std::string>& drawnBefore = drawnBefore_;
    updatingSelection_ = true;
    connectFrom_ = nullptr;
    connectLine_ = nullptr;
    targetNode_ = nullptr;
    targetEdge_ = nullptr;
    hovered_ = nullptr; // (a card of the old scene: its address may come back for a new one)
    refusal_.clear();
    scene_->clear();
    if (spec.layers.size() > std::size_t(kLargestDrawnGraph)) {
        auto* note = scene_->addText(tr("This network has %1 layers: the graph is drawn for up to %2.\n"
                                        "The layer table and Properties show and edit every layer.")
                                         .arg(spec.layers.size())
                                         .arg(kLargestDrawnGraph));
        note->setDefaultTextColor(graphColours().hint);
        scene_->setSceneRect(note->boundingRect().adjusted(-40, -40, 40, 40));
        layoutRect_ = scene_->sceneRect();
        updatingSelection_ = false;
        placeMiniMap();
        miniMap_->refresh();
        return;
    }
    const GraphLayout layout = layoutNetwork(spec, kNodeSize);
    for (const LaidOutEdge& edge : layout.edges)
        scene_->addItem(new EdgeItem(edge.from, edge.to, edge.path));
    for (const LaidOutNode& node : layout.nodes)
        scene_->addItem(new NodeItem(spec.layers[std::size_t(node.layer)], node.box));
    scene_->setSceneRect(layout.bounds.adjusted(-40, -40, 40, 40));
    if (layout.nodes.empty()) { // a new network: say how to start
        // (a cfg that starts with a layer is not empty: its sections wait for a [net] section)
        const cfg::Document* document = spec.document.get();
        const bool withoutNet = document && !document->sections().empty() && !cfg::startsWithNet(*document);
        auto* hint = scene_->addText(
            withoutNet
                ? tr("This cfg starts with [%1], not [net]: its %2 sections are no layers until a [net] "
                     "section (the input's width, height and channels) comes first.\nEdit ▸ Add [net] "
                     "section adds one.")
                      .arg(QString::fromStdString(document->sections().front().type))
                      .arg(document->sections().size())
                : QString(kEmptyHint));
        hint->setTextWidth(400); // (one long line was cut by a narrow canvas and brought the mini-map)
        hint->setDefaultTextColor(graphColours().hint);
        scene_->setSceneRect(hint->boundingRect().adjusted(-40, -40, 40, 40));
    }
    updatingSelection_ = false;
    layoutRect_ = scene_->sceneRect();
    if (anchor >= 0 && !drawnLayers_.empty()) {
        if (const auto centre = centreOf(followLayer(anchor, drawnBefore, drawnLayers_))) {
            // Room to scroll to: a graph narrower than the view has none across, and the view centred
            // it instead (the card moved 60 px sideways, cards at the edge were cut).
            if (const double scale = transform().m11(); scale > 0) {
                const QSizeF seen(viewport()->width() / scale, viewport()->height() / scale);
                scene_->setSceneRect(
                    scene_->sceneRect().united(QRectF(*centre - anchorOnScreen / scale, seen)));
            }
            const QPointF moved = QPointF(mapFromScene(*centre)) - anchorOnScreen;
            horizontalScrollBar()->setValue(horizontalScrollBar()->value() + qRound(moved.x()));
            verticalScrollBar()->setValue(verticalScrollBar()->value() + qRound(moved.y()));
        }
    }
    // The same layers, not the same numbers: after an undo of a paste the cards that took the pasted
    // layers' numbers stayed selected, and Del removed layers nobody chose.
    std::vector<int> followed;
    for (const int layer : selected)
        if (const int now = followedLayer(layer); now >= 0)
            followed.push_back(now);
    selectLayers(followed, false); // (the anchor above decides where the view is)
    placeMiniMap();
    miniMap_->refresh();
}

int GraphView::followedLayer(int layer) const
{
    if (layer < 0 || std::size_t(layer) >= drawnBefore_.size())
        return -1;
    const auto [prefix, suffix] = unchangedEnds(drawnBefore_, drawnLayers_);
    const bool changed = std::size_t(layer) >= prefix && std::size_t(layer) < drawnBefore_.size() - suffix;
    if (changed && drawnBefore_.size() != drawnLayers_.size())
        return -1; // (a value edited in place keeps its layer's number)
    return followLayer(layer, drawnBefore_, drawnLayers_);
}

int GraphView::nodeCount() const
{
    int count = 0;
    for (QGraphicsItem* item : scene_->items())
        count += item->type() == NodeItem::Type;
    return count;
}

// Up and Down (or Left and Right) choose the previous or next layer, Home and End the first and last,
// as a click on that card would: the graph is used without a mouse too.
void GraphView::keyPressEvent(QKeyEvent* event)
{
    const int count = nodeCount();
    const int current = selectedLayer();
    int next = -2;
    if (event->modifiers() == Qt::NoModifier || event->modifiers() == Qt::KeypadModifier) {
        switch (event->key()) {
        case Qt::Key_Up:
        case Qt::Key_Left:
            next = current < 0 ? count - 1 : std::max(0, current - 1);
            break;
        case Qt::Key_Down:
        case Qt::Key_Right:
            next = current < 0 ? 0 : std::min(count - 1, current + 1);
            break;
        case Qt::Key_Home:
            next = 0;
            break;
        case Qt::Key_End:
            next = count - 1;
            break;
        default:
            break;
        }
    }
    if (next == -2 || count == 0) {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    selectLayer(next);
    emit layerSelected(next);
    event->accept();
}

void GraphView::selectLayer(int layer)
{
    selectLayers({layer});
}

void GraphView::selectLayers(const std::vector<int>& layers, bool bringIntoView)
{
    updatingSelection_ = true;
    scene_->clearSelection();
    for (QGraphicsItem* item : scene_->items())
        if (item->type() == NodeItem::Type &&
            std::find(layers.begin(), layers.end(), static_cast<NodeItem*>(item)->layer()) != layers.end()) {
            item->setSelected(true);
            if (layers.size() == 1 && bringIntoView)
                ensureVisible(item, 60, 60);
        }
    updatingSelection_ = false;
}

std::vector<int> GraphView::selectedLayers() const
{
    std::vector<int> layers;
    for (QGraphicsItem* item : scene_->selectedItems())
        if (item->type() == NodeItem::Type)
            layers.push_back(static_cast<NodeItem*>(item)->layer());
    std::sort(layers.begin(), layers.end());
    return layers;
}

int GraphView::selectedLayer() const
{
    const std::vector<int> layers = selectedLayers();
    return layers.empty() ? -1 : layers.front();
}

std::optional<std::pair<int, int>> GraphView::selectedEdge() const
{
    for (QGraphicsItem* item : scene_->selectedItems())
        if (item->type() == EdgeItem::Type) {
            const auto* edge = static_cast<EdgeItem*>(item);
            return std::pair(edge->from(), edge->to());
        }
    return std::nullopt;
}

std::optional<QPointF> GraphView::outputPortOf(int layer) const
{
    for (QGraphicsItem* item : scene_->items())
        if (item->type() == NodeItem::Type && static_cast<NodeItem*>(item)->layer() == layer)
            return static_cast<NodeItem*>(item)->outputPort();
    return std::nullopt;
}

std::optional<QPointF> GraphView::centreOf(int layer) const
{
    for (QGraphicsItem* item : scene_->items())
        if (item->type() == NodeItem::Type && static_cast<NodeItem*>(item)->layer() == layer)
            return item->sceneBoundingRect().center();
    return std::nullopt;
}

std::optional<QPointF> GraphView::edgePoint(int from, int to) const
{
    for (QGraphicsItem* item : scene_->items())
        if (item->type() == EdgeItem::Type) {
            const auto* edge = static_cast<EdgeItem*>(item);
            if (edge->from() == from && edge->to() == to)
                return edge->path().pointAtPercent(0.5);
        }
    return std::nullopt;
}

void GraphView::fitAll()
{
    scene_->setSceneRect(layoutRect_); // (without the room an edit kept the view in place with)
    fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
    placeMiniMap();
    miniMap_->refresh();
}

void GraphView::showStart()
{
    resetTransform(); // at 100 %: a zoom chosen for the last network (Fit on yolov4) made a new one specks
    startPending_ = true;
    if (isVisible())
        applyStart();
}

void GraphView::applyStart()
{
    startPending_ = false;
    scene_->setSceneRect(layoutRect_);
    const auto first = centreOf(0);
    if (!first)
        return;
    const double halfHeight = viewport()->height() / 2.0 / std::max(1e-6, transform().m22());
    centerOn(QPointF(first->x(), first->y() - 70 + halfHeight));
    placeMiniMap();
    miniMap_->refresh();
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    zoomBy(event->angleDelta().y() > 0 ? 1.15 : 1 / 1.15);
}

void GraphView::zoomBy(double factor)
{
    // Between a fortieth of Fit (or 2 %, for a small graph) and 400 % (or Fit): the wheel went on to 3.7e-10,
    // the graph gone and a click there deselecting everything, and to 514x.
    const QRectF graph = layoutRect_.isEmpty() ? scene_->sceneRect() : layoutRect_;
    const double fit = graph.isEmpty() ? 1
                                       : std::min(viewport()->width() / graph.width(),
                                                  viewport()->height() / graph.height());
    const double current = transform().m11(), smallest = std::min(0.02, fit / 40),
                 largest = std::max(4.0, fit);
    const double wanted = std::clamp(current * factor, smallest, largest);
    if (current <= 0 || wanted == current)
        return;
    factor = wanted / current;
    scale(factor, factor);
    placeMiniMap();
    miniMap_->refresh();
}

void GraphView::zoomActualSize()
{
    resetTransform();
    placeMiniMap();
    miniMap_->refresh();
}

void GraphView::centreOnSelection()
{
    QRectF area;
    for (QGraphicsItem* item : scene()->selectedItems())
        if (item->type() == NodeItem::Type)
            area = area.isNull() ? item->sceneBoundingRect() : area.united(item->sceneBoundingRect());
    if (area.isNull())
        return;
    centerOn(area.center());
    miniMap_->refresh();
}

NodeItem* GraphView::nodeAt(const QPoint& viewPosition) const
{
    for (QGraphicsItem* item : items(viewPosition))
        if (item->type() == NodeItem::Type)
            return static_cast<NodeItem*>(item);
    return nullptr;
}

EdgeItem* GraphView::edgeAt(const QPoint& viewPosition) const
{
    for (QGraphicsItem* item : items(viewPosition))
        if (item->type() == EdgeItem::Type)
            return static_cast<EdgeItem*>(item);
    return nullptr;
}

int GraphView::connectionTarget() const
{
    return connectFrom_ && targetNode_ ? targetNode_->layer() : -1;
}

void GraphView::setDropTarget(NodeItem* node, EdgeItem* edge)
{
    if (targetNode_ && targetNode_ != node)
        targetNode_->setDropTarget(false);
    if (targetEdge_ && targetEdge_ != edge)
        targetEdge_->setDropTarget(false);
    targetNode_ = node;
    targetEdge_ = edge;
    if (node)
        node->setDropTarget(true);
    if (edge)
        edge->setDropTarget(true);
}

void GraphView::mousePressEvent(QMouseEvent* event)
{
    if (std::exchange(keyboardFrame_, false)) // (the mouse is here now)
        viewport()->update();
    const QPoint at = event->position().toPoint();
    if (event->button() == Qt::LeftButton) {
        NodeItem* node = nodeAt(at);
        if (node && node->onOutputPort(mapToScene(at))) { // start a connection
            connectFrom_ = node;
            hovered_ = nullptr;
            refusal_.clear();
            connectLine_ = scene_->addLine(QLineF(node->outputPort(), mapToScene(at)),
                                           QPen(graphColours().selected, 2, Qt::DashLine));
            connectLine_->setZValue(2);
            event->accept();
            return;
        }
        if (!node && !edgeAt(at) && (event->modifiers() & Qt::ShiftModifier))
            setDragMode(QGraphicsView::RubberBandDrag); // Shift+drag on the background selects an area
    }
    QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event)
{
    if (connectFrom_ && connectLine_) {
        const QPoint at = event->position().toPoint();
        connectLine_->setLine(QLineF(connectFrom_->outputPort(), mapToScene(at)));
        NodeItem* node = nodeAt(at);
        if (node == connectFrom_)
            node = nullptr;
        if (node != hovered_) { // asked once per card entered: the check edits a copy of the document
            hovered_ = node;
            refusal_ =
                node && connectionCheck_ ? connectionCheck_(connectFrom_->layer(), node->layer()) : QString();
            connectLine_->setPen(refusal_.isEmpty() ? QPen(graphColours().selected, 2, Qt::DashLine)
                                                    : QPen(graphColours().error, 2, Qt::DotLine));
            if (refusal_.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(event->globalPosition().toPoint(), refusal_, this);
        }
        setDropTarget(refusal_.isEmpty() ? node : nullptr, nullptr);
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event)
{
    if (connectFrom_) {
        NodeItem* target = nodeAt(event->position().toPoint());
        const int source = connectFrom_->layer();
        delete connectLine_;
        connectLine_ = nullptr;
        connectFrom_ = nullptr;
        hovered_ = nullptr;
        refusal_.clear();
        QToolTip::hideText();
        setDropTarget(nullptr, nullptr);
        event->accept();
        if (target && target->layer() != source)
            emit connectRequested(source, target->layer()); // may rebuild the scene: nothing after it
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
    setDragMode(QGraphicsView::ScrollHandDrag);
    placeMiniMap();
    miniMap_->refresh();
}

void GraphView::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasFormat(kLayerMime))
        event->acceptProposedAction();
}

void GraphView::dragMoveEvent(QDragMoveEvent* event)
{
    if (!event->mimeData()->hasFormat(kLayerMime))
        return;
    const QPoint at = event->position().toPoint();
    NodeItem* node = nodeAt(at);
    setDropTarget(node, node ? nullptr : edgeAt(at)); // show where the layer will go
    event->acceptProposedAction();
}

void GraphView::dragLeaveEvent(QDragLeaveEvent* event)
{
    setDropTarget(nullptr, nullptr);
    QGraphicsView::dragLeaveEvent(event);
}

void GraphView::dropEvent(QDropEvent* event)
{
    setDropTarget(nullptr, nullptr);
    const QString type = QString::fromUtf8(event->mimeData()->data(kLayerMime));
    if (type.isEmpty())
        return;
    event->setDropAction(Qt::CopyAction); // (a Move would take the type out of the palette)
    event->accept();
    const QPoint at = event->position().toPoint();
    if (NodeItem* node = nodeAt(at))
        emit insertRequested(type, node->layer());
    else if (EdgeItem* edge = edgeAt(at))
        emit insertOnEdgeRequested(type, edge->from(), edge->to());
    else
        emit insertRequested(type, -1);
}

// The mini-map takes the corner of the canvas that covers the fewest cards (bottom right first), so it
// stays clear of what the user is looking at as the view scrolls and zooms.
void GraphView::placeMiniMap()
{
    const QSize size(std::min(200, viewport()->width() / 4), std::min(260, viewport()->height() / 3));
    const int right = viewport()->width() - size.width() - 8,
              bottom = viewport()->height() - size.height() - 8;
    const QPoint corners[] = {{right, bottom}, {8, bottom}, {right, 8}, {8, 8}};
    QPoint best = corners[0];
    int fewest = std::numeric_limits<int>::max();
    const QRect shown = viewport()->rect();
    const bool zoomedIn = transform().m11() > 1.25; // (cards larger than the overview's corner)
    for (const QPoint& corner : corners) {
        // A card counts as covered when the overview touches it; zoomed in, when it would hide half of
        // what shows of it: cards are large then and every corner touches one, and the overview went
        // when it helped most.
        // (A corner that touches no card at all is taken first.)
        const QRect area(corner, size);
        int mostlyHidden = 0, touched = 0;
        for (QGraphicsItem* item : items(area)) {
            if (item->type() != NodeItem::Type)
                continue;
            const QRect card = mapFromScene(item->sceneBoundingRect()).boundingRect() & shown;
            const QRect hidden = card & area;
            mostlyHidden += !zoomedIn || qint64(hidden.width()) * hidden.height() * 2 >
                                             qint64(card.width()) * card.height();
            ++touched;
        }
        if (const int covered = mostlyHidden * 1000 + touched; covered < fewest) {
            fewest = covered;
            best = corner;
        }
    }
    miniMap_->setGeometry(QRect(best, size));
    // Where every corner would cover a card (a narrow canvas), none is taken: a card hidden under
    // the overview could be neither read nor clicked; the scroll bars and zoom still move the view.
    miniMap_->setRoom(fewest < 1000);
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    placeMiniMap();
    if (startPending_)
        applyStart();
    placeMiniMap();
    miniMap_->refresh();
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    if (keyboardFrame_) // (the scroll moved the frame's pixels with the cards)
        viewport()->update();
    if (QGuiApplication::mouseButtons() == Qt::NoButton) // never move the mini-map under a drag in it
        placeMiniMap();
    miniMap_->viewport()->update();
}

} // namespace nw::ui
