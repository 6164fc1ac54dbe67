#pragma once
// A row of controls that wraps onto the next line when its dock is too narrow for all of them (the
// Detect panel's rows of buttons made it 600 px wide: beside the graph on a 1024-pixel screen, or at
// 150 % scaling, the panel scrolled sideways and hid Camera and Stop). Qt has no such layout; this one
// places each item at its preferred size, left to right, and reports the height a width needs.
#include <QLayout>
#include <QList>

namespace nw::ui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override; // the widest item: every other one can move to a line below
    QSize sizeHint() const override;    // all items on one line
    void setGeometry(const QRect& rect) override;

private:
    int gap(Qt::Orientation orientation) const; // between items (across) or lines (down)
    // Lays the items out in `rect` (moving them when `place`); returns the height used.
    int arrange(const QRect& rect, bool place) const;

    QList<QLayoutItem*> items_;
};

// Puts `label` and `field` in one widget, so a FlowLayout never wraps between them.
QWidget* labelled(QWidget* label, QWidget* field, QWidget* parent);

} // namespace nw::ui
