// netwright: the studio GUI. Wiring only: options, the default network, the main window.
#include "detect/detect_panel.h"
#include "editor/graph_view.h"
#include "editor/property_panel.h"
#include "image/media_codecs.h"
#include "train/train_panel.h"
#include "util/file_check.h"
#include "util/memory_info.h"
#include "util/thread_settings.h"
#include "window/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QIcon>
#include <QLineEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QThreadPool>
#include <QTimer>
#include <clocale>
#include <cstdio>
#include <cstdlib>

namespace {

// Where the bundled networks are: next to an installed binary, else the source tree's cfg/ (named by a
// file the build writes beside the binary).
QStringList bundledNetworkFolders()
{
    QStringList folders{QCoreApplication::applicationDirPath() + "/../share/netwright/cfg",
                        QStringLiteral(NETWRIGHT_INSTALLED_CFG_DIR)};
    if (QFile pointer(QCoreApplication::applicationDirPath() + "/netwright-source-cfg");
        pointer.open(QIODevice::ReadOnly))
        folders << QString::fromUtf8(pointer.readAll()).trimmed();
    return folders;
}

// The bundled default network.
QString defaultNetwork()
{
    const QString name = QStringLiteral("fashion-mnist.cfg");
    for (const QString& dir : bundledNetworkFolders())
        if (QFileInfo::exists(dir + "/" + name))
            return QDir::cleanPath(dir + "/" + name);
    return {};
}

// The command line's options, for the studio and for --help.
struct StudioOptions {
    QCommandLineOption screenshot{"screenshot", "Render the window into a PNG file and exit.", "out.png"};
    QCommandLineOption delay{"screenshot-delay", "Milliseconds to wait before the screenshot (default 200).",
                             "ms", "200"};
    QCommandLineOption train{"train", "Start training the opened network at once (Train panel defaults)."};
    QCommandLineOption data{"data", "The .data file to train on (default: the one beside the cfg).",
                            "file.data"};
    QCommandLineOption detect{"detect", "Open an image, a folder or a video in the Detect panel.", "source"};
    QCommandLineOption select{"select", "Select a layer (or \"net\" for the [net] section) in the editor.",
                              "layer"};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription("Design, train and test Darknet neural networks.");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(
            "file", "Darknet .cfg file to open (default: the bundled Fashion-MNIST network)");
        for (const QCommandLineOption* option : {&select, &screenshot, &delay, &train, &data, &detect})
            parser.addOption(*option);
    }
};

void nameApplication()
{
    QCoreApplication::setApplicationName("Netwright");
    QCoreApplication::setOrganizationName("Netwright");
    QCoreApplication::setApplicationVersion(NETWRIGHT_VERSION);
}

// --help and --version print and exit without a window, so they work over SSH and in scripts.
void answerTextOptions(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--") // what follows is a file name
            return;
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") {
            QCoreApplication core(argc, argv);
            nameApplication();
            QCommandLineParser parser;
            StudioOptions().addTo(parser);
            parser.process(core); // prints and exits
        }
    }
}

// Qt aborts with a platform-plugin message when there is no display; say what to do instead. (A platform
// chosen on the command line, -platform offscreen, needs none.)
bool hasDisplay(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (QByteArray(argv[i]) == "-platform" || QByteArray(argv[i]) == "--platform")
            return true;
    return !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

// Qt ends a failed start (a DISPLAY whose X server is gone: an old ssh -X session, tmux) with a fatal
// message and an abort, "Reinstalling the application may fix this problem" and a core dump. This says
// what is wrong and exits with 1; every other message goes to Qt's own handler.
QtMessageHandler qtHandler = nullptr;
bool displayRefused = false; // xcb warned "could not connect to display" (its fatal line is generic)

void explainFailedStart(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (message.contains("could not connect to display"))
        displayRefused = true;
    // (Only then: a missing plugin or library, libxcb-cursor0, keeps Qt's own words, which name it.)
    if (type == QtFatalMsg && displayRefused) {
        std::fprintf(stderr,
                     "netwright: cannot open a window: no display answers at DISPLAY=%s%s (is its X server "
                     "still running? over ssh use -X or -Y; without a desktop use xvfb-run, or "
                     "netwright-cli to train and detect headless)\n",
                     qgetenv("DISPLAY").constData(),
                     qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
                         ? ""
                         : (" or WAYLAND_DISPLAY=" + qgetenv("WAYLAND_DISPLAY")).constData());
        std::_Exit(1);
    }
    if (qtHandler)
        qtHandler(type, context, message);
}

} // namespace

int main(int argc, char** argv)
{
    nw::restartWithThreadSettings(argv);
    if (const auto problem = nw::memoryLimitProblem())
        std::fprintf(stderr, "netwright: warning: %s\n", problem->c_str());
    answerTextOptions(argc, argv);
    if (!hasDisplay(argc, argv)) {
        std::fprintf(stderr,
                     "netwright: no display to open the studio on (DISPLAY and WAYLAND_DISPLAY are unset): "
                     "run it on a desktop, over ssh -X, or under xvfb-run; for a server without one, "
                     "netwright-cli trains and detects headless\n");
        return 1;
    }
    qtHandler = qInstallMessageHandler(explainFailedStart);
    QApplication app(argc, argv);
    qInstallMessageHandler(qtHandler); // (started: Qt's own from here on)
    // Qt sets the C locale from the desktop's; the core writes and reads numbers with the C library
    // (printf, std::to_string), which under a decimal comma would write "0,5". The UI formats its
    // numbers with QLocale, which this does not change (as Qt's QCoreApplication notes advise).
    std::setlocale(LC_NUMERIC, "C");
    nameApplication();
    QApplication::setDesktopFileName("io.github.netwright.Netwright");
    Q_INIT_RESOURCE(netwright); // the icons live in netwright_ui, a static library
    QIcon icon;
    for (int size : {48, 128, 256})
        icon.addFile(QString(":/icons/netwright-%1.png").arg(size));
    QApplication::setWindowIcon(icon);

    QCommandLineParser parser;
    const StudioOptions options;
    options.addTo(parser);
    parser.process(app);
    const QCommandLineOption &screenshot = options.screenshot, &delay = options.delay, &train = options.train,
                             &data = options.data, &detect = options.detect, &select = options.select;

    const QString file = parser.positionalArguments().value(0, defaultNetwork());
    nw::ui::MainWindow window;
    window.setBundledNetworkFolders(bundledNetworkFolders());
    if (parser.positionalArguments().size() > 1)
        std::fprintf(stderr, "netwright: opening %s only (the studio shows one network at a time)\n",
                     qPrintable(file));
    if (!file.isEmpty() && !window.openFile(file)) {
        // The reason, as the status bar says it ("x.cfg: error: is a directory, not a cfg file").
        const QString why = window.statusBar()->currentMessage();
        std::fprintf(stderr, "netwright: cannot open %s\n", qPrintable(why.isEmpty() ? file : why));
        if (parser.isSet(screenshot))
            return 1;
    }
    window.show();
    // OpenCV's image and video I/O is loaded on first use (core's image/media_codecs.h); the studio
    // loads it on a pool thread once its window is up, so a first recording on the GUI thread does not
    // wait the 0.3 s for it.
    QThreadPool::globalInstance()->start([] {
        try {
            std::string unused; // (a module that cannot load is said when first used)
            nw::media::codecs(unused);
        } catch (...) { // (nothing may leave a pool thread)
        }
    });
    if (parser.isSet(data)) { // the Training panel in front, with what the data set holds
        window.trainPanel()->dataEdit()->setText(parser.value(data));
        QTimer::singleShot(0, &window, [&window] { window.findChild<QDockWidget*>("trainDock")->raise(); });
    }
    if (parser.isSet(detect)) {
        const QFileInfo source(parser.value(detect));
        QTimer::singleShot(0, &window, [&window, source] {
            window.findChild<QDockWidget*>("detectDock")->raise();
            if (source.isDir())
                window.detectPanel()->openFolder(source.filePath());
            else if (nw::hasVideoExtension(source.fileName().toStdString()))
                window.detectPanel()->openVideoFile(source.filePath());
            else
                window.detectPanel()->openImageFile(source.filePath());
        });
    }
    if (parser.isSet(select)) {
        const QString which = parser.value(select);
        QTimer::singleShot(0, &window, [&window, which] {
            window.findChild<QDockWidget*>("propertiesDock")->raise();
            if (which == "net")
                window.propertyPanel()->showSection(0);
            else
                window.selectLayer(which.toInt());
        });
    }
    if (parser.isSet(train))
        QTimer::singleShot(0, window.trainPanel()->trainButton(), &QPushButton::click);
    if (parser.isSet(screenshot)) {
        const QString out = parser.value(screenshot);
        QTimer::singleShot(parser.value(delay).toInt(), &window, [&] {
            const bool saved = window.grab().save(out);
            if (!saved)
                std::fprintf(stderr, "netwright: cannot write %s\n", qPrintable(out));
            QApplication::exit(saved ? 0 : 1);
        });
    }
    return app.exec();
}
