#pragma once
// An overview of a large graph in the corner of the canvas: the whole scene scaled down, the part the
// canvas shows as a rectangle; clicking or dragging in it moves the canvas there. It hides itself when
// the whole graph already fits the canvas, or when it would cover a card wherever it went.
#include <QGraphicsView>

namespace nw::ui {

class MiniMap : public QGraphicsView {
    Q_OBJECT
public:
    explicit MiniMap(QGraphicsView* canvas);
    // Re-fits the scene and shows or hides itself; the canvas calls it after any change of view.
    void refresh();
    // Whether its place covers no card: it shows only then (the canvas says, after placing it).
    void setRoom(bool room);
    // The scene rectangle the canvas shows.
    QRectF visibleArea() const;

signals:
    // A click or drag in it ended: the canvas places it again (it stays put under the pointer while the
    // view moves, and was left over the cards it had moved to).
    void released();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    QGraphicsView* canvas_;
    bool room_ = true;
};

} // namespace nw::ui
