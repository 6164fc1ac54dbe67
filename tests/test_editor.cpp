// Editing in the studio (offscreen): edits through undo commands and undoing them all gives the same
// bytes; palette inserts create the section with defaults and keep references; saving an unmodified
// file writes the same bytes; property edits merge into one undo step.
#include "cfg/layer_edits.h"
#include "editor/document_model.h"
#include "editor/graph_layout.h"
#include "editor/graph_view.h"
#include "editor/layer_palette.h"
#include "editor/property_panel.h"
#include "table/layer_table_model.h"
#include "test_support.h"
#include "window/main_window.h"

#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace nw;

class TestEditor : public QObject {
    Q_OBJECT
private slots:
    void editsThenUndoAllRestoreTheBytes();
    void paletteInsertCreatesDefaultsAndKeepsReferences();
    void savingUnmodifiedWritesTheSameBytes();
    void propertyEditsMergeAndRederiveShapes();
    void graphShowsEveryLayerAndEdge();
};

void TestEditor::editsThenUndoAllRestoreTheBytes()
{
    const QString path = QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg";
    const QByteArray original = test::readAll(path);
    ui::MainWindow window;
    QVERIFY(window.openFile(path));
    ui::DocumentModel* model = window.documentModel();
    model->setValue(1, "filters", "24"); // layer 0
    model->insertLayer(3, "dropout", {{"probability", "0.2"}});
    model->removeLayer(12);
    model->moveLayer(5, 6);
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
    QCOMPARE(ui::LayerPalette::defaults("maxpool").size(), std::size_t(2));
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
}

void TestEditor::propertyEditsMergeAndRederiveShapes()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
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
    table->item(filtersRow, 1)->setText("65"); // typing on: one undo step
    QCOMPARE(window.documentModel()->undoStack()->count(), 1);
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 65);
    QCOMPARE(window.layerModel()->spec().layers[4].input.size, std::int64_t(7 * 7 * 65));
    table->item(filtersRow, 1)->setText("x");
    QVERIFY(!window.layerModel()->spec().ok()); // a bad number: reported, nothing crashes
    window.documentModel()->undoStack()->undo();
    QCOMPARE(window.layerModel()->spec().layers[2].output.c, 64);
}

void TestEditor::graphShowsEveryLayerAndEdge()
{
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

QTEST_MAIN(TestEditor)
#include "test_editor.moc"
