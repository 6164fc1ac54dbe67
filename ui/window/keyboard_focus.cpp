#include "window/keyboard_focus.h"

#include <QDockWidget>
#include <QMainWindow>
#include <algorithm>

namespace nw::ui {

bool isBehindAnotherTab(const QWidget* widget)
{
    for (const QWidget* up = widget; up; up = up->parentWidget())
        if (const auto* dock = qobject_cast<const QDockWidget*>(up))
            if (dock->isVisible() && !dock->isFloating() && dock->visibleRegion().isEmpty())
                return true;
    return false;
}

bool isTabStop(const QWidget* widget, const QWidget* within)
{
    return (widget->focusPolicy() & Qt::TabFocus) == Qt::TabFocus && !widget->focusProxy() &&
           widget->isEnabled() && widget->isVisibleTo(within);
}

QWidget* firstFocusableIn(QWidget* pane)
{
    if (!pane)
        return nullptr;
    for (QWidget* next = pane->nextInFocusChain(); next && next != pane; next = next->nextInFocusChain())
        if (pane->isAncestorOf(next) && isTabStop(next, pane))
            return next;
    return (pane->focusPolicy() & Qt::TabFocus) ? pane : nullptr;
}

QList<QWidget*> panesInView(const QMainWindow& window)
{
    QList<QWidget*> panes;
    if (QWidget* central = window.centralWidget(); central && central->isVisible())
        panes << central;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
        if (dock->isVisible() && dock->widget() && !dock->visibleRegion().isEmpty())
            panes << dock;
    const auto place = [&window](const QWidget* pane) { return pane->mapTo(&window, QPoint(0, 0)); };
    std::stable_sort(panes.begin(), panes.end(), [&](const QWidget* a, const QWidget* b) {
        const QPoint pa = place(a), pb = place(b);
        return pa.x() != pb.x() ? pa.x() < pb.x() : pa.y() < pb.y();
    });
    return panes;
}

QWidget* neighbourPane(const QMainWindow& window, const QWidget* focus, bool forward)
{
    const QList<QWidget*> panes = panesInView(window);
    if (panes.isEmpty())
        return nullptr;
    qsizetype at = -1;
    for (qsizetype i = 0; i < panes.size(); ++i)
        if (focus && (panes[i] == focus || panes[i]->isAncestorOf(focus)))
            at = i;
    if (at < 0)
        return panes.front();
    const qsizetype n = panes.size();
    return panes[(at + (forward ? 1 : n - 1)) % n];
}

} // namespace nw::ui
