#include "window/save_file_dialog.h"

#include <QFileDialog>

namespace nw::ui {

QString chooseFileToSave(QWidget* parent, const QString& title, const QString& start, const QString& filter,
                         const QString& suffix)
{
    QFileDialog dialog(parent, title, start, filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(suffix); // applied before the dialog's own "replace it?" question
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return {};
    return dialog.selectedFiles().front();
}

} // namespace nw::ui
