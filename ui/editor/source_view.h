#pragma once
// The cfg as text, for what the graph and Properties cannot do: a broken section header, comments,
// many keys at once, text pasted from a forum. Line numbers, colours for headers, keys and comments,
// and each problem under its line (a wavy underline, the line number in red or amber, the message as
// a tooltip). What is typed goes into the document once typing pauses (or at once before any other
// edit, Undo, Save or Train), as undo steps of the document's own history, so the graph, the table and
// Problems follow; an edit made elsewhere comes into the text without moving the view. The cursor's
// section is the layer selected everywhere else, and the other way round.
#include "cfg/diagnostic.h"

#include <QPlainTextEdit>
#include <QStringList>
#include <QTimer>
#include <map>
#include <string>
#include <vector>

namespace nw::ui {

class DocumentModel;

class SourceView : public QPlainTextEdit {
    Q_OBJECT
public:
    SourceView(DocumentModel& model, QWidget* parent = nullptr);

    // The problems to mark: those on a line of this document.
    void setProblems(const Diagnostics& problems);
    // Lines marked (1-based) and whether each is an error.
    std::map<int, bool> markedLines() const;
    // Moves the cursor to the header of `section` ([net] is 0) and shows it, unless the cursor is in
    // that section already or the user is typing here.
    void showSection(int section);
    // Moves the cursor to the start of a line (1-based) and shows it.
    void goToLine(int line);
    // The section the cursor is in ([net] is 0); -1 in the lines before the first section.
    int sectionAtCursor() const;
    // Typed text not yet in the document goes there now; false when it cannot be read as a cfg at all:
    // then it stays here and refused() says why.
    bool commitPendingEdit();
    // The typed text given up: the document's text shown again (Ctrl+Z on text the document refused).
    void dropPendingEdit();
    bool hasPendingEdit() const;
    // Why the typed text is not in the document; empty when it is.
    QString refusal() const { return refusal_; }
    // Highlights every match of `term` (case-insensitive; empty: none) and returns how many there are.
    int setFoundTerm(const QString& term);
    // False while a run trains; a text too large to show is never editable here.
    void setEditable(bool editable);
    // Files larger than this, or with a line longer than kLongestLine bytes, are not shown (a
    // plain-text widget lays out a 10 MB line for seconds).
    static constexpr qsizetype kLargestText = 8 * 1024 * 1024;
    static constexpr qsizetype kLongestLine = 20000;

signals:
    // The user moved the cursor into another section.
    void sectionChosen(int section);
    // Typed text the document refused (binary data, a .data file's keys): the reason; empty once the
    // text is in the document again.
    void refused(const QString& reason);

protected:
    bool event(QEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override; // a palette change: the colours follow
    void focusOutEvent(QFocusEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    // Files dragged here are opened by the window, not typed in as their URL.
    bool canInsertFromMimeData(const QMimeData* source) const override;

private:
    friend class LineNumberArea;
    void documentChanged();
    void typed();
    void setRefusal(const QString& refusal);
    void cursorMoved();
    void updateMarks();
    void moveToBlock(int block);
    void showProblemsTip(int line, const QPoint& globalPos);
    int lineNumberWidth() const;
    void placeLineNumbers();
    // The lines as the widget holds them (toPlainText() turns NBSP into a space and U+2028 into a
    // line break), and joined with '\n'.
    QStringList blockLines() const;
    void paintLineNumbers(QPaintEvent* event);
    const std::vector<int>& headerLines() const; // 0-based block numbers of the section headers

    DocumentModel& model_;
    QWidget* lineNumbers_ = nullptr;
    class CfgHighlighter* highlighter_ = nullptr;
    QTimer commitTimer_;
    std::string fileText_;   // the document's text the view was last made to show
    QStringList shownLines_; // the lines shown for it (what the editor made of it)
    bool applying_ = false;  // the view is being changed to show the document, not by the user
    bool dirty_ = false;     // typed since the text and the document were last the same
    QString refusal_;
    bool tooLarge_ = false;
    bool editable_ = true;
    int lastSection_ = -1;
    mutable std::vector<int> headers_;
    mutable bool headersStale_ = true;
    struct Mark {
        bool error = false;
        QStringList messages;
    };
    std::map<int, Mark> marks_; // by 1-based line
    QString foundTerm_;
};

} // namespace nw::ui
