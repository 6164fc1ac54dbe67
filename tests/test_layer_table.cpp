// The layer table and main window (offscreen): the table shows what `netwright-cli summary` prints,
// problems are listed with their lines, sorting keeps the totals row last.
#include "table/layer_table_model.h"
#include "test_support.h"
#include "window/main_window.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QRegularExpression>
#include <QTableView>
#include <QTest>
#include <cmath>

using namespace nw;

class TestLayerTable : public QObject {
    Q_OBJECT
private slots:
    void rowsEqualCliSummary_data();
    void rowsEqualCliSummary();
    void windowListsProblemsWithLines();
    void sortingKeepsTotalsLast();
    void numbersFollowTheLocaleAndCopyPlain();
    void anUnreadableValueShowsNoFigures();
    void unreadableFileKeepsCurrentNetwork();
};

void TestLayerTable::rowsEqualCliSummary_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("fashion-mnist") << QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg";
    QTest::newRow("yolov3-tiny") << QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg";
    QTest::newRow("yolov4-tiny") << QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg";
}

void TestLayerTable::rowsEqualCliSummary()
{
    QFETCH(QString, path);
    QProcess process;
    process.start(NETWRIGHT_CLI, {"summary", path, "--json"});
    QVERIFY(process.waitForFinished(60000));
    const QJsonArray layers =
        QJsonDocument::fromJson(process.readAllStandardOutput()).object()["layers"].toArray();
    QVERIFY(!layers.isEmpty());

    ui::MainWindow window;
    QVERIFY(window.openFile(path));
    const ui::LayerTableModel* model = window.layerModel();
    QCOMPARE(model->rowCount(), layers.size() + 1);
    QCOMPARE(window.problemList()->count(), 1);
    QVERIFY(window.problemList()->item(0)->text().startsWith("No problems"));
    const auto cell = [&](int row, int column) { return model->index(row, column).data().toString(); };
    const auto shape = [](const QJsonValue& v) {
        const QJsonArray a = v.toArray();
        return QString("%1x%2x%3").arg(a[0].toInt()).arg(a[1].toInt()).arg(a[2].toInt());
    };
    for (int row = 0; row < layers.size(); ++row) {
        const QJsonObject layer = layers[row].toObject();
        QCOMPARE(cell(row, ui::LayerTableModel::Index), QString::number(layer["index"].toInt()));
        QCOMPARE(cell(row, ui::LayerTableModel::Type), layer["type"].toString());
        QCOMPARE(cell(row, ui::LayerTableModel::Filters), layer["filters"].toString());
        QCOMPARE(cell(row, ui::LayerTableModel::Size), layer["size"].toString());
        QCOMPARE(cell(row, ui::LayerTableModel::Input), shape(layer["input"]));
        if (layer["output"].toArray()[0].toInt() > 0)
            QCOMPARE(cell(row, ui::LayerTableModel::Output), shape(layer["output"]));
        else
            QCOMPARE(cell(row, ui::LayerTableModel::Output), QString::number(layer["outputs"].toInteger()));
        const double bflops = layer["bflops"].toDouble(); // (a small layer's to two digits: not "0.000")
        QCOMPARE(
            cell(row, ui::LayerTableModel::Bflops),
            QString::number(bflops, 'f',
                            bflops > 0 && bflops < 0.0005 ? 1 - int(std::floor(std::log10(bflops))) : 3));
        QCOMPARE(
            model->index(row, ui::LayerTableModel::Params).data(ui::LayerTableModel::SortRole).toLongLong(),
            layer["params"].toInteger());
    }
    QCOMPARE(cell(model->totalsRow(), ui::LayerTableModel::Type), QString("Total"));
    if (model->spec().file.ends_with("fashion-mnist.cfg")) // 28x28x32 outputs of 3x3x1: 451,584 FLOPs
    {
        QCOMPARE(cell(0, ui::LayerTableModel::Bflops), QString("0.00045"));
        QCOMPARE(cell(1, ui::LayerTableModel::Bflops), QString("0.000025")); // the maxpool's 25,088
    }
    // Memory: the output, marked where inference puts it into a freed buffer; the totals give both.
    int reused = 0;
    for (int row = 0; row < layers.size(); ++row) {
        const QJsonObject layer = layers[row].toObject();
        const bool freed = layer["inference_bytes"].toInteger() == 0;
        QCOMPARE(cell(row, ui::LayerTableModel::Memory).endsWith(" (reused)"), freed);
        reused += freed;
    }
    QVERIFY(reused > 0);
    QVERIFY2(cell(model->totalsRow(), ui::LayerTableModel::Memory).contains("; inference "),
             qPrintable(cell(model->totalsRow(), ui::LayerTableModel::Memory)));
    for (int row = 0; row < layers.size(); ++row)
        QCOMPARE(cell(row, ui::LayerTableModel::Receptive).toInt(),
                 layers[row].toObject()["receptive_field"].toInt());
    const QStringList csv = model->toText(true).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), layers.size() + 2); // header, layers, totals
    QVERIFY(csv[0].startsWith(
        "#,Type,Filters,Size/stride,Input,Output,BFLOPs,Params,Workspace,Memory,Receptive"));
    QVERIFY(model->toText(false).startsWith("#\tType\t"));
}

void TestLayerTable::windowListsProblemsWithLines()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.cfg");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("[net]\nwidth=13\nheight=13\nchannels=3\n\n[convolutional]\nfilters=20\n\n[yolo]\nclasses="
               "2\nmask=0,1,2\n"
               "num=3\nbogus=1\n");
    file.close();
    ui::MainWindow window;
    QVERIFY(window.openFile(path));
    QCOMPARE(window.problemList()->count(), 2);
    QVERIFY(window.problemList()->item(0)->text().startsWith(path + ":10: error: layer 1:"));
    QVERIFY(window.problemList()->item(1)->text().startsWith(path +
                                                             ":13: warning: layer 1: unused key 'bogus=1'"));
    // A long message wraps in a narrow dock and is its row's tooltip (its end, the fix, was cut off).
    QVERIFY(window.problemList()->wordWrap());
    QCOMPARE(window.problemList()->item(0)->toolTip(), window.problemList()->item(0)->text());
    const QModelIndex yolo = window.layerModel()->index(1, 0);
    QVERIFY(yolo.data(Qt::ToolTipRole).toString().contains("set filters=21"));
    QVERIFY(yolo.data(Qt::BackgroundRole).isValid());
    QVERIFY(!window.layerModel()->index(0, 0).data(Qt::BackgroundRole).isValid());

    // Behind a layer whose output is refused, the figures are unknown, not made up from its absurd
    // shape (the [connected] after filters=2000000000 showed 401,408 BFLOPs and no badge).
    file.remove();
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("[net]\nwidth=28\nheight=28\nchannels=1\n\n[convolutional]\nfilters=2000000000\nsize=3\n"
               "pad=1\n\n[connected]\noutput=10\n\n[connected]\noutput=5\n");
    file.close();
    QVERIFY(window.openFile(path));
    const auto cell = [&](int row, int column) {
        return window.layerModel()->index(row, column).data().toString();
    };
    QCOMPARE(cell(0, ui::LayerTableModel::Output), QString("28x28x2000000000")); // the refused layer says why
    for (int column : {ui::LayerTableModel::Output, ui::LayerTableModel::Bflops, ui::LayerTableModel::Params,
                       ui::LayerTableModel::Memory})
        QCOMPARE(cell(1, column), QString("?"));
    QCOMPARE(cell(1, ui::LayerTableModel::Input), QString("28x28x2000000000"));
    QCOMPARE(cell(2, ui::LayerTableModel::Input), QString("?")); // (the row above's output is "?")
    QCOMPARE(window.spec().totalParams, decltype(window.spec().totalParams)(0)); // made-up figures: not added
    // The totals row and the status line say they leave them out: the two behind it, and the refused one
    // (its figures shown, too large to add up).
    QCOMPARE(cell(window.layerModel()->totalsRow(), ui::LayerTableModel::Type), QString("Total (partial)"));
    QVERIFY(
        window.layerModel()
            ->index(window.layerModel()->totalsRow(), ui::LayerTableModel::Type)
            .data(Qt::ToolTipRole)
            .toString()
            .startsWith("Without the 3 layers at or behind an error (shown as ?, or too large to add up)"));
    QVERIFY2(window.findChild<QLabel*>("totals")->text().contains(QRegularExpression(
                 "^\\d+ errors?, \\d+ warnings? · totals without 3 layers at or behind an error · ")),
             qPrintable(window.findChild<QLabel*>("totals")->text()));

    // A value that cannot be read leaves the layer without a shape: the row below takes "?" as its input
    // (it showed "0"), and the layer itself is counted out.
    file.remove();
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("[net]\nwidth=28\nheight=28\nchannels=1\n\n[convolutional]\nfilters=abc\nsize=3\npad=1\n\n"
               "[maxpool]\nsize=2\nstride=2\n");
    file.close();
    QVERIFY(window.openFile(path));
    QCOMPARE(cell(0, ui::LayerTableModel::Input), QString("28x28x1"));
    QCOMPARE(cell(0, ui::LayerTableModel::Output), QString("?"));
    QCOMPARE(cell(1, ui::LayerTableModel::Input), QString("?"));
    QVERIFY2(window.findChild<QLabel*>("totals")->text().contains(QRegularExpression(
                 "^\\d+ errors?, \\d+ warnings? · totals without 2 layers at or behind an error · ")),
             qPrintable(window.findChild<QLabel*>("totals")->text()));
}

void TestLayerTable::sortingKeepsTotalsLast()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    QTableView* table = window.layerTable();
    const int last = table->model()->rowCount() - 1;
    table->sortByColumn(ui::LayerTableModel::Bflops, Qt::DescendingOrder);
    QCOMPARE(table->model()->index(0, ui::LayerTableModel::Index).data().toString(), QString("12")); // 1.595
    QCOMPARE(table->model()->index(last, ui::LayerTableModel::Type).data().toString(), QString("Total"));
    table->sortByColumn(ui::LayerTableModel::Bflops, Qt::AscendingOrder);
    QCOMPARE(table->model()->index(last, ui::LayerTableModel::Type).data().toString(), QString("Total"));
    QCOMPARE(table->model()->index(last - 1, ui::LayerTableModel::Index).data().toString(), QString("12"));
    // Each header says what its figure counts (Params differs from PyTorch's by the batch-norm scales).
    for (int column = 0; column < ui::LayerTableModel::ColumnCount; ++column)
        QVERIFY(!table->model()->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    QVERIFY(table->model()
                ->headerData(ui::LayerTableModel::Params, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("batch-norm scales and rolling statistics are not included"));
    // Filters by their numbers (as text, 1024 came before 128 and 16).
    table->sortByColumn(ui::LayerTableModel::Filters, Qt::AscendingOrder);
    int previous = -1;
    QStringList order;
    for (int row = 0; row < last; ++row) {
        const QString filters = table->model()->index(row, ui::LayerTableModel::Filters).data().toString();
        order << filters;
        const int number = filters.section(' ', 0, 0).section(',', 0, 0).toInt(); // "80 cls", "-1,8"
        QVERIFY2(filters.isEmpty() || filters.startsWith('-') || number >= previous,
                 qPrintable(order.join(" ")));
        if (!filters.isEmpty() && !filters.startsWith('-'))
            previous = number;
    }
    QVERIFY(order.contains("1024"));
}

// A German desktop: BFLOPs and params both in its format (the params were "4.640" beside BFLOPs "0.085");
// copied text keeps plain numbers, as spreadsheets read them.
void TestLayerTable::numbersFollowTheLocaleAndCopyPlain()
{
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg"));
    ui::LayerTableModel* model = window.layerModel();
    const QString bflops = model->index(12, ui::LayerTableModel::Bflops).data().toString();
    const QString params = model->index(12, ui::LayerTableModel::Params).data().toString();
    QLocale::setDefault(QLocale::c());
    QCOMPARE(bflops, QString("1,595"));
    QCOMPARE(params, QString("4.719.616"));
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    const QStringList rows = model->toText(false).split('\n');
    QLocale::setDefault(QLocale::c());
    QCOMPARE(rows[13].split('\t')[ui::LayerTableModel::Bflops], QString("1.595"));
    QCOMPARE(rows[13].split('\t')[ui::LayerTableModel::Params], QString("4719616"));
}

// A layer whose value is not a number (filters=abc) shows "?" for its output and costs, and so does the
// copied text (it wrote 0.000 and 0 where the table showed "?").
void TestLayerTable::anUnreadableValueShowsNoFigures()
{
    QTemporaryDir dir;
    const QString cfg = dir.filePath("abc.cfg");
    QByteArray text = test::readAll(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg");
    text.replace("filters=32", "filters=abc");
    test::writeFile(cfg, text);
    ui::MainWindow window;
    QVERIFY(window.openFile(cfg));
    ui::LayerTableModel* model = window.layerModel();
    for (int column : {ui::LayerTableModel::Filters, ui::LayerTableModel::Output, ui::LayerTableModel::Bflops,
                       ui::LayerTableModel::Params})
        QCOMPARE(model->index(0, column).data().toString(), QString("?"));
    QCOMPARE(model->index(0, ui::LayerTableModel::Input).data().toString(), QString("28x28x1"));
    const QStringList row = model->toText(false).split('\n')[1].split('\t');
    QCOMPARE(row[ui::LayerTableModel::Bflops], QString("?"));
    QCOMPARE(row[ui::LayerTableModel::Params], QString("?"));
}

void TestLayerTable::unreadableFileKeepsCurrentNetwork()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(QString(NETWRIGHT_SOURCE_CFG_DIR) + "/fashion-mnist.cfg"));
    QVERIFY(!window.openFile("/nonexistent/net.cfg"));
    QCOMPARE(window.layerModel()->rowCount(), 8);
}

QTEST_MAIN(TestLayerTable)
#include "test_layer_table.moc"
