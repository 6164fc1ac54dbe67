#pragma once
// A dialog of rich text that scrolls: a QMessageBox grows with its text, and the keyboard shortcuts'
// table was taller than a 720-pixel screen, its OK button below the edge.
#include <QString>

class QDialog;
class QWidget;

namespace nw::ui {

// Opens (window-modal, deleted when closed) a dialog showing `html`, at most 85 % of the screen's
// height and width; returns it.
QDialog* showTextDialog(QWidget* parent, const QString& title, const QString& html);

} // namespace nw::ui
