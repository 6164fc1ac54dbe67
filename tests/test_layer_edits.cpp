// Layer insert / remove / move keep every route, shortcut, sam and scale_channels reference pointing at
// the same layer, in its own style (relative stays relative), and undoing an edit restores the bytes.
#include "cfg/layer_clipboard.h"
#include "cfg/layer_edits.h"
#include "cfg/layer_links.h"
#include "test_support.h"

#include <QTest>

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
    void connectAndDisconnectLayers();
    void copyPasteAndRemoveSeveral();
    void commentsStayWithTheLayerTheyLabel();
    void labelsOfTheFirstLayerTheFileEndAndFilesWithoutBlankLines();
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
    // Removing a layer another reads, or moving a reader above what it reads, breaks a reference no
    // number can mend (kept as written, it would silently read a neighbour): the edit says which.
    cfg::Document removed = doc;
    // Every reader is named (the shortcut reads layer 0 too): the user mends them all in one go.
    QCOMPARE(
        cfg::removeLayer(removed, 0),
        std::string("layer 3 [route] (layers = -1,0) reads layer 0, which this "
                    "removes: point it elsewhere (or remove it) first; the same goes for layer 4 [shortcut] "
                    "(from = -4)"));
    cfg::Document moved = doc;
    QCOMPARE(cfg::moveLayer(moved, 3, 2),
             std::string("layer 3 [route] (layers = -1,0) reads layer 2, which this "
                         "moves after it: point it elsewhere (or remove it) first"));
    cfg::Document fine = doc;
    QCOMPARE(cfg::removeLayer(fine, 1), std::string()); // the maxpool: nobody reads it by number

    // Darknet strips every space before it reads a number: "- 2" is -2, relative (it was taken for an
    // absolute 2 and renumbered, so the saved file read another layer), and "-\t1 " is -1.
    const std::string spacedText = "[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                   "[convolutional]\nfilters=4\n\n" // 0
                                   "[convolutional]\nfilters=8\n\n" // 1
                                   "[convolutional]\nfilters=8\n\n" // 2
                                   "[shortcut]\nfrom = - 2\n\n"     // 3 → 1
                                   "[route]\nlayers = -\t1 , 0\n";  // 4 → 3, 0
    cfg::Document spaced = cfg::Document::parse(spacedText, "spaced.cfg");
    QCOMPARE(sources(spaced)[3], std::vector<int>({1}));
    cfg::insertLayer(spaced, 0, "maxpool", {{"size", "2"}, {"stride", "1"}});
    QCOMPARE(sources(spaced)[4], std::vector<int>({2}));
    QCOMPARE(sources(spaced)[5], std::vector<int>({4, 1}));
    QVERIFY2(spaced.toText().find("[route]\nlayers = -\t1 , 1\n") != std::string::npos,
             spaced.toText().c_str());
    QCOMPARE(cfg::removeLayer(spaced, 0), std::string());
    QCOMPARE(spaced.toText(), spacedText);
    QCOMPARE(cfg::removeLayer(spaced, 0),
             std::string("layer 4 [route] (layers = -1,0) reads layer 0, which "
                         "this removes: point it elsewhere (or remove it) first"));
    QCOMPARE(cfg::removeLayers(fine, {0, 3}),
             std::string("layer 2 [route] (layers = -1,0) reads layer 0, which "
                         "this removes: point it elsewhere (or remove it) first"));
}

namespace {

const char* const kLinked = "[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                            "[convolutional]\nfilters=4\npad=1\nsize=3\n\n" // 0
                            "[convolutional]\nfilters=4\npad=1\nsize=3\n\n" // 1
                            "[convolutional]\nfilters=4\npad=1\nsize=3\n\n" // 2
                            "[route]\nlayers = -1\n\n"                      // 3 → 2
                            "[shortcut]\nfrom=-4\nactivation=linear\n\n"    // 4 → 0
                            "[convolutional]\nfilters=4\nsize=1\n";         // 5

} // namespace

void TestLayerEdits::connectAndDisconnectLayers()
{
    const std::string original = kLinked;
    cfg::Document doc = cfg::Document::parse(original);
    QCOMPARE(cfg::referencedLayers(doc, 3), std::vector<int>({2}));
    QCOMPARE(cfg::referencedLayers(doc, 4), std::vector<int>({0}));
    QVERIFY(cfg::referencedLayers(doc, 5).empty());
    // A route gains an input, written relative in the line's own spacing; the description agrees.
    QCOMPARE(QString::fromStdString(cfg::connectLayers(doc, 1, 3)), QString());
    QVERIFY2(doc.toText().find("[route]\nlayers = -1,-2\n") != std::string::npos, doc.toText().c_str());
    QCOMPARE(sources(doc)[3], std::vector<int>({2, 1}));
    QVERIFY(buildNetworkSpec(doc).ok());
    QVERIFY(cfg::connectLayers(doc, 1, 3).find("layer 3 [route] already reads layer 1") == 0);
    // Disconnecting it again gives back the very bytes.
    QCOMPARE(QString::fromStdString(cfg::disconnectLayers(doc, 1, 3)), QString());
    QCOMPARE(doc.toText(), original);
    QVERIFY(cfg::disconnectLayers(doc, 2, 3).find("reads only layer 2") != std::string::npos);
    QVERIFY(cfg::disconnectLayers(doc, 0, 4).find("layer 4 [shortcut] always reads one layer") == 0);
    // A shortcut reads another layer instead, relative as it was; absolute stays absolute.
    QCOMPARE(QString::fromStdString(cfg::connectLayers(doc, 2, 4)), QString());
    QVERIFY(doc.toText().find("[shortcut]\nfrom=-2\n") != std::string::npos);
    QCOMPARE(sources(doc)[4], std::vector<int>({2}));
    doc.section(5).set("from", "0");
    QCOMPARE(QString::fromStdString(cfg::connectLayers(doc, 1, 4)), QString());
    QVERIFY(doc.toText().find("[shortcut]\nfrom=1\n") != std::string::npos);
    // …and to the layer it reads already, says so (it changed nothing and added an undo step).
    const std::string unchanged = doc.toText();
    QVERIFY(cfg::connectLayers(doc, 1, 4).find("layer 4 [shortcut] already reads layer 1") == 0);
    QCOMPARE(doc.toText(), unchanged);
    // A [shortcut] of several inputs (AlexeyAB's from=-2,-3) reading the layer already: said (it wrote
    // from=-3,-3).
    {
        cfg::Document several = cfg::Document::parse(original);
        several.section(5).set("from", "-2,-4");
        QCOMPARE(cfg::connectLayers(several, 0, 4), std::string("layer 4 [shortcut] already reads layer 0"));
    }
    // A plain layer already reads the one before it (it was told to connect that one into a route).
    QCOMPARE(cfg::connectLayers(doc, 4, 5),
             std::string("layer 5 [convolutional] already reads layer 4, the layer before it"));
    // A plain layer has no reference to remove: said so, without an `from=` it does not have.
    QVERIFY2(cfg::disconnectLayers(doc, 4, 5).find("layer 5 [convolutional] reads the layer before it") == 0,
             cfg::disconnectLayers(doc, 4, 5).c_str());
    // A route naming one layer twice loses one of the two, never both (`layers=` left empty).
    {
        cfg::Document twice = cfg::Document::parse(original);
        twice.section(4).set("layers", "-1,2");
        QCOMPARE(cfg::referencedLayers(twice, 3), std::vector<int>({2, 2}));
        QCOMPARE(QString::fromStdString(cfg::disconnectLayers(twice, 2, 3)), QString());
        QCOMPARE(cfg::referencedLayers(twice, 3), std::vector<int>({2}));
        QVERIFY(buildNetworkSpec(twice).ok());
    }
    // A comment after the list is not part of it (Darknet's numbers stop there): an input is added to
    // the list before it, removed from it, and renumbering leaves the comment's own numbers alone (the
    // input went into the comment with "Layer 3 now reads layer 1" said, and disconnect said "does not
    // read").
    {
        cfg::Document commented = cfg::Document::parse(original);
        commented.section(4).set("layers", "-1  # concat with layer 0 (2 inputs), said -4");
        QCOMPARE(cfg::referencedLayers(commented, 3), std::vector<int>({2}));
        QCOMPARE(QString::fromStdString(cfg::connectLayers(commented, 1, 3)), QString());
        QVERIFY2(
            commented.toText().find("[route]\nlayers = -1,-2  # concat with layer 0 (2 inputs), said -4\n") !=
                std::string::npos,
            commented.toText().c_str());
        QCOMPARE(sources(commented)[3], std::vector<int>({2, 1}));
        QCOMPARE(QString::fromStdString(cfg::disconnectLayers(commented, 2, 3)), QString());
        QVERIFY2(
            commented.toText().find("[route]\nlayers = -2  # concat with layer 0 (2 inputs), said -4\n") !=
                std::string::npos,
            commented.toText().c_str());
        cfg::insertLayer(commented, 0, "maxpool", {{"size", "1"}, {"stride", "1"}});
        QVERIFY2(
            commented.toText().find("[route]\nlayers = -2  # concat with layer 0 (2 inputs), said -4\n") !=
                std::string::npos,
            commented.toText().c_str());
        commented.section(6).set("from", "1 # layer 1");
        cfg::insertLayer(commented, 0, "maxpool", {{"size", "1"}, {"stride", "1"}});
        QVERIFY2(commented.toText().find("[shortcut]\nfrom=2 # layer 1\n") != std::string::npos,
                 commented.toText().c_str());
    }
    // What cannot be connected says why, naming the layers.
    QVERIFY2(cfg::connectLayers(doc, 1, 5).find("layer 5 [convolutional] reads the layer before it") == 0,
             cfg::connectLayers(doc, 1, 5).c_str());
    QVERIFY(cfg::connectLayers(doc, 5, 3).find("a layer reads only earlier layers: layer 5 comes after "
                                               "layer 3 [route]") == 0);
    QVERIFY(cfg::connectLayers(doc, 0, 9).find("there is no layer 9") == 0);
    // Re-pointing keeps the style: the shortcut's absolute 1 becomes 2.
    cfg::repointReference(doc, 4, 1, 2);
    QVERIFY(doc.toText().find("[shortcut]\nfrom=2\n") != std::string::npos);
}

void TestLayerEdits::copyPasteAndRemoveSeveral()
{
    cfg::Document doc = cfg::Document::parse(kLinked);
    const std::string copied = cfg::layersText(doc, {3, 2, 2}); // order and duplicates do not matter
    QCOMPARE(QString::fromStdString(copied),
             QString("[convolutional]\nfilters=4\npad=1\nsize=3\n\n[route]\nlayers = -1\n\n"));
    // Pasted before layer 1: the copies read each other; the shortcut still reads layer 0.
    std::string error;
    QCOMPARE(cfg::insertLayersText(doc, 1, copied, error), 2);
    QCOMPARE(cfg::layerCount(doc), 8);
    const auto after = sources(doc);
    QCOMPARE(after[2], std::vector<int>({1})); // the pasted route reads the pasted conv
    QCOMPARE(after[6], std::vector<int>({0})); // the shortcut (was 4) still reads layer 0
    QCOMPARE(after[5], std::vector<int>({4})); // the old route (was 3) still reads the old layer 2
    QVERIFY(buildNetworkSpec(doc).ok());
    // References between copies point at the copies, written absolute or across a layer left out of
    // the selection (they read the originals): copied 1, 3 and the shortcut 4 reading 0 and 1 reading 0.
    {
        cfg::Document linked = cfg::Document::parse(kLinked);
        linked.section(4).set("layers", "1"); // the route (3) reads layer 1, absolute
        linked.section(5).set("from", "0");   // the shortcut (4) reads layer 0, absolute
        const std::string block = cfg::layersText(linked, {0, 1, 3, 4});
        QVERIFY2(block.find("[route]\nlayers = -1\n") != std::string::npos &&
                     block.find("[shortcut]\nfrom=-3\n") != std::string::npos,
                 block.c_str());
        QCOMPARE(cfg::insertLayersText(linked, 6, block, error), 4); // at the end: copies 6, 7, 8, 9
        QCOMPARE(sources(linked)[8], std::vector<int>({7}));
        QCOMPARE(sources(linked)[9], std::vector<int>({6}));
        QCOMPARE(sources(linked)[3], std::vector<int>({1})); // the originals as they were
        // A reference outside the copies stays as written (absolute: the same layer).
        QVERIFY(cfg::layersText(linked, {3}).find("layers = 1\n") != std::string::npos);
    }
    // Nothing to paste.
    QCOMPARE(cfg::insertLayersText(doc, 0, "[net]\nwidth=4\n", error), 0);
    QVERIFY(error.find("nothing to paste") == 0);
    // Removing several at once, in any order, keeps the other references.
    cfg::removeLayers(doc, {2, 1});
    QCOMPARE(doc.toText(), std::string(kLinked));
    // A refused removal of several names the layers as numbered before it (layer 4, the shortcut
    // reading 0 — not its index in a half-edited copy).
    {
        cfg::Document copy = doc;
        QCOMPARE(cfg::removeLayers(copy, {0, 1}),
                 std::string("layer 4 [shortcut] (from = -4) reads layer 0, which this removes: point it "
                             "elsewhere (or remove it) first"));
    }
    // A pasted section with a key twice keeps the first, as Darknet reads it.
    QCOMPARE(cfg::insertLayersText(doc, 6, "[convolutional]\nfilters=16\nfilters=32\nsize=1\n", error), 1);
    QCOMPARE(doc.sections()[7].find("filters")->value, std::string("16"));
    // A paste keeps the spaces written inside a value (anchors in pairs), not a trailing comment.
    QCOMPARE(cfg::insertLayersText(doc, 0, "[yolo]\nanchors = 10,14,  23,27 # tiny\nmask=0\n", error), 1);
    const cfg::Line* anchors = doc.sections()[1].find("anchors");
    QCOMPARE(anchors->text, std::string("anchors=10,14,  23,27"));
    QCOMPARE(anchors->value, std::string("10,14,23,27"));
    QCOMPARE(anchors->writtenValue(), std::string("10,14,  23,27"));
    cfg::removeLayers(doc, {0});
    // A layer dropped into an empty file comes after a [net] (it became the file's [net]).
    cfg::Document empty = cfg::Document::parse("# nothing yet\n");
    cfg::insertLayer(empty, 0, "convolutional", {{"filters", "8"}});
    QCOMPARE(empty.sections().size(), std::size_t(2));
    QCOMPARE(empty.sections()[0].type, std::string("net"));
    QCOMPARE(empty.sections()[1].type, std::string("convolutional"));
}

// A comment set apart above a layer ("# Downsample" in yolov3) labels that layer: a layer inserted before
// it comes above the comment, a moved layer takes its comment along, a deleted one takes it away; a
// commented-out key right under a section's entries stays in that section.
void TestLayerEdits::commentsStayWithTheLayerTheyLabel()
{
    const std::string text = "[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                             "[convolutional]\nfilters=4\nsize=3\n#stride=2\n\n" // 0
                             "# Downsample\n\n"
                             "[maxpool]\nsize=2\nstride=2\n\n" // 1
                             "[convolutional]\nfilters=8\nsize=1\n";
    cfg::Document doc = cfg::Document::parse(text);
    cfg::insertLayer(doc, 1, "dropout", {});
    QCOMPARE(doc.toText(), std::string("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                       "[convolutional]\nfilters=4\nsize=3\n#stride=2\n\n"
                                       "[dropout]\n\n"
                                       "# Downsample\n\n"
                                       "[maxpool]\nsize=2\nstride=2\n\n"
                                       "[convolutional]\nfilters=8\nsize=1\n"));
    QCOMPARE(cfg::removeLayer(doc, 1), std::string());
    QCOMPARE(doc.toText(), text); // the very bytes again
    QCOMPARE(cfg::moveLayer(doc, 1, 2), std::string());
    QCOMPARE(doc.toText(), std::string("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                       "[convolutional]\nfilters=4\nsize=3\n#stride=2\n\n"
                                       "[convolutional]\nfilters=8\nsize=1\n\n"
                                       "# Downsample\n\n"
                                       "[maxpool]\nsize=2\nstride=2\n\n")); // (its blank line came along)
    QCOMPARE(cfg::moveLayer(doc, 2, 1), std::string());
    QCOMPARE(doc.toText(), text);
    // The same through the studio's reading of each edit's text (Document::reread): the blank line the
    // move added is still known as added, and goes again when the layer moves back.
    QCOMPARE(cfg::moveLayer(doc, 1, 2), std::string());
    doc = doc.reread();
    QCOMPARE(doc.sections()[3].type, std::string("maxpool"));
    QCOMPARE(cfg::moveLayer(doc, 2, 1), std::string());
    doc = doc.reread();
    QCOMPARE(doc.toText(), text);
    QCOMPARE(doc.sections()[2].headerLine(), 13); // (the line numbers of the text)
    // A layer inserted before the label ends with a blank line of its own, which stays when the
    // labelled layer goes (it went with the label, leaving "[dropout]" right above the next header).
    for (const bool reread : {false, true}) {
        cfg::Document edited = cfg::Document::parse(text);
        cfg::insertLayer(edited, 1, "dropout", {});
        if (reread)
            edited = edited.reread();
        QCOMPARE(cfg::removeLayer(edited, 2), std::string());
        QCOMPARE(edited.toText(), std::string("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                              "[convolutional]\nfilters=4\nsize=3\n#stride=2\n\n"
                                              "[dropout]\n\n"
                                              "[convolutional]\nfilters=8\nsize=1\n"));
    }
    QCOMPARE(cfg::removeLayer(doc, 1), std::string());
    QCOMPARE(doc.toText(), std::string("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                       "[convolutional]\nfilters=4\nsize=3\n#stride=2\n\n"
                                       "[convolutional]\nfilters=8\nsize=1\n"));

    // Comments at the end of [net] are its own, blank line or not (AlexeyAB's commented-out options).
    cfg::Document net = cfg::Document::parse("[net]\r\nwidth=8\r\nheight=8\r\nchannels=3\r\n\r\n"
                                             "#ema_alpha=0.9998\r\n\r\n"
                                             "[convolutional]\r\nfilters=4\r\nsize=1\r\n\r\n"
                                             "[convolutional]\r\nfilters=8\r\nsize=1\r\n\r\n"
                                             "# Downsample\r\n\r\n"
                                             "[maxpool]\r\nsize=2\r\n");
    const std::string before = net.toText();
    QCOMPARE(cfg::removeLayer(net, 0), std::string());
    QVERIFY(net.toText().find("#ema_alpha=0.9998\r\n\r\n[convolutional]\r\nfilters=8") != std::string::npos);
    net = cfg::Document::parse(before);
    // The last layer moved up and back down: the very bytes (CRLF kept), though it ends the file. (A
    // labelled layer moved to the top leaves its comment at the end of [net], which keeps it.)
    QCOMPARE(cfg::moveLayer(net, 2, 1), std::string());
    QVERIFY2(net.toText().find("# Downsample\r\n\r\n[maxpool]\r\nsize=2\r\n") != std::string::npos,
             net.toText().c_str());
    QCOMPARE(cfg::moveLayer(net, 1, 2), std::string());
    QCOMPARE(net.toText(), before);
}

QTEST_GUILESS_MAIN(TestLayerEdits)
// The first layer's label (at the end of [net]) moved with it; comments closing the file stay last
// whatever moves (they were deleted with the last layer, or carried to the middle as a label); a file
// written without blank lines keeps "# Downsample" above its layer; the last section, which seldom
// ends with a blank line, is set apart from a layer put after it (they were glued). Each edit undone
// gives back the file's bytes.
void TestLayerEdits::labelsOfTheFirstLayerTheFileEndAndFilesWithoutBlankLines()
{
    const std::string net = "[net]\nwidth=8\nheight=8\nchannels=3\n#mosaic=1\n\n";
    const std::string text = net + "# Stem\n\n"
                                   "[convolutional]\nfilters=4\nsize=1\n\n" // 0
                                   "[convolutional]\nfilters=8\nsize=1\n\n" // 1
                                   "# Residual\n"
                                   "[convolutional]\nfilters=8\nsize=1\n\n" // 2
                                   "# end of the backbone\n";
    cfg::Document doc = cfg::Document::parse(text);
    QCOMPARE(cfg::moveLayer(doc, 2, 0), std::string());
    QCOMPARE(doc.toText(), net + "# Residual\n[convolutional]\nfilters=8\nsize=1\n\n"
                                 "# Stem\n\n[convolutional]\nfilters=4\nsize=1\n\n"
                                 "[convolutional]\nfilters=8\nsize=1\n\n"
                                 "# end of the backbone\n");
    QCOMPARE(cfg::moveLayer(doc, 0, 2), std::string());
    QCOMPARE(doc.toText(), text);
    QCOMPARE(cfg::removeLayer(doc, 2), std::string());
    QCOMPARE(doc.toText(), net + "# Stem\n\n[convolutional]\nfilters=4\nsize=1\n\n"
                                 "[convolutional]\nfilters=8\nsize=1\n\n# end of the backbone\n");
    cfg::insertLayer(doc, 2, "upsample", {});
    QVERIFY2(doc.toText().ends_with("[upsample]\n\n# end of the backbone\n"), doc.toText().c_str());

    // Without blank lines: the label is the comment right above a header (a commented-out key is not).
    const std::string packed = "[net]\nwidth=8\nheight=8\nchannels=3\n"
                               "[convolutional]\nfilters=4\nsize=1\n#stride=2\n" // 0
                               "# Downsample\n"
                               "[convolutional]\nfilters=8\nsize=3\n" // 1
                               "[convolutional]\nfilters=8\nsize=1";  // 2, no line end
    cfg::Document tight = cfg::Document::parse(packed);
    cfg::insertLayer(tight, 1, "maxpool", {{"size", "2"}});
    QVERIFY2(
        tight.toText().find("#stride=2\n[maxpool]\nsize=2\n\n# Downsample\n[convolutional]\nfilters=8") !=
            std::string::npos,
        tight.toText().c_str());
    QCOMPARE(cfg::removeLayer(tight, 1), std::string());
    QCOMPARE(tight.toText(), packed);
    // A file without blank lines gets none (nor a line end it did not have): a move and its reverse give
    // back its bytes.
    QCOMPARE(cfg::moveLayer(tight, 2, 1), std::string());
    QVERIFY2(tight.toText().ends_with("#stride=2\n[convolutional]\nfilters=8\nsize=1\n# Downsample\n"
                                      "[convolutional]\nfilters=8\nsize=3"),
             tight.toText().c_str());
    QCOMPARE(cfg::moveLayer(tight, 1, 2), std::string());
    QCOMPARE(tight.toText(), packed);
    cfg::insertLayer(tight, 3, "upsample", {});
    QVERIFY2(tight.toText().ends_with("size=1\n[upsample]"), tight.toText().c_str());

    // yolov3's style, a label with a blank line on both sides: moved to the end, then a layer put at the
    // top, it stays on its layer and set apart (it was glued to the layer before and then left behind).
    cfg::Document yolo = cfg::Document::parse("[net]\nwidth=8\nheight=8\nchannels=3\n\n"
                                              "[convolutional]\nfilters=32\n\n# Downsample\n\n"
                                              "[convolutional]\nfilters=64\nstride=2\n\n"
                                              "[convolutional]\nfilters=32\n");
    QCOMPARE(cfg::moveLayer(yolo, 1, 2), std::string());
    cfg::insertLayer(yolo, 0, "maxpool", {});
    QCOMPARE(cfg::moveLayer(yolo, 3, 1), std::string());
    QVERIFY2(yolo.toText().find("[maxpool]\n\n# Downsample\n\n[convolutional]\nfilters=64\nstride=2\n") !=
                 std::string::npos,
             yolo.toText().c_str());

    // A comment under a section's entries with a blank line after it is that section's own (yolov4's
    // "### End SPP ###" went with the next layer, and the two headers were glued).
    const std::string spp = "[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=4\n\n"
                            "[route]\nlayers=-1\n### End SPP ###\n\n[convolutional]\nfilters=8\n\n"
                            "[convolutional]\nfilters=8\n";
    cfg::Document end = cfg::Document::parse(spp);
    QCOMPARE(cfg::removeLayer(end, 2), std::string());
    QVERIFY2(end.toText().find("layers=-1\n### End SPP ###\n\n[convolutional]") != std::string::npos,
             end.toText().c_str());
    // The blank line that set a former last section apart stays through later edits (it went with the
    // next one, and the headers were glued again).
    cfg::Document four =
        cfg::Document::parse("[net]\nwidth=1\n\n[a]\nk=1\n\n[b]\nk=2\n\n[c]\nk=3\n\n[d]\nk=4");
    four.moveSection(4, 1);
    four.removeSection(3);
    QCOMPARE(four.toText(),
             std::string("[net]\nwidth=1\n\n[d]\nk=4\n\n[a]\nk=1\n\n[c]\nk=3")); // (no line end, as read)
}

#include "test_layer_edits.moc"
