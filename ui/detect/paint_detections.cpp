#include "detect/paint_detections.h"
#include "detect/annotate.h"
#include <QPainter>

namespace nw::ui {

void paintDetections(QImage& canvas, const std::vector<LabeledBox>& boxes, double scale, int labelPixels,
                     int thickness)
{
    std::vector<LabeledBox> scaled = boxes; // in the canvas's pixels: labels are placed there
    for (LabeledBox& box : scaled) {
        box.left *= float(scale);
        box.top *= float(scale);
        box.width *= float(scale);
        box.height *= float(scale);
    }
    QPainter painter(&canvas);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setPixelSize(labelPixels);
    painter.setFont(font);
    const std::vector<const LabeledBox*> order = drawingOrder(scaled); // the most confident on top
    std::vector<QString> labels;
    std::vector<LabelSize> sizes;
    for (const LabeledBox* box : order) {
        labels.push_back(
            QString("%1 %2%").arg(QString::fromStdString(box->name)).arg(qRound(box->confidence * 100)));
        const QRectF text = painter.fontMetrics().boundingRect(labels.back()).adjusted(-3, -1, 3, 1);
        sizes.push_back({text.width(), text.height()});
    }
    const std::vector<LabelPlace> places = placeLabels(order, sizes, canvas.width(), canvas.height());
    painter.setBrush(Qt::NoBrush);
    for (const LabeledBox* box : order) { // every box first: no frame crosses a label
        int r, g, b;
        classColor(box->classId, r, g, b);
        painter.setPen(QPen(QColor(r, g, b), thickness));
        painter.drawRect(QRectF(box->left, box->top, box->width, box->height));
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
        int r, g, b;
        classColor(order[i]->classId, r, g, b);
        const QRectF tag(places[i].x, places[i].y, sizes[i].width, sizes[i].height);
        painter.fillRect(tag, QColor(r, g, b));
        painter.setPen(whiteTextOn(r, g, b) ? Qt::white : Qt::black);
        painter.drawText(tag, Qt::AlignCenter, labels[i]);
    }
}

void paintLabels(QImage& canvas, const std::vector<LabeledBox>& labels, double scale, int thickness)
{
    QPainter painter(&canvas);
    painter.setBrush(Qt::NoBrush);
    for (const LabeledBox& label : labels) {
        int r, g, b;
        classColor(label.classId, r, g, b);
        painter.setPen(QPen(QColor(r, g, b), thickness, Qt::DashLine));
        painter.drawRect(
            QRectF(label.left * scale, label.top * scale, label.width * scale, label.height * scale));
    }
}

} // namespace nw::ui
