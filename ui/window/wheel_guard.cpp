#include "window/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace nw::ui {

namespace {

class StrayWheelFilter final : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() != QEvent::Wheel)
            return false;
        const auto* field = qobject_cast<QWidget*>(watched);
        if (!field || field->hasFocus())
            return false;
        event->ignore(); // (ignored, it goes on to the scroll area around the panel)
        return true;
    }
};

} // namespace

void guardFieldsAgainstStrayWheel(QWidget* panel)
{
    auto* filter = new StrayWheelFilter(panel);
    const auto guard = [filter](QWidget* field) {
        field->setFocusPolicy(Qt::StrongFocus); // (a wheel no longer gives it the focus either)
        field->installEventFilter(filter);
    };
    for (QAbstractSpinBox* box : panel->findChildren<QAbstractSpinBox*>())
        guard(box);
    for (QComboBox* box : panel->findChildren<QComboBox*>())
        guard(box);
}

} // namespace nw::ui
