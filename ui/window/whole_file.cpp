#include "window/whole_file.h"

#include "util/atomic_file.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>

namespace nw::ui {

QString writeWholeFile(const QString& path, const QByteArray& bytes)
{
    const auto problem = writeFileAtomically(path.toStdString(),
                                             std::string_view(bytes.constData(), std::size_t(bytes.size())));
    return problem ? QString::fromStdString(*problem) : QString();
}

QString saveWholeImage(const QImage& image, const QString& path)
{
    const QByteArray format = QFileInfo(path).suffix().toLower().toLatin1();
    if (!QImageWriter::supportedImageFormats().contains(format))
        return QObject::tr("%1: cannot write images as .%2 (use .png, .jpg or .bmp)")
            .arg(path, QString::fromLatin1(format));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, format.constData()))
        return QObject::tr("%1: the image could not be encoded as .%2")
            .arg(path, QString::fromLatin1(format));
    return writeWholeFile(path, bytes);
}

} // namespace nw::ui
