#pragma once
// Colours for error and warning text that read on the widget's own background: the dark reds and
// ambers that suit a light window were about 1.9:1 on a dark theme.
#include <QColor>

class QWidget;

namespace nw::ui {

QColor errorTextColour(const QWidget* widget);
QColor warningTextColour(const QWidget* widget);

} // namespace nw::ui
