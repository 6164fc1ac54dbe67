#pragma once
// Scrolls the panel a widget is in so that the widget shows: a refusal written under the fold (a docked
// panel at 1280×720) made its button seem to do nothing.
class QWidget;

namespace nw::ui {

// Once the layout has placed it (a label that just got a longer text grows first): the nearest scroll
// area holding `widget` shows it. Nothing when no scroll area holds it.
void bringIntoView(QWidget* widget);

} // namespace nw::ui
