#pragma once
// Keyboard focus in a window of docks: Qt keeps a dock behind another dock's tab "visible" (only moved
// out of sight), so Tab walked into it and keys typed there changed what no one could see. These
// helpers tell such widgets apart and move the keyboard between the panes a person sees.
#include <QList>

class QMainWindow;
class QWidget;

namespace nw::ui {

// True when `widget` sits in a docked QDockWidget that another dock's tab covers.
bool isBehindAnotherTab(const QWidget* widget);

// Qt's rule for a Tab stop: takes Tab focus, enabled, shown within `within`, no focus proxy of its own.
bool isTabStop(const QWidget* widget, const QWidget* within);

// The first control inside `pane` that takes Tab focus and is shown, in Tab order; `pane` itself when
// it takes focus and nothing inside does, or nullptr.
QWidget* firstFocusableIn(QWidget* pane);

// The central widget and the docks in view (not behind a tab, not closed), left to right then top
// to bottom: the panes F6 and Shift+F6 go through.
QList<QWidget*> panesInView(const QMainWindow& window);

// The pane after (or before) the one holding the keyboard, wrapping around; nullptr when none is shown.
QWidget* neighbourPane(const QMainWindow& window, const QWidget* focus, bool forward);

} // namespace nw::ui
