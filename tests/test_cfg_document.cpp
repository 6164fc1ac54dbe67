// cfg::Document: byte-identical round trips, minimal edits, syntax errors with their lines, and
// robustness against random and truncated text.
#include "cfg/document.h"
#include "test_support.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace nw;

class TestCfgDocument : public QObject {
    Q_OBJECT
private slots:
    void roundTripIsByteIdentical_data();
    void roundTripIsByteIdentical();
    void keepsLineEndingsSpacingAndUnknownKeys();
    void byteOrderMarkIsReadPastAndKept();
    void setValueRewritesOnlyThatValue();
    void setMissingKeyAppendsAfterLastEntry();
    void insertThenRemoveSectionRestoresBytes();
    void moveSectionKeepsEveryLine();
    void syntaxErrorsNameTheLine_data();
    void syntaxErrorsNameTheLine();
    void listsAndNamesFilesAreNamedOnce();
    void missingFileIsAnError();
    void savingWritesThroughLinksAndKeepsPermissions();
    void directoriesAndBinaryFilesAreRefusedOnce();
    void longValuesAreCutInMessages();
    void randomAndTruncatedTextNeverBreaks_data();
    void randomAndTruncatedTextNeverBreaks();
};

void TestCfgDocument::roundTripIsByteIdentical_data()
{
    QTest::addColumn<QString>("path");
    const QStringList darknet = test::darknetCfgs();
    const QStringList ab = test::abCfgs();
    QVERIFY2(darknet.size() >= 40, "Debian's darknet cfgs are missing: run scripts/setup.sh");
    QCOMPARE(ab.size(), 4);
    for (const QString& path : darknet + ab + test::bundledCfgs())
        QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
}

void TestCfgDocument::roundTripIsByteIdentical()
{
    QFETCH(QString, path);
    const QByteArray original = test::readAll(path);
    QVERIFY(!original.isEmpty());
    const cfg::Document document = cfg::Document::load(path.toStdString());
    QVERIFY(!document.readFailed());
    QCOMPARE(QByteArray::fromStdString(document.toText()), original);

    QTemporaryDir dir;
    const QString out = dir.filePath("out.cfg");
    const auto error = document.save(out.toStdString());
    QVERIFY2(!error, error ? error->c_str() : "");
    QCOMPARE(test::readAll(out), original);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"out.cfg"}); // no temporary left
}

void TestCfgDocument::keepsLineEndingsSpacingAndUnknownKeys()
{
    const std::string text = "; leading comment\r\n[net]\r\nwidth = 416\r\n\theight=416 \r\n"
                             "channels=3\r\nfancy_key=1\r\n\r\n[ conv ]\r\nfilters=16\r\n# end";
    const cfg::Document document = cfg::Document::parse(text, "crlf.cfg");
    QCOMPARE(document.toText(), text);
    QVERIFY(document.diagnostics().empty());
    QCOMPARE(document.sections().size(), std::size_t(2));
    QCOMPARE(document.sections()[1].type, std::string("conv"));
    QCOMPARE(document.sections()[0].find("height")->value, std::string("416"));
    QCOMPARE(document.sections()[0].find("width")->number, 3);
    QCOMPARE(document.preferredEol(), std::string("\r\n"));
}

// Notepad's UTF-8 BOM before [net]: the sections read as without it (it gave "expected key=value, found
// '[net]'" with the BOM invisible, then an error for every key), a warning on line 1, the bytes kept.
void TestCfgDocument::byteOrderMarkIsReadPastAndKept()
{
    const std::string text = "\xEF\xBB\xBF[net]\nwidth=416\n[convolutional]\nfilters=16\n";
    cfg::Document document = cfg::Document::parse(text, "bom.cfg");
    QCOMPARE(document.sections().size(), std::size_t(2));
    QCOMPARE(document.sections()[0].type, std::string("net"));
    QCOMPARE(document.sections()[0].find("width")->number, 2);
    QCOMPARE(document.diagnostics().size(), std::size_t(1));
    QVERIFY(!document.diagnostics()[0].isError());
    QCOMPARE(
        document.diagnostics()[0].format(),
        std::string("bom.cfg:1: warning: the file starts with a UTF-8 byte-order mark (BOM), read past here; "
                    "Darknet would not read this line: save the file without a BOM for it"));
    QCOMPARE(document.toText(), text);
    document.section(1).set("filters", "32"); // an edit keeps it too
    QCOMPARE(document.toText(), "\xEF\xBB\xBF[net]\nwidth=416\n[convolutional]\nfilters=32\n");
}

void TestCfgDocument::setValueRewritesOnlyThatValue()
{
    const std::string text =
        "[net]\nwidth=416\nheight=416\nchannels=3\n\n[convolutional]\nfilters = 16  \nsize=3\n";
    cfg::Document document = cfg::Document::parse(text);
    document.section(1).set("filters", "32");
    QCOMPARE(
        document.toText(),
        std::string("[net]\nwidth=416\nheight=416\nchannels=3\n\n[convolutional]\nfilters = 32  \nsize=3\n"));
    QCOMPARE(document.sections()[1].find("filters")->value, std::string("32"));
    // A comment after the value (Darknet's number parsing stops at it) stays where it was.
    cfg::Document commented = cfg::Document::parse("[net]\n[yolo]\nclasses = 80 ;coco\nmask=0 # small\n");
    commented.section(1).set("classes", "5");
    commented.section(1).set("mask", "1,2");
    QCOMPARE(commented.toText(), std::string("[net]\n[yolo]\nclasses = 5 ;coco\nmask=1,2 # small\n"));
    QCOMPARE(commented.sections()[1].find("classes")->value, std::string("5;coco")); // as Darknet reads it
}

void TestCfgDocument::setMissingKeyAppendsAfterLastEntry()
{
    cfg::Document document =
        cfg::Document::parse("[net]\nwidth=1\n\n[maxpool]\nsize=2\n# note\n\n[route]\nlayers=-1");
    document.section(1).set("stride", "2");
    document.section(2).set("groups", "2");
    QCOMPARE(
        document.toText(),
        std::string("[net]\nwidth=1\n\n[maxpool]\nsize=2\nstride=2\n# note\n\n[route]\nlayers=-1\ngroups=2"));
}

void TestCfgDocument::insertThenRemoveSectionRestoresBytes()
{
    const QByteArray original = test::readAll(QString(DARKNET_CFG_DIR) + "/yolov3-tiny.cfg");
    cfg::Document document = cfg::Document::parse(original.toStdString());
    const auto count = document.sections().size();
    document.insertSection(3, "dropout", {{"probability", "0.3"}});
    QCOMPARE(document.sections().size(), count + 1);
    QCOMPARE(document.sections()[3].type, std::string("dropout"));
    QVERIFY(document.toText().find("[dropout]\nprobability=0.3\n\n[convolutional]") != std::string::npos);
    const NetworkSpec spec = buildNetworkSpec(document);
    QVERIFY2(spec.ok(), test::allText(spec.diagnostics).c_str());
    QCOMPARE(spec.layers[2].type, std::string("dropout"));
    document.removeSection(3);
    QCOMPARE(QByteArray::fromStdString(document.toText()), original);
}

void TestCfgDocument::moveSectionKeepsEveryLine()
{
    cfg::Document document = cfg::Document::parse("[net]\nwidth=1\n\n[a]\nk=1\n\n[b]\nk=2");
    document.moveSection(2, 1);
    // (the last section, without a blank line of its own, is set apart from the one now after it; the
    // file still ends without a line end)
    QCOMPARE(document.toText(), std::string("[net]\nwidth=1\n\n[b]\nk=2\n\n[a]\nk=1"));
    document.moveSection(1, 2);
    QCOMPARE(document.toText(), std::string("[net]\nwidth=1\n\n[a]\nk=1\n\n[b]\nk=2"));
}

void TestCfgDocument::syntaxErrorsNameTheLine_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    const QString net = "[net]\nwidth=8\nheight=8\nchannels=3\n";
    QTest::newRow("key outside section") << "width=416\n[net]\n"
                                         << "bad.cfg:1: error: 'width=416' is outside any section";
    QTest::newRow("no equals") << net + "momentum\n"
                               << "bad.cfg:5: error: expected key=value, found 'momentum' (no '=')";
    QTest::newRow("spaces kept in the quote") << net + "this line has no equals\n"
                                              << "bad.cfg:5: error: expected key=value, found 'this line has "
                                                 "no equals' (no '=')";
    QTest::newRow("empty value") << net + "\n\ndecay=\n"
                                 << "bad.cfg:7: error: key 'decay' has no value";
    QTest::newRow("no key") << net + "=3\n"
                            << "bad.cfg:5: error: expected key=value, found '=3' (no key";
    QTest::newRow("inline comment on header") << "[net] # input\n"
                                              << "bad.cfg:1: error: text after the section header";
    QTest::newRow("unclosed header") << net + "[convolutional\n"
                                     << "bad.cfg:5: error: layer 0: section header '[convolutional'";
    QTest::newRow("first section not net") << "# hi\n[convolutional]\nfilters=3\n"
                                           << "bad.cfg:2: error: the first section must be [net]";
    QTest::newRow("empty file") << ""
                                << "bad.cfg: error: no sections";
    QTest::newRow("bad integer")
        << net + "[convolutional]\nfilters=1x6\n"
        << "bad.cfg:6: error: layer 0: bad number for 'filters': expected an integer, found '1x6'";
    QTest::newRow("bad float") << net + "learning_rate=0.0.1\n"
                               << "bad.cfg:5: error: bad number for 'learning_rate': expected a number";
    QTest::newRow("bad list") << net + "[route]\nlayers=-1,,2\n"
                              << "bad.cfg:6: error: layer 0: bad list for 'layers'";
    QTest::newRow("unknown section") << net + "\n[convolution]\n"
                                     << "bad.cfg:6: error: layer 0: unknown layer type [convolution] (did "
                                        "you mean convolutional?) (known: "
                                        "convolutional";
    QTest::newRow("unknown key warns") << net + "[maxpool]\nsize=2\nstrid=2\n"
                                       << "bad.cfg:7: warning: layer 0: unused key 'strid=2' in [maxpool]: "
                                          "Darknet ignores it (did you mean stride?)";
    QTest::newRow("a key like none") << net + "[maxpool]\nsize=2\nbogus=2\n"
                                     << "bad.cfg:7: warning: layer 0: unused key 'bogus=2' in [maxpool]: "
                                        "Darknet ignores it (misspelt, or meant for another layer type?)";
    QTest::newRow("misspelt activation") << net + "[convolutional]\nfilters=2\nsize=1\nactivation=leakyy\n"
                                         << "bad.cfg:8: warning: layer 0: unknown activation 'leakyy' (did "
                                            "you mean leaky?): Darknet uses relu";
    QTest::newRow("no input size") << "[net]\nbatch=1\n[connected]\noutput=2\n"
                                   << "bad.cfg:1: error: no input size: set width, height and channels";
}

void TestCfgDocument::syntaxErrorsNameTheLine()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const cfg::Document document = cfg::Document::parse(text.toStdString(), "bad.cfg");
    QCOMPARE(QString::fromStdString(document.toText()), text); // errors never lose text
    const NetworkSpec spec = buildNetworkSpec(document);
    const Diagnostic* found = test::findDiagnostic(spec.diagnostics, expected.toStdString());
    QVERIFY2(
        found,
        ("expected '" + expected.toStdString() + "' among:\n" + test::allText(spec.diagnostics)).c_str());
    if (found->isError())
        QVERIFY(!spec.ok());
}

// An image list or a .names file given as the cfg: one error that says what it looks like (it gave one
// "expected key=value" per line, then an empty network).
void TestCfgDocument::listsAndNamesFilesAreNamedOnce()
{
    const cfg::Document list = cfg::Document::parse("data/obj/a.jpg\ndata/obj/b.jpg\n", "train.txt");
    QVERIFY(list.readFailed());
    QCOMPARE(list.diagnostics().size(), std::size_t(1));
    QCOMPARE(
        list.diagnostics()[0].format(),
        std::string("train.txt:1: error: no section and no key=value line: this is no network cfg (a list "
                    "of files, such as train.txt?); a cfg starts with [net]"));
    const cfg::Document names = cfg::Document::parse("\napple\ncrate\n", "obj.names");
    QVERIFY(names.readFailed());
    QCOMPARE(
        names.diagnostics()[0].format(),
        std::string("obj.names:2: error: no section and no key=value line: this is no network cfg (a .names "
                    "file, one class per line?); a cfg starts with [net]"));
    // A stray word beside a key outside any section is a cfg's mistake, said per line as before.
    const cfg::Document stray = cfg::Document::parse("width=8\nhello\n", "bad.cfg");
    QVERIFY(!stray.readFailed());
    QCOMPARE(stray.diagnostics().size(), std::size_t(2));
    // Millions of sections (7 million [empty] took 6.5 GB and 85 s): refused past 100,000, on the line
    // of the first one past it; 100,000 are read.
    std::string many = "[net]\nwidth=8\nheight=8\nchannels=1\n";
    for (std::size_t i = 1; i < cfg::Document::kMaxSections; ++i)
        many += "[empty]\n";
    QVERIFY(!cfg::Document::parse(many, "many.cfg").readFailed());
    many += "[empty]\n";
    const cfg::Document tooMany = cfg::Document::parse(many, "many.cfg");
    QVERIFY(tooMany.readFailed());
    QCOMPARE(tooMany.diagnostics()[0].format(),
             std::string("many.cfg:100004: error: more than 100000 sections: no network Darknet runs has so "
                         "many (the largest have about 1,000 layers); is it the right file?"));
}

void TestCfgDocument::missingFileIsAnError()
{
    const cfg::Document document = cfg::Document::load("/nonexistent/dir/net.cfg");
    QVERIFY(document.readFailed());
    QCOMPARE(document.diagnostics().size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(document.diagnostics()[0].format()),
             QString("/nonexistent/dir/net.cfg: error: no such file (expected a cfg file)"));
    QVERIFY(!buildNetworkSpec(document).ok());
}

void TestCfgDocument::directoriesAndBinaryFilesAreRefusedOnce()
{
    QTemporaryDir dir;
    const cfg::Document folder = cfg::Document::load(dir.path().toStdString());
    QVERIFY(folder.readFailed());
    QCOMPARE(folder.diagnostics().size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(folder.diagnostics()[0].format()),
             dir.path() + ": error: is a directory, not a cfg file");

    // A named pipe nobody writes to is named at once: opening it waited for a writer forever (the
    // studio's File ▸ Open Recent froze on one).
    const QByteArray fifo = dir.filePath("pipe.cfg").toUtf8();
    QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
    const cfg::Document pipe = cfg::Document::load(fifo.toStdString());
    QVERIFY(pipe.readFailed());
    QCOMPARE(QString::fromStdString(pipe.diagnostics()[0].format()),
             QString(fifo) + ": error: a pipe with nothing written to it, not a cfg file");

    // The first bytes of a program (ELF), and a weights file: one error each, on the first binary line.
    QByteArray elf = test::readAll("/bin/ls").left(4000);
    QVERIFY(elf.startsWith("\x7f"
                           "ELF"));
    const cfg::Document program = cfg::Document::parse(elf.toStdString(), "ls.cfg");
    QVERIFY(program.readFailed());
    QCOMPARE(program.diagnostics().size(), std::size_t(1));
    QVERIFY2(program.diagnostics()[0].format().starts_with("ls.cfg:1: error: this is not a text cfg"),
             program.diagnostics()[0].format().c_str());
    // Named .cfg, it is damaged or misnamed (asking "did you mean to open a .cfg file?" of a .cfg was
    // odd); another name asks.
    QVERIFY(program.diagnostics()[0].message.ends_with("saved under a .cfg name"));
    QVERIFY(
        cfg::Document::parse(elf.toStdString(), "LS.CFG").diagnostics()[0].message.ends_with(".cfg name"));
    QVERIFY(cfg::Document::parse(elf.toStdString(), "ls")
                .diagnostics()[0]
                .message.find("did you mean to open a .cfg file?") != std::string::npos);
    // A cfg saved as UTF-16 (Notepad's "Unicode") is named as such: it was "damaged, or other data".
    const std::string utf16("\xFF\xFE[\0n\0e\0t\0]\0\n\0", 14);
    const cfg::Document wide = cfg::Document::parse(utf16, "wide.cfg");
    QVERIFY(wide.readFailed());
    QCOMPARE(
        QString::fromStdString(wide.diagnostics()[0].format()),
        QString("wide.cfg:1: error: this cfg is UTF-16 text (Windows' \"Unicode\"): save it as UTF-8 (or "
                "ANSI), as Darknet reads it"));
    const std::string weights = "[net]\nwidth=8\n" + std::string("\x00\x00\x00\x02", 4) + "junk";
    const cfg::Document mixed = cfg::Document::parse(weights, "mixed.cfg");
    QCOMPARE(mixed.diagnostics().size(), std::size_t(1));
    QCOMPARE(mixed.diagnostics()[0].line, 3);
    QVERIFY(!buildNetworkSpec(mixed).ok());
    // Text with the odd tab, form feed or UTF-8 stays text.
    const cfg::Document text = cfg::Document::parse("[net]\n# café\f\nwidth=8\theight=8\n", "t.cfg");
    QVERIFY(!text.readFailed());
}

void TestCfgDocument::longValuesAreCutInMessages()
{
    // A 10 MB value is quoted in its error, but cut: the message stays short enough to read.
    const std::string text = "[net]\nwidth=" + std::string(10'000'000, '7') + "x\nheight=8\nchannels=1\n";
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::parse(text, "long.cfg"));
    const Diagnostic* bad = test::findDiagnostic(spec.diagnostics, "bad number for 'width'");
    QVERIFY2(bad, test::allText(spec.diagnostics).substr(0, 2000).c_str());
    QCOMPARE(bad->line, 2);
    QVERIFY(bad->format().size() < 400);
    QVERIFY2(bad->format().find("(9999921 more characters)") != std::string::npos, bad->format().c_str());
    // Any message: format() cuts what is left in the middle.
    const Diagnostic huge{Severity::Error, "f.cfg", 3, -1, "start " + std::string(5000, 'x') + " end"};
    QVERIFY(huge.format().size() < 1100);
    QVERIFY(huge.format().find("characters cut") != std::string::npos);
    QVERIFY(huge.format().ends_with(" end"));
}

void TestCfgDocument::randomAndTruncatedTextNeverBreaks_data()
{
    QTest::addColumn<QString>("path");
    for (const char* name : {"yolov3-tiny.cfg", "densenet201.cfg", "rnn.cfg", "yolov1.cfg"})
        QTest::newRow(name) << QString(DARKNET_CFG_DIR) + "/" + name;
    QTest::newRow("yolov4.cfg") << QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs/yolov4.cfg";
}

// Every prefix length and many random edits: parsing stays lossless and the description builds
// (with diagnostics) without crashing; the sanitizer/valgrind runs catch memory errors here too.
void TestCfgDocument::randomAndTruncatedTextNeverBreaks()
{
    QFETCH(QString, path);
    const std::string original = test::readAll(path).toStdString();
    QVERIFY(!original.empty());
    std::mt19937 random(12345);
    const std::string alphabet = "[]=,-#;\n\r\t 0123456789abcdefilnorstuxyz.";
    int withErrors = 0;
    for (int round = 0; round < 400; ++round) {
        std::string text = original;
        if (round < 150) {
            text.resize(random() % (text.size() + 1));
        } else {
            const int edits = 1 + static_cast<int>(random() % 8);
            for (int e = 0; e < edits && !text.empty(); ++e) {
                const std::size_t at = random() % text.size();
                const char ch = alphabet[random() % alphabet.size()];
                switch (random() % 3) {
                case 0:
                    text[at] = ch;
                    break;
                case 1:
                    text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), ch);
                    break;
                default:
                    text.erase(at, 1 + random() % 40);
                }
            }
        }
        const cfg::Document document = cfg::Document::parse(text, "fuzz.cfg");
        QCOMPARE(document.toText(), text);
        const NetworkSpec spec = buildNetworkSpec(document);
        for (const LayerSpec& layer : spec.layers)
            QVERIFY(layer.valid() || !spec.ok());
        withErrors += spec.ok() ? 0 : 1;
    }
    QVERIFY(withErrors > 0); // the mutations did reach the error paths
}

// Save writes through a symbolic link to its target (the link used to become a copy while the file it
// named stayed as it was) and keeps the file's permissions (a private 0600 cfg became 0644); a read-only
// file is refused, to root too when no one may write it (root could write any file: a cfg marked
// read-only was replaced when the studio ran as root).
void TestCfgDocument::savingWritesThroughLinksAndKeepsPermissions()
{
    QTemporaryDir dir;
    const QString target = dir.filePath("target.cfg"), link = dir.filePath("link.cfg");
    test::writeFile(target, "[net]\nwidth=8\n");
    QVERIFY(::symlink("target.cfg", link.toUtf8().constData()) == 0);
    QVERIFY(::chmod(target.toUtf8().constData(), 0600) == 0);
    cfg::Document document = cfg::Document::load(link.toStdString());
    document.section(0).set("width", "16");
    QCOMPARE(document.save(link.toStdString()), std::nullopt);
    QVERIFY(QFileInfo(link).isSymLink());
    QCOMPARE(test::readAll(target), QByteArray("[net]\nwidth=16\n"));
    struct stat info {};
    QVERIFY(::stat(target.toUtf8().constData(), &info) == 0);
    QCOMPARE(info.st_mode & 07777, 0600u);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::System).size(), 2); // no temporary left
    // A link to a file not made yet (a dangling link): the file is made where it points, the link stays.
    const QString dangling = dir.filePath("dangling.cfg");
    QVERIFY(::symlink("made.cfg", dangling.toUtf8().constData()) == 0);
    QCOMPARE(document.save(dangling.toStdString()), std::nullopt);
    QVERIFY(QFileInfo(dangling).isSymLink());
    QCOMPARE(test::readAll(dir.filePath("made.cfg")), QByteArray("[net]\nwidth=16\n"));
    QVERIFY(::unlink(dangling.toUtf8().constData()) == 0 && QFile::remove(dir.filePath("made.cfg")));
    QVERIFY(::symlink("no-folder/made.cfg", dangling.toUtf8().constData()) == 0); // where nothing can be
    const auto nowhere = document.save(dangling.toStdString());
    QVERIFY(nowhere);
    QVERIFY2(nowhere->find("dangling.cfg (a link to " + dir.filePath("no-folder/made.cfg").toStdString() +
                           "): the folder " + dir.filePath("no-folder").toStdString() + " does not exist") !=
                 std::string::npos,
             nowhere->c_str());
    QVERIFY(::unlink(dangling.toUtf8().constData()) == 0);

    QVERIFY(::chmod(target.toUtf8().constData(), 0444) == 0);
    document.section(0).set("width", "32");
    const auto readOnly = document.save(target.toStdString());
    QVERIFY(readOnly);
    QVERIFY2(readOnly->find(::geteuid() != 0 ? "it is read-only" : "it is marked read-only") !=
                 std::string::npos,
             readOnly->c_str());
    QCOMPARE(test::readAll(target), QByteArray("[net]\nwidth=16\n"));
    QVERIFY(::chmod(target.toUtf8().constData(), 0644) == 0); // writable again: saved
    QCOMPARE(document.save(target.toStdString()), std::nullopt);
    QCOMPARE(test::readAll(target), QByteArray("[net]\nwidth=32\n"));
}

QTEST_GUILESS_MAIN(TestCfgDocument)
#include "test_cfg_document.moc"
