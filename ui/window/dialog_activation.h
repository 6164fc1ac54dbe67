#pragma once
// A window gets the keyboard back when one of its dialogs closes. A window manager does that; without
// one (a VNC or Xvfb session, a kiosk) no window was active after File ▸ Open, and every shortcut that
// needs an active window — Del, Ctrl+C/V/X/D in the graph — did nothing for the rest of the session.
class QWidget;

namespace nw::ui {

// From now on, a dialog of `window` (or of a widget in it) that closes leaves `window` active when no
// window is (never taken from another window or program that has become active).
void activateAfterDialogs(QWidget* window);

} // namespace nw::ui
