#include "window/dialog_activation.h"

#include <QApplication>
#include <QDialog>
#include <QEvent>
#include <QPointer>
#include <QTimer>

namespace nw::ui {

namespace {

class DialogWatcher final : public QObject {
public:
    explicit DialogWatcher(QWidget* window) : QObject(window), window_(window) {}

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Hide && watched->isWidgetType()) {
            auto* dialog = qobject_cast<QDialog*>(watched);
            if (dialog && dialog->isWindow() && ownedByWindow(dialog))
                QTimer::singleShot(0, window_, [window = QPointer<QWidget>(window_)] {
                    // (the closed dialog may still be called active for a moment: the platform's word
                    // that it is not comes later, on a loaded machine after this)
                    const QWidget* active = QApplication::activeWindow();
                    if (window && window->isVisible() && (!active || !active->isVisible()) &&
                        !QApplication::activeModalWidget() && !QApplication::activePopupWidget())
                        window->activateWindow();
                });
        }
        return false;
    }

private:
    // (QWidget::isAncestorOf stops at a window's edge: a dialog is a window of its own)
    bool ownedByWindow(const QWidget* dialog) const
    {
        for (const QWidget* parent = dialog->parentWidget(); parent; parent = parent->parentWidget())
            if (parent == window_)
                return true;
        return false;
    }

    QWidget* window_;
};

} // namespace

void activateAfterDialogs(QWidget* window)
{
    qApp->installEventFilter(new DialogWatcher(window));
}

} // namespace nw::ui
