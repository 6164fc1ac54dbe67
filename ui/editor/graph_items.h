#pragma once
// The items of the graph canvas: a card per layer with an input port (top) and an output port
// (bottom), and an edge per data flow that can be selected (to disconnect it) or dropped on (to insert
// a layer there).
#include "graph/network_spec.h"

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>

namespace nw::ui {

class NodeItem : public QGraphicsRectItem {
public:
    static constexpr int Type = UserType + 1;
    static constexpr double kPortRadius = 5;

    NodeItem(const LayerSpec& layer, const QRectF& box);
    int type() const override { return Type; }
    int layer() const { return layer_; }
    QPointF inputPort() const { return {rect().center().x(), rect().top()}; }
    QPointF outputPort() const { return {rect().center().x(), rect().bottom()}; }
    // True when `scenePoint` is on (or within a few pixels of) the output port.
    bool onOutputPort(const QPointF& scenePoint) const;
    // Highlighted as the target of a connection being dragged.
    void setDropTarget(bool target);
    // "→ 13x13x256   0.399 BFLOPs", or "→ ?" and why there is no shape.
    const QString& shapeText() const { return shape_; }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override;
    // The card and its two ports (drawn half outside the card): a press anywhere on the output port
    // starts a connection; below the card's edge it went to the edge underneath.
    QRectF boundingRect() const override;
    QPainterPath shape() const override;

private:
    int layer_;
    QString title_, detail_, shape_;
    std::string type_; // (its fill is the category's colour at paint time: the palette may change)
    enum class Problem { None, Warning, Error } problem_ = Problem::None;
    bool dropTarget_ = false;
};

class EdgeItem : public QGraphicsPathItem {
public:
    static constexpr int Type = UserType + 2;

    EdgeItem(int from, int to, const QPainterPath& path);
    int type() const override { return Type; }
    int from() const { return from_; }
    int to() const { return to_; }
    // Wider than the drawn line, so a thin edge is easy to hit.
    QPainterPath shape() const override;
    void setDropTarget(bool target);

    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override;

private:
    int from_, to_;
    bool dropTarget_ = false;
};

} // namespace nw::ui
