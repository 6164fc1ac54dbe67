// Layer insert / remove / move keep every route, shortcut, sam and scale_channels reference pointing at
// the same layer, in its own style (relative stays relative), and undoing an edit restores the bytes.
#include "cfg/layer_edits.h"
#include "test_support.h"

#include <QtTest>

using namespace nw;

namespace {

// Sources of every layer as absolute indices.
std::vector<std::vector<int>> sources(const cfg::Document& document)
{
    const NetworkSpec spec = buildNetworkSpec(document);
    std::vector<std::vector<int>> all;
    for (const LayerSpec& layer : spec.layers)
        all.push_back(layer.sources);
    return all;
}

} // namespace

class TestLayerEdits : public QObject {
    Q_OBJECT
private slots:
    void editsKeepReferences_data();
    void editsKeepReferences();
    void relativeStaysRelative();
};

void TestLayerEdits::editsKeepReferences_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("yolov3-tiny") << QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg";
    QTest::newRow("resnet18") << QString(DARKNET_CFG_DIR) + "/resnet18.cfg";
    QTest::newRow("yolov4-tiny") << QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4-tiny.cfg";
    QTest::newRow("yolov4") << QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4.cfg";
}

void TestLayerEdits::editsKeepReferences()
{
    QFETCH(QString, path);
    const std::string original = test::readAll(path).toStdString();
    const cfg::Document base = cfg::Document::parse(original, "net.cfg");
    const auto before = sources(base);
    const int count = cfg::layerCount(base);
    for (int at = 0; at <= count; at += std::max(1, count / 7)) {
        // Insert: old layer i is now i + (i >= at); every source follows.
        cfg::Document doc = base;
        cfg::insertLayer(doc, at, "dropout", {{"probability", "0.1"}});
        const auto after = sources(doc);
        QCOMPARE(int(after.size()), count + 1);
        for (int i = 0; i < count; ++i) {
            std::vector<int> expected;
            for (int s : before[std::size_t(i)])
                expected.push_back(s + (s >= at));
            QCOMPARE(after[std::size_t(i + (i >= at))], expected);
        }
        QVERIFY2(buildNetworkSpec(doc).ok(), test::allText(buildNetworkSpec(doc).diagnostics).c_str());
        cfg::removeLayer(doc, at); // undo: the same bytes
        QCOMPARE(doc.toText(), original);

        // Move a layer nobody references one step down and back.
        if (at + 1 < count) {
            cfg::Document moved = base;
            cfg::moveLayer(moved, at, at + 1);
            const auto afterMove = sources(moved);
            auto map = [&](int i) { return i == at ? at + 1 : i == at + 1 ? at : i; };
            bool referenced = false;
            for (const auto& list : before)
                for (int s : list)
                    referenced |= s == at || s == at + 1;
            if (referenced || !before[std::size_t(at + 1)].empty() || !before[std::size_t(at)].empty())
                continue; // swapping a layer with one it feeds or reads from changes the network itself
            {
                for (int i = 0; i < count; ++i) {
                    std::vector<int> expected;
                    for (int s : before[std::size_t(i)])
                        expected.push_back(map(s));
                    QCOMPARE(afterMove[std::size_t(map(i))], expected);
                }
            }
            cfg::moveLayer(moved, at + 1, at);
            QCOMPARE(moved.toText(), original);
        }
    }
}

void TestLayerEdits::relativeStaysRelative()
{
    cfg::Document doc = cfg::Document::parse("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                             "[convolutional]\nfilters=4\n\n" // 0
                                             "[convolutional]\nfilters=4\n\n" // 1
                                             "[route]\nlayers=-1,0\n\n"       // 2
                                             "[shortcut]\nfrom = -3\n");      // 3 → layer 0
    cfg::insertLayer(doc, 1, "maxpool", {{"size", "2"}, {"stride", "1"}});
    const std::string text = doc.toText();
    QVERIFY2(text.find("[route]\nlayers=-1,0\n") != std::string::npos,
             text.c_str()); // -1 still the conv, 0 absolute
    QVERIFY2(text.find("[shortcut]\nfrom = -4\n") != std::string::npos, text.c_str()); // spacing kept
    QVERIFY(text.find("[maxpool]\nsize=2\nstride=1\n\n[convolutional]") != std::string::npos);
    cfg::removeLayer(doc, 0); // the route's absolute 0 pointed at it: left for the description to report
    QVERIFY(!buildNetworkSpec(doc).ok() || doc.toText().find("layers=-1,0") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestLayerEdits)
#include "test_layer_edits.moc"
