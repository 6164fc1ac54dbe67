#include "window/message_colours.h"

#include <QPalette>
#include <QWidget>

namespace nw::ui {

namespace {

bool darkBackground(const QWidget* widget)
{
    return widget->palette().color(QPalette::Window).lightness() < 128;
}

} // namespace

QColor errorTextColour(const QWidget* widget)
{
    return darkBackground(widget) ? QColor(0xff, 0x8a, 0x80) : QColor(0xb0, 0x00, 0x20);
}

QColor warningTextColour(const QWidget* widget)
{
    return darkBackground(widget) ? QColor(0xff, 0xcc, 0x66) : QColor(0x8a, 0x5a, 0x00);
}

} // namespace nw::ui
