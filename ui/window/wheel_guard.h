#pragma once
// Wheel events over a value field the user has not clicked into scroll the panel that holds it, and
// leave its value alone: scrolling the Training panel over "Validate every" changed 100 to 105 unseen.
class QWidget;

namespace nw::ui {

// Every spin box and combo box inside `panel` (now) takes the wheel only once it has the focus.
void guardFieldsAgainstStrayWheel(QWidget* panel);

} // namespace nw::ui
