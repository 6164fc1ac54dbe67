#include "editor/source_find_bar.h"

#include "editor/source_view.h"
#include "window/message_colours.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace nw::ui {

SourceFindBar::SourceFindBar(SourceView& view, QWidget* parent) : QWidget(parent), view_(view)
{
    setObjectName("sourceFindBar");
    field_ = new QLineEdit(this);
    field_->setObjectName("sourceFindField");
    field_->setPlaceholderText(tr("Find in the text"));
    field_->setAccessibleName(tr("Find in the cfg text"));
    field_->setClearButtonEnabled(true);
    field_->installEventFilter(this);
    count_ = new QLabel(this);
    auto* previous = new QToolButton(this);
    previous->setText(tr("Previous"));
    previous->setToolTip(tr("The previous match (Shift+Enter, Shift+F3)"));
    auto* next = new QToolButton(this);
    next->setText(tr("Next"));
    next->setToolTip(tr("The next match (Enter, F3)"));
    auto* closeButton = new QToolButton(this);
    closeButton->setText(tr("Close"));
    closeButton->setToolTip(tr("Close the find bar (Esc)"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(field_, 1);
    layout->addWidget(count_);
    layout->addWidget(previous);
    layout->addWidget(next);
    layout->addWidget(closeButton);
    connect(field_, &QLineEdit::textChanged, this, &SourceFindBar::termChanged);
    connect(previous, &QToolButton::clicked, this, [this] { findNext(true); });
    connect(next, &QToolButton::clicked, this, [this] { findNext(); });
    connect(closeButton, &QToolButton::clicked, this, &SourceFindBar::close);
    // The count follows the text (another file opened, a layer deleted, an undo): it kept the count of
    // the text the term was typed over.
    connect(&view_, &QPlainTextEdit::textChanged, this, [this] {
        if (isVisible() && !field_->text().isEmpty())
            showCount(view_.setFoundTerm(field_->text()));
    });
    hide();
}

void SourceFindBar::open()
{
    if (const QString selected = view_.textCursor().selectedText();
        !selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator))
        field_->setText(selected);
    show();
    field_->setFocus(Qt::ShortcutFocusReason);
    field_->selectAll();
    termChanged();
}

void SourceFindBar::close()
{
    view_.setFoundTerm(QString());
    hide();
    view_.setFocus(Qt::OtherFocusReason);
}

QString SourceFindBar::countText() const
{
    return count_->text();
}

void SourceFindBar::termChanged()
{
    const QString term = field_->text();
    const int matches = view_.setFoundTerm(term);
    showCount(matches);
    // Typing finds from where the text's cursor is (its selection's start: the match so far stays).
    if (!term.isEmpty() && matches > 0) {
        QTextCursor from = view_.textCursor();
        from.setPosition(from.selectionStart());
        view_.setTextCursor(from);
        findNext();
    }
}

void SourceFindBar::showCount(int matches)
{
    const QString term = field_->text();
    count_->setText(term.isEmpty() ? QString()
                    : matches == 0 ? tr("no match")
                    : matches == 1 ? tr("1 match")
                                   : tr("%1 matches").arg(matches));
    QPalette colours = field_->palette();
    colours.setColor(QPalette::Text, !term.isEmpty() && matches == 0 ? errorTextColour(field_)
                                                                     : palette().color(QPalette::Text));
    field_->setPalette(colours);
}

bool SourceFindBar::findNext(bool backwards)
{
    const QString term = field_->text();
    if (term.isEmpty())
        return false;
    const QTextDocument::FindFlags flags =
        backwards ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (view_.find(term, flags))
        return true;
    // Around the end (or the start) once.
    QTextCursor wrap = view_.textCursor();
    wrap.movePosition(backwards ? QTextCursor::End : QTextCursor::Start);
    view_.setTextCursor(wrap);
    return view_.find(term, flags);
}

bool SourceFindBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == field_ && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        const bool back = key->modifiers() & Qt::ShiftModifier;
        switch (key->key()) {
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_F3:
            findNext(back);
            return true;
        case Qt::Key_Escape:
            close();
            return true;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace nw::ui
