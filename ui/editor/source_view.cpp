#include "editor/source_view.h"

#include "cfg/edited_text.h"
#include "editor/cfg_highlighter.h"
#include "editor/document_model.h"
#include "window/message_colours.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QMimeData>
#include <QPainter>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolTip>
#include <algorithm>
#include <utility>

namespace nw::ui {

// The margin with the line numbers, painted by the view (it knows where each line is).
class LineNumberArea : public QWidget {
public:
    explicit LineNumberArea(SourceView* view) : QWidget(view), view_(view) {}
    QSize sizeHint() const override { return {view_->lineNumberWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { view_->paintLineNumbers(event); }
    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip) { // a marked line's problems, over its number too
            auto* help = static_cast<QHelpEvent*>(event);
            const QTextCursor at = view_->cursorForPosition(QPoint(0, help->pos().y()));
            view_->showProblemsTip(at.blockNumber() + 1, help->globalPos());
            return true;
        }
        return QWidget::event(event);
    }

private:
    SourceView* view_;
};

namespace {

QString defaultPlaceholder()
{
    return SourceView::tr("The network's cfg text: type or paste a [net] section and layers here.");
}

} // namespace

SourceView::SourceView(DocumentModel& model, QWidget* parent) : QPlainTextEdit(parent), model_(model)
{
    setObjectName("sourceView");
    setAccessibleName(tr("cfg text"));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setUndoRedoEnabled(false); // one history: the document's (Edit ▸ Undo, the History dock)
    setTabChangesFocus(true);  // (Darknet strips tabs; Tab goes on to the next control)
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setPlaceholderText(defaultPlaceholder());
    highlighter_ = new CfgHighlighter(document(), palette());
    lineNumbers_ = new LineNumberArea(this);
    lineNumbers_->setObjectName("lineNumbers");
    setViewportMargins(lineNumberWidth(), 0, 0, 0);
    connect(this, &QPlainTextEdit::blockCountChanged, this, &SourceView::placeLineNumbers);
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy != 0)
            lineNumbers_->scroll(0, dy);
        else
            lineNumbers_->update(0, rect.y(), lineNumbers_->width(), rect.height());
    });
    connect(document(), &QTextDocument::contentsChanged, this, [this] { headersStale_ = true; });
    // Typing goes into the document when it pauses: the graph and Problems follow without a
    // re-layout at every key.
    commitTimer_.setSingleShot(true);
    commitTimer_.setInterval(700);
    connect(&commitTimer_, &QTimer::timeout, this, &SourceView::commitPendingEdit);
    connect(this, &QPlainTextEdit::textChanged, this, &SourceView::typed);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, &SourceView::cursorMoved);
    connect(&model_, &DocumentModel::changed, this, &SourceView::documentChanged);
    documentChanged();
}

void SourceView::documentChanged()
{
    const std::string text = model_.document().toText();
    if (text == fileText_ && !shownLines_.isEmpty())
        return; // (the text typed here, now in the document)
    fileText_ = text;
    commitTimer_.stop();
    dirty_ = false;
    setRefusal({});
    const std::string shown = cfg::editorText(text);
    const QScopedValueRollback applying(applying_, true);

    const std::vector<std::string> lines = cfg::editorLines(shown);
    const auto longest = std::max_element(lines.begin(), lines.end(), [](const auto& a, const auto& b) {
                             return a.size() < b.size();
                         })->size();
    tooLarge_ = qsizetype(shown.size()) > kLargestText || qsizetype(longest) > kLongestLine;
    setReadOnly(!editable_ || tooLarge_);
    if (tooLarge_) {
        setPlainText({});
        setPlaceholderText(tr("This cfg is too large to edit as text here (%1 MB, or a line of more than "
                              "%2 bytes): edit it in a text editor, or with the graph and Properties.")
                               .arg(double(shown.size()) / (1024 * 1024), 0, 'f', 1)
                               .arg(kLongestLine));
        shownLines_ = QStringList{QString()};
        lastSection_ = -1;
        return;
    }
    setPlaceholderText(defaultPlaceholder());

    const QString next = QString::fromUtf8(shown);
    const QString current = blockLines().join('\n');
    if (next != current) {
        // Only the characters that differ are replaced: the cursor and the scroll position stay where
        // they were (a value set in Properties changes a few characters of one line).
        qsizetype prefix = 0;
        const qsizetype common = std::min(next.size(), current.size());
        while (prefix < common && next[prefix] == current[prefix])
            ++prefix;
        qsizetype suffix = 0;
        while (suffix < common - prefix &&
               next[next.size() - 1 - suffix] == current[current.size() - 1 - suffix])
            ++suffix;
        if (prefix > 0 && next[prefix - 1].isHighSurrogate()) // (never half a character)
            --prefix;
        if (suffix > 0 && current[current.size() - suffix].isLowSurrogate())
            --suffix;
        if (prefix == 0) { // another file: from its first line
            setPlainText(next);
        } else {
            QTextCursor cursor(document());
            cursor.setPosition(int(prefix));
            cursor.setPosition(int(current.size() - suffix), QTextCursor::KeepAnchor);
            cursor.insertText(next.mid(prefix, next.size() - suffix - prefix));
        }
    }
    shownLines_ = blockLines();
    lastSection_ = sectionAtCursor();
    updateMarks();
}

QStringList SourceView::blockLines() const
{
    QStringList lines;
    lines.reserve(blockCount());
    for (QTextBlock block = document()->begin(); block.isValid(); block = block.next())
        lines << block.text();
    return lines;
}

void SourceView::typed()
{
    if (applying_)
        return;
    dirty_ = true;
    commitTimer_.start();
}

bool SourceView::hasPendingEdit() const
{
    return dirty_ && !tooLarge_ && blockLines() != shownLines_;
}

bool SourceView::commitPendingEdit()
{
    commitTimer_.stop();
    if (!dirty_ || tooLarge_ || isReadOnly())
        return true;
    const QStringList now = blockLines();
    if (now == shownLines_) {
        dirty_ = false;
        setRefusal({});
        return true;
    }
    const auto utf8 = [](const QStringList& lines) {
        std::vector<std::string> result;
        result.reserve(std::size_t(lines.size()));
        for (const QString& line : lines)
            result.push_back(line.toStdString());
        return result;
    };
    cfg::EditedLines changed;
    std::string text = cfg::mergeEditedLines(fileText_, utf8(shownLines_), utf8(now),
                                             model_.document().preferredEol(), &changed);
    // (set first: the document's change signal brings this text back, with nothing to redo here)
    const std::string shownBefore = std::exchange(fileText_, text);
    const QStringList linesBefore = std::exchange(shownLines_, now);
    if (const QString refusal = model_.editText(text, changed.first, changed.last); !refusal.isEmpty()) {
        fileText_ = shownBefore; // (still to be put in: the text stays as typed, never lost)
        shownLines_ = linesBefore;
        setRefusal(refusal);
        return false;
    }
    dirty_ = false;
    setRefusal({});
    cursorMoved(); // a section typed into being, or moved into while typing, is chosen now
    return true;
}

void SourceView::dropPendingEdit()
{
    shownLines_.clear(); // (the document's text is shown again, whatever was typed)
    documentChanged();
}

void SourceView::setRefusal(const QString& refusal)
{
    if (refusal != std::exchange(refusal_, refusal))
        emit refused(refusal_);
}

void SourceView::cursorMoved()
{
    if (applying_)
        return;
    updateMarks(); // (the current line's background)
    if (dirty_)
        return; // sections are the document's: chosen once the typing is in it
    const int section = sectionAtCursor();
    if (section != lastSection_) {
        lastSection_ = section;
        if (section >= 0)
            emit sectionChosen(section);
    }
}

const std::vector<int>& SourceView::headerLines() const
{
    if (headersStale_) {
        headers_.clear();
        for (QTextBlock block = document()->begin(); block.isValid(); block = block.next()) {
            const QString text = block.text();
            const int start = cfgTextStart(text);
            if (start < text.size() && text[start] == '[')
                headers_.push_back(block.blockNumber());
        }
        headersStale_ = false;
    }
    return headers_;
}

int SourceView::sectionAtCursor() const
{
    const std::vector<int>& headers = headerLines();
    const int block = textCursor().blockNumber();
    return int(std::upper_bound(headers.begin(), headers.end(), block) - headers.begin()) - 1;
}

void SourceView::showSection(int section)
{
    const std::vector<int>& headers = headerLines();
    if (tooLarge_ || hasFocus() || section < 0 || std::size_t(section) >= headers.size() ||
        section == sectionAtCursor())
        return;
    moveToBlock(headers[std::size_t(section)]);
}

void SourceView::goToLine(int line)
{
    if (!tooLarge_ && line >= 1 && line <= blockCount())
        moveToBlock(line - 1);
}

void SourceView::moveToBlock(int block)
{
    const QScopedValueRollback applying(applying_, true);
    const QTextBlock target = document()->findBlockByNumber(block);
    // A line already in view stays where it is; another comes in near the top, with two lines of
    // context above it (its label comment, the layer before), not at the bottom edge.
    const QRectF shown = blockBoundingGeometry(target).translated(contentOffset());
    const bool inView = shown.top() >= 0 && shown.bottom() <= viewport()->height();
    setTextCursor(QTextCursor(target));
    if (!inView)
        verticalScrollBar()->setValue(std::max(0, block - 2));
    lastSection_ = sectionAtCursor();
    updateMarks();
}

void SourceView::setEditable(bool editable)
{
    editable_ = editable;
    setReadOnly(!editable_ || tooLarge_);
}

void SourceView::setProblems(const Diagnostics& problems)
{
    marks_.clear();
    const std::string& file = model_.document().fileName();
    for (const Diagnostic& problem : problems) {
        if (problem.line <= 0 || !(problem.file.empty() || problem.file == file))
            continue; // (a .data file's problem has no line here)
        Mark& mark = marks_[problem.line];
        mark.error = mark.error || problem.isError();
        mark.messages << QString::fromStdString(problem.message);
    }
    updateMarks();
    lineNumbers_->update();
}

std::map<int, bool> SourceView::markedLines() const
{
    std::map<int, bool> lines;
    for (const auto& [line, mark] : marks_)
        lines[line] = mark.error;
    return lines;
}

void SourceView::updateMarks()
{
    QList<QTextEdit::ExtraSelection> selections;
    QTextEdit::ExtraSelection current; // the cursor's line, faintly
    current.format.setBackground(palette().color(QPalette::AlternateBase));
    current.format.setProperty(QTextFormat::FullWidthSelection, true);
    current.cursor = textCursor();
    current.cursor.clearSelection();
    selections << current;
    constexpr int kMostMarks = 500; // (a broken 80,000-line file: the first ones are what one fixes first)
    int count = 0;
    for (const auto& [line, mark] : marks_) {
        const QTextBlock block = document()->findBlockByNumber(line - 1);
        if (!block.isValid() || ++count > kMostMarks)
            break;
        QTextEdit::ExtraSelection underline;
        underline.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        underline.format.setUnderlineColor(mark.error ? errorTextColour(this) : warningTextColour(this));
        underline.cursor = QTextCursor(block);
        underline.cursor.setPosition(block.position() + cfgTextStart(block.text()));
        underline.cursor.setPosition(block.position() + block.length() - 1, QTextCursor::KeepAnchor);
        selections << underline;
    }
    if (!foundTerm_.isEmpty()) { // what Find matches, all of them (the first thousand)
        QTextCharFormat found;
        found.setBackground(palette()
                                .color(QPalette::Highlight)
                                .lighter(palette().color(QPalette::Base).lightness() < 128 ? 70 : 170));
        QTextCursor at(document());
        for (int n = 0; n < 1000; ++n) {
            at = document()->find(foundTerm_, at);
            if (at.isNull())
                break;
            selections << QTextEdit::ExtraSelection{at, found};
        }
    }
    setExtraSelections(selections);
}

int SourceView::setFoundTerm(const QString& term)
{
    foundTerm_ = term;
    updateMarks();
    int matches = 0;
    for (QTextCursor at(document()); !term.isEmpty();) {
        at = document()->find(term, at);
        if (at.isNull())
            break;
        ++matches;
    }
    return matches;
}

void SourceView::showProblemsTip(int line, const QPoint& globalPos)
{
    const auto mark = marks_.find(line);
    if (mark == marks_.end())
        QToolTip::hideText();
    else
        QToolTip::showText(globalPos, mark->second.messages.join('\n'), this);
}

bool SourceView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        showProblemsTip(cursorForPosition(help->pos()).blockNumber() + 1, help->globalPos());
        return true;
    }
    return QPlainTextEdit::viewportEvent(event);
}

bool SourceView::event(QEvent* event)
{
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        // Anything a shortcut does next (Move layer, Save, Train) acts on what is typed here. Not a
        // modifier pressed alone, nor AltGr on Windows (Ctrl+Alt giving a character: '[' on many
        // keyboards), which is typing.
        const bool modifierOnly = key->key() == Qt::Key_Control || key->key() == Qt::Key_Alt ||
                                  key->key() == Qt::Key_Shift || key->key() == Qt::Key_Meta ||
                                  key->key() == Qt::Key_AltGr;
        const bool altGr = (key->modifiers() & Qt::ControlModifier) && (key->modifiers() & Qt::AltModifier) &&
                           !key->text().isEmpty() && key->text().front().isPrint();
        if (dirty_ && !modifierOnly && !altGr && (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier)))
            commitPendingEdit();
        // Undo and Redo are the window's: the document's history, of which the typing is a step. Text
        // the document refused is no step: Undo drops it (the network's last edit stays).
        const bool undo = key->matches(QKeySequence::Undo);
        if (undo && !refusal_.isEmpty()) {
            dropPendingEdit();
            event->accept();
            return true;
        }
        if (undo || key->matches(QKeySequence::Redo) ||
            (key->modifiers() == Qt::ControlModifier && key->key() == Qt::Key_Y)) {
            event->ignore();
            return true;
        }
    }
    return QPlainTextEdit::event(event);
}

void SourceView::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        highlighter_->setPalette(palette());
        updateMarks();
    }
}

void SourceView::focusOutEvent(QFocusEvent* event)
{
    commitPendingEdit(); // (a menu opening counts: Edit ▸ Undo acts on the typing)
    QPlainTextEdit::focusOutEvent(event);
}

void SourceView::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    placeLineNumbers();
}

void SourceView::placeLineNumbers()
{
    // (also when the line count gains a digit: margins alone do not move the strip, "1580" showed "158")
    setViewportMargins(lineNumberWidth(), 0, 0, 0);
    const QRect contents = contentsRect();
    lineNumbers_->setGeometry(QRect(contents.left(), contents.top(), lineNumberWidth(), contents.height()));
}

bool SourceView::canInsertFromMimeData(const QMimeData* source) const
{
    return !source->hasUrls() && QPlainTextEdit::canInsertFromMimeData(source);
}

int SourceView::lineNumberWidth() const
{
    int digits = 1;
    for (int count = std::max(1, blockCount()); count >= 10; count /= 10)
        ++digits;
    return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void SourceView::paintLineNumbers(QPaintEvent* event)
{
    QPainter painter(lineNumbers_);
    painter.fillRect(event->rect(), palette().color(QPalette::Window));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    const int lineHeight = fontMetrics().height();
    QFont bold = font();
    bold.setBold(true);
    while (block.isValid() && top <= event->rect().bottom()) {
        const int bottom = top + qRound(blockBoundingRect(block).height());
        if (block.isVisible() && bottom >= event->rect().top()) {
            const auto mark = marks_.find(block.blockNumber() + 1);
            const bool marked = mark != marks_.end();
            painter.setFont(marked ? bold : font());
            painter.setPen(!marked              ? palette().color(QPalette::PlaceholderText)
                           : mark->second.error ? errorTextColour(this)
                                                : warningTextColour(this));
            painter.drawText(0, top, lineNumbers_->width() - 5, lineHeight, Qt::AlignRight,
                             QString::number(block.blockNumber() + 1));
        }
        block = block.next();
        top = bottom;
    }
}

} // namespace nw::ui
