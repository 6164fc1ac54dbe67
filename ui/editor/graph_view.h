#pragma once
// The network as a graph: a card per layer (type, key parameters, output shape, BFLOPs, a red or
// amber border for problems, an input and an output port), edges for the data flow, laid out by
// Graphviz, and a mini-map for large networks. Selection is shared with the layer table (Ctrl+click
// adds a card, Shift+drag selects an area); the wheel zooms, dragging the background pans. Dragging
// from a card's output port onto another card connects them; a palette type dropped on a card is
// inserted after it, dropped on an edge it is inserted on that edge. The view only asks — the main
// window turns the requests into undoable edits.
#include "graph/network_spec.h"

#include <QGraphicsView>
#include <functional>
#include <optional>
#include <utility>

class QGraphicsLineItem;

namespace nw::ui {

class MiniMap;
class NodeItem;
class EdgeItem;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    // Shown on the canvas of a network without layers.
    static constexpr const char* kEmptyHint =
        "No layers yet: drag a layer type from the Layers palette onto the canvas to start.";
    // Above this many layers no graph is drawn (the table and Properties still edit the network):
    // Graphviz's layout took minutes and, from about 40,000 layers, overflowed the stack.
    static constexpr int kLargestDrawnGraph = 4000;
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;
    // Whether the keyboard frame is drawn (focusInEvent).
    bool showsKeyboardFrame() const { return keyboardFrame_ && hasFocus(); }

    void setSpec(const NetworkSpec& spec);
    void selectLayer(int layer);
    // `bringIntoView`: scroll to a single selected card (not when a rebuild keeps the view where it was).
    void selectLayers(const std::vector<int>& layers, bool bringIntoView = true);
    int selectedLayer() const;               // the first selected card, or -1
    std::vector<int> selectedLayers() const; // every selected card, in index order
    // Where a layer of the graph before the last setSpec is now; -1 when that edit (an undo of a
    // paste, a redo of a deletion) added or removed layers around it, so it may be gone.
    int followedLayer(int layer) const;
    std::optional<std::pair<int, int>> selectedEdge() const; // (from, to) of a selected edge
    void fitAll();
    // Zoom by a factor (the wheel's step is 1.15), or back to 100 %.
    void zoomBy(double factor);
    void zoomActualSize();
    // Brings the selected cards to the middle of the view (the menu's zooms: on a 160-layer graph the
    // zoom went to the graph's middle, away from the layer chosen in the table); nothing selected: stays.
    void centreOnSelection();
    // Scrolls to the network's first layers (at the current zoom): where a newly opened network is read
    // from. Deferred until the view has its size.
    void showStart();
    int nodeCount() const;
    MiniMap* miniMap() const { return miniMap_; }
    // Scene positions, for tests and tools.
    std::optional<QPointF> outputPortOf(int layer) const;
    std::optional<QPointF> centreOf(int layer) const;
    std::optional<QPointF> edgePoint(int from, int to) const; // the middle of that edge
    // Why `source` cannot feed `target` (empty: it can), asked while a connection is dragged, so a card
    // that would refuse it is not highlighted as a place to drop.
    void setConnectionCheck(std::function<QString(int source, int target)> check)
    {
        connectionCheck_ = std::move(check);
    }
    // The card a dragged connection would be dropped on now (−1: none, or one that refuses it).
    int connectionTarget() const;

signals:
    void layerSelected(int layer); // the first selected card after a click or drag; −1 when none is
    // A palette type dropped on the canvas: insert after `afterLayer` (-1: at the end).
    void insertRequested(const QString& type, int afterLayer);
    // A palette type dropped on the edge from → to.
    void insertOnEdgeRequested(const QString& type, int from, int to);
    // The output port of `source` was dragged onto `target`.
    void connectRequested(int source, int target);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    // A palette change (a dark desktop theme): the canvas, cards and edges follow it.
    void changeEvent(QEvent* event) override;
    // A frame in the highlight colour while the keyboard is in the graph and came by keyboard (Tab, F6):
    // the canvas showed no sign of having it until a card was selected.
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    NodeItem* nodeAt(const QPoint& viewPosition) const;
    EdgeItem* edgeAt(const QPoint& viewPosition) const;
    void setDropTarget(NodeItem* node, EdgeItem* edge);
    void placeMiniMap();
    void applyStart();
    // The card the user is looking at (the selected one when it is in view, else the one nearest the
    // middle) and where it is on screen; -1 with no card in view.
    std::pair<int, QPointF> visibleAnchor() const;

    QGraphicsScene* scene_;
    MiniMap* miniMap_;
    bool updatingSelection_ = false;
    bool keyboardFrame_ = false;
    bool startPending_ = false;
    QRectF layoutRect_; // the graph's own area; an edit may widen the scene to keep the view in place
    // A connection being dragged from an output port.
    NodeItem* connectFrom_ = nullptr;
    QGraphicsLineItem* connectLine_ = nullptr;
    NodeItem* targetNode_ = nullptr;
    EdgeItem* targetEdge_ = nullptr;
    std::function<QString(int, int)> connectionCheck_;
    NodeItem* hovered_ = nullptr; // under a dragged connection, and why it refuses it
    QString refusal_;
    // Each layer's type and summary as last drawn: what tells which card is which after an edit that
    // inserted or removed layers before it.
    std::vector<std::string> drawnLayers_, drawnBefore_;
};

} // namespace nw::ui
