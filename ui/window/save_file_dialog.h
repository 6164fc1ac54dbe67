#pragma once
// A Save dialog that gives a name typed without a suffix its suffix before asking whether to replace a
// file, so the question is about the file that will be written: QFileDialog::getSaveFileName asks about
// the name as typed, and a suffix added after it (keep → keep.png) replaced a file without a word.
#include <QString>

class QWidget;

namespace nw::ui {

// The chosen path, with `suffix` ("png", no dot) added to a name without one; empty when cancelled.
QString chooseFileToSave(QWidget* parent, const QString& title, const QString& start, const QString& filter,
                         const QString& suffix);

} // namespace nw::ui
