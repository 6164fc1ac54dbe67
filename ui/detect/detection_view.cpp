#include "detect/detection_view.h"

#include "detect/paint_detections.h"

#include <QFontInfo>
#include <QLabel>
#include <QMouseEvent>
#include <QPixmap>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace nw::ui {

DetectionView::DetectionView(QWidget* parent) : QScrollArea(parent)
{
    label_ = new QLabel(this);
    label_->setAlignment(Qt::AlignCenter);
    label_->setMinimumSize(kSmallest);
    setWidget(label_);
    setWidgetResizable(true);
    viewport()->installEventFilter(this);
}

void DetectionView::setPicture(const QImage& image, std::vector<LabeledBox> boxes, bool drawBoxes)
{
    image_ = image; // (shared, not copied)
    boxes_ = std::move(boxes);
    drawBoxes_ = drawBoxes;
    redraw();
}

void DetectionView::setLabels(std::vector<LabeledBox> labels)
{
    labels_ = std::move(labels); // (drawn by the setPicture that follows: no second redraw per frame)
}

void DetectionView::clearPicture()
{
    image_ = QImage();
    boxes_.clear();
    labels_.clear();
    label_->clear();
    label_->setText(hint_);
    label_->setMinimumSize(kSmallest);
}

void DetectionView::setHint(const QString& hint)
{
    hint_ = hint;
    label_->setWordWrap(true);
    if (image_.isNull())
        label_->setText(hint_);
}

double DetectionView::currentScale() const
{
    if (zoom_ > 0 || image_.isNull())
        return zoom_ > 0 ? zoom_ : 1.0;
    const QSize fitted = image_.size().scaled(viewport()->size(), Qt::KeepAspectRatio);
    return double(fitted.width()) / image_.width();
}

double DetectionView::largestZoom() const
{
    // 16× and 16,384 pixels a side (in the screen's pixels): 16× of a 4000-pixel photo would be a 12 GB
    // pixmap.
    const double largest = (image_.isNull() ? 1.0 : double(std::max(image_.width(), image_.height()))) *
                           std::max(1.0, devicePixelRatioF());
    return std::max(0.05, std::min(16.0, 16384.0 / largest));
}

void DetectionView::setZoom(double zoom)
{
    zoom_ = zoom <= 0 ? 0 : std::clamp(zoom, 0.05, largestZoom());
    redraw();
}

void DetectionView::redraw()
{
    if (image_.isNull())
        return;
    zoom_ = std::min(zoom_, largestZoom()); // the next image may be larger than the one zoomed in on
    const QSize size =
        zoom_ > 0 ? image_.size() * zoom_ : image_.size().scaled(viewport()->size(), Qt::KeepAspectRatio);
    // Drawn in the screen's own pixels (a HiDPI screen has 2 per logical pixel: scaled to the logical
    // size, the picture, boxes and labels were blown up and soft).
    const double ratio = std::max(1.0, devicePixelRatioF());
    // Boxes drawn at the size shown, with labels in the panel's text size: scaled from the annotated
    // image, a 96-pixel image fitted to the view had labels a fifth of its height, a 4K frame tiny ones.
    QImage image = image_.scaled(size * ratio, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                       .convertToFormat(QImage::Format_RGB888);
    if (drawBoxes_ && !image.isNull() && !labels_.empty())
        paintLabels(image, labels_, double(image.width()) / image_.width(), int(std::lround(2 * ratio)));
    if (drawBoxes_ && !image.isNull())
        paintDetections(image, boxes_, double(image.width()) / image_.width(),
                        int(std::lround(std::max(11, QFontInfo(font()).pixelSize()) * ratio)),
                        int(std::lround(2 * ratio)));
    QPixmap shown = QPixmap::fromImage(image);
    shown.setDevicePixelRatio(ratio);
    // The label is as large as the zoomed image, so the scroll area has a range to scroll and drag
    // through (its fixed minimum of 320×240 held it to the view's size: a zoomed image was cropped).
    label_->setMinimumSize(shown.deviceIndependentSize().toSize().expandedTo(kSmallest));
    label_->setPixmap(shown);
}

// Ctrl+wheel zooms; dragging with the left button pans a zoomed image.
bool DetectionView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == viewport()) {
        if (event->type() == QEvent::Resize && zoom_ == 0) {
            redraw(); // Fit follows the view's size (an image shown while the dock was hidden)
        } else if (event->type() == QEvent::Wheel) {
            auto* wheel = static_cast<QWheelEvent*>(event);
            if (wheel->modifiers() & Qt::ControlModifier) {
                setZoom(currentScale() * (wheel->angleDelta().y() > 0 ? 1.25 : 0.8));
                return true;
            }
        } else if (event->type() == QEvent::MouseButtonPress) {
            dragFrom_ = static_cast<QMouseEvent*>(event)->position().toPoint();
        } else if (event->type() == QEvent::MouseMove &&
                   (static_cast<QMouseEvent*>(event)->buttons() & Qt::LeftButton)) {
            const QPoint at = static_cast<QMouseEvent*>(event)->position().toPoint();
            horizontalScrollBar()->setValue(horizontalScrollBar()->value() - (at - dragFrom_).x());
            verticalScrollBar()->setValue(verticalScrollBar()->value() - (at - dragFrom_).y());
            dragFrom_ = at;
            return true;
        }
    }
    return QScrollArea::eventFilter(watched, event);
}

} // namespace nw::ui
