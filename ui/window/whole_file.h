#pragma once
// The studio's exports (curves, metrics, annotated images, detections) written whole or not at all:
// on a full disk QFile and QImage::save left a 0-byte or cut-off file, said nothing, and an export over
// an existing file destroyed it.
#include <QByteArray>
#include <QString>

class QImage;

namespace nw::ui {

// Writes `bytes` to `path` (core's writeFileAtomically). Empty on success, else what went wrong, with
// the file's name and the system's reason ("No space left on device").
QString writeWholeFile(const QString& path, const QByteArray& bytes);
// `image` encoded in the format its path's suffix names (png, jpg, bmp…) and written whole; empty on
// success, else why not.
QString saveWholeImage(const QImage& image, const QString& path);

} // namespace nw::ui
