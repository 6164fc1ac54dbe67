#pragma once
// The Detect panel's picture: an image with its boxes drawn at the size shown, fitted to the view or
// zoomed (buttons, Ctrl+wheel) and panned by dragging.
#include "detect/detector.h"

#include <QImage>
#include <QScrollArea>
#include <QSize>
#include <vector>

class QLabel;

namespace nw::ui {

class DetectionView : public QScrollArea {
    Q_OBJECT
public:
    explicit DetectionView(QWidget* parent = nullptr);

    // The picture to show, with `boxes` drawn on it unless `drawBoxes` is false (a classifier's image).
    void setPicture(const QImage& image, std::vector<LabeledBox> boxes, bool drawBoxes);
    // An image's own labels (pixel boxes), drawn dashed under the detections from the next setPicture;
    // empty: none.
    void setLabels(std::vector<LabeledBox> labels);
    const std::vector<LabeledBox>& labels() const { return labels_; }
    void clearPicture();
    // Shown while there is no picture: what to do to get one.
    void setHint(const QString& hint);
    // 0 fits the image to the view; otherwise the scale (1 = one image pixel per screen pixel).
    void setZoom(double zoom);
    double zoom() const { return zoom_; }
    double largestZoom() const;  // for the image shown
    double currentScale() const; // the zoom now shown (the fitted scale when fitting)
    QLabel* label() const { return label_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void redraw();

    static constexpr QSize kSmallest{320, 170}; // (200 put the exports below the fold at 1280×720)
    QLabel* label_ = nullptr;
    QString hint_;
    QImage image_;
    std::vector<LabeledBox> boxes_;
    std::vector<LabeledBox> labels_;
    bool drawBoxes_ = true;
    double zoom_ = 0;
    QPoint dragFrom_;
};

} // namespace nw::ui
