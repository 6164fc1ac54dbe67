// The Source view (offscreen): the cfg as text, edited in place. Typed text becomes undo steps of the
// document's history and keeps every untouched line's bytes (CRLF, a byte-order mark, a lone CR);
// edits made elsewhere come into the text; problems are marked on their lines; the cursor's section is
// the selected layer and the other way round; a broken section header is fixed here.
#include "cfg/edited_text.h"
#include "detect/detect_panel.h"
#include "editor/document_model.h"
#include "editor/source_find_bar.h"
#include "editor/source_view.h"
#include "table/layer_table_model.h"
#include "test_support.h"
#include "train/train_panel.h"
#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QUrl>

using namespace nw;

namespace {

const char* const kNet = "[net]\n"
                         "width=16\n"
                         "height=16\n"
                         "channels=3\n"
                         "\n"
                         "[convolutional]\n" // line 6: layer 0
                         "filters=4\n"
                         "size=3\n"
                         "activation=leaky\n"
                         "\n"
                         "[maxpool]\n" // line 11: layer 1
                         "size=2\n"
                         "stride=2\n"
                         "\n"
                         "[convolutional]\n" // line 15: layer 2
                         "filters=8\n"
                         "size=1\n"
                         "activation=linear\n";

// A window with `text` open from a file of its own, the Source dock in front.
struct SourceWindow {
    QTemporaryDir dir;
    QString path;
    ui::MainWindow window;
    explicit SourceWindow(const QByteArray& text = kNet)
    {
        path = dir.filePath("net.cfg");
        test::writeFile(path, text);
        window.resize(1300, 850);
        window.show();
        if (!window.openFile(path))
            qFatal("cannot open the test cfg");
        QCoreApplication::processEvents(); // (the window raises Training once it exists)
        auto* dock = window.findChild<QDockWidget*>("sourceDock");
        dock->show();
        dock->raise();
        QCoreApplication::processEvents();
    }
    ui::SourceView* view() { return window.sourceView(); }
    ui::DocumentModel* model() { return window.documentModel(); }
    std::string text() { return model()->document().toText(); }
    // The Problems row whose text holds `needle`, or null.
    QListWidgetItem* problemRow(const QString& needle)
    {
        auto* problems = window.findChild<QListWidget*>("problemList");
        for (int row = 0; row < problems->count(); ++row)
            if (problems->item(row)->text().contains(needle))
                return problems->item(row);
        return nullptr;
    }
    // Puts the cursor at the end of line `line` (1-based), as a click there would.
    void cursorToEndOf(int line)
    {
        QTextCursor cursor(view()->document()->findBlockByNumber(line - 1));
        cursor.movePosition(QTextCursor::EndOfBlock);
        view()->setTextCursor(cursor);
    }
};

std::vector<std::string> lines(std::initializer_list<const char*> text)
{
    return {text.begin(), text.end()};
}

} // namespace

class TestSourceView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // QSettings away from the user's
    void mergedLinesKeepTheirBytes();
    void typingBecomesOneUndoStepPerLine();
    void untouchedLinesKeepCrlfAndTheByteOrderMark();
    void editsElsewhereComeIntoTheText();
    void aBrokenHeaderIsMarkedAndFixedHere();
    void theCursorsSectionIsTheSelectedLayer();
    void undoFromTheKeyboardAndToolbarIncludesTheTyping();
    void otherEditsApplyToTheTypedText();
    void readOnlyWhileTrainingAndTooLargeToShow();
    void textThatIsNoCfgIsKeptNotApplied();
    void oddCharactersKeepTheirLinesAndBytes();
    void problemsLeadToTheirLine();
    void aDroppedFileOpensAndTheNumbersFit();
    void altGrTypesAndCtrlShortcutsCommit();
    void findGoesThroughTheMatches();
    void coloursFollowThePalette();
};

// The pure merge: lines equal at both ends keep their bytes, the others get the file's line end.
void TestSourceView::mergedLinesKeepTheirBytes()
{
    const std::string file = "\xEF\xBB\xBF[net]\r\nwidth=16\r\nheight=16\n# a\rb\n";
    QCOMPARE(cfg::editorText(file), std::string("[net]\nwidth=16\nheight=16\n# a\xE2\x90\x8D"
                                                "b\n"));
    const std::vector<std::string> shown = cfg::editorLines(cfg::editorText(file));
    QCOMPARE(shown.size(), std::size_t(5)); // (the last, empty line after the final newline)
    cfg::EditedLines changed;
    // One value changed: only its line is written anew, with the given line end.
    std::vector<std::string> after = shown;
    after[1] = "width=32";
    QCOMPARE(cfg::mergeEditedLines(file, shown, after, "\r\n", &changed),
             std::string("\xEF\xBB\xBF[net]\r\nwidth=32\r\nheight=16\n# a\rb\n"));
    QCOMPARE(changed.first, 2);
    QCOMPARE(changed.last, 2);
    // The lone CR, shown as U+240D, goes back as a CR in an edited line.
    after = shown;
    after[3] = "# a\xE2\x90\x8D"
               "c";
    QCOMPARE(cfg::mergeEditedLines(file, shown, after, "\n"),
             std::string("\xEF\xBB\xBF[net]\r\nwidth=16\r\nheight=16\n# a\rc\n"));
    // The last lines deleted: the new last line has no line end; a line deleted in the middle.
    QCOMPARE(cfg::mergeEditedLines("a\nb\nc", lines({"a", "b", "c"}), lines({"a", "b"}), "\n", &changed),
             std::string("a\nb"));
    QCOMPARE(changed.first, 3);
    QCOMPARE(changed.last, 2); // (nothing typed: only deleted after line 2)
    QCOMPARE(cfg::mergeEditedLines("a\r\nb\nc\r\n", lines({"a", "b", "c", ""}), lines({"a", "c", ""}), "\n"),
             std::string("a\r\nc\r\n"));
    // Lines added at the end of a file without a final newline.
    QCOMPARE(cfg::mergeEditedLines("a\r\nb", lines({"a", "b"}), lines({"a", "b", "c"}), "\r\n"),
             std::string("a\r\nb\r\nc"));
    // An editor that split lines otherwise: the whole text from its lines.
    QCOMPARE(cfg::mergeEditedLines("a\nb", lines({"a"}), lines({"x", "y"}), "\n"), std::string("x\ny"));
}

// Typing on one line, with pauses, is one undo step named after the line; typing it back leaves none.
void TestSourceView::typingBecomesOneUndoStepPerLine()
{
    SourceWindow w;
    QCOMPARE(w.view()->toPlainText(), QString(kNet));
    QUndoStack* undo = w.model()->undoStack();
    w.view()->setFocus();
    w.cursorToEndOf(7); // filters=4
    QTest::keyClick(w.view(), Qt::Key_Backspace);
    QTest::keyClicks(w.view(), "1");
    w.view()->commitPendingEdit(); // (a pause in the typing)
    QTest::keyClicks(w.view(), "6");
    w.view()->commitPendingEdit();
    QCOMPARE(undo->count(), 1);
    QCOMPARE(undo->text(0), QString("Edit line 7 as text"));
    QVERIFY(w.text().find("filters=16\n") != std::string::npos);
    QCOMPARE(w.window.spec().layers[0].output.c, 16); // the description follows the text
    QVERIFY(w.window.windowTitle().contains('*'));
    // Typed back to 4: the text is the file's again, and nothing is left to undo or save.
    QTest::keyClick(w.view(), Qt::Key_Backspace);
    QTest::keyClick(w.view(), Qt::Key_Backspace);
    QTest::keyClicks(w.view(), "4");
    w.view()->commitPendingEdit();
    QCOMPARE(undo->count(), 0);
    QCOMPARE(w.text(), std::string(kNet));
    QVERIFY(!w.model()->isModified());
    // Another line is another step; the pause alone commits (no call).
    w.cursorToEndOf(16);
    QTest::keyClick(w.view(), Qt::Key_Backspace);
    QTest::keyClicks(w.view(), "2");
    QTRY_COMPARE_WITH_TIMEOUT(undo->count(), 1, 3000);
    QCOMPARE(w.window.spec().layers[2].output.c, 2);
    undo->undo();
    QCOMPARE(w.view()->toPlainText(), QString(kNet));
}

// A CRLF file with a byte-order mark: a line typed in is written with CRLF and every other line keeps
// its bytes, so Save changes only that line.
void TestSourceView::untouchedLinesKeepCrlfAndTheByteOrderMark()
{
    QByteArray crlf = QByteArray(kNet).replace("\n", "\r\n");
    crlf.prepend("\xEF\xBB\xBF");
    crlf.replace("size=1\r\n", "size=1\n"); // one line with LF only, as a hand edit leaves it
    SourceWindow w(crlf);
    QVERIFY(!w.view()->toPlainText().contains('\r'));
    QVERIFY(!w.view()->toPlainText().startsWith(QChar(0xFEFF)));
    w.view()->setFocus();
    w.cursorToEndOf(12); // maxpool size=2
    QTest::keyClick(w.view(), Qt::Key_Backspace);
    QTest::keyClicks(w.view(), "3");
    QTest::keyClick(w.view(), Qt::Key_Return);
    QTest::keyClicks(w.view(), "padding=0");
    w.view()->commitPendingEdit();
    QVERIFY(w.window.save());
    QByteArray expected = crlf;
    expected.replace("size=2\r\nstride=2", "size=3\r\npadding=0\r\nstride=2");
    QCOMPARE(test::readAll(w.path), expected);
    QCOMPARE(w.model()->undoStack()->text(0), QString("Edit lines 12–13 as text"));
}

// A value set in Properties or a layer inserted comes into the text; the cursor stays on its line.
void TestSourceView::editsElsewhereComeIntoTheText()
{
    SourceWindow w;
    w.cursorToEndOf(17); // "size=1" of the last layer
    const int before = w.view()->textCursor().position();
    w.model()->setValue(1, "filters", "12"); // layer 0, above the cursor: 1 character longer
    QCOMPARE(w.view()->toPlainText().toStdString(), w.text());
    QCOMPARE(w.view()->textCursor().position(), before + 1);
    QCOMPARE(w.view()->textCursor().block().text(), QString("size=1"));
    w.model()->insertLayer(3, "dropout", {{"probability", "0.5"}});
    QCOMPARE(w.view()->toPlainText().toStdString(), w.text());
    QVERIFY(w.view()->toPlainText().contains("\n[dropout]\nprobability=0.5\n"));
    QCOMPARE(w.view()->textCursor().block().text(), QString("size=1"));
    w.model()->undoStack()->setIndex(0);
    QCOMPARE(w.view()->toPlainText(), QString(kNet));
}

// "[convolutional" without its ']': an error the graph cannot fix. Source marks its line (the number
// red, a tooltip with the message), Problems leads there, and typing the ']' fixes it.
void TestSourceView::aBrokenHeaderIsMarkedAndFixedHere()
{
    QByteArray broken = kNet;
    broken.replace("[maxpool]", "[maxpool");
    SourceWindow w(broken);
    const std::map<int, bool> marked = w.view()->markedLines();
    QVERIFY(marked.count(11));
    QVERIFY(marked.at(11)); // an error
    QListWidgetItem* item = w.problemRow("no closing ']'");
    QVERIFY(item);
    QVERIFY(item->text().contains("net.cfg:11:"));
    w.cursorToEndOf(1);
    emit item->listWidget()->itemActivated(item);
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 11);
    // The Source tab stays in front (Properties would hide the line the problem is on).
    QVERIFY(!w.window.findChild<QDockWidget*>("sourceDock")->visibleRegion().isEmpty());
    w.view()->setFocus();
    w.cursorToEndOf(11);
    QTest::keyClicks(w.view(), "]");
    w.view()->commitPendingEdit();
    QCOMPARE(w.text(), std::string(kNet));
    QVERIFY(!hasErrors(w.window.spec().diagnostics));
    QVERIFY(w.view()->markedLines().empty());
}

// Moving the cursor into a section selects that layer (Properties follows); a layer chosen in the
// table puts the cursor on its header; [net] is no layer.
void TestSourceView::theCursorsSectionIsTheSelectedLayer()
{
    SourceWindow w;
    w.view()->setFocus();
    w.cursorToEndOf(16); // inside layer 2
    QCOMPARE(w.view()->sectionAtCursor(), 3);
    QCOMPARE(w.window.selectedLayer(), 2);
    w.cursorToEndOf(12); // layer 1
    QCOMPARE(w.window.selectedLayer(), 1);
    w.cursorToEndOf(2); // [net]
    QCOMPARE(w.window.selectedLayer(), -1);
    // From the table (the text not being typed in): the cursor goes to the layer's header line.
    w.window.layerTable()->setFocus();
    w.window.selectLayer(2);
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 15);
    QCOMPARE(w.window.selectedLayer(), 2); // (the cursor moved there, nothing chose another layer)
}

// Ctrl+Z in the text undoes the typing as a step of the document's history (the widget's own undo
// is off); the toolbar's Undo, which takes no focus, too.
void TestSourceView::undoFromTheKeyboardAndToolbarIncludesTheTyping()
{
    SourceWindow w;
    w.model()->setValue(1, "size", "5"); // an earlier step, from Properties
    w.view()->setFocus();
    QTRY_VERIFY(w.view()->hasFocus());
    w.cursorToEndOf(9);
    QTest::keyClicks(w.view(), "x"); // activation=leakyx, not yet in the document
    QTest::keyClick(w.view(), Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(w.text().find("size=5") != std::string::npos);
    QVERIFY(w.view()->toPlainText().contains("activation=leaky\n"));               // the typing undone
    QTest::keyClick(w.view(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier); // redo it
    QVERIFY(w.view()->toPlainText().contains("activation=leakyx\n"));
    w.cursorToEndOf(12);
    QTest::keyClicks(w.view(), "0"); // maxpool size=20, another line: another step
    QAction* toolbarUndo = nullptr;
    for (QAction* action : w.window.findChild<QToolBar*>("mainToolbar")->actions())
        if (action->text() == "Undo")
            toolbarUndo = action;
    QVERIFY(toolbarUndo);
    toolbarUndo->trigger();
    QVERIFY(w.view()->toPlainText().contains("\nsize=2\n")); // the typed "0" went in, and was undone
    QVERIFY(w.text().find("activation=leakyx\n") != std::string::npos);
    QCOMPARE(w.model()->undoStack()->index(), 2);
    QCOMPARE(w.model()->undoStack()->count(), 3);
}

// A layer moved or deleted while text is typed but not yet in the document: the typing goes in first
// and the edit applies to it (it was lost when the document's change replaced the text).
void TestSourceView::otherEditsApplyToTheTypedText()
{
    SourceWindow w;
    w.view()->setFocus();
    w.cursorToEndOf(18); // the last layer's activation=linear
    QTest::keyClick(w.view(), Qt::Key_Return);
    QTest::keyClicks(w.view(), "stride=1");
    QVERIFY(w.view()->hasPendingEdit());
    QCOMPARE(w.model()->removeLayer(1), QString()); // the maxpool, from the graph or the table
    QVERIFY(w.text().find("stride=1") != std::string::npos);
    QVERIFY(w.text().find("[maxpool]") == std::string::npos);
    QCOMPARE(w.view()->toPlainText().toStdString(), w.text());
    QCOMPARE(w.model()->undoStack()->count(), 2);
}

// While a run trains the text is read-only, as the other editors; a cfg too large to lay out as text
// says so instead of freezing the window.
void TestSourceView::readOnlyWhileTrainingAndTooLargeToShow()
{
    {
        SourceWindow w;
        emit w.window.trainPanel()->trainingChanged(true);
        QVERIFY(w.view()->isReadOnly());
        emit w.window.trainPanel()->trainingChanged(false);
        QVERIFY(!w.view()->isReadOnly());
    }
    QByteArray huge = kNet;
    huge += "# " + QByteArray(ui::SourceView::kLongestLine + 10, 'x') + "\n";
    SourceWindow w(huge);
    QVERIFY(w.view()->isReadOnly());
    QVERIFY(w.view()->toPlainText().isEmpty());
    QVERIFY(w.view()->placeholderText().contains("too large to edit as text"));
    QCOMPARE(w.window.spec().layers.size(), std::size_t(3)); // the network itself is open
    // Edited elsewhere back to a normal size: shown and editable again.
    w.model()->editText(kNet, 1, 1);
    QCOMPARE(w.view()->toPlainText(), QString(kNet));
    QVERIFY(!w.view()->isReadOnly());
}

// Text that cannot be a cfg at all (a .data file's keys before any section): the document refuses it,
// the typed text stays on screen (it was wiped: the document became empty) and closing asks first.
void TestSourceView::textThatIsNoCfgIsKeptNotApplied()
{
    SourceWindow w;
    QSignalSpy refused(w.view(), &ui::SourceView::refused);
    w.view()->setFocus();
    w.view()->selectAll();
    QTest::keyClicks(w.view(), "classes=8");
    w.view()->commitPendingEdit();
    QCOMPARE(w.view()->toPlainText(), QString("classes=8"));
    QCOMPARE(w.text(), std::string(kNet)); // the network is as it was
    QVERIFY(w.view()->hasPendingEdit());
    QVERIFY2(w.view()->refusal().contains(".data file"), qPrintable(w.view()->refusal()));
    QCOMPARE(refused.count(), 1);
    QVERIFY(w.window.statusBar()->currentMessage().startsWith("The text in Source is not applied"));
    QCOMPARE(w.model()->undoStack()->count(), 0);
    // Until it is a cfg or dropped, nothing replaces it: Save refuses (it said "Saved" and wrote the
    // old network), edits elsewhere and the history wait.
    QVERIFY(!w.window.save());
    QVERIFY(w.window.statusBar()->currentMessage().startsWith(
        "Not saved: the text typed in Source is not a cfg"));
    QCOMPARE(test::readAll(w.path), QByteArray(kNet));
    QCOMPARE(w.model()->removeLayer(1), ui::DocumentModel::pendingTextRefusal());
    w.model()->setValue(1, "filters", "5");
    QCOMPARE(w.view()->toPlainText(), QString("classes=8"));
    QCOMPARE(w.text(), std::string(kNet));
    QVERIFY(!w.window.findChild<QWidget*>("historyView")->isEnabled());
    // Train neither: it trained the last network that was a cfg, not the text shown.
    w.window.trainPanel()->trainButton()->click();
    QVERIFY(!w.window.trainPanel()->isTraining());
    const QString said = w.window.trainPanel()->statusLabel()->text();
    QVERIFY2(said.startsWith("Not started: the text typed in Source is not a cfg"), qPrintable(said));
    // Nor Detect: it ran the last network that was a cfg. An image asked for is not kept waiting either.
    w.window.detectPanel()->openImageFile("/usr/share/darknet/data/dog.jpg");
    const QString detectSaid = w.window.detectPanel()->status()->text();
    QVERIFY2(detectSaid.startsWith("Not run: the text typed in Source is not a cfg") &&
                 !detectSaid.contains("runs once they load"),
             qPrintable(detectSaid));
    // Closing asks about the text; Cancel leaves all as it was, without a "Not saved" (no save was asked:
    // it stayed in the status bar).
    w.window.statusBar()->clearMessage();
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, [&answer] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            answer.stop();
            box->button(QMessageBox::Cancel)->click();
        }
    });
    answer.start(20);
    QVERIFY(!w.window.close());
    QVERIFY(w.window.isVisible());
    QVERIFY2(!w.window.statusBar()->currentMessage().startsWith("Not saved"),
             qPrintable(w.window.statusBar()->currentMessage()));
    QCOMPARE(w.view()->toPlainText(), QString("classes=8"));
    // Made a cfg again: applied, and the message goes.
    QTest::keyClick(w.view(), Qt::Key_Home);
    QTest::keyClicks(w.view(), "[net]");
    QTest::keyClick(w.view(), Qt::Key_Return);
    w.view()->commitPendingEdit();
    QVERIFY(w.view()->refusal().isEmpty());
    QCOMPARE(w.text(), std::string("[net]\nclasses=8"));
    QVERIFY(w.window.statusBar()->currentMessage().isEmpty());
    QVERIFY(w.window.findChild<QWidget*>("historyView")->isEnabled());
    // Ctrl+Z on refused text drops it and undoes nothing else (it also undid the edit before it).
    w.view()->selectAll();
    QTest::keyClicks(w.view(), "train=x");
    w.view()->commitPendingEdit();
    QVERIFY(!w.view()->refusal().isEmpty());
    QTest::keyClick(w.view(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w.view()->toPlainText(), QString("[net]\nclasses=8"));
    QCOMPARE(w.text(), std::string("[net]\nclasses=8"));
    QVERIFY(w.view()->refusal().isEmpty() && !w.view()->hasPendingEdit());
    QCOMPARE(w.model()->undoStack()->index(), 1);
}

// Characters a Qt text widget treats as line breaks or changes (U+2028, U+2029, NBSP), bytes that are not
// UTF-8 and a lone CR before a header: every line stays one line (marks and sections on the right
// line), and editing another line keeps their bytes.
void TestSourceView::oddCharactersKeepTheirLinesAndBytes()
{
    const QByteArray odd = "[net]\r\n"
                           "# a\xE2\x80\xA8line separator\r\n"
                           "# a\xE2\x80\xA9paragraph separator\r\n"
                           "# no-break\xC2\xA0space and a bad byte \xFF\r\n"
                           "width=16\r\nheight=16\r\nchannels=3\r\n"
                           "\r[convolutional]\r\n" // line 8, a header to Darknet
                           "filters=x\r\n"         // line 9: an error
                           "size=1\r\n";
    SourceWindow w(odd);
    QCOMPARE(w.view()->blockCount(), 11);
    QVERIFY(w.view()->markedLines().count(9));
    QCOMPARE(w.view()->document()->findBlockByNumber(8).text(), QString("filters=x"));
    w.view()->setFocus();
    w.cursorToEndOf(10); // size=1, in layer 0
    QCOMPARE(w.view()->sectionAtCursor(), 1);
    QCOMPARE(w.window.selectedLayer(), 0);
    w.cursorToEndOf(9);
    QTest::keyClick(w.view(), Qt::Key_Backspace);
    QTest::keyClicks(w.view(), "4");
    w.view()->commitPendingEdit();
    QByteArray expected = odd;
    expected.replace("filters=x", "filters=4");
    QCOMPARE(QByteArray::fromStdString(w.text()), expected);
    // The paragraph separator, shown as U+2424, goes back as itself in an edited line.
    w.cursorToEndOf(3);
    QTest::keyClicks(w.view(), "!");
    w.view()->commitPendingEdit();
    expected.replace("paragraph separator", "paragraph separator!");
    QCOMPARE(QByteArray::fromStdString(w.text()), expected);
}

// A problem inside a layer's section (not on its header) puts the cursor on the problem's line.
void TestSourceView::problemsLeadToTheirLine()
{
    QByteArray bad = kNet;
    bad.replace("filters=8", "filters=x");
    SourceWindow w(bad);
    QListWidgetItem* item = w.problemRow("net.cfg:16:");
    QVERIFY(item);
    emit item->listWidget()->itemActivated(item);
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 16);
    QCOMPARE(w.window.selectedLayer(), 2);
}

// A .cfg dropped on the text opens (it was typed in as its URL); the line numbers of a 1,200-line
// file fit their strip (it kept the width of 3 digits: "1158" showed "115").
void TestSourceView::aDroppedFileOpensAndTheNumbersFit()
{
    SourceWindow w;
    QByteArray longer = kNet;
    for (int i = 0; i < 400; ++i)
        longer += "\n[dropout]\nprobability=0.1\n";
    const QString other = w.dir.filePath("longer.cfg");
    test::writeFile(other, longer);
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(other)});
    QWidget* target = w.view()->viewport();
    const QPoint at(40, 40);
    QDragEnterEvent enter(at, Qt::CopyAction, &data, Qt::LeftButton, {});
    QApplication::sendEvent(target, &enter);
    QDropEvent drop(at, Qt::CopyAction, &data, Qt::LeftButton, {});
    QApplication::sendEvent(target, &drop);
    QCOMPARE(w.model()->path(), other);
    QCOMPARE(w.view()->toPlainText(), QString(longer));
    QVERIFY(!w.model()->isModified());
    auto* numbers = w.view()->findChild<QWidget*>("lineNumbers");
    QVERIFY(numbers);
    QVERIFY(w.view()->blockCount() > 1000);
    QVERIFY(numbers->width() >= w.view()->fontMetrics().horizontalAdvance("1200"));
}

// Ctrl+Alt giving a character (AltGr on Windows: '[' on many keyboards) is typing, not a shortcut that
// puts half a word into the document; a Ctrl shortcut commits what is typed first.
void TestSourceView::altGrTypesAndCtrlShortcutsCommit()
{
    SourceWindow w;
    w.view()->setFocus();
    w.cursorToEndOf(18);
    QTest::keyClicks(w.view(), "x");
    QKeyEvent altGr(QEvent::ShortcutOverride, Qt::Key_BracketLeft, Qt::ControlModifier | Qt::AltModifier,
                    "[");
    QApplication::sendEvent(w.view(), &altGr);
    QKeyEvent control(QEvent::ShortcutOverride, Qt::Key_Control, Qt::ControlModifier);
    QApplication::sendEvent(w.view(), &control);
    QVERIFY(w.view()->hasPendingEdit());
    QCOMPARE(w.model()->undoStack()->count(), 0);
    QKeyEvent save(QEvent::ShortcutOverride, Qt::Key_S, Qt::ControlModifier, "\x13");
    QApplication::sendEvent(w.view(), &save);
    QVERIFY(!w.view()->hasPendingEdit());
    QVERIFY(w.text().find("activation=linearx") != std::string::npos);
}

// Ctrl+F in the text: a find field under it; the matches counted and highlighted, Enter and Shift+Enter
// go through them (wrapping), the match's layer selected; Esc gives the text back the keyboard.
void TestSourceView::findGoesThroughTheMatches()
{
    SourceWindow w;
    w.view()->setFocus();
    QTRY_VERIFY(w.view()->hasFocus());
    w.cursorToEndOf(1);
    QTest::keyClick(w.view(), Qt::Key_F, Qt::ControlModifier);
    auto* bar = w.window.findChild<ui::SourceFindBar*>("sourceFindBar");
    QVERIFY(bar && bar->isVisible());
    QTRY_VERIFY(bar->field()->hasFocus());
    QTest::keyClicks(bar->field(), "FILTERS");
    QCOMPARE(bar->countText(), QString("2 matches"));
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 7);
    QCOMPARE(w.window.selectedLayer(), 0);
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 16);
    QCOMPARE(w.window.selectedLayer(), 2);
    QTest::keyClick(bar->field(), Qt::Key_Return); // around the end
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 7);
    QTest::keyClick(bar->field(), Qt::Key_Return, Qt::ShiftModifier); // back, around the start
    QCOMPARE(w.view()->textCursor().blockNumber() + 1, 16);
    // The count follows the text: an edit that adds a match, and its undo (it kept the count of the text
    // the term was typed over).
    w.model()->insertLayer(1, "convolutional", {{"filters", "8"}});
    QCOMPARE(bar->countText(), QString("3 matches"));
    w.model()->undoStack()->undo();
    QCOMPARE(bar->countText(), QString("2 matches"));
    QCOMPARE(w.text(), std::string(kNet));
    QTest::keyClicks(bar->field(), "x");
    QCOMPARE(bar->countText(), QString("no match"));
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
    QTRY_VERIFY(w.view()->hasFocus());
    QCOMPARE(w.text(), std::string(kNet)); // finding changes nothing
}

// Headers in the palette's link colour, comments in its placeholder colour, also after the palette
// changes while the text is shown (a dark theme chosen while the studio runs).
void TestSourceView::coloursFollowThePalette()
{
    SourceWindow w("# a comment\n[net]\nwidth=16\n");
    const auto colourAt = [&](int line) {
        const QList<QTextLayout::FormatRange> ranges =
            w.view()->document()->findBlockByNumber(line - 1).layout()->formats();
        return ranges.isEmpty() ? QColor() : ranges.first().format.foreground().color();
    };
    QCOMPARE(colourAt(2), w.view()->palette().color(QPalette::Link));
    QCOMPARE(colourAt(1), w.view()->palette().color(QPalette::PlaceholderText));
    QPalette other = w.view()->palette();
    other.setColor(QPalette::Link, QColor(250, 200, 10));
    other.setColor(QPalette::Base, QColor(30, 30, 30));
    w.window.setPalette(other);
    QCoreApplication::processEvents();
    QCOMPARE(colourAt(2), QColor(250, 200, 10));
}

QTEST_MAIN(TestSourceView)
#include "test_source_view.moc"
