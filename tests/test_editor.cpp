// Editing in the studio (offscreen): edits through undo commands and undoing them all gives the same
// bytes; palette inserts create the section with defaults and keep references; saving an unmodified
// file writes the same bytes; each confirmed property edit is one undo step.
#include "cfg/document.h"
#include "cfg/layer_edits.h"
#include "detect/detect_panel.h"
#include "editor/document_model.h"
#include "editor/edit_actions.h"
#include "editor/graph_items.h"
#include "editor/graph_layout.h"
#include "editor/graph_view.h"
#include "editor/layer_palette.h"
#include "editor/mini_map.h"
#include "editor/property_panel.h"
#include "editor/set_classes_dialog.h"
#include "editor/source_view.h"
#include "graph/key_schema.h"
#include "layers/detection_heads.h"
#include "table/layer_table_model.h"
#include "test_support.h"
#include "train/run_folders.h"
#include "train/train_panel.h"
#include "window/main_window.h"
#include "window/text_dialog.h"
#ifdef NETWRIGHT_WITH_ONNX
#include "export/onnx_export_dialog.h"
#endif

#include <QAbstractButton>
#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDataStream>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyleOptionGraphicsItem>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QUndoView>
#include <QVBoxLayout>
#include <clocale>
#include <memory>

using namespace nw;

class TestEditor : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // QSettings away from the user's
    void editsThenUndoAllRestoreTheBytes();
    void aCfgWithoutNetSaysSoAndGetsOne();
    void aTypedValueGoesFirstAndTheViewsStay();
    void exportOnnxFromTheFileMenu();
    void paletteInsertCreatesDefaultsAndKeepsReferences();
    void savingUnmodifiedWritesTheSameBytes();
    void eachPropertyEditIsAStepAndRederivesShapes();
    void shortcutsDialogFitsTheScreen();
    void graphShowsEveryLayerAndEdge();
    void aCardPaintsOnlyInsideItsBounds();
    void draggingAPortConnectsLayers();
    void droppingOnAnEdgeInsertsThere();
    void copyPasteDuplicateDeleteSeveral();
    void shiftDragSelectsAnArea();
    void miniMapShowsAndMovesTheView();
    void propertyPanelHasTypedEditorsFromTheSchema();
    void propertyPanelShowsValuesAsWritten();
    void propertyValuesAreOneFinishedLine();
    void propertiesShowTheLayersOwnProblems();
    void recentFilesAreRememberedAndPruned();
    void everyDarknetAndSampleCfgOpensAndEdits();
    void undoFollowsItsStackAfterTraining();
    void deleteKeyActsWhereLayersAreSelected();
    void layerKeysWorkAfterTheOpenDialog();
    void viewMenuZoomsAndBringsDocksBack();
    void undoAndRedoSayWhatTheyDid();
    void newFilesStartCleanAndNewSaysHowToStart();
    void problemLinesFollowTheEditedText();
    void savingOverChangesOnDiskAsksFirst();
    void typingAValueBackLeavesNothingToSave();
    void setClassesFromTheEditMenu();
    void zoomsCentreOnTheSelectedLayer();
    void everythingWorksFromTheKeyboard();
    void theGraphKeepsRoomOnASmallScreen();
    void aHugeNetworkIsListedNotDrawn();
    void aDamagedSavedGeometryIsNotUsed();
    void theCardLookedAtStaysPutAfterAnEdit();
    void theGraphFollowsADarkPalette();
    void settingsThatCannotBeSavedAreSaid();
    void aReadOnlyCfgIsSavedUnderAnotherName();
    void tabReachesOnlyWhatIsShown();
    void eachMenuItemHasItsOwnMnemonic();
    void theKeyboardStaysInView();
    void everyControlHasAName();
};

namespace {

// conv 0, conv 1, conv 2, route 3 (→ 2), shortcut 4 (→ 0), conv 5.
const char* const kLinked = "[net]\nwidth=16\nheight=16\nchannels=3\n\n"
                            "[convolutional]\nfilters=4\npad=1\nsize=3\n\n"
                            "[convolutional]\nfilters=4\npad=1\nsize=3\n\n"
                            "[convolutional]\nfilters=4\npad=1\nsize=3\n\n"
                            "[route]\nlayers = -1\n\n"
                            "[shortcut]\nfrom=-4\nactivation=linear\n\n"
                            "[convolutional]\nfilters=4\nsize=1\n";

// A window showing kLinked, laid out and fitted, so every card is on screen.
struct LinkedWindow {
    QTemporaryDir dir;
    ui::MainWindow window;
    QString path;
    bool exposed = false;
    LinkedWindow()
    {
        path = dir.path() + "/linked.cfg";
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(kLinked);
        file.close();
        window.resize(1400, 1000);
        window.openFile(path);
        window.show();
        exposed = QTest::qWaitForWindowExposed(&window);
        window.graphView()->fitAll();
    }
    ui::GraphView* graph() { return window.graphView(); }
    QWidget* canvas() { return window.graphView()->viewport(); }
    QPoint at(QPointF scene) { return window.graphView()->mapFromScene(scene); }
    std::string text() { return window.documentModel()->document().toText(); }
    const NetworkSpec& spec() { return window.layerModel()->spec(); }
};

// Answers the next message box that opens (a question asked with exec()) with `button`, within 10 s.
// It answers a box seen open on an earlier tick too: one answered while exec() was still showing it
// (the offscreen platform runs timers there) closed before exec's loop began, which then never ended.
// The poller belongs to the application, so one still waiting when the suite ends is freed with it.
void answerNextQuestion(QMessageBox::StandardButton button)
{
    struct State {
        QElapsedTimer waited;
        QPointer<QMessageBox> seen;
    };
    auto state = std::make_shared<State>();
    state->waited.start();
    auto* poll = new QTimer(qApp);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, state, button] {
        for (QWidget* widget : QApplication::topLevelWidgets())
            if (auto* box = qobject_cast<QMessageBox*>(widget); box && box->isVisible()) {
                if (state->seen != box) {
                    state->seen = box;
                    continue;
                }
                if (QAbstractButton* answer = box->button(button))
                    answer->click();
                state->waited.invalidate();
            }
        if (!state->waited.isValid() || state->waited.elapsed() > 10000) {
            poll->stop();
            poll->deleteLater();
        }
    });
    poll->start(20);
}

// A left-button drag in `widget` from `from` to `to`.
void drag(QWidget* widget, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = {})
{
    QTest::mousePress(widget, Qt::LeftButton, modifiers, from);
    for (int step = 1; step <= 4; ++step) {
        const QPoint p = from + (to - from) * step / 4;
        QMouseEvent move(QEvent::MouseMove, p, widget->mapToGlobal(p), Qt::NoButton, Qt::LeftButton,
                         modifiers);
        QApplication::sendEvent(widget, &move);
    }
    QTest::mouseRelease(widget, Qt::LeftButton, modifiers, to);
}

// A palette layer type dragged onto `widget` and dropped at `at`.
void dropLayerType(QWidget* widget, const QString& type, QPoint at)
{
    QMimeData data;
    data.setData("application/x-netwright-layer", type.toUtf8());
    QDragEnterEvent enter(at, Qt::CopyAction, &data, Qt::LeftButton, {});
    QApplication::sendEvent(widget, &enter);
    QDragMoveEvent move(at, Qt::CopyAction, &data, Qt::LeftButton, {});
    QApplication::sendEvent(widget, &move);
    QDropEvent drop(at, Qt::CopyAction, &data, Qt::LeftButton, {});
    QApplication::sendEvent(widget, &drop);
}

// yolov4-tiny open in a shown 1200×800 window: a graph larger than the view.
bool showYolov4Tiny(ui::MainWindow& window)
{
    if (!window.openFile(QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg"))
        return false;
    window.resize(1200, 800);
    window.show();
    return QTest::qWaitForWindowExposed(&window);
}

} // namespace

void TestEditor::editsThenUndoAllRestoreTheBytes()
{
    const QString path = QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg";
    const QByteArray original = test::readAll(path);
    ui::MainWindow window;
    QVERIFY(window.openFile(path));
    ui::DocumentModel* model = window.documentModel();
    model->setValue(1, "filters", "24"); // layer 0
    model->insertLayer(3, "dropout", {{"probability", "0.2"}});
    QCOMPARE(model->removeLayer(12), QString());
    QCOMPARE(model->moveLayer(5, 6), QString());
    // yolov3-tiny's route (layer 20 with the dropout) reads layer 9 (its old 8): removing that is refused
    // in words and changes nothing (it used to leave the route reading the maxpool after it).
    const std::string before = model->document().toText();
    const int steps = model->undoStack()->count();
    QVERIFY2(model->removeLayer(9).startsWith(
                 "layer 20 [route] (layers = -1,9) reads layer 9, which this removes"),
             qPrintable(model->removeLayer(9)));
    QCOMPARE(model->document().toText(), before);
    QCOMPARE(model->undoStack()->count(), steps);
    // A layer dropped on the route's edge 9 → 20 would also come between 9 and 10: refused in words.
    QSignalSpy said(window.editActions(), &ui::EditActions::message);
    window.editActions()->insertOnEdge("maxpool", 9, 20);
    QCOMPARE(said.count(), 1);
    QVERIFY(said.first().first().toString().startsWith("A layer goes between two consecutive layers"));
    QCOMPARE(model->document().toText(), before);
    model->setValue(0, "width", "320"); // [net]
    model->removeKey(2, "stride");      // layer 1 (maxpool)
    QVERIFY(model->isModified());
    QVERIFY(window.windowTitle().startsWith("yolov3-tiny.cfg*"));
    QCOMPARE(window.layerModel()->spec().net.width, 320);
    QCOMPARE(window.layerModel()->spec().layers[0].output.c, 24);
    while (model->undoStack()->canUndo())
        model->undoStack()->undo();
    QCOMPARE(QByteArray::fromStdString(model->document().toText()), original);
    QVERIFY(!model->isModified());
    QCOMPARE(window.layerModel()->spec().layers[0].output.c, 16);
    model->undoStack()->redo();
    QCOMPARE(window.layerModel()->spec().layers[0].output.c, 24);
}

void TestEditor::paletteInsertCreatesDefaultsAndKeepsReferences()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    const auto sourcesBefore = window.layerModel()->spec().layers[20].sources; // route -1,8
    QCOMPARE(sourcesBefore, (std::vector<int>{19, 8}));
    window.layerTable()->selectRow(4); // after layer 4
    window.insertLayer("convolutional");
    const NetworkSpec& spec = window.layerModel()->spec();
    QCOMPARE(int(spec.layers.size()), 25);
    QCOMPARE(spec.layers[5].type, std::string("convolutional"));
    const cfg::Section& added = window.documentModel()->document().sections()[6];
    QCOMPARE(added.find("filters")->value, std::string("32"));
    QCOMPARE(added.find("activation")->value, std::string("leaky"));
    QCOMPARE(spec.layers[21].sources, (std::vector<int>{20, 9})); // the same two layers, renumbered
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(window.selectedLayer(), 5);
    QCOMPARE(window.propertyPanel()->section(), 6);
    QStringList titles; // a layer not in the file yet: its line in the text Save writes, not "(line 0)"
    for (const QLabel* label : window.propertyPanel()->findChildren<QLabel*>())
        titles << label->text();
    QVERIFY2(titles.contains("Layer 5: [convolutional] (line 57)"), qPrintable(titles.join(" | ")));
    const QStringList lines = QString::fromStdString(window.documentModel()->document().toText()).split('\n');
    QCOMPARE(lines[56], QString("[convolutional]"));
    QCOMPARE(lines[54], QString("activation=leaky")); // the end of layer 4, the convolution it follows
    QCOMPARE(ui::LayerPalette::defaults("maxpool").size(), std::size_t(2));
    // The palette fits its dock on a 1280×720 screen at 150 % (about 130 px of the 853 the window has):
    // "Insert after selection" needed 150 and the palette scrolled sideways, its button cut.
    const int paletteWidth = window.findChild<ui::LayerPalette*>()->minimumSizeHint().width();
    QVERIFY2(paletteWidth <= 130, qPrintable(QString("the palette needs %1 px").arg(paletteWidth)));
}

void TestEditor::savingUnmodifiedWritesTheSameBytes()
{
    QTemporaryDir dir;
    const QString copy = dir.filePath("net.cfg");
    QVERIFY(QFile::copy(QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg", copy));
    const QByteArray original = test::readAll(copy);
    ui::MainWindow window;
    QVERIFY(window.openFile(copy));
    QVERIFY(window.save());
    QCOMPARE(test::readAll(copy), original);
    window.documentModel()->setValue(1, "filters", "16");
    QVERIFY(window.save());
    const QByteArray edited = test::readAll(copy);
    QCOMPARE(edited.size(), original.size()); // one digit pair changed: 32 → 16
    int differences = 0;
    for (int i = 0; i < edited.size(); ++i)
        differences += edited[i] != original[i];
    QCOMPARE(differences, 2);
    QVERIFY(!window.documentModel()->isModified());
    QVERIFY(!window.saveAs(dir.filePath("missing-folder/x.cfg")));
    // The folder is what is wrong, and the way out is said (it named the file with "No such file").
    QVERIFY2(window.statusBar()->currentMessage().endsWith(
                 QString(" (the folder %1 does not exist). The network stays open with its edits: save it in "
                         "another folder with File ▸ Save As…")
                     .arg(dir.filePath("missing-folder"))),
             qPrintable(window.statusBar()->currentMessage()));
    // A name typed without a suffix in the Save dialogs is saved as .cfg; other names stay as typed.
    QCOMPARE(ui::withCfgSuffix("/tmp/net"), QString("/tmp/net.cfg"));
    QCOMPARE(ui::withCfgSuffix("/tmp/net.cfg"), QString("/tmp/net.cfg"));
    QCOMPARE(ui::withCfgSuffix("/tmp/yolo.v4.txt"), QString("/tmp/yolo.v4.txt"));

    // A bundled network is kept as shipped: Save asks where to save a copy (Ctrl+S replaced the default
    // network every launch opens), and the copy is what stays open.
    {
        QTemporaryDir bundled;
        const QString shipped = bundled.filePath("shipped.cfg");
        QVERIFY(QFile::copy(copy, shipped));
        ui::MainWindow studio;
        studio.setBundledNetworkFolders({bundled.path()});
        QVERIFY(studio.openFile(shipped));
        studio.documentModel()->setValue(1, "filters", "24");
        QString title;
        QTimer::singleShot(0, &studio, [&] {
            auto* chooser = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            QVERIFY(chooser);
            title = chooser->windowTitle();
            chooser->selectFile(dir.filePath("mine-from-shipped.cfg"));
            QMetaObject::invokeMethod(chooser, "accept"); // (protected: the dialog's own checks run)
        });
        QVERIFY(studio.save());
        QCOMPARE(title, QString("Save your copy of the bundled network"));
        QCOMPARE(test::readAll(shipped), test::readAll(copy));
        QVERIFY(test::readAll(dir.filePath("mine-from-shipped.cfg")).contains("filters=24"));
        QCOMPARE(studio.documentModel()->path(), dir.filePath("mine-from-shipped.cfg"));
    }

    // A new network, saved: Train writes to its own runs/<name> and reads the .data beside it (it wrote
    // into runs/ itself, where it set every other network's files aside).
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == "&New")
            action->trigger();
    QVERIFY(window.documentModel()->path().isEmpty());
    QCOMPARE(window.trainPanel()->outputEdit()->text(), ui::defaultRunFolder(QString()));
    test::writeFile(dir.filePath("mine.data"), "classes=2\n");
    QVERIFY(window.saveAs(dir.filePath("mine.cfg")));
    QCOMPARE(window.trainPanel()->outputEdit()->text(), ui::defaultRunFolder("mine.cfg"));
    QVERIFY(window.trainPanel()->outputEdit()->text().endsWith("/netwright/runs/mine"));
    QCOMPARE(window.trainPanel()->dataEdit()->text(), dir.filePath("mine.data"));
    // Saved as another name: its own runs/<name> too (it trained into runs/mine and set mine's files
    // aside); the data chosen stays.
    QVERIFY(window.saveAs(dir.filePath("other.cfg")));
    QCOMPARE(window.trainPanel()->outputEdit()->text(), ui::defaultRunFolder("other.cfg"));
    QCOMPARE(window.trainPanel()->dataEdit()->text(), dir.filePath("mine.data"));
}

// Help ▸ Keyboard shortcuts scrolls within the screen (a message box grew with the table: on a
// 720-pixel screen, and on this 600-pixel offscreen one, its OK button was below the edge).
void TestEditor::shortcutsDialogFitsTheScreen()
{
    ui::MainWindow window;
    window.show();
    QAction* shortcuts = nullptr;
    for (QAction* menu : window.menuBar()->actions())
        for (QAction* action : menu->menu() ? menu->menu()->actions() : QList<QAction*>())
            if (action->text() == "&Keyboard shortcuts")
                shortcuts = action;
    QVERIFY(shortcuts);
    shortcuts->trigger();
    QDialog* dialog = window.findChild<QDialog*>();
    QVERIFY(dialog && dialog->isVisible());
    QCOMPARE(dialog->windowTitle(), QString("Keyboard shortcuts"));
    auto* text = dialog->findChild<QTextBrowser*>();
    QVERIFY(text && text->toPlainText().contains("Duplicate layers"));
    const QRect screen = window.screen()->availableGeometry();
    QVERIFY2(dialog->height() <= screen.height() && dialog->width() <= screen.width(),
             qPrintable(QString("%1×%2 on a %3×%4 screen")
                            .arg(dialog->width())
                            .arg(dialog->height())
                            .arg(screen.width())
                            .arg(screen.height())));
    // Wide enough for its two columns on one line each (measured at the browser's own unknown width,
    // the table was 90 px wide, a word a line), and the rows it holds in view or a scroll away.
    QVERIFY2(dialog->width() >= 300, qPrintable(QString::number(dialog->width())));
    dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Close)->click();
    QTRY_VERIFY(!window.findChild<QDialog*>());
    // Text taller than any screen: the dialog keeps within it, the rest a scroll away.
    QString rows;
    for (int i = 0; i < 300; ++i)
        rows += QString("<p>line %1</p>").arg(i);
    QDialog* tall = ui::showTextDialog(&window, "Tall", rows);
    QVERIFY(tall->height() <= screen.height() * 85 / 100);
    QTRY_VERIFY(tall->findChild<QTextBrowser*>()->verticalScrollBar()->maximum() > 0);
    tall->close();
}

void TestEditor::eachPropertyEditIsAStepAndRederivesShapes()
{
    ui::MainWindow window;
    // Help ▸ Keyboard shortcuts lists the menus' own shortcuts (so it cannot go stale).
    const QString shortcuts = window.shortcutsText();
    QVERIFY2(shortcuts.contains("<td>Duplicate layers</td><td>&nbsp;&nbsp;Ctrl+D</td>") &&
                 shortcuts.contains("<td>Undo</td><td>&nbsp;&nbsp;Ctrl+Z") &&
                 shortcuts.contains("<td>Save</td>"),
             qPrintable(shortcuts));
    // Save As, Reload and Quit have keys where the platform defines none (here, offscreen).
    QVERIFY2(shortcuts.contains("<td>Save As…</td><td>&nbsp;&nbsp;Ctrl+Shift+S</td>") &&
                 shortcuts.contains("&nbsp;&nbsp;F5</td>") && shortcuts.contains("&nbsp;&nbsp;Ctrl+Q</td>"),
             qPrintable(shortcuts));
    // Every key of an action (Redo's Ctrl+Y beside the platform's; only the first was listed).
    QVERIFY2(shortcuts.contains(QRegularExpression(
                 "<td>Redo</td><td>&nbsp;&nbsp;[^<]*Ctrl\\+Y, [^<]*Ctrl\\+Shift\\+Z</td>")),
             qPrintable(shortcuts));
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    // The Detect panel is told a classifier by the description the window built (no box controls).
    QVERIFY(!window.detectPanel()->thresholdSlider()->isVisibleTo(window.detectPanel()));
    window.layerTable()->selectRow(2);
    ui::PropertyPanel* panel = window.propertyPanel();
    QCOMPARE(panel->section(), 3);
    QTableWidget* table = panel->table();
    int filtersRow = -1;
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0)->text() == "filters")
            filtersRow = row;
    QVERIFY(filtersRow >= 0);
    table->item(filtersRow, 1)->setText("6");
    table->item(filtersRow, 1)->setText("65"); // each confirmed value is a step: 6 can be got back
    QCOMPARE(window.documentModel()->undoStack()->count(), 2);
    QCOMPARE(window.documentModel()->undoStack()->text(1),
             QString("Set filters = 65 in layer 2 [convolutional]"));
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 65);
    QCOMPARE(window.layerModel()->spec().layers[4].input.size, std::int64_t(7 * 7 * 65));
    table->item(filtersRow, 1)->setText("x");
    QVERIFY(!window.layerModel()->spec().ok()); // a bad number: reported, nothing crashes
    window.documentModel()->undoStack()->undo();
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 65);
    window.documentModel()->undoStack()->undo();
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 6);
    window.documentModel()->undoStack()->undo();
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 64);

    // Through the cell's own editor (the delegate's spin box), as a person edits: the model's change
    // must not rebuild the rows under the open editor (Qt then warned "closeEditor called with an
    // editor that does not belong to this view").
    QTest::failOnWarning(QRegularExpression("closeEditor"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    QTableWidgetItem* cell = table->item(filtersRow, 1);
    QCOMPARE(cell->text(), QString("64"));
    table->setCurrentItem(cell);
    table->editItem(cell);
    auto* spin = table->viewport()->findChild<QSpinBox*>();
    QVERIFY(spin);
    spin->selectAll();
    QTest::keyClicks(spin, "32");
    QTest::keyClick(spin, Qt::Key_Return);
    QTRY_COMPARE(window.layerModel()->spec().layers[2].output.c, 32);
    QTRY_COMPARE(table->item(filtersRow, 1)->text(), QString("32"));

    // Typed but not confirmed, then saved: the value on screen is what is written (Save used to write
    // the old one and show the file as clean).
    table->editItem(table->item(filtersRow, 1));
    spin = table->viewport()->findChild<QSpinBox*>();
    QVERIFY(spin);
    spin->selectAll();
    QTest::keyClicks(spin, "48");
    QTemporaryDir dir;
    QVERIFY(window.saveAs(dir.filePath("typed.cfg")));
    QVERIFY(test::readAll(dir.filePath("typed.cfg")).contains("filters=48"));

    // Typed but not confirmed, then the toolbar's Edit [net] (a button takes no focus): the value is
    // kept (it went away with the cell editor), no layer stays selected behind [net], and the layer
    // chosen again shows its keys again (the same row chosen again used to leave [net] in view).
    const auto editorOpen = [table] {
        const auto editors = table->viewport()->findChildren<QSpinBox*>();
        return std::any_of(editors.begin(), editors.end(), [](QSpinBox* s) { return s->isVisible(); });
    };
    QTRY_VERIFY(!editorOpen()); // the rows rebuilt after the save's commit
    table->editItem(table->item(filtersRow, 1));
    spin = table->viewport()->findChild<QSpinBox*>();
    QVERIFY(spin);
    spin->selectAll();
    QTest::keyClicks(spin, "24");
    QAction *editNet = nullptr, *undoButton = nullptr;
    for (QAction* a : window.findChild<QToolBar*>("mainToolbar")->actions()) {
        if (a->text() == "Edit [&net]")
            editNet = a;
        if (a->text() == "Undo")
            undoButton = a;
    }
    QVERIFY(editNet && undoButton);
    editNet->trigger();
    QVERIFY(!editorOpen());
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 24);
    QCOMPARE(panel->section(), 0);
    QCOMPARE(window.selectedLayer(), -1);
    window.layerTable()->selectRow(2);
    QCOMPARE(panel->section(), 3);
    // The toolbar's Undo keeps its label whatever the command (the button grew with it); the command
    // is in its tooltip.
    QCOMPARE(undoButton->toolTip(), QString("Undo Set filters = 24 in layer 2 [convolutional]"));
    QVERIFY(undoButton->isEnabled());
    // Help ▸ Keyboard shortcuts names the commands, not the steps they would undo and redo now.
    const QString now = window.shortcutsText();
    QVERIFY2(now.contains("<td>Undo</td><td>&nbsp;&nbsp;Ctrl+Z") && !now.contains("Set filters"),
             qPrintable(now));
    undoButton->trigger();
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 48);
}

void TestEditor::graphShowsEveryLayerAndEdge()
{
    // A card whose own values are wrong says so, with "?" where they make no shape ("→ 0" looked like
    // a shape), as the table shows it; the cards after it name the earlier error.
    const NetworkSpec broken = buildNetworkSpec(cfg::Document::parse(
        "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=0\n[maxpool]\n[convolutional]\n"
        "filters=2\n"));
    QCOMPARE(ui::NodeItem(broken.layers[0], QRectF(0, 0, 200, 60)).shapeText(),
             QString("→ ?   (this layer's error)"));
    QCOMPARE(ui::NodeItem(broken.layers[1], QRectF(0, 0, 200, 60)).shapeText(),
             QString("→ ?   (an earlier layer's error)"));

    ui::MainWindow window;
    QVERIFY(window.openFile(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    const NetworkSpec& spec = window.layerModel()->spec();
    QCOMPARE(window.graphView()->nodeCount(), 24);
    // 21 sequential edges (layers 1..23 but the two routes), route 17 ← 13, route 20 ← 19 and 8.
    const auto edges = ui::networkEdges(spec);
    QCOMPARE(edges.size(), std::size_t(24));
    QVERIFY(std::find(edges.begin(), edges.end(), std::pair(13, 17)) != edges.end());
    QVERIFY(std::find(edges.begin(), edges.end(), std::pair(8, 20)) != edges.end());
    QVERIFY(std::find(edges.begin(), edges.end(), std::pair(16, 17)) ==
            edges.end()); // a route reads only its layers
    const ui::GraphLayout layout = ui::layoutNetwork(spec, QSizeF(190, 58));
    for (std::size_t i = 1; i < layout.nodes.size(); ++i) // dot ranks top-down: a layer sits below its input
        if (spec.layers[i].type != "route")
            QVERIFY(layout.nodes[i].box.top() > layout.nodes[i - 1].box.top());
    for (const auto& a : layout.nodes) // no two cards overlap
        for (const auto& b : layout.nodes)
            QVERIFY(a.layer == b.layer || !a.box.intersects(b.box));
    {
        // The same under a desktop locale with a decimal comma (Qt makes it the C locale): Graphviz
        // read "2,638889" as 2 and the cards piled up. de_DE is built here from Debian's `locales`.
        QTemporaryDir locales;
        QVERIFY(QProcess::execute("localedef",
                                  {"-i", "de_DE", "-f", "UTF-8", locales.filePath("de_DE.UTF-8")}) == 0);
        qputenv("LOCPATH", locales.path().toUtf8());
        const std::string before = std::setlocale(LC_NUMERIC, nullptr);
        QVERIFY(std::setlocale(LC_NUMERIC, "de_DE.UTF-8"));
        QCOMPARE(std::to_string(0.5), std::string("0,500000")); // the locale is in force
        const ui::GraphLayout comma = ui::layoutNetwork(spec, QSizeF(190, 58));
        std::setlocale(LC_NUMERIC, before.c_str());
        qunsetenv("LOCPATH");
        QCOMPARE(comma.nodes.size(), layout.nodes.size());
        for (std::size_t i = 0; i < layout.nodes.size(); ++i)
            QCOMPARE(comma.nodes[i].box, layout.nodes[i].box);
    }
    // Selection is shared both ways.
    window.graphView()->selectLayer(7);
    emit window.graphView()->layerSelected(7);
    QCOMPARE(window.selectedLayer(), 7);
    window.layerTable()->selectRow(9);
    QCOMPARE(window.graphView()->selectedLayer(), 9);
    // A palette type dropped on card 2 is inserted after it.
    emit window.graphView()->insertRequested("maxpool", 2);
    QCOMPARE(window.layerModel()->spec().layers[3].type, std::string("maxpool"));
    QCOMPARE(window.graphView()->nodeCount(), 25);
}

// Qt repaints an item only within its bounding rectangle: a card with a problem badge (a circle on its
// top right corner) painted outside it, and half the badge stayed on screen once the problem was fixed.
void TestEditor::aCardPaintsOnlyInsideItsBounds()
{
    const NetworkSpec spec =
        test::specFromText("[net]\nwidth=8\nheight=8\nchannels=3\n\n[route]\nlayers=5\n");
    QVERIFY(!spec.layers.empty() && !spec.layers[0].diagnostics.empty()); // a card with a badge
    ui::NodeItem card(spec.layers[0], QRectF(0, 0, 180, 56));
    QImage image(400, 300, QImage::Format_ARGB32);
    image.fill(Qt::transparent);
    const QPointF origin(100, 100);
    {
        QPainter painter(&image);
        painter.translate(origin);
        QStyleOptionGraphicsItem option;
        card.paint(&painter, &option, nullptr);
    }
    const QRect bounds = card.boundingRect().translated(origin).toAlignedRect();
    int outside = 0, inside = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qAlpha(image.pixel(x, y)) > 0)
                ++(bounds.contains(x, y) ? inside : outside);
    QVERIFY(inside > 0);
    QCOMPARE(outside, 0);
}

void TestEditor::draggingAPortConnectsLayers()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    // While dragging, a card that would refuse the connection is not offered as a place to drop it;
    // one that accepts it is.
    const QPoint port = w.at(*w.graph()->outputPortOf(1));
    QTest::mousePress(w.canvas(), Qt::LeftButton, {}, port);
    const auto hover = [&](int layer) {
        const QPoint p = w.at(*w.graph()->centreOf(layer));
        QMouseEvent move(QEvent::MouseMove, p, w.canvas()->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, {});
        QApplication::sendEvent(w.canvas(), &move);
        return w.graph()->connectionTarget();
    };
    QCOMPARE(hover(0), -1); // an earlier layer cannot read a later one
    QCOMPARE(hover(3), 3);  // the route can take it as one more input
    QCOMPARE(hover(0), -1);
    QTest::mouseRelease(w.canvas(), Qt::LeftButton, {}, port);
    QCOMPARE(w.text(), std::string(kLinked)); // (released on its own card: nothing connected)
    // Layer 1's output port onto the route (3): the route gains layer 1 as an input, written relative.
    // Pressed on the port's lower half, below the card's edge (that went to the edge underneath).
    drag(w.canvas(), w.at(*w.graph()->outputPortOf(1) + QPointF(0, 4)), w.at(*w.graph()->centreOf(3)));
    QVERIFY2(w.text().find("[route]\nlayers = -1,-2\n") != std::string::npos, w.text().c_str());
    QCOMPARE(w.spec().layers[3].sources, std::vector<int>({2, 1}));
    QCOMPARE(w.spec().layers[3].output.c, 8); // concatenated
    QCOMPARE(w.window.selectedLayer(), 3);
    // The new edge is on the canvas; selected and deleted, it disconnects again: the original bytes.
    const auto edge = w.graph()->edgePoint(1, 3);
    QVERIFY(edge);
    QTest::mouseClick(w.canvas(), Qt::LeftButton, {}, w.at(*edge));
    QCOMPARE(w.graph()->selectedEdge(), std::optional(std::pair(1, 3)));
    // Cut takes layers: with an edge selected it changes nothing and says so (it used to disconnect
    // the edge behind a "Select layers to copy" message).
    const std::string connected = w.text();
    w.window.editActions()->cutAction()->trigger();
    QCOMPARE(w.text(), connected);
    QVERIFY2(w.window.statusBar()->currentMessage().startsWith("Cut takes layers"),
             qPrintable(w.window.statusBar()->currentMessage()));
    w.window.editActions()->deleteAction()->trigger();
    QCOMPARE(w.text(), std::string(kLinked));
    // Said, in place of the connection's "now reads" (which stayed, saying the opposite).
    QCOMPARE(w.window.statusBar()->currentMessage(), QString("Layer 3 no longer reads layer 1"));
    // Onto the shortcut: it reads layer 2 instead of 0.
    drag(w.canvas(), w.at(*w.graph()->outputPortOf(2)), w.at(*w.graph()->centreOf(4)));
    QCOMPARE(w.spec().layers[4].sources, std::vector<int>({2}));
    // What cannot be connected is said in the status bar, and nothing changes.
    const std::string before = w.text();
    drag(w.canvas(), w.at(*w.graph()->outputPortOf(3)), w.at(*w.graph()->centreOf(1)));
    QVERIFY2(w.window.statusBar()->currentMessage().startsWith("a layer reads only earlier layers"),
             qPrintable(w.window.statusBar()->currentMessage()));
    // The advice is not cut off by the totals beside it (they give way while it shows).
    const auto* totals = w.window.findChild<QLabel*>("totals");
    QVERIFY(totals);
    QVERIFY(w.window.statusBar()->fontMetrics().horizontalAdvance(w.window.statusBar()->currentMessage()) <=
            w.window.statusBar()->width() - (totals->isHidden() ? 0 : totals->width()));
    drag(w.canvas(), w.at(*w.graph()->outputPortOf(0)), w.at(*w.graph()->centreOf(5)));
    QVERIFY(
        w.window.statusBar()->currentMessage().startsWith("layer 5 [convolutional] reads the layer before"));
    QCOMPARE(w.text(), before);
    // Dragging from a card's body (not its port) connects nothing.
    drag(w.canvas(), w.at(*w.graph()->centreOf(0)), w.at(*w.graph()->centreOf(3)));
    QCOMPARE(w.text(), before);
}

void TestEditor::droppingOnAnEdgeInsertsThere()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    // On the route's edge 2 → 3: a maxpool comes after layer 2 and the route reads it.
    dropLayerType(w.canvas(), "maxpool", w.at(*w.graph()->edgePoint(2, 3)));
    QCOMPARE(w.spec().layers[3].type, std::string("maxpool"));
    QCOMPARE(w.spec().layers[4].type, std::string("route"));
    QCOMPARE(w.spec().layers[4].sources, std::vector<int>({3}));
    QCOMPARE(w.spec().layers[5].sources, std::vector<int>({0})); // the shortcut still reads layer 0
    QCOMPARE(w.window.selectedLayer(), 3);
    QVERIFY(w.spec().ok());
    w.window.documentModel()->undoStack()->undo();
    QCOMPARE(w.text(), std::string(kLinked));
    // On the sequential edge 0 → 1: inserted at 1; references renumbered, still the same layers.
    dropLayerType(w.canvas(), "dropout", w.at(*w.graph()->edgePoint(0, 1)));
    QCOMPARE(w.spec().layers[1].type, std::string("dropout"));
    QCOMPARE(w.spec().layers[4].sources, std::vector<int>({3}));
    QCOMPARE(w.spec().layers[5].sources, std::vector<int>({0}));
    w.window.documentModel()->undoStack()->undo();
    QCOMPARE(w.text(), std::string(kLinked));
    // A connection into the [shortcut] (from=-4 reads layer 0) takes the place of its input, said so
    // (the edge to layer 0 went without a word); the layer before it is refused (from=-1 added it to
    // itself, drawn as a plain chain).
    w.window.editActions()->connectLayers(2, 4);
    QCOMPARE(w.spec().layers[4].sources, std::vector<int>({2}));
    QCOMPARE(w.window.statusBar()->currentMessage(),
             QString("Layer 4 now reads layer 2 instead of layer 0 (the first layer its from= names; Undo "
                     "brings it back)"));
    w.window.documentModel()->undoStack()->undo();
    w.window.editActions()->connectLayers(3, 4);
    QCOMPARE(w.text(), std::string(kLinked));
    QCOMPARE(
        w.window.statusBar()->currentMessage(),
        QString(
            "layer 4 [shortcut] combines the layer before it (3) with the one its from= names: connect an "
            "earlier layer into it"));
}

void TestEditor::copyPasteDuplicateDeleteSeveral()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    ui::EditActions* edits = w.window.editActions();
    w.graph()->selectLayers({1, 2});
    edits->copyAction()->trigger();
    const QString copied = QGuiApplication::clipboard()->text();
    QCOMPARE(copied.count("[convolutional]"), 2);
    // Paste after the last layer: two more convolutions, selected.
    w.graph()->selectLayers({5});
    edits->pasteAction()->trigger();
    QCOMPARE(int(w.spec().layers.size()), 8);
    QCOMPARE(w.graph()->selectedLayers(), std::vector<int>({6, 7}));
    QVERIFY(w.spec().ok());
    w.window.documentModel()->undoStack()->undo();
    QCOMPARE(w.text(), std::string(kLinked));
    // Pasted in the middle and undone: the pasted layers went, and so does their selection (the cards
    // that took their numbers stayed selected, and Del then removed layers nobody chose).
    w.graph()->selectLayers({3});
    edits->pasteAction()->trigger();
    QCOMPARE(w.graph()->selectedLayers(), std::vector<int>({4, 5}));
    w.window.documentModel()->undoStack()->undo();
    QCOMPARE(w.text(), std::string(kLinked));
    QCOMPARE(w.graph()->selectedLayers(), std::vector<int>());
    QCOMPARE(w.window.selectedLayer(), -1);
    QCOMPARE(w.window.propertyPanel()->section(), 0); // ([net]: it showed the layer that took the number)
    // Duplicate 1 and 2 (one step), then delete the copies (one step): the original bytes.
    w.graph()->selectLayers({1, 2});
    edits->duplicateAction()->trigger();
    QCOMPARE(int(w.spec().layers.size()), 8);
    QCOMPARE(w.graph()->selectedLayers(), std::vector<int>({3, 4}));
    QCOMPARE(w.window.documentModel()->undoStack()->undoText(), QString("Duplicate 2 layers at 3"));
    QCOMPARE(w.spec().layers[5].sources, std::vector<int>({2})); // the route still reads the old layer 2
    edits->deleteAction()->trigger();
    QCOMPARE(w.text(), std::string(kLinked));
    QCOMPARE(w.window.documentModel()->undoStack()->count(), 2);
    QCOMPARE(w.window.documentModel()->undoStack()->undoText(), QString("Remove 2 layers")); // (said 8)
    // Undone, both come back selected (one was).
    w.window.documentModel()->undoStack()->undo();
    QCOMPARE(w.graph()->selectedLayers(), std::vector<int>({3, 4}));
    QCOMPARE(w.window.selectedLayer(), 3);
    w.window.documentModel()->undoStack()->redo();
    QCOMPARE(w.text(), std::string(kLinked));
    // Cut + paste moves layers; pasting text without layers says so.
    QGuiApplication::clipboard()->setText("[net]\nwidth=8\n");
    edits->pasteAction()->trigger();
    QVERIFY(w.window.statusBar()->currentMessage().startsWith("nothing to paste"));
    QCOMPARE(w.text(), std::string(kLinked));
}

void TestEditor::shiftDragSelectsAnArea()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    const QRectF all = w.graph()->scene()->sceneRect();
    // From the top-left corner of the scene to just below card 1's centre: cards 0 and 1 only.
    const QPointF below1 = *w.graph()->centreOf(1) + QPointF(120, 34);
    drag(w.canvas(), w.at(all.topLeft() + QPointF(5, 5)), w.at(below1), Qt::ShiftModifier);
    const std::vector<int> selected = w.graph()->selectedLayers();
    QVERIFY2(selected.size() >= 2 && selected[0] == 0 && selected[1] == 1,
             qPrintable(QString::number(selected.size())));
    QVERIFY(std::find(selected.begin(), selected.end(), 5) == selected.end());
    // Ctrl+click adds a card.
    QTest::mouseClick(w.canvas(), Qt::LeftButton, Qt::ControlModifier, w.at(*w.graph()->centreOf(5)));
    QCOMPARE(w.graph()->selectedLayers().back(), 5);
    QCOMPARE(w.graph()->dragMode(), QGraphicsView::ScrollHandDrag); // background drags pan again
}

void TestEditor::miniMapShowsAndMovesTheView()
{
    ui::MainWindow window;
    window.resize(1400, 1000);
    QVERIFY(window.openFile(QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4.cfg"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ui::GraphView* graph = window.graphView();
    graph->fitAll();
    QVERIFY(!graph->miniMap()->isVisible()); // everything already in view
    graph->resetTransform();
    graph->centerOn(graph->scene()->sceneRect().topLeft());
    graph->miniMap()->refresh();
    QVERIFY(graph->miniMap()->isVisible()); // 162 cards at full size do not fit
    QVERIFY(graph->miniMap()->geometry().right() <= graph->viewport()->width());
    // It sits in a corner that covers no card (or, where every corner touches one, hides no more than
    // half of any).
    auto touchedCards = [&] {
        int touched = 0;
        for (QGraphicsItem* item : graph->items(graph->miniMap()->geometry()))
            touched += item->type() == ui::NodeItem::Type;
        return touched;
    };
    auto coveredCards = [&] {
        int covered = 0;
        for (QGraphicsItem* item : graph->items(graph->miniMap()->geometry())) {
            const QRect card =
                graph->mapFromScene(item->sceneBoundingRect()).boundingRect() & graph->viewport()->rect();
            const QRect hidden = card & graph->miniMap()->geometry();
            covered += item->type() == ui::NodeItem::Type &&
                       hidden.width() * hidden.height() * 2 > card.width() * card.height();
        }
        return covered;
    };
    QCOMPARE(touchedCards(), 0);
    // Scrolled so that a card sits where the mini-map's usual corner (bottom right) is: it moves.
    QGraphicsItem* card = nullptr;
    for (QGraphicsItem* item : graph->scene()->items())
        if (item->type() == ui::NodeItem::Type && (!card || item->sceneBoundingRect().top() > 2000))
            card = item;
    const QSize viewSize = graph->viewport()->size();
    graph->centerOn(card->sceneBoundingRect().center() -
                    QPointF(viewSize.width() / 2.0 - 90, viewSize.height() / 2.0 - 100));
    QVERIFY(
        !graph->items(QRect(graph->viewport()->width() - 210, graph->viewport()->height() - 270, 200, 260))
             .isEmpty());
    QCOMPARE(touchedCards(), 0);
    // Zoomed in, where every corner touches a large card, it stays over one whose most shows (it went at
    // 156 %, when it helped most).
    graph->zoomBy(2.44);
    int crowded = 0;
    for (QGraphicsItem* item : graph->scene()->items())
        if (item->type() == ui::NodeItem::Type) {
            graph->centerOn(item);
            graph->miniMap()->refresh();
            if (graph->miniMap()->isVisible()) {
                crowded += touchedCards() > 0;
                QCOMPARE(coveredCards(), 0);
            }
        }
    QVERIFY(crowded > 0);
    graph->zoomActualSize();
    // A click in the overview's middle centres the canvas on the middle of the graph.
    const QRectF all = graph->scene()->sceneRect();
    ui::MiniMap* map = graph->miniMap();
    QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, map->mapFromScene(all.center()));
    const QPointF centre = graph->mapToScene(graph->viewport()->rect().center());
    QVERIFY2(QLineF(centre, all.center()).length() < 40, qPrintable(QString("%1,%2 vs %3,%4")
                                                                        .arg(centre.x())
                                                                        .arg(centre.y())
                                                                        .arg(all.center().x())
                                                                        .arg(all.center().y())));
    QVERIFY(map->visibleArea().contains(all.center()));
    // After a click in it, wherever the view went, it takes a corner that covers no card again (it stayed
    // over the cards the view had moved to).
    for (double at : {0.05, 0.3, 0.55, 0.8, 0.97}) {
        QTest::mouseClick(map->viewport(), Qt::LeftButton, {},
                          map->mapFromScene(QPointF(all.center().x(), all.top() + at * all.height())));
        QVERIFY2(!map->isVisible() || coveredCards() == 0, qPrintable(QString::number(at)));
    }
    // A canvas so narrow that every corner holds a card: no corner is taken (it covered the top card at
    // 1280×720).
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    graph->resetTransform();
    graph->centerOn(graph->scene()->sceneRect().topLeft());
    bool hiddenForRoom = false;
    for (int width = 1400; width >= 700; width -= 50) {
        window.resize(width, 640);
        QTest::qWait(20); // (the resize and the layout it sets off, also on a loaded machine: one pass of
                          // the event loop missed them under the sanitizers, and no width left it hidden)
        for (int step = 0; step < 6; ++step) {
            graph->verticalScrollBar()->setValue(graph->verticalScrollBar()->maximum() * step / 5);
            QVERIFY2(!map->isVisible() || coveredCards() == 0, qPrintable(QString::number(width)));
            const bool fits = map->visibleArea().height() >= 0.98 * graph->scene()->sceneRect().height();
            hiddenForRoom = hiddenForRoom || (!map->isVisible() && !fits);
        }
    }
    QVERIFY(hiddenForRoom);
}

// Properties shows a value with the spaces written inside it (anchors in pairs, not Darknet's
// "17,17,23,23,…") and without a trailing comment; an edit keeps the comment.
void TestEditor::propertyPanelShowsValuesAsWritten()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("a.cfg");
    QFile file(cfg);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        "[net]\nwidth=32\nheight=32\nchannels=3\n\n[convolutional]\nfilters=18  # 3*(1+5)\nsize=1\n"
        "activation=linear\n\n[yolo]\nmask = 0,1,2\nanchors = 10,14,  23,27, 37,58\nclasses=1\nnum=3\n");
    file.close();
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    ui::PropertyPanel* panel = window.propertyPanel();
    window.layerTable()->selectRow(1);
    QCOMPARE(panel->section(), 2);
    QCOMPARE(panel->table()->item(panel->rowOf("anchors"), 1)->text(), QString("10,14,  23,27, 37,58"));
    QCOMPARE(panel->table()->item(panel->rowOf("mask"), 1)->text(), QString("0,1,2"));
    window.layerTable()->selectRow(0);
    QCOMPARE(panel->section(), 1);
    QTableWidgetItem* filters = panel->table()->item(panel->rowOf("filters"), 1);
    QCOMPARE(filters->text(), QString("18"));
    filters->setText("24");
    QVERIFY(window.documentModel()->document().toText().find("filters=24  # 3*(1+5)\n") != std::string::npos);
    // Space on a value with choices opens its list with the value as it is ("linear ", not a Space typed).
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    panel->table()->setFocus();
    panel->table()->setCurrentCell(panel->rowOf("activation"), 1);
    QTest::keyClick(panel->table(), Qt::Key_Space);
    auto* combo = qobject_cast<QComboBox*>(
        panel->table()->indexWidget(panel->table()->model()->index(panel->rowOf("activation"), 1)));
    QVERIFY(combo);
    QCOMPARE(combo->currentText(), QString("linear"));
    QTRY_VERIFY(combo->view()->isVisible()); // (its list open)
    combo->hidePopup();
}

// What Properties writes is what Darknet reads on one line: a pasted text with line breaks made new
// lines (a "[maxpool]" in it a layer that took the next keys of the edited one), an unfinished number
// that Enter refused was saved as typed, a comment after a name stayed whatever name was chosen, and a
// whole number opened and left was rewritten (016 as 16).
void TestEditor::propertyValuesAreOneFinishedLine()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("a.cfg");
    const QByteArray text = "[net]\nwidth=32\nheight=32\nchannels=3\nlearning_rate=0.001\n\n[convolutional]\n"
                            "filters=016\nsize=3\nactivation=leaky # x\n\n[maxpool]\nsize=2\nstride=2\n";
    test::writeFile(cfg, text);
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ui::PropertyPanel* panel = window.propertyPanel();
    QTableWidget* table = panel->table();
    QUndoStack* undo = window.documentModel()->undoStack();
    window.layerTable()->selectRow(0);
    QCOMPARE(panel->section(), 1);
    // A line break: refused, in the cell and in the new key's value.
    table->item(panel->rowOf("filters"), 1)->setText("8\n[maxpool]\nsize=2");
    table->item(panel->rowOf("activation"), 1)->setText("linear\r\nbatch_normalize=1");
    auto* newKey = panel->findChild<QLineEdit*>("newKey");
    auto* newValue = panel->findChild<QLineEdit*>("newValue");
    newKey->setText("dilation");
    QApplication::clipboard()->setText("2\n[maxpool]\nsize=2");
    newValue->setFocus();
    QTest::keySequence(newValue, QKeySequence::Paste);
    QTest::keyClick(newValue, Qt::Key_Return);
    QCOMPARE(undo->count(), 0);
    QCOMPARE(QByteArray::fromStdString(window.documentModel()->document().toText()), text);
    // A value pasted with its line's end is that value.
    table->item(panel->rowOf("size"), 1)->setText("5\n");
    QVERIFY(window.documentModel()->document().toText().find("\nsize=5\nactivation") != std::string::npos);
    undo->undo();
    // A name replaces a comment after it (Darknet reads "leaky#x", an unknown activation).
    table->item(panel->rowOf("activation"), 1)->setText("mish");
    QVERIFY(window.documentModel()->document().toText().find("\nactivation=mish\n") != std::string::npos);
    undo->undo();
    // A whole number opened and left as it was is not rewritten.
    const QModelIndex filters = table->model()->index(panel->rowOf("filters"), 1);
    table->setCurrentIndex(filters);
    table->edit(filters);
    QVERIFY(panel->commitPendingEdit().isEmpty());
    QCOMPARE(undo->count(), 1); // (the mish step, undone: none after it)
    QCOMPARE(undo->index(), 0);
    QCOMPARE(QByteArray::fromStdString(window.documentModel()->document().toText()), text);
    // An unfinished number: not saved, and said.
    panel->showSection(0); // (Edit [net])
    const QModelIndex rate = table->model()->index(panel->rowOf("learning_rate"), 1);
    table->setCurrentIndex(rate);
    table->edit(rate);
    QLineEdit* typed = nullptr;
    for (QLineEdit* line : table->viewport()->findChildren<QLineEdit*>())
        if (line->isVisible())
            typed = line;
    QVERIFY(typed);
    typed->selectAll();
    QTest::keyClicks(typed, "1e");
    QVERIFY(!window.save());
    QVERIFY2(window.statusBar()->currentMessage().contains("learning_rate = \u201c1e\u201d"),
             qPrintable(window.statusBar()->currentMessage()));
    QCOMPARE(test::readAll(cfg), text);
    QTest::keyClicks(typed, "-3");
    QVERIFY(window.save());
    QVERIFY(test::readAll(cfg).contains("\nlearning_rate=1e-3\n"));
}

// A problem on the section's header line (its output too large) shows in Properties too: only the card's
// badge said it, the filters row that caused it plain.
void TestEditor::propertiesShowTheLayersOwnProblems()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("big.cfg");
    test::writeFile(cfg,
                    "[net]\nwidth=416\nheight=416\nchannels=3\n\n[convolutional]\nfilters=2000000\nsize=3\n"
                    "pad=1\n");
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    window.layerTable()->selectRow(0);
    ui::PropertyPanel* panel = window.propertyPanel();
    QCOMPARE(panel->section(), 1);
    auto* said = panel->findChild<QLabel*>("sectionProblems");
    QVERIFY(said);
    QTRY_VERIFY(!said->isHidden());
    QVERIFY2(said->text().startsWith("the output would be 416x416x2000000"), qPrintable(said->text()));
    panel->table()->item(panel->rowOf("filters"), 1)->setText("16");
    QTRY_VERIFY(said->isHidden());
}

void TestEditor::propertyPanelHasTypedEditorsFromTheSchema()
{
    // The schema is what the parsers read: kinds, Darknet's defaults, choices; aliases work.
    const std::vector<KeySpec> conv = keySchema("conv");
    auto find = [](const std::vector<KeySpec>& schema, const std::string& key) {
        const auto it =
            std::find_if(schema.begin(), schema.end(), [&](const KeySpec& k) { return k.key == key; });
        return it == schema.end() ? KeySpec{} : *it;
    };
    QCOMPARE(find(conv, "filters").kind, cfg::KeyInfo::Kind::Int);
    QCOMPARE(find(conv, "filters").fallback, std::string("1"));
    QCOMPARE(find(conv, "batch_normalize").kind, cfg::KeyInfo::Kind::Flag);
    QCOMPARE(find(conv, "activation").fallback, std::string("logistic")); // Darknet's conv default
    QVERIFY(find(conv, "activation").choices.size() > 10);
    QCOMPARE(find(conv, "learning_rate").kind, cfg::KeyInfo::Kind::Float); // every layer's multiplier
    QCOMPARE(find(keySchema("route"), "layers").kind, cfg::KeyInfo::Kind::IntList);
    // Keys read only for some values are listed too (dilation, read when size > 1, was missing and then
    // edited as text), and said what they do.
    QCOMPARE(find(conv, "dilation").kind, cfg::KeyInfo::Kind::Int);
    QVERIFY(!find(conv, "stride_x").description.empty());
    QVERIFY(keySchema("no_such_layer").empty());
    const std::vector<KeySpec> net = keySchema("net");
    QCOMPARE(find(net, "width").group, std::string("Input"));
    QCOMPARE(find(net, "flip").fallback, std::string("1"));
    QCOMPARE(find(net, "policy").group, std::string("Policy"));
    QVERIFY(!find(net, "momentum").description.empty());
    // A section's own defaults: stride_x and stride_y follow its stride (the panel showed 1 for a
    // [maxpool] with stride=2, whose output was halved).
    const cfg::Document pool = cfg::Document::parse("[maxpool]\nsize=2\nstride=2\n");
    QCOMPARE(find(keySchema(pool.sections().front()), "stride_x").fallback, std::string("2"));
    QCOMPARE(find(keySchema("maxpool"), "stride_x").fallback, std::string("1")); // the type alone

    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    window.layerTable()->selectRow(0); // [convolutional] with batch_normalize=1, filters=32
    ui::PropertyPanel* panel = window.propertyPanel();
    QTableWidget* table = panel->table();
    const int filters = panel->rowOf("filters"), bn = panel->rowOf("batch_normalize");
    const int groups = panel->rowOf("groups"), rate = panel->rowOf("learning_rate");
    QVERIFY(filters >= 0 && bn >= 0 && groups >= 0 && rate >= 0);
    QCOMPARE(table->item(bn, 1)->checkState(), Qt::Checked);
    QVERIFY(table->item(groups, 1)->font().italic()); // not set: its default, in grey italics
    QCOMPARE(table->item(groups, 1)->text(), QString("1"));
    QVERIFY(table->item(filters, 0)->toolTip().contains("output channels"));
    // Each kind gets its editor.
    QAbstractItemDelegate* delegate = table->itemDelegateForColumn(1);
    QStyleOptionViewItem option;
    auto editorFor = [&](int row) {
        return delegate->createEditor(table->viewport(), option, table->model()->index(row, 1));
    };
    QVERIFY(qobject_cast<QSpinBox*>(editorFor(filters)));
    // A number keeps its text as written (1e-8 stays 1e-8: a spin box rounded it to 7 decimals, 0), and
    // only numbers pass.
    auto* number = qobject_cast<QLineEdit*>(editorFor(rate));
    QVERIFY(number && number->validator());
    QString tiny = "1e-8", word = "fast";
    int at = 0;
    QCOMPARE(number->validator()->validate(tiny, at), QValidator::Acceptable);
    QCOMPARE(number->validator()->validate(word, at), QValidator::Invalid);
    table->item(rate, 1)->setText(tiny);
    QVERIFY(window.documentModel()->document().toText().find("learning_rate=1e-8") != std::string::npos);
    window.documentModel()->undoStack()->undo();
    auto* activations = qobject_cast<QComboBox*>(editorFor(panel->rowOf("activation")));
    QVERIFY(activations);
    QStringList listed;
    for (int i = 0; i < activations->count(); ++i)
        listed << activations->itemText(i);
    QStringList sorted = listed;
    sorted.sort(Qt::CaseInsensitive);
    QCOMPARE(listed, sorted); // by name: "leaky" was below the fold in Darknet's order
    QVERIFY(listed.contains("leaky") && listed.contains("mish"));
    // The list opens on the current value (it highlighted the first, elu, for leaky).
    const QModelIndex activation = table->model()->index(panel->rowOf("activation"), 1);
    delegate->setEditorData(activations, activation);
    QCOMPARE(activations->currentText(), activation.data().toString());
    QCOMPARE(activations->currentIndex(), activations->findText(activation.data().toString()));
    QVERIFY(activations->currentIndex() > 0);
    // Unchecking the switch writes 0; setting a default key adds it; both are undo steps.
    table->item(bn, 1)->setCheckState(Qt::Unchecked);
    QVERIFY(window.documentModel()->document().toText().find("batch_normalize=0\nfilters=32") !=
            std::string::npos);
    table->item(panel->rowOf("groups"), 1)->setText("2");
    QVERIFY(window.documentModel()->document().sections()[1].find("groups"));
    QCOMPARE(window.documentModel()->undoStack()->count(), 2);
    // A value the network refuses is marked, its error in the tooltip (filters=-5 looked like any other).
    const QColor plain = table->item(panel->rowOf("filters"), 1)->foreground().color();
    table->item(panel->rowOf("filters"), 1)->setText("-5");
    const auto filtersTip = [&] { return table->item(panel->rowOf("filters"), 1)->toolTip(); };
    QTRY_VERIFY2(filtersTip().startsWith("filters must be at least 1 (found -5)"), qPrintable(filtersTip()));
    QVERIFY(table->item(panel->rowOf("filters"), 1)->foreground().color() != plain);
    QVERIFY(table->item(panel->rowOf("filters"), 0)->foreground().color() != plain);
    QCOMPARE(table->item(panel->rowOf("groups"), 1)->foreground().color(), plain);
    window.documentModel()->undoStack()->undo();
    QTRY_COMPARE(table->item(panel->rowOf("filters"), 1)->foreground().color(), plain);
    // [net]: its own grouped view.
    panel->showSection(0);
    QStringList titles;
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->columnSpan(row, 0) == 2)
            titles << table->item(row, 0)->text();
    QCOMPARE(titles.mid(0, 5), QStringList({"Input", "Batch", "Solver", "Policy", "Augmentation"}));
    QCOMPARE(table->item(panel->rowOf("policy"), 1)->text(), QString("steps"));
    // A new key must be a name: one that would read back as a section header or a second entry is refused.
    const std::string beforeKeys = window.documentModel()->document().toText();
    for (const char* key : {"[maxpool]", "size=5", "#note", "max batches"}) {
        panel->findChild<QLineEdit*>("newKey")->setText(key);
        panel->findChild<QLineEdit*>("newValue")->setText("7");
        panel->findChild<QPushButton*>("addKey")->click();
        QVERIFY2(window.documentModel()->document().toText() == beforeKeys, key);
    }
    // An edit of [net] keeps [net] on show (it used to jump back to the selected layer).
    window.selectLayer(2);
    panel->showSection(0);
    table->item(panel->rowOf("width"), 1)->setText("320");
    QCOMPARE(window.layerModel()->spec().net.width, 320);
    QCOMPARE(panel->section(), 0);
}

void TestEditor::recentFilesAreRememberedAndPruned()
{
    QSettings().remove("recentFiles");
    QTemporaryDir dir;
    const QString a = dir.path() + "/a.cfg", b = dir.path() + "/b.cfg";
    for (const QString& path : {a, b}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kLinked);
    }
    {
        ui::MainWindow window;
        QVERIFY(window.openFile(a));
        QVERIFY(window.openFile(b));
        QVERIFY(window.openFile(a));
        QCOMPARE(window.recentFiles(), QStringList({a, b})); // newest first, each once
    }
    // A new window lists them in File ▸ Open Recent; a file deleted since is dropped when chosen.
    QVERIFY(QFile::remove(b));
    ui::MainWindow window;
    auto* recent = window.findChild<QMenu*>("recentMenu");
    QVERIFY(recent);
    QCOMPARE(recent->actions().size(), 2);
    recent->actions().at(1)->trigger();
    QCOMPARE(window.recentFiles(), QStringList({a}));
    QVERIFY(window.statusBar()->currentMessage().contains("no longer exists"));
    QTRY_COMPARE(recent->actions().size(), 1); // the menu is rebuilt once the action has returned
    recent->actions().at(0)->trigger();
    QCOMPARE(window.documentModel()->path(), a);
}

void TestEditor::everyDarknetAndSampleCfgOpensAndEdits()
{
    // Issue 7's bar: the editor works on every cfg of Debian's Darknet and the AlexeyAB samples.
    QStringList paths;
    for (const QString& dir : {QString(DARKNET_CFG_DIR), QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs",
                               QString(NETWRIGHT_SOURCE_CFG_DIR)})
        for (const QString& name : QDir(dir).entryList({"*.cfg"}, QDir::Files))
            paths << dir + "/" + name;
    QVERIFY(paths.size() >= 45);
    ui::MainWindow window;
    for (const QString& path : paths) {
        QVERIFY2(window.openFile(path), qPrintable(path));
        const NetworkSpec& spec = window.layerModel()->spec();
        const int layers = int(spec.layers.size());
        QVERIFY2(window.graphView()->nodeCount() == layers, qPrintable(path));
        // Every layer's properties show; an insert on the first edge and its undo give the bytes back.
        for (int layer = 0; layer < layers; layer += std::max(1, layers / 8)) {
            window.selectLayer(layer);
            QVERIFY2(window.propertyPanel()->table()->rowCount() > 0, qPrintable(path));
        }
        const std::string before = window.documentModel()->document().toText();
        if (layers > 1) {
            window.editActions()->insertOnEdge("dropout", 0, 1);
            QCOMPARE(window.layerModel()->spec().layers[1].type, std::string("dropout"));
            window.documentModel()->undoStack()->undo();
        }
        QVERIFY2(window.documentModel()->document().toText() == before, qPrintable(path));
    }
}

// A path typed in File ▸ Open's name field (its completer's list open) left Del, Ctrl+C/V/X/D dead in the
// graph and the table for the rest of the session; the menu's Delete still worked.
void TestEditor::layerKeysWorkAfterTheOpenDialog()
{
    QTemporaryDir dir;
    const QString first = dir.filePath("first.cfg");
    QVERIFY(QFile::copy(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg", first));
    ui::MainWindow window;
    QVERIFY(window.openFile(first));
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    // A dialog of the window whose field had the keyboard, closed by Return (as File ▸ Open's name field
    // with a typed path): no window manager hands the activation back.
    QDialog dialog(&window);
    auto* field = new QLineEdit(&dialog);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(field);
    layout->addWidget(buttons);
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &window, [&] {
        if (!dialog.isVisible())
            return;
        poll.stop();
        field->setFocus();
        QTest::keyClicks(field, dir.filePath("second.cfg"));
        QTest::keyClick(field, Qt::Key_Return);
    });
    poll.start(20);
    QCOMPARE(dialog.exec(), int(QDialog::Accepted));
    QTRY_VERIFY(window.isActiveWindow());
    window.selectLayer(5);
    window.graphView()->setFocus();
    const int layers = int(window.layerModel()->spec().layers.size());
    QTest::keyClick(window.graphView(), Qt::Key_Delete);
    QCOMPARE(int(window.layerModel()->spec().layers.size()), layers - 1);
}

// Del deletes the selected layer from the graph, not from the Properties table (where a person means
// the key in front of them): the layer edits' keys act where layers are selected.
void TestEditor::deleteKeyActsWhereLayersAreSelected()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.selectLayer(5);
    const int layers = int(window.layerModel()->spec().layers.size());
    QTableWidget* properties = window.propertyPanel()->table();
    properties->setFocus();
    QTest::keyClick(properties, Qt::Key_Delete);
    QCOMPARE(int(window.layerModel()->spec().layers.size()), layers);
    window.graphView()->setFocus();
    QTest::keyClick(window.graphView(), Qt::Key_Delete);
    QCOMPARE(int(window.layerModel()->spec().layers.size()), layers - 1);
    // Backspace too (Del is only the Del key on Linux: Backspace did nothing, without a word).
    window.selectLayer(5);
    window.graphView()->setFocus();
    QTest::keyClick(window.graphView(), Qt::Key_Backspace);
    QCOMPARE(int(window.layerModel()->spec().layers.size()), layers - 2);
    // The zoom stops short of specks and of a single card's corner (the wheel went on to 3.7e-10 and
    // 514x).
    for (int step = 0; step < 200; ++step)
        window.graphView()->zoomBy(1 / 1.15);
    QVERIFY2(window.graphView()->transform().m11() > 1e-3,
             qPrintable(QString::number(window.graphView()->transform().m11())));
    for (int step = 0; step < 200; ++step)
        window.graphView()->zoomBy(1.15);
    QCOMPARE(window.graphView()->transform().m11(), 4.0);
    window.graphView()->zoomActualSize();
    // A click on empty graph space deselects the layer everywhere: Del then deletes nothing (it deleted
    // the table's row, still current though shown deselected). Properties go back to [net].
    window.selectLayer(5);
    QCOMPARE(window.graphView()->selectedLayers(), std::vector<int>{5});
    const QPointF empty = window.graphView()->sceneRect().topLeft() - QPointF(200, 200);
    window.graphView()->scene()->addRect(QRectF(empty, QSizeF(1, 1)))->setVisible(false); // room to click
    window.graphView()->centerOn(empty);
    QTest::mouseClick(window.graphView()->viewport(), Qt::LeftButton, {},
                      window.graphView()->mapFromScene(empty));
    QVERIFY(window.graphView()->selectedLayers().empty());
    QCOMPARE(window.selectedLayer(), -1);
    QCOMPARE(window.propertyPanel()->section(), 0);
    QTest::keyClick(window.graphView(), Qt::Key_Delete);
    QCOMPARE(int(window.layerModel()->spec().layers.size()), layers - 2);
    // The table's totals row deselects the graph's card too; the table selects one row at a time.
    window.selectLayer(3);
    QCOMPARE(window.graphView()->selectedLayers(), std::vector<int>{3});
    window.layerTable()->selectRow(window.layerModel()->totalsRow());
    QVERIFY(window.graphView()->selectedLayers().empty());
    QTest::keyClick(window.graphView(), Qt::Key_Delete);
    QCOMPARE(int(window.layerModel()->spec().layers.size()), layers - 2);
    QCOMPARE(window.layerTable()->selectionMode(), QAbstractItemView::SingleSelection);
    // A card clicked brings Properties in front of Training (where the studio starts): what was
    // chosen shows.
    auto* propertiesDock = window.findChild<QDockWidget*>("propertiesDock");
    auto* trainDock = window.findChild<QDockWidget*>("trainDock");
    trainDock->raise();
    QTRY_VERIFY(propertiesDock->visibleRegion().isEmpty());
    const QPointF card = *window.graphView()->centreOf(2);
    window.graphView()->centerOn(card);
    QTest::mouseClick(window.graphView()->viewport(), Qt::LeftButton, {},
                      window.graphView()->mapFromScene(card));
    QCOMPARE(window.selectedLayer(), 2);
    QTRY_VERIFY(!propertiesDock->visibleRegion().isEmpty());
}

// Training locks the editor; unlocking it must not enable Undo/Redo with nothing to undo (they did,
// and stayed so across file opens). Ctrl+Y redoes too.
void TestEditor::undoFollowsItsStackAfterTraining()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    QAction* undo = nullptr;
    QAction* redo = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (action->shortcut() == QKeySequence(QKeySequence::Undo))
            undo = action;
        if (action->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Y)))
            redo = action;
    }
    QVERIFY(undo && redo);
    QVERIFY(redo->shortcuts().contains(QKeySequence(QKeySequence::Redo)));
    QVERIFY(!undo->isEnabled() && !redo->isEnabled());
    emit window.trainPanel()->trainingChanged(true);
    emit window.trainPanel()->trainingChanged(false);
    QVERIFY(!undo->isEnabled());
    QVERIFY(!redo->isEnabled());
    window.documentModel()->setValue(1, "filters", "16");
    QVERIFY(undo->isEnabled());
    emit window.trainPanel()->trainingChanged(true);
    QVERIFY(!undo->isEnabled());
    {
        // A port drag in the graph and a click in History bypass the actions: the document refuses the
        // first, and History is disabled (each changed the network during a run).
        const std::string text = window.documentModel()->document().toText();
        const int steps = window.documentModel()->undoStack()->count();
        QCOMPARE(window.documentModel()->connectLayers(1, 3),
                 QString("The network is read-only while training."));
        window.documentModel()->setValue(1, "filters", "8");
        QCOMPARE(window.documentModel()->document().toText(), text);
        QCOMPARE(window.documentModel()->undoStack()->count(), steps);
        QVERIFY(!window.findChild<QUndoView*>("historyView")->isEnabled());
        QVERIFY(!undo->isEnabled());
    }
    {
        // The run's state comes back on the status line after a timed or cleared message (a menu's
        // status tip clears it), and leaves with the run.
        QStatusBar* bar = window.statusBar();
        QVERIFY(bar->currentMessage().contains("read-only"));
        bar->showMessage("Saved x.cfg", 20);
        QCOMPARE(bar->currentMessage(), QString("Saved x.cfg"));
        QTRY_VERIFY(bar->currentMessage().contains("read-only"));
        bar->clearMessage();
        QVERIFY(bar->currentMessage().contains("read-only"));
        emit window.trainPanel()->pauseChanged(true);
        QVERIFY(bar->currentMessage().startsWith("Paused"));
        bar->clearMessage();
        QVERIFY(bar->currentMessage().startsWith("Paused"));
    }
    emit window.trainPanel()->trainingChanged(false);
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
    emit window.trainPanel()->pauseChanged(false); // (none without a run)
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
    QVERIFY(window.findChild<QUndoView*>("historyView")->isEnabled());
    QVERIFY(undo->isEnabled());
    QVERIFY(!redo->isEnabled());
    undo->trigger();
    QVERIFY(redo->isEnabled());
}

void TestEditor::viewMenuZoomsAndBringsDocksBack()
{
    QSettings().remove("window"); // a first start: no saved geometry or layout
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The first window fits its screen (offscreen: 800×800), the docks scrolling what does not fit.
    const QRect available = window.screen()->availableGeometry();
    QVERIFY2(window.width() <= available.width() && window.height() <= available.height(),
             qPrintable(QString("window %1x%2 on %3x%4")
                            .arg(window.width())
                            .arg(window.height())
                            .arg(available.width())
                            .arg(available.height())));

    QMenu* view = nullptr;
    for (QMenu* menu : window.menuBar()->findChildren<QMenu*>())
        if (menu->title() == "&View")
            view = menu;
    QVERIFY(view);
    auto action = [&](const QString& text) {
        for (QAction* a : view->actions())
            if (a->text() == text)
                return a;
        return static_cast<QAction*>(nullptr);
    };
    // Zoom in, then back to 100 %.
    QVERIFY(action("Zoom &in") && action("&Actual size (100 %)"));
    action("&Actual size (100 %)")->trigger();
    action("Zoom &in")->trigger();
    QCOMPARE(window.graphView()->transform().m11(), 1.25);
    action("&Actual size (100 %)")->trigger();
    QCOMPARE(window.graphView()->transform().m11(), 1.0);
    // A closed dock comes back from the menu, and Reset layout shows every dock.
    auto* properties = window.findChild<QDockWidget*>("propertiesDock");
    QVERIFY(properties);
    properties->close();
    QVERIFY(!properties->isVisible());
    QVERIFY(action("&Properties"));
    action("&Properties")->trigger();
    QVERIFY(properties->isVisible());
    auto* table = window.findChild<QDockWidget*>("tableDock");
    table->close();
    action("&Reset layout")->trigger();
    QVERIFY(table->isVisible());
    // Edit [net] brings the Properties tab in front of the Training tab.
    window.findChild<QDockWidget*>("trainDock")->raise();
    QTRY_VERIFY(properties->visibleRegion().isEmpty());
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "Edit [&net]")
            a->trigger();
    QTRY_VERIFY(!properties->visibleRegion().isEmpty());
    QCOMPARE(window.propertyPanel()->section(), 0);
    // So does activating a row of the Problems list, on that problem's layer.
    window.documentModel()->setValue(3, "filters", "x"); // layer 2 (a convolution): a bad number
    auto* problems = window.findChild<QListWidget*>("problemList");
    QVERIFY(problems && problems->count() > 0);
    QListWidgetItem* problem = nullptr;
    for (int row = 0; row < problems->count(); ++row)
        if (problems->item(row)->text().contains("bad number for 'filters'"))
            problem = problems->item(row);
    QVERIFY(problem);
    window.findChild<QDockWidget*>("trainDock")->raise();
    QTRY_VERIFY(properties->visibleRegion().isEmpty());
    emit problems->itemActivated(problem);
    QTRY_VERIFY(!properties->visibleRegion().isEmpty());
    QCOMPARE(window.selectedLayer(), problem->data(Qt::UserRole).toInt());
    // A [net] problem shows [net].
    window.documentModel()->undoStack()->undo();
    window.documentModel()->setValue(0, "momentum", "5");
    QListWidgetItem* netProblem = nullptr;
    for (int row = 0; row < problems->count(); ++row)
        if (problems->item(row)->text().contains("momentum outside 0..1"))
            netProblem = problems->item(row);
    QVERIFY(netProblem);
    QCOMPARE(netProblem->data(Qt::UserRole).toInt(), -1);
    emit problems->itemActivated(netProblem);
    QCOMPARE(window.propertyPanel()->section(), 0);
    // A problem of the text itself (an unclosed header) brings Source in front at its line: Properties,
    // raised for it before, has no such line to fix.
    QTemporaryDir dir;
    test::writeFile(dir.filePath("broken.cfg"),
                    "[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional\nfilters=4\n");
    window.documentModel()->undoStack()->setClean(); // (no "save the changes?" question)
    QVERIFY(window.openFile(dir.filePath("broken.cfg")));
    QListWidgetItem* textProblem = nullptr;
    for (int row = 0; row < problems->count(); ++row)
        if (problems->item(row)->text().contains("has no closing ']'"))
            textProblem = problems->item(row);
    QVERIFY(textProblem);
    QVERIFY(textProblem->data(Qt::UserRole + 2).toBool());
    window.findChild<QDockWidget*>("trainDock")->raise();
    emit problems->itemActivated(textProblem);
    QTRY_VERIFY(!window.sourceView()->visibleRegion().isEmpty());
    QVERIFY(properties->visibleRegion().isEmpty());
    QCOMPARE(window.sourceView()->textCursor().blockNumber() + 1, 6);
}

// Undo and Redo say what they undid or redid in the status bar, in place of the step's own message
// ("Layer 3 now reads layer 0" stayed there after the connection was undone).
void TestEditor::undoAndRedoSayWhatTheyDid()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    window.documentModel()->setValue(1, "filters", "16");
    const QString step = window.documentModel()->undoStack()->undoText();
    QVERIFY(!step.isEmpty());
    window.statusBar()->showMessage("Layer 3 now reads layer 0");
    QAction* undo = nullptr;
    QAction* redo = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (action->property("commandName").toString() == "Undo")
            undo = action;
        if (action->property("commandName").toString() == "Redo")
            redo = action;
    }
    QVERIFY(undo && redo);
    undo->trigger();
    QCOMPARE(window.statusBar()->currentMessage(), "Undone: " + step);
    redo->trigger();
    QCOMPARE(window.statusBar()->currentMessage(), "Redone: " + step);
}

void TestEditor::newFilesStartCleanAndNewSaysHowToStart()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    window.layerTable()->selectRow(5);
    QCOMPARE(window.selectedLayer(), 5);
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    QCOMPARE(window.selectedLayer(), -1); // not layer 5 of the new file
    // File > New: an empty canvas says how to start; the hint goes with the first layer.
    auto hints = [&] {
        int count = 0;
        for (QGraphicsItem* item : window.graphView()->scene()->items())
            if (auto* text = dynamic_cast<QGraphicsTextItem*>(item))
                count += text->toPlainText() == QString(ui::GraphView::kEmptyHint);
        return count;
    };
    QCOMPARE(hints(), 0);
    // A zoom chosen for the last network, and its status line, do not stay for the next.
    window.graphView()->zoomBy(0.05);
    window.statusBar()->showMessage("about fashion-mnist");
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == "&New")
            action->trigger();
    QCOMPARE(window.graphView()->nodeCount(), 0);
    QCOMPARE(hints(), 1);
    QCOMPARE(window.graphView()->transform().m11(), 1.0);
    QCOMPARE(window.statusBar()->currentMessage(), QString());
    window.graphView()->zoomBy(0.05);
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg"));
    QCOMPARE(window.graphView()->transform().m11(), 1.0);
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == "&New")
            action->trigger();
    window.insertLayer("convolutional");
    QCOMPARE(window.graphView()->nodeCount(), 1);
    QCOMPARE(hints(), 0);
}

// A cfg without [net] (a fragment copied from another): the canvas said "No layers yet: drag a layer
// type…", and a layer dragged there went between its sections. It says what is missing, refuses the
// insert in words, and Edit ▸ Add [net] section makes its sections layers, in one undoable step.
// A value typed in Properties and committed by what the user does next: a click further down the table
// (the table and the graph scrolled back to the edited layer first, and the click took another row), or
// Ctrl+Down (the move dropped it).
void TestEditor::aTypedValueGoesFirstAndTheViewsStay()
{
    ui::MainWindow window;
    window.resize(1280, 720);
    QVERIFY(window.openFile("/usr/share/darknet/cfg/yolov3.cfg"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableWidget* properties = window.propertyPanel()->table();
    const auto typeFilters = [&](const QString& value) {
        int row = -1;
        for (int r = 0; r < properties->rowCount(); ++r)
            if (properties->item(r, 0)->text() == "filters")
                row = r;
        QVERIFY(row >= 0);
        properties->setCurrentItem(properties->item(row, 1));
        properties->editItem(properties->item(row, 1));
        QSpinBox* spin = nullptr; // (the last editor may not be deleted yet)
        for (QSpinBox* box : properties->viewport()->findChildren<QSpinBox*>())
            if (box->isVisible())
                spin = box;
        QVERIFY(spin);
        spin->selectAll();
        QTest::keyClicks(spin, value);
    };
    window.layerTable()->selectRow(1);
    typeFilters("40");
    QScrollBar* tableBar = window.layerTable()->verticalScrollBar();
    tableBar->setValue(tableBar->maximum()); // (a wheel or the scroll bar: the editor keeps the focus)
    const int scrolled = tableBar->value();
    QVERIFY(scrolled > 0);
    QScrollBar* graphBar = window.graphView()->verticalScrollBar();
    graphBar->setValue(graphBar->maximum() / 2); // far from layer 1's card (the mini-map, say)
    const int graphScrolled = graphBar->value();
    QVERIFY(graphScrolled > 1000);
    window.propertyPanel()->commitPendingEdit(); // what the click's focus change does
    QTRY_COMPARE(window.layerModel()->spec().layers[1].output.c, 40);
    QCOMPARE(tableBar->value(), scrolled);
    QVERIFY2(std::abs(graphBar->value() - graphScrolled) <= 2,
             qPrintable(QString("%1 (was %2)").arg(graphBar->value()).arg(graphScrolled)));

    window.layerTable()->selectRow(2);
    typeFilters("48");
    QAction* down = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == "Move layer do&wn")
            down = action;
    QVERIFY(down);
    const int steps = window.documentModel()->undoStack()->count();
    down->trigger();
    QCOMPARE(window.documentModel()->undoStack()->count(), steps + 2); // the value, then the move
    QCOMPARE(window.layerModel()->spec().layers[3].output.c, 48);
    // Another file opens at its first layers, not where the last one's table was scrolled.
    tableBar->setValue(tableBar->maximum());
    window.documentModel()->undoStack()->setClean(); // (no question about unsaved changes)
    QVERIFY(window.openFile("/usr/share/darknet/cfg/yolov3-tiny.cfg"));
    QCOMPARE(tableBar->value(), 0);
}

void TestEditor::aCfgWithoutNetSaysSoAndGetsOne()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("nonet.cfg");
    test::writeFile(cfg, "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n[maxpool]\nsize=2\n"
                         "stride=2\n");
    ui::MainWindow window;
    window.openFile(cfg); // (opened with its error in Problems)
    QCOMPARE(window.graphView()->nodeCount(), 0);
    QStringList texts;
    for (QGraphicsItem* item : window.graphView()->scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item))
            texts << text->toPlainText();
    QCOMPARE(texts.size(), 1);
    QVERIFY2(
        texts.first().startsWith("This cfg starts with [convolutional], not [net]: its 2 sections are no "
                                 "layers until a [net] section"),
        qPrintable(texts.first()));
    auto* addNet = window.findChild<QAction*>("addNetAction");
    QVERIFY(addNet && addNet->isVisible() && addNet->isEnabled());

    window.insertLayer("maxpool");
    QVERIFY2(window.statusBar()->currentMessage().startsWith(
                 "Not inserted: this cfg starts with [convolutional], not [net]"),
             qPrintable(window.statusBar()->currentMessage()));
    QCOMPARE(window.documentModel()->document().sections().size(), std::size_t(2));
    // Paste is refused the same way (it went in, glued to the last section, and showed nowhere).
    QGuiApplication::clipboard()->setText("[maxpool]\nsize=2\nstride=2\n");
    window.editActions()->pasteAction()->trigger();
    QVERIFY2(window.statusBar()->currentMessage().startsWith(
                 "Not pasted: this cfg starts with [convolutional], not [net]"),
             qPrintable(window.statusBar()->currentMessage()));
    QCOMPARE(window.documentModel()->document().sections().size(), std::size_t(2));

    addNet->trigger();
    QCOMPARE(window.graphView()->nodeCount(), 2);
    QVERIFY(!addNet->isVisible());
    const NetworkSpec spec = buildNetworkSpec(window.documentModel()->document());
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(spec.layers[1].output.w, 208); // 416 / 2: the [net] added holds the input
    QCOMPARE(spec.net.maxBatches, 2000);    // and a schedule to train with, as File ▸ New's has
    QCOMPARE(spec.net.burnIn, 100);
    QVERIFY(window.documentModel()->isModified());
    window.documentModel()->undoStack()->undo();
    QCOMPARE(window.graphView()->nodeCount(), 0);
    QVERIFY(addNet->isVisible());
    QVERIFY(!window.documentModel()->isModified());
}

// File ▸ Export ONNX on the bundled detector: the editor's network with chosen weights, written by a
// worker; wrong or missing weights are refused in the dialog, nothing written.
void TestEditor::exportOnnxFromTheFileMenu()
{
#ifndef NETWRIGHT_WITH_ONNX
    QSKIP("built without libonnx-dev");
#else
    QTemporaryDir dir;
    const QString cfg = dir.filePath("shapes.cfg"), weights = dir.filePath("shapes.weights");
    QVERIFY(QFile::copy(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg", cfg));
    QCOMPARE(nw::test::cli({"init", cfg, weights}).exitCode, 0);
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    auto* action = window.findChild<QAction*>("exportOnnxAction");
    QVERIFY(action && action->isEnabled());
    action->trigger();
    auto* dialog = window.findChild<ui::OnnxExportDialog*>("onnxExportDialog");
    QVERIFY(dialog);
    QCOMPARE(dialog->windowModality(), Qt::WindowModal); // no edits behind the text it exports
    QCOMPARE(dialog->outputEdit()->text(), dir.filePath("shapes.onnx")); // next to the cfg
    QVERIFY(dialog->decodeBox()->isEnabled());                           // the net has [yolo] heads

    auto exportNow = [&] {
        QSignalSpy done(dialog, &ui::OnnxExportDialog::exported);
        dialog->startExport();
        QVERIFY(done.wait(60000));
    };
    QCOMPARE(dialog->weightsEdit()->text(), weights); // the Detect panel's (found next to the cfg)
    dialog->weightsEdit()->clear();
    exportNow(); // no weights chosen
    QVERIFY2(dialog->status()->text().contains("choose the .weights file"),
             qPrintable(dialog->status()->text()));
    QVERIFY(!QFile::exists(dir.filePath("shapes.onnx")));

    dialog->weightsEdit()->setText(weights);
    dialog->decodeBox()->setChecked(true);
    dialog->dynamicBatchBox()->setChecked(true);
    exportNow();
    QVERIFY2(dialog->status()->text().contains("detections [batch, 540, 10]"),
             qPrintable(dialog->status()->text()));
    QVERIFY(QFileInfo(dir.filePath("shapes.onnx")).size() > 1000000);

    // Another network's weights: refused by name, the file from before untouched.
    const QString other = dir.filePath("fashion.weights");
    QCOMPARE(
        nw::test::cli({"init", QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", other}).exitCode, 0);
    dialog->weightsEdit()->setText(other);
    dialog->outputEdit()->setText(dir.filePath("other.onnx"));
    exportNow();
    QVERIFY2(dialog->status()->text().startsWith("Not exported:"), qPrintable(dialog->status()->text()));
    QVERIFY(!QFile::exists(dir.filePath("other.onnx")));
    // A larger network's weights: their message is six lines. The dialog grows to show it, its fields
    // keep their height (squeezed to a few pixels, their text was cut).
    const QString larger = dir.filePath("yolov4-tiny.weights");
    QCOMPARE(nw::test::cli({"init", QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg", larger})
                 .exitCode,
             0);
    dialog->weightsEdit()->setText(larger);
    exportNow();
    QVERIFY2(dialog->status()->text().contains("it belongs to a larger network"),
             qPrintable(dialog->status()->text()));
    QCoreApplication::processEvents();
    QVERIFY(dialog->isVisible());
    for (QWidget* field :
         {static_cast<QWidget*>(dialog->weightsEdit()), static_cast<QWidget*>(dialog->outputEdit())})
        QVERIFY2(field->height() >= field->sizeHint().height(),
                 qPrintable(QString("%1 of %2 pixels").arg(field->height()).arg(field->sizeHint().height())));
    QVERIFY(dialog->status()->height() >= dialog->status()->heightForWidth(dialog->status()->width()));

    // The network's own files are never written over (the .weights became an ONNX model without a
    // word); another existing file only once the user says so, and a relative name goes beside the cfg.
    dialog->weightsEdit()->setText(weights);
    const QByteArray weightsBytes = test::readAll(weights), cfgBytes = test::readAll(cfg);
    for (const QString& own : {weights, cfg}) {
        dialog->outputEdit()->setText(own);
        dialog->startExport(); // refused at once, before any work
        QVERIFY2(dialog->status()->text().contains("writing it would replace that file"),
                 qPrintable(dialog->status()->text()));
    }
    QCOMPARE(test::readAll(weights), weightsBytes);
    QCOMPARE(test::readAll(cfg), cfgBytes);
    const QByteArray exportedBytes = test::readAll(dir.filePath("shapes.onnx"));
    dialog->outputEdit()->setText("shapes.onnx");
    dialog->startExport();
    QCOMPARE(dialog->status()->text(),
             QString("%1 exists: Export again to replace it, or choose another name.")
                 .arg(dir.filePath("shapes.onnx")));
    QCOMPARE(test::readAll(dir.filePath("shapes.onnx")), exportedBytes);
    QVERIFY(!dialog->exporting());
    dialog->decodeBox()->setChecked(false); // another model, so the replacement shows
    exportNow();
    QVERIFY2(dialog->status()->text().startsWith("Wrote " + dir.filePath("shapes.onnx")),
             qPrintable(dialog->status()->text()));
    QVERIFY(test::readAll(dir.filePath("shapes.onnx")) != exportedBytes);
    // A name typed without a suffix gets the model's (Browse… adds it; "typed" was written as typed).
    dialog->outputEdit()->setText("typed");
    exportNow();
    QVERIFY2(dialog->status()->text().startsWith("Wrote " + dir.filePath("typed.onnx")),
             qPrintable(dialog->status()->text()));
    QVERIFY(QFileInfo(dir.filePath("typed.onnx")).size() > 1000000);
    dialog->weightsEdit()->setText(other);
    dialog->outputEdit()->setText(dir.filePath("other.onnx"));

    // Close during an export: the dialog stays (the event loop runs, nothing waits) until the file is
    // written, then closes; the result is in the window's status bar. An export that fails keeps the
    // dialog open with its error.
    auto* buttons = dialog->findChild<QDialogButtonBox*>();
    QVERIFY(buttons);
    {
        QSignalSpy failed(dialog, &ui::OnnxExportDialog::exported);
        dialog->startExport(); // still the other network's weights
        buttons->button(QDialogButtonBox::Close)->click();
        QVERIFY(failed.wait(60000));
        QVERIFY(!failed.at(0).at(0).toBool());
        QCoreApplication::processEvents();
        QVERIFY(dialog->isVisible());
        QVERIFY2(dialog->status()->text().startsWith("Not exported:"), qPrintable(dialog->status()->text()));
    }
    dialog->weightsEdit()->setText(weights);
    dialog->outputEdit()->setText(dir.filePath("closed.onnx"));
    QSignalSpy done(dialog, &ui::OnnxExportDialog::exported);
    QPointer<ui::OnnxExportDialog> alive(dialog);
    dialog->startExport();
    QVERIFY(dialog->exporting());
    buttons->button(QDialogButtonBox::Close)->click();
    QVERIFY(dialog->isVisible());
    QVERIFY2(dialog->status()->text().contains("closes once the file is written"),
             qPrintable(dialog->status()->text()));
    QVERIFY(done.wait(60000));
    QVERIFY(done.at(0).at(0).toBool());
    QVERIFY(QFileInfo(dir.filePath("closed.onnx")).size() > 1000000);
    QTRY_VERIFY(alive.isNull()); // closed, and deleted on close
    QVERIFY2(window.statusBar()->currentMessage().contains("closed.onnx"),
             qPrintable(window.statusBar()->currentMessage()));

    // Opened by a relative path (`netwright shapes.cfg` in its folder): the file proposed names the folder
    // ("./shapes.onnx", then "Wrote ././shapes.onnx", said nothing of where).
    struct WorkingFolder {
        const QString before = QDir::currentPath();
        ~WorkingFolder() { QDir::setCurrent(before); }
    } workingFolder;
    QDir::setCurrent(dir.path());
    ui::MainWindow relative;
    QVERIFY(relative.openFile("shapes.cfg"));
    relative.findChild<QAction*>("exportOnnxAction")->trigger();
    auto* proposed = relative.findChild<ui::OnnxExportDialog*>("onnxExportDialog");
    QVERIFY(proposed);
    QCOMPARE(proposed->outputEdit()->text(), dir.filePath("shapes.onnx"));

    // A network with a layer that has no ONNX form says so before asking for weights (the user looked
    // for a weights file, then was refused for the layer).
    const QString local = "[net]\nwidth=16\nheight=16\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\n"
                          "pad=1\nactivation=leaky\n\n[local]\nfilters=4\nsize=3\nactivation=leaky\n";
    ui::OnnxExportDialog noForm(dir.filePath("local.cfg"), local, QString(), false);
    QSignalSpy refused(&noForm, &ui::OnnxExportDialog::exported);
    noForm.startExport();
    QVERIFY(refused.wait(60000));
    QVERIFY2(noForm.status()->text().contains("local.cfg:12: layer 1 [local] has no ONNX form"),
             qPrintable(noForm.status()->text()));
    QVERIFY(!QFile::exists(dir.filePath("local.onnx")));
#endif
}

// A keyboard-only user (a QA pass with xdotool): Tab left neither table, the graph had no keys, the
// palette's type-ahead matched its indented names and Enter did nothing, View ▸ Properties closed a
// dock that was behind a tab, a confirmed value sent the cursor to the first key, and Train, Stop and
// Detect had no keys at all.
void TestEditor::everythingWorksFromTheKeyboard()
{
    QSettings().remove("window");
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The layer table given the keyboard (Tab, a dock raised) selects nothing: Qt makes its first row
    // current, unselected, and the graph and Properties followed that to layer 0.
    QTableView* table = window.layerTable();
    const int shownBefore = window.propertyPanel()->section();
    table->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(table->hasFocus());
    QCOMPARE(window.selectedLayer(), -1);
    QVERIFY(window.graphView()->selectedLayers().empty());
    QCOMPARE(window.propertyPanel()->section(), shownBefore);
    // Arrows then choose layers as before.
    QTest::keyClick(table, Qt::Key_Down);
    QCOMPARE(window.selectedLayer(), 1);
    QCOMPARE(window.graphView()->selectedLayer(), 1);
    QCOMPARE(window.propertyPanel()->section(), 2);
    // Tab leaves the layer table and the property table.
    QTest::keyClick(table, Qt::Key_Tab);
    QVERIFY(!table->hasFocus());
    QTableWidget* keys = window.propertyPanel()->table();
    keys->setFocus();
    QTRY_VERIFY(keys->hasFocus());
    QTest::keyClick(keys, Qt::Key_Tab);
    QVERIFY(!keys->hasFocus());

    // No Tab stop does nothing: the panels' scroll wrappers and the mini-map take no focus.
    for (auto* dock : window.findChildren<QDockWidget*>())
        if (auto* wrapper = qobject_cast<QScrollArea*>(dock->widget()))
            QVERIFY2(wrapper->focusPolicy() == Qt::NoFocus, qPrintable(dock->objectName()));
    for (QWidget* child : window.graphView()->findChildren<QWidget*>())
        if (QByteArray(child->metaObject()->className()).endsWith("MiniMap"))
            QCOMPARE(child->focusPolicy(), Qt::NoFocus);

    // The graph: Down, Up, End and Home choose layers, and Properties follows.
    ui::GraphView* graph = window.graphView();
    graph->setFocus();
    graph->selectLayer(0);
    QTest::keyClick(graph, Qt::Key_Down);
    QCOMPARE(graph->selectedLayer(), 1);
    QCOMPARE(window.propertyPanel()->section(), 2);
    QTest::keyClick(graph, Qt::Key_End);
    QCOMPARE(graph->selectedLayer(), int(window.spec().layers.size()) - 1);
    QTest::keyClick(graph, Qt::Key_Up);
    QCOMPARE(graph->selectedLayer(), int(window.spec().layers.size()) - 2);
    QTest::keyClick(graph, Qt::Key_Home);
    QCOMPARE(graph->selectedLayer(), 0);

    // The palette: typing "max" goes to maxpool, Enter inserts one after the selected layer.
    QListWidget* palette = window.palette()->list();
    palette->setFocus();
    QTest::keyClicks(palette, "max");
    QVERIFY(palette->currentItem());
    QCOMPARE(palette->currentItem()->data(Qt::UserRole).toString(), QString("maxpool"));
    const std::size_t before = window.spec().layers.size();
    QTest::keyClick(palette, Qt::Key_Return);
    QCOMPARE(window.spec().layers.size(), before + 1);
    QCOMPARE(QString::fromStdString(window.spec().layers[1].type), QString("maxpool"));

    // A value confirmed in Properties keeps the cursor on its key.
    graph->selectLayer(0);
    emit graph->layerSelected(0);
    int padRow = -1;
    for (int row = 0; row < keys->rowCount(); ++row)
        if (keys->item(row, 0) && keys->item(row, 0)->text() == "pad")
            padRow = row;
    QVERIFY(padRow > 0);
    keys->setCurrentCell(padRow, 1);
    keys->item(padRow, 1)->setText("0");
    QTRY_COMPARE(QString::fromStdString(window.documentModel()->document().sections()[1].find("pad")->value),
                 QString("0"));
    QTRY_VERIFY(keys->currentRow() >= 0 && keys->item(keys->currentRow(), 0)->text() == "pad");

    // View ▸ Properties brings the dock from behind the Training tab instead of closing it.
    auto* properties = window.findChild<QDockWidget*>("propertiesDock");
    window.findChild<QDockWidget*>("trainDock")->raise();
    QTRY_VERIFY(properties->visibleRegion().isEmpty());
    auto* showProperties = window.findChild<QAction*>("propertiesDockAction");
    QVERIFY(showProperties);
    showProperties->trigger();
    QTRY_VERIFY(!properties->visibleRegion().isEmpty());
    QVERIFY(properties->isVisible());
    showProperties->trigger(); // in front: the menu closes it, as before
    QVERIFY(!properties->isVisible());
    showProperties->trigger();
    QVERIFY(properties->isVisible());

    // Run ▸ Train (Ctrl+T) clicks the Training panel's Train with the panel in front: a new network is
    // not saved, so it says what to do instead.
    window.documentModel()->undoStack()->setClean(); // (New would ask about the edits above)
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "&New")
            a->trigger();
    QTest::keyClick(&window, Qt::Key_T, Qt::ControlModifier);
    QTRY_VERIFY(window.trainPanel()->statusLabel()->text().startsWith("Save the network first"));
    QTRY_VERIFY(!window.findChild<QDockWidget*>("trainDock")->visibleRegion().isEmpty());
    bool detectKey = false;
    for (QAction* a : window.findChildren<QAction*>())
        detectKey |= a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_I);
    QVERIFY(detectKey);
}

// A layout saved on a large screen and restored on a small one (a HiDPI laptop at 200 % has 960 logical
// pixels) left the graph 100 pixels wide, narrower than one card: shown, the docks make room for it.
void TestEditor::theGraphKeepsRoomOnASmallScreen()
{
    QSettings().remove("window");
    {
        ui::MainWindow wide;   // a layout saved on a wide screen: wide docks
        wide.resize(790, 700); // (the offscreen screen is 800 pixels wide)
        wide.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wide));
        wide.resizeDocks(
            {wide.findChild<QDockWidget*>("paletteDock"), wide.findChild<QDockWidget*>("propertiesDock")},
            {200, 450}, Qt::Horizontal);
        QTRY_VERIFY(wide.centralWidget()->width() < 200);
        QSettings().setValue("window/state", wide.saveState());
    }
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/shapes-tiny.cfg"));
    window.resize(780, 600);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY2(window.centralWidget()->width() >= 300,
                 qPrintable(QString("canvas %1 px").arg(window.centralWidget()->width())));
    QVERIFY(window.findChild<QDockWidget*>("propertiesDock")->width() >= 200); // (the panels scroll)
    // Shown again (un-minimised), a layout the user made is left as it is.
    auto* palette = window.findChild<QDockWidget*>("paletteDock");
    auto* properties = window.findChild<QDockWidget*>("propertiesDock");
    window.resizeDocks({palette, properties}, {260, 480}, Qt::Horizontal);
    QTRY_VERIFY(window.centralWidget()->width() < 150);
    window.hide();
    window.show();
    QTest::qWait(50);
    QVERIFY(window.centralWidget()->width() < 150);
    // A window made narrower takes from the docks as well (the canvas took it all: from 1480 to 1024
    // pixels wide, not one card stayed in view).
    window.resizeDocks({palette, properties}, {150, 300}, Qt::Horizontal);
    QTRY_VERIFY(window.centralWidget()->width() >= 300);
    window.resize(700, 600);
    QTRY_VERIFY2(window.centralWidget()->width() >= 300,
                 qPrintable(QString("canvas %1 px").arg(window.centralWidget()->width())));
    QSettings().remove("window");
}

// 40,000 layers crashed the studio inside Graphviz's layout (its recursion overflowed the stack) and
// 20,000 took minutes: past kLargestDrawnGraph layers the canvas says so and the table does the work.
void TestEditor::aHugeNetworkIsListedNotDrawn()
{
    std::string text = "[net]\nwidth=8\nheight=8\nchannels=1\n";
    for (int i = 0; i <= ui::GraphView::kLargestDrawnGraph; ++i)
        text += "[dropout]\nprobability=0.1\n";
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::parse(text, "huge.cfg"));
    QCOMPARE(int(spec.layers.size()), ui::GraphView::kLargestDrawnGraph + 1);
    ui::GraphView view;
    view.setSpec(spec);
    QCOMPARE(view.nodeCount(), 0);
    bool said = false;
    for (QGraphicsItem* item : view.scene()->items())
        if (auto* note = dynamic_cast<QGraphicsTextItem*>(item))
            said |= note->toPlainText().startsWith(
                "This network has 4001 layers: the graph is drawn for up to 4000.");
    QVERIFY(said);
    QTest::keyClick(&view, Qt::Key_Down); // no card to choose: nothing happens
    QCOMPARE(view.selectedLayer(), -1);
}

// A damaged settings file (geometry rects all 2^31 - 1) restored a 328×316 window off every screen:
// such a geometry is dropped for the first window's size, on the screen.
void TestEditor::aDamagedSavedGeometryIsNotUsed()
{
    // Qt's geometry record (version 3.0), its rectangles at the top of the int range.
    QByteArray damaged;
    QDataStream out(&damaged, QIODevice::WriteOnly);
    const qint32 top = std::numeric_limits<qint32>::max();
    out << quint32(0x1D9D0CB) << quint16(3) << quint16(0);
    for (int rect = 0; rect < 2; ++rect)
        out << top - 10 << top - 10 << top << top;
    out << qint32(0) << quint8(0) << quint8(0) << qint32(1480) << top - 10 << top - 10 << top << top;
    // What Qt made of it on X11 (xcb): 328×236 at the far corner. (Offscreen, Qt mends it itself.)
    const QList<QRect> screen{QRect(0, 0, 1480, 900)};
    QVERIFY(!ui::MainWindow::isUsablePlace(QRect(top - 400, top - 300, 328, 236), screen));
    QVERIFY(!ui::MainWindow::isUsablePlace(QRect(-32767, 20, 1400, 800), screen));
    QVERIFY(!ui::MainWindow::isUsablePlace(QRect(1469, 889, 1400, 800), screen)); // a corner on screen
    QVERIFY(ui::MainWindow::isUsablePlace(QRect(1000, 500, 1400, 800), screen));  // half on it: fine
    QVERIFY(
        ui::MainWindow::isUsablePlace(QRect(1600, 0, 1400, 800), {screen[0], QRect(1480, 0, 1920, 1080)}));
    // A window saved on a larger screen comes back inside this one; one that fits stays where it was.
    // A window shrunk below a usable size is not saved (its squashed docks came back in the full-size
    // window of the next start); nor is a saved layout restored with a geometry dropped as unusable.
    QSettings().remove("window");
    {
        ui::MainWindow small;
        small.resize(310, 280);
        small.show();
        QVERIFY(QTest::qWaitForWindowExposed(&small));
        QVERIFY(small.close());
    }
    QVERIFY(!QSettings().contains("window/state"));
    {
        ui::MainWindow usable;
        usable.resize(780, 560);
        usable.show();
        QVERIFY(QTest::qWaitForWindowExposed(&usable));
        QVERIFY(usable.close());
    }
    QVERIFY(QSettings().contains("window/state"));
    QSettings().remove("window");
    // Settings saved so by an earlier version: the squashed layout is not restored with the window size
    // that replaces the unusable geometry (the palette stayed a sliver beside a full-size canvas).
    {
        ui::MainWindow small;
        small.resize(310, 280);
        small.show();
        QVERIFY(QTest::qWaitForWindowExposed(&small));
        small.resizeDocks({small.findChild<QDockWidget*>("paletteDock")}, {40}, Qt::Horizontal);
        QCoreApplication::processEvents();
        QSettings().setValue("window/geometry", small.saveGeometry());
        QSettings().setValue("window/state", small.saveState());
    }
    {
        ui::MainWindow next;
        next.show();
        QVERIFY(QTest::qWaitForWindowExposed(&next));
        QTRY_VERIFY2(next.findChild<QDockWidget*>("paletteDock")->width() >= 150,
                     qPrintable(QString::number(next.findChild<QDockWidget*>("paletteDock")->width())));
    }
    QSettings().remove("window");
    QCOMPARE(ui::MainWindow::placeInside(QRect(37, 40, 1406, 828), QRect(0, 0, 1280, 720)),
             QRect(0, 0, 1280, 720));
    QCOMPARE(ui::MainWindow::placeInside(QRect(600, 300, 900, 600), QRect(0, 0, 1280, 720)),
             QRect(380, 120, 900, 600));
    QCOMPARE(ui::MainWindow::placeInside(QRect(1500, 10, 900, 600), QRect(1480, 0, 1920, 1080)),
             QRect(1500, 10, 900, 600));
    QSettings().remove("window");
    QSettings().setValue("window/geometry", damaged);
    ui::MainWindow window;
    const QRect available = window.screen()->availableGeometry();
    QVERIFY2(window.width() >= 480 && window.height() >= 360,
             qPrintable(QString("%1x%2").arg(window.width()).arg(window.height())));
    QVERIFY2(window.frameGeometry().intersects(available),
             qPrintable(QString("at %1,%2").arg(window.x()).arg(window.y())));
    QSettings().remove("window");
}

void TestEditor::problemLinesFollowTheEditedText()
{
    LinkedWindow linked;
    ui::DocumentModel* model = linked.window.documentModel();
    auto* problems = linked.window.findChild<QListWidget*>("problemList");
    QVERIFY(problems);
    const auto problemText = [&] {
        QStringList rows;
        for (int row = 0; row < problems->count(); ++row)
            rows << problems->item(row)->text();
        return rows.join('\n');
    };
    // Layer 5's filters (line 29 of kLinked) made bad, then a 3-line layer inserted above it: the problem
    // moves to line 32, where Save writes it (it used to keep saying 29).
    model->setValue(6, "filters", "x");
    QVERIFY2(problemText().contains("linked.cfg:29:"), qPrintable(problemText()));
    model->insertLayer(0, "dropout", {{"probability", "0.2"}});
    QVERIFY2(problemText().contains("linked.cfg:32:"), qPrintable(problemText()));
    QCOMPARE(model->document().sections()[1].headerLine(), 6);
    const std::string text = model->document().toText();
    int line = 1;
    for (std::size_t at = 0; at < text.find("filters=x"); ++at)
        line += text[at] == '\n';
    QCOMPARE(line, 32);
    // Save As, then undo: the problems name the new file, not the one the undone edit was made in.
    const QString other = linked.dir.path() + "/other.cfg";
    QCOMPARE(model->saveAs(other), QString());
    model->undoStack()->undo();
    QVERIFY2(problemText().contains("other.cfg:29:"), qPrintable(problemText()));
    QVERIFY(!problemText().contains("linked.cfg"));
}

// filters 4 → 8 → 4 by hand: the text is the file's again, so nothing is left to save (the title lost
// its '*' only through Undo); after a Save, the saved text is the one to come back to.
// Save when another program changed the file since it was opened: asked first, and Cancel keeps the
// file as the other program left it (Save replaced those changes without a word).
void TestEditor::savingOverChangesOnDiskAsksFirst()
{
    LinkedWindow linked;
    linked.window.documentModel()->setValue(1, "filters", "8");
    test::writeFile(linked.path, QByteArray(kLinked) + "# a teammate's note\n");
    answerNextQuestion(QMessageBox::Cancel);
    QVERIFY(!linked.window.save());
    QVERIFY(test::readAll(linked.path).endsWith("# a teammate's note\n"));
    QVERIFY(
        linked.window.statusBar()->currentMessage().startsWith("Not saved: linked.cfg keeps the changes"));
    answerNextQuestion(QMessageBox::Save);
    QVERIFY(linked.window.save());
    QCOMPARE(test::readAll(linked.path).toStdString(), linked.text());
    // Saved from here: the next Save asks nothing (a question would be cancelled and Save fail).
    linked.window.documentModel()->setValue(1, "filters", "4");
    answerNextQuestion(QMessageBox::Cancel);
    QVERIFY(linked.window.save());
    QCOMPARE(test::readAll(linked.path).toStdString(), linked.text());
}

void TestEditor::typingAValueBackLeavesNothingToSave()
{
    LinkedWindow linked;
    ui::DocumentModel* model = linked.window.documentModel();
    model->setValue(1, "filters", "8");
    QVERIFY(model->isModified());
    model->setValue(2, "filters", "8"); // another key: not merged with the first edit
    model->setValue(2, "filters", "4");
    model->setValue(1, "filters", "4");
    QCOMPARE(linked.text(), std::string(kLinked));
    QVERIFY(!model->isModified());
    QVERIFY(!linked.window.windowTitle().contains('*'));
    model->undoStack()->undo(); // filters=8 again
    QVERIFY(model->isModified());
    QCOMPARE(model->saveAs(linked.path), QString());
    model->undoStack()->redo(); // back to the original text, no longer what is on disk
    QVERIFY(model->isModified());
}

// The training data's classes against the network's in Problems; Edit > Set classes shows every edit
// with its line, makes them as one undo step, and the warning goes.
void TestEditor::setClassesFromTheEditMenu()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("obj.cfg");
    QVERIFY(QFile::copy(QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg", cfg));
    test::writeFile(dir.filePath("obj.data"), "classes = 5\ntrain = train.txt\n");
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    QCOMPARE(window.trainPanel()->dataEdit()->text(), dir.filePath("obj.data"));
    const auto classesWarnings = [&] {
        int found = 0;
        for (int i = 0; i < window.problemList()->count(); ++i)
            found += window.problemList()->item(i)->text().contains(
                "obj.cfg:226: warning: layer 30: classes=80 but the training data obj.data has classes=5: "
                "Edit ▸ Set classes… changes every head (and the filters= before it)");
        return found;
    };
    QCOMPARE(classesWarnings(), 1);
    const std::string before = window.documentModel()->document().toText();

    bool shown = false;
    QTimer::singleShot(0, &window, [&] {
        auto* dialog = window.findChild<ui::SetClassesDialog*>();
        QVERIFY(dialog);
        shown = true;
        QCOMPARE(dialog->classesBox()->value(), 5); // the data's
        QVERIFY2(dialog->preview()->text().contains("line 221") &&
                     dialog->preview()->text().contains("layer 29 [convolutional]") &&
                     dialog->preview()->text().contains("filters: 255 → <b>30</b>"),
                 qPrintable(dialog->preview()->text()));
        dialog->scheduleBox()->setChecked(true);
        QCOMPARE(dialog->plan().edits.size(), std::size_t(6));
        dialog->okButton()->click();
    });
    window.findChild<QAction*>("setClassesAction")->trigger();
    QVERIFY(shown);
    QUndoStack* undo = window.documentModel()->undoStack();
    QCOMPARE(undo->count(), 1);
    QCOMPARE(undo->text(0), QString("Set classes = 5 (6 edits)"));
    QVERIFY(window.findChild<QUndoView*>("historyView")->wordWrap()); // long steps wrap in History
    for (const LayerSpec& layer : window.layerModel()->spec().layers)
        if (layer.type == "yolo")
            QCOMPARE(detectionHeadInfo(layer.config.get())->classes, 5);
    QVERIFY2(window.layerModel()->spec().ok(),
             test::allText(window.layerModel()->spec().diagnostics).c_str());
    QCOMPARE(window.layerModel()->spec().net.maxBatches, 10000);
    QCOMPARE(classesWarnings(), 0);
    undo->undo();
    QCOMPARE(window.documentModel()->document().toText(), before);
    QCOMPARE(classesWarnings(), 1);
}

// On a large graph, fit, pick a layer in the table, then View > Actual size (or a zoom): its card is in the
// middle of the view (it zoomed on the graph's middle).
void TestEditor::zoomsCentreOnTheSelectedLayer()
{
    ui::MainWindow window;
    QVERIFY(showYolov4Tiny(window));
    QAction* actualSize = nullptr;
    for (QMenu* menu : window.menuBar()->findChildren<QMenu*>())
        for (QAction* action : menu->actions())
            if (action->text() == "&Actual size (100 %)")
                actualSize = action;
    QVERIFY(actualSize);
    // With a layer selected (in the table, say) the zooms bring its card to the middle of the view.
    window.selectLayer(30);
    window.graphView()->fitAll();
    window.graphView()->centerOn(0, 0);
    actualSize->trigger();
    QGraphicsItem* card = nullptr;
    for (QGraphicsItem* item : window.graphView()->scene()->selectedItems())
        card = item;
    QVERIFY(card);
    // (Across, a graph narrower than the view stays where it is.)
    const QRectF visible =
        window.graphView()->mapToScene(window.graphView()->viewport()->rect()).boundingRect();
    QVERIFY(visible.contains(card->sceneBoundingRect()));
    QVERIFY2(std::abs(visible.center().y() - card->sceneBoundingRect().center().y()) < 2,
             qPrintable(QString("view middle %1; card %2")
                            .arg(visible.center().y())
                            .arg(card->sceneBoundingRect().center().y())));
}

// An edit lays the graph out anew: the card one looks at stays where it was on screen (removing a layer
// below it moved it 297 px sideways; an insert above it moved it down a card), also when the edit
// renumbered it.
void TestEditor::theCardLookedAtStaysPutAfterAnEdit()
{
    ui::MainWindow window;
    QVERIFY(showYolov4Tiny(window));
    ui::GraphView* graph = window.graphView();
    ui::DocumentModel* model = window.documentModel();
    window.selectLayer(20);
    graph->centreOnSelection();
    const auto onScreen = [&](int layer) { return graph->mapFromScene(*graph->centreOf(layer)); };
    const QPoint start = onScreen(20);
    const auto near = [](QPoint a, QPoint b) { return (a - b).manhattanLength() <= 2; };
    QVERIFY(model->removeLayer(25).isEmpty()); // a layer below it
    QVERIFY2(near(onScreen(20), start),
             qPrintable(QString("%1,%2").arg(onScreen(20).x()).arg(onScreen(20).y())));
    model->insertLayer(5, "dropout", {}); // above it: it is layer 21 now
    QVERIFY(near(onScreen(21), start));
    // (the edit is said in the status bar: a drop said nothing, and the last undo's words stayed)
    QVERIFY2(window.statusBar()->currentMessage().startsWith("Insert [dropout] "),
             qPrintable(window.statusBar()->currentMessage()));
    // Nothing selected: the card nearest the middle of the view is the one kept.
    window.layerTable()->selectionModel()->clear();
    graph->selectLayers({});
    const QPoint middle = onScreen(21);
    QVERIFY(model->removeLayer(1).isEmpty());
    QVERIFY(near(onScreen(20), middle));
    // An edit that makes a route an error (layers=99) lays the graph out narrower than the view: the
    // card stays put across too (the view centred the graph: 60 px sideways, cards cut at the edge).
    int routed = 5;
    while (window.layerModel()->spec().layers[std::size_t(routed)].type != "route")
        ++routed;
    window.selectLayer(routed);
    graph->centreOnSelection();
    const QPoint route = onScreen(routed);
    model->setValue(routed + 1, "layers", "99");
    QVERIFY(!window.layerModel()->spec().layers[std::size_t(routed)].valid());
    QVERIFY2(near(onScreen(routed), route), qPrintable(QString("%1,%2 (was %3,%4)")
                                                           .arg(onScreen(routed).x())
                                                           .arg(onScreen(routed).y())
                                                           .arg(route.x())
                                                           .arg(route.y())));
}

// A dark desktop palette: the canvas, the cards and their text follow it (a bright block of light cards
// sat in a dark window), and back when it changes again.
void TestEditor::theGraphFollowsADarkPalette()
{
    ui::MainWindow window;
    QVERIFY(showYolov4Tiny(window));
    ui::GraphView* graph = window.graphView();
    const auto cardPixel = [&] { // the fill of card 0 just right of its title's start
        const QPointF centre = *graph->centreOf(0);
        QImage image(40, 20, QImage::Format_RGB32);
        QPainter painter(&image);
        graph->scene()->render(&painter, QRectF(0, 0, 40, 20),
                               QRectF(centre + QPointF(40, 2), QSizeF(40, 20)));
        return image.pixelColor(20, 10);
    };
    QVERIFY(graph->backgroundBrush().color().lightness() > 200);
    QVERIFY(cardPixel().lightness() > 200);
    QPalette dark;
    for (const auto role : {QPalette::Window, QPalette::Base, QPalette::Button})
        dark.setColor(role, QColor(40, 40, 44));
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        dark.setColor(role, QColor(230, 230, 230));
    window.setPalette(dark);
    QCoreApplication::processEvents();
    QVERIFY(graph->backgroundBrush().color().lightness() < 60);
    QVERIFY2(cardPixel().lightness() < 110, qPrintable(cardPixel().name()));
    window.setPalette(QPalette());
    QCoreApplication::processEvents();
    QVERIFY(graph->backgroundBrush().color().lightness() > 200);
    QVERIFY(cardPixel().lightness() > 200);
}

// A read-only cfg in a folder that takes files: the refusal's advice is another name (it said "another
// folder", which the user did not need); a folder that does not exist still gets "another folder".
void TestEditor::aReadOnlyCfgIsSavedUnderAnotherName()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("locked.cfg");
    QVERIFY(QFile::copy(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg", cfg));
    QVERIFY(QFile::setPermissions(cfg, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    window.documentModel()->setValue(1, "filters", "48");
    QVERIFY(!window.save());
    const QString said = window.statusBar()->currentMessage();
    QVERIFY2(said.contains("(File ▸ Save As… saves it under another name)") &&
                 !said.contains("another folder"),
             qPrintable(said));
    QVERIFY(!window.saveAs(dir.filePath("gone/locked.cfg")));
    QVERIFY2(window.statusBar()->currentMessage().contains("save it in another folder"),
             qPrintable(window.statusBar()->currentMessage()));
}

// A config folder that cannot be written (read-only, or a path through a file): said in the status bar
// at the start (QSettings lost recent files and the layout at exit without a word).
void TestEditor::settingsThatCannotBeSavedAreSaid()
{
    QCOMPARE(ui::MainWindow::settingsProblem(), QString()); // the test's own settings folder
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, "/dev/null/settings");
    {
        ui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(
            window.statusBar()->currentMessage().startsWith("Settings are not saved: /dev/null/settings/"),
            qPrintable(window.statusBar()->currentMessage()));
    }
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation));
    QCOMPARE(ui::MainWindow::settingsProblem(), QString());
}

// Tab goes through what a person sees: never into a dock behind another dock's tab (typing there
// changed the hidden Source text).
void TestEditor::tabReachesOnlyWhatIsShown()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    w.window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w.window));
    for (const Qt::KeyboardModifiers direction : {Qt::NoModifier, Qt::ShiftModifier}) {
        w.graph()->setFocus();
        QStringList hidden;
        QSet<QWidget*> seen;
        for (int i = 0; i < 200; ++i) {
            QWidget* focus = QApplication::focusWidget();
            QVERIFY(focus);
            if (seen.contains(focus))
                break; // (round once; a round that misses a dock in front is a trap)
            seen.insert(focus);
            for (QWidget* up = focus; up; up = up->parentWidget())
                if (auto* dock = qobject_cast<QDockWidget*>(up); dock && dock->visibleRegion().isEmpty())
                    hidden << QString("%1 (%2) in %3")
                                  .arg(focus->metaObject()->className(), focus->objectName(),
                                       dock->windowTitle());
            QTest::keyClick(focus, Qt::Key_Tab, direction);
        }
        QVERIFY2(hidden.isEmpty(), qPrintable(hidden.join("; ")));
        // Every dock in front is reached (the layout the earlier tests left may differ).
        for (QDockWidget* dock : w.window.findChildren<QDockWidget*>())
            if (dock->isVisible() && !dock->visibleRegion().isEmpty())
                QVERIFY2(std::any_of(seen.begin(), seen.end(),
                                     [dock](QWidget* widget) { return dock->isAncestorOf(widget); }),
                         qPrintable(dock->windowTitle()));
    }
}

// Alt+E, C must choose one command: a letter two items share only moves between them.
void TestEditor::eachMenuItemHasItsOwnMnemonic()
{
    ui::MainWindow window;
    QStringList clashes, without;
    for (QAction* top : window.menuBar()->actions()) {
        QMenu* menu = top->menu();
        if (!menu)
            continue;
        QMap<QChar, QString> taken;
        for (QAction* action : menu->actions()) {
            if (action->isSeparator() || action->text().isEmpty())
                continue;
            const QString text = action->text();
            const qsizetype amp = text.indexOf('&');
            if (amp < 0 || amp + 1 >= text.size()) {
                without << menu->title() + " ▸ " + text;
                continue;
            }
            const QChar key = text[amp + 1].toLower();
            if (taken.contains(key))
                clashes << QString("%1 ▸ %2 and %3 share %4").arg(menu->title(), taken[key], text, key);
            taken[key] = text;
        }
    }
    QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join("; ")));
    QVERIFY2(without.isEmpty(), qPrintable(without.join("; ")));
}

// Where the keyboard goes when what holds it is hidden, with F6 and with View ▸ <dock>.
void TestEditor::theKeyboardStaysInView()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    w.window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w.window));
    auto* train = w.window.findChild<ui::TrainPanel*>();
    auto* propertiesDock = w.window.findChild<QDockWidget*>("propertiesDock");
    QVERIFY(train && propertiesDock);
    // Properties' tab brought in front of Training: the keyboard leaves the hidden Train button.
    w.window.findChild<QDockWidget*>("trainDock")->raise();
    QTRY_VERIFY(!train->trainButton()->visibleRegion().isEmpty());
    train->trainButton()->setFocus();
    propertiesDock->raise();
    QTRY_VERIFY(QApplication::focusWidget() != train->trainButton());
    QVERIFY(propertiesDock->isAncestorOf(QApplication::focusWidget()));
    // A control that held it deleted: the graph takes it.
    auto* stray = new QLineEdit(w.window.statusBar());
    stray->show();
    stray->setFocus();
    QTRY_COMPARE(QApplication::focusWidget(), stray);
    delete stray;
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.graph()));
    QVERIFY(w.graph()->showsKeyboardFrame()); // (not given by the mouse: a frame says where it is)
    QTest::mouseClick(w.canvas(), Qt::LeftButton, {}, QPoint(2, 2));
    QVERIFY(!w.graph()->showsKeyboardFrame());
    // F6 goes round the panes in view and back to the graph; Shift+F6 comes back.
    QList<QWidget*> visited;
    for (int i = 0; i < 10 && (visited.isEmpty() || QApplication::focusWidget() != w.graph()); ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F6);
        QWidget* focus = QApplication::focusWidget();
        QVERIFY(focus);
        QVERIFY2(focus->visibleRegion().isEmpty() == false, focus->metaObject()->className());
        visited << focus;
    }
    QCOMPARE(visited.last(), static_cast<QWidget*>(w.graph()));
    QVERIFY(visited.size() >= 4); // the palette, Properties, the layer table, the graph
    QTest::keyClick(w.graph(), Qt::Key_F6, Qt::ShiftModifier);
    QCOMPARE(QApplication::focusWidget(), visited.at(visited.size() - 2));
    // View ▸ Layers, its dock behind History: the palette's list, where typing a name inserts.
    w.window.findChild<QDockWidget*>("historyDock")->raise();
    auto* palette = w.window.findChild<ui::LayerPalette*>();
    QTRY_VERIFY(palette->list()->visibleRegion().isEmpty());
    w.window.findChild<QAction*>("paletteDockAction")->trigger();
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(palette->list()));
}

// A screen reader names every control the keyboard reaches (its own name, its text or its label's):
// the graph, the lists, the tables and the plots were nameless.
void TestEditor::everyControlHasAName()
{
    LinkedWindow w;
    QVERIFY(w.exposed);
    QStringList nameless;
    for (QWidget* widget : w.window.findChildren<QWidget*>()) {
        if (!(widget->focusPolicy() & Qt::TabFocus) || widget->focusProxy() || !widget->isEnabled() ||
            widget->window() != &w.window || qobject_cast<QTabBar*>(widget))
            continue; // (a combo box's popup list; the dock tabs, named by their titles)
        QAccessibleInterface* accessible = QAccessible::queryAccessibleInterface(widget);
        if (!accessible || accessible->text(QAccessible::Name).trimmed().isEmpty())
            nameless << QString("%1 (%2) in %3")
                            .arg(widget->metaObject()->className(), widget->objectName(),
                                 widget->parentWidget() ? widget->parentWidget()->metaObject()->className()
                                                        : "");
    }
    QVERIFY2(nameless.isEmpty(), qPrintable(nameless.join("; ")));
}

QTEST_MAIN(TestEditor)
#include "test_editor.moc"
