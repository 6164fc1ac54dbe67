#pragma once
// The network as a graph: a card per layer (type, key parameters, output shape, BFLOPs, a red or
// amber border for problems), edges for the data flow, laid out by Graphviz. Selection is shared with
// the layer table; wheel zooms, drag pans; layer types dropped from the palette are inserted after
// the card they land on.
#include "graph/network_spec.h"

#include <QGraphicsView>

namespace nw::ui {

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    void setSpec(const NetworkSpec& spec);
    void selectLayer(int layer);
    int selectedLayer() const;
    void fitAll();
    int nodeCount() const;

signals:
    void layerSelected(int layer);
    // A palette type dropped on the canvas: insert after `afterLayer` (-1: at the end).
    void insertRequested(const QString& type, int afterLayer);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    int layerAt(const QPoint& viewPosition) const;

    QGraphicsScene* scene_;
    bool updatingSelection_ = false;
};

} // namespace nw::ui
