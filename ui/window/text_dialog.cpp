#include "window/text_dialog.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QScreen>
#include <QScrollBar>
#include <QTextBrowser>
#include <QTextDocument>
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
    // As large as the text (it scrolls beyond), within the screen the parent is on: measured in a
    // document of its own (the browser's lays its text out at its own, not yet known, width).
    const QRect screen = (parent ? parent->screen() : dialog->screen())->availableGeometry();
    QTextDocument measure;
    measure.setDefaultFont(text->font());
    measure.setHtml(html);
    const int frame =
        2 * layout->contentsMargins().left() + text->verticalScrollBar()->sizeHint().width() + 8;
    const qreal widest = qreal(std::min(640, screen.width() * 85 / 100 - frame));
    measure.setTextWidth(widest);
    measure.setTextWidth(std::min(measure.idealWidth(), widest));
    const int buttonsHeight = buttons->sizeHint().height() + 3 * layout->contentsMargins().top();
    dialog->resize(int(measure.textWidth()) + frame,
                   std::min(int(measure.size().height()) + buttonsHeight + 8, screen.height() * 85 / 100));
    dialog->open();
    return dialog;
}

} // namespace nw::ui
