#include "window/text_dialog.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

namespace nw::ui {

QDialog* showTextDialog(QWidget* parent, const QString& title, const QString& html)
{
    auto* dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    auto* text = new QTextBrowser(dialog);
    text->setHtml(html);
    text->setAccessibleName(title);
    text->setFrameShape(QFrame::NoFrame);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(text, 1);
    layout->addWidget(buttons);
    // As large as the text (it scrolls beyond), within the screen the parent is on.
    const QRect screen = (parent ? parent->screen() : dialog->screen())->availableGeometry();
    text->document()->setTextWidth(std::min(560, screen.width() * 85 / 100 - 40));
    const QSize content = text->document()->size().toSize() + QSize(40, 40);
    const int buttonsHeight = buttons->sizeHint().height() + 2 * layout->contentsMargins().top();
    dialog->resize(std::min(content.width(), screen.width() * 85 / 100),
                   std::min(content.height() + buttonsHeight, screen.height() * 85 / 100));
    dialog->open();
    return dialog;
}

} // namespace nw::ui
