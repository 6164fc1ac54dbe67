#include "widgets/bring_into_view.h"

#include <QPointer>
#include <QScrollArea>
#include <QTimer>

namespace nw::ui {

void bringIntoView(QWidget* widget)
{
    QTimer::singleShot(0, widget, [shown = QPointer<QWidget>(widget)] {
        if (!shown)
            return;
        for (QWidget* parent = shown->parentWidget(); parent; parent = parent->parentWidget())
            if (auto* area = qobject_cast<QScrollArea*>(parent)) {
                area->ensureWidgetVisible(shown, 0, 8);
                return;
            }
    });
}

} // namespace nw::ui
