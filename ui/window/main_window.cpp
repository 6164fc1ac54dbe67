#include "window/main_window.h"

#include "cfg/layer_edits.h"
#include "cfg/layer_links.h"
#include "data/data_file.h"
#include "detect/detect_panel.h"
#include "editor/document_model.h"
#include "editor/edit_actions.h"
#include "editor/graph_view.h"
#include "editor/layer_palette.h"
#include "editor/property_panel.h"
#include "editor/set_classes_dialog.h"
#include "editor/source_view.h"
#include "layers/detection_heads.h"
#include "report/summary.h"
#include "table/layer_sort_proxy.h"
#include "table/layer_table_model.h"
#include "train/train_panel.h"
#include "window/save_file_dialog.h"
#ifdef NETWRIGHT_WITH_ONNX
#include "export/onnx_export_dialog.h"
#endif

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QUndoView>

namespace nw::ui {

QString withCfgSuffix(const QString& path)
{
    return QFileInfo(path).suffix().isEmpty() ? path + ".cfg" : path;
}

namespace {

// A panel in a scroll area, so its dock can shrink below the panel's own minimum size (a 1366×768
// screen): the panel scrolls instead of pushing the window past the screen.
QScrollArea* scrollable(QWidget* panel)
{
    auto* area = new QScrollArea;
    area->setWidget(panel);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setFocusPolicy(Qt::NoFocus); // Tab goes to the panel's controls, not to the wrapper
    return area;
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Netwright"));
    setAcceptDrops(true);

    model_ = new LayerTableModel(this);
    proxy_ = new LayerSortProxy(this);
    proxy_->setSourceModel(model_);
    table_ = new QTableView(this);
    table_->setObjectName("layerTable");
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(LayerTableModel::Index, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->setTabKeyNavigation(false); // Tab goes on to the next control; arrows move between layers
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(false);
    graph_ = new GraphView(this);
    setCentralWidget(graph_);
    auto* tableDock = new QDockWidget(tr("Layer table"), this);
    tableDock->setObjectName("tableDock");
    tableDock->setWidget(table_);
    addDockWidget(Qt::BottomDockWidgetArea, tableDock);

    model_doc_ = new DocumentModel(this);
    connect(model_doc_, &DocumentModel::changed, this, &MainWindow::showSpec);
    connect(model_doc_->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    properties_ = new PropertyPanel(*model_doc_, this);
    auto* propertiesDock = new QDockWidget(tr("Properties"), this);
    propertiesDock->setObjectName("propertiesDock");
    propertiesDock->setWidget(scrollable(properties_));
    addDockWidget(Qt::RightDockWidgetArea, propertiesDock);
    source_ = new SourceView(*model_doc_, this);
    auto* sourceDock = new QDockWidget(tr("Source"), this);
    sourceDock->setObjectName("sourceDock");
    sourceDock->setWidget(source_);
    addDockWidget(Qt::RightDockWidgetArea, sourceDock);
    tabifyDockWidget(propertiesDock, sourceDock);
    // Every edit made elsewhere applies to the text as typed in Source, not to what it was before.
    model_doc_->setBeforeEdit([this] { source_->commitPendingEdit(); });
    palette_ = new LayerPalette(this);
    auto* paletteDock = new QDockWidget(tr("Layers"), this);
    paletteDock->setObjectName("paletteDock");
    paletteDock->setWidget(scrollable(palette_));
    addDockWidget(Qt::LeftDockWidgetArea, paletteDock);
    connect(palette_, &LayerPalette::insertRequested, this, &MainWindow::insertLayer);
    auto* undoView = new QUndoView(model_doc_->undoStack(), this);
    undoView->setObjectName("historyView");
    // Steps wrap in the narrow dock ("Set filters = 24 in layer 149 [con" was all one saw).
    undoView->setWordWrap(true);
    undoView->setTextElideMode(Qt::ElideNone);
    auto* historyDock = new QDockWidget(tr("History"), this);
    historyDock->setObjectName("historyDock");
    historyDock->setWidget(undoView);
    addDockWidget(Qt::LeftDockWidgetArea, historyDock);
    tabifyDockWidget(paletteDock, historyDock);
    paletteDock->raise();
    // The table and the graph select the same layer, or none (the totals row, a click on empty graph
    // space), so Del, Ctrl+C and Ctrl+D act on what is shown selected; several layers are selected in
    // the graph (the table keeps one row).
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        const int layer = selectedLayer();
        properties_->showSection(layer >= 0 ? layer + 1 : 0);
        source_->showSection(layer >= 0 ? layer + 1 : 0);
        if (layer >= 0 && graph_->selectedLayer() != layer)
            graph_->selectLayer(layer);
        else if (layer < 0 && !graph_->selectedLayers().empty())
            graph_->selectLayers({});
    });
    connect(graph_, &GraphView::layerSelected, this, [this](int layer) {
        if (layer >= 0) { // (a card the user chose: its keys come in front of Training or Detect)
            selectLayer(layer);
            raiseProperties();
        } else
            table_->selectionModel()->clear();
    });
    // The section the cursor is in, chosen everywhere ([net]: no layer, as a click on empty space).
    connect(source_, &SourceView::sectionChosen, this, [this](int section) {
        if (section > 0 && section <= int(model_->spec().layers.size()))
            selectLayer(section - 1);
        else if (section == 0)
            table_->selectionModel()->clear();
    });
    connect(graph_, &GraphView::insertRequested, this, [this](const QString& type, int afterLayer) {
        const int at = afterLayer >= 0 ? afterLayer + 1 : int(model_->spec().layers.size());
        model_doc_->insertLayer(at, type, LayerPalette::defaults(type));
        selectLayer(at);
    });
    edits_ = new EditActions(
        *model_doc_, *graph_,
        [this] {
            std::vector<int> layers = graph_->selectedLayers();
            if (layers.empty() && selectedLayer() >= 0)
                layers.push_back(selectedLayer());
            return layers;
        },
        this);
    connect(graph_, &GraphView::insertOnEdgeRequested, edits_, &EditActions::insertOnEdge);
    connect(graph_, &GraphView::connectRequested, edits_, &EditActions::connectLayers);
    graph_->setConnectionCheck([this](int source, int target) { // what connecting would say, on a copy
        cfg::Document copy = model_doc_->document();
        return QString::fromStdString(cfg::connectLayers(copy, source, target));
    });
    connect(edits_, &EditActions::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(edits_, &EditActions::selectRequested, this, [this](const std::vector<int>& layers) {
        if (layers.empty())
            return;
        selectLayer(layers.front());
        graph_->selectLayers(layers);
    });

    problems_ = new QListWidget(this);
    problems_->setObjectName("problemList");
    // Long messages wrap (their end — the fix — was cut off in a narrow dock) and are tooltips too.
    problems_->setWordWrap(true);
    problems_->setTextElideMode(Qt::ElideNone);
    auto* problemsDock = new QDockWidget(tr("Problems"), this);
    problemsDock->setObjectName("problemsDock");
    problemsDock->setWidget(problems_);
    addDockWidget(Qt::BottomDockWidgetArea, problemsDock);
    tabifyDockWidget(tableDock, problemsDock);
    tableDock->raise();

    // A problem's layer: selected in the table and the graph, its keys in front in Properties.
    // A problem's layer, or [net] (layer −1); the "no problems" line (−2) leads nowhere.
    connect(problems_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const int layer = item->data(Qt::UserRole).toInt();
        if (layer < -1)
            return;
        source_->goToLine(item->data(Qt::UserRole + 1).toInt()); // (its line, where the text shows it)
        if (layer == -1) {
            table_->selectionModel()->clear(); // as Edit [net]
            graph_->selectLayers({});
            properties_->showSection(0);
        } else
            selectLayer(layer);
        raiseProperties();
    });

    trainPanel_ = new TrainPanel(this);
    auto* trainDock = new QDockWidget(tr("Training"), this);
    trainDock->setObjectName("trainDock");
    trainDock->setWidget(scrollable(trainPanel_));
    addDockWidget(Qt::RightDockWidgetArea, trainDock);
    tabifyDockWidget(propertiesDock, trainDock);
    detectPanel_ = new DetectPanel(this);
    auto* detectDock = new QDockWidget(tr("Detect"), this);
    detectDock->setObjectName("detectDock");
    detectDock->setWidget(scrollable(detectPanel_));
    addDockWidget(Qt::RightDockWidgetArea, detectDock);
    tabifyDockWidget(trainDock, detectDock);
    // Train is one click away on the default network (raised once the window exists: tabified docks
    // ignore raise() before they are shown).
    QTimer::singleShot(0, trainDock, &QDockWidget::raise);
    propertiesDock->raise();
    // Train and Detect use the network as the editor shows it, unsaved edits included.
    trainPanel_->setCfgTextSource([this] {
        commitPendingEdits();
        return QString::fromStdString(model_doc_->document().toText());
    });
    detectPanel_->setCfgTextSource([this] {
        commitPendingEdits();
        return QString::fromStdString(model_doc_->document().toText());
    });
    // Detect takes what Training knows where nothing was chosen there: the .data file's names, and the
    // weights of a run that ended (its final ones, or the checkpoint of a stopped run).
    connect(trainPanel_->dataEdit(), &QLineEdit::textChanged, this, [this](const QString& dataFile) {
        if (QFileInfo(dataFile).isFile())
            detectPanel_->suggest(QString(), dataFile);
        showProblems(); // its classes against the network's
    });
    connect(trainPanel_, &TrainPanel::trainingChanged, this, [this](bool training) {
        if (!training && !trainPanel_->cfgPath().isEmpty())
            detectPanel_->suggest(runWeights(), trainPanel_->dataEdit()->text());
    });
    connect(trainPanel_, &TrainPanel::trainingChanged, this, [this](bool training) {
        // The network being trained stays as it is until the run ends.
        openAction_->setEnabled(!training);
        reloadAction_->setEnabled(!training);
        recentMenu_->setEnabled(!training && !recentMenu_->isEmpty());
        setAcceptDrops(!training);
        setEditable(!training);
        if (training)
            findChild<QDockWidget*>("trainDock")->raise();
        statusBar()->showMessage(training ? tr("Training — the network is read-only until the run ends")
                                          : QString());
    });
    connect(trainPanel_, &TrainPanel::pauseChanged, this, [this](bool paused) {
        statusBar()->showMessage(
            paused ? tr("Paused — the network stays read-only until the run ends (Resume goes "
                        "on, Stop ends it)")
                   : tr("Training — the network is read-only until the run ends"));
    });

    totals_ = new QLabel(this);
    totals_->setObjectName("totals");
    statusBar()->addPermanentWidget(totals_);
    // A message gets the whole line while it shows: beside the totals a refused connection's advice was
    // cut off mid-word. The totals come back when it is cleared.
    connect(statusBar(), &QStatusBar::messageChanged, totals_, [this](const QString& message) {
        const int room = statusBar()->width() - totals_->sizeHint().width() - 40;
        totals_->setVisible(message.isEmpty() ||
                            statusBar()->fontMetrics().horizontalAdvance(message) < room);
    });
    createActions();

    QSettings settings;
    // A saved geometry that is garbage (a damaged settings file) still "restores": a 328×316 window, or
    // one off every screen. Then the first window's size, as if nothing were saved.
    const auto usable = [this] {
        QList<QRect> screens;
        for (const QScreen* screen : QGuiApplication::screens())
            screens << screen->availableGeometry();
        return isUsablePlace(frameGeometry(), screens);
    };
    const bool restored = restoreGeometry(settings.value("window/geometry").toByteArray());
    if (!restored || !usable()) {
        // The first window fits the screen it opens on (1480×900 at most): a 1366×768 laptop included.
        const QRect available = screen()->availableGeometry();
        resize(std::min(1480, available.width() * 95 / 100), std::min(900, available.height() * 92 / 100));
        if (restored) // (placed by the garbage, maybe off every screen: centred instead)
            move(available.center() - rect().center());
    }
    // The right-hand panels get about half the window (at most ~680 px: each fits in 640, tested).
    resizeDocks({paletteDock, propertiesDock}, {200, std::min(680, width() * 55 / 100)}, Qt::Horizontal);
    resizeDocks({tableDock}, {std::min(250, height() * 2 / 9)}, Qt::Vertical);
    defaultState_ = saveState(); // View ▸ Reset layout goes back to this
    restoreState(settings.value("window/state").toByteArray());
}

bool MainWindow::isUsablePlace(const QRect& frame, const QList<QRect>& screens)
{
    if (frame.width() < 480 || frame.height() < 360)
        return false;
    for (const QRect& screen : screens) {
        const QRect overlap = frame.intersected(screen);
        if (overlap.width() >= 200 && overlap.height() >= 150)
            return true;
    }
    return false;
}

MainWindow::~MainWindow()
{
    // The document model is a child destroyed after this class's part of the object: its undo stack
    // would otherwise signal cleanChanged into a half-destroyed MainWindow (UBSan: a QWidget
    // downcast to MainWindow in updateTitle when a window with unsaved edits closes).
    model_doc_->undoStack()->disconnect(this);
    model_doc_->disconnect(this);
}

void MainWindow::showOnnxExport()
{
#ifdef NETWRIGHT_WITH_ONNX
    bool hasHeads = false;
    for (const LayerSpec& layer : spec().layers)
        hasHeads = hasHeads || layer.type == "yolo" || layer.type == "region";
    auto* dialog =
        new OnnxExportDialog(model_doc_->path(), QString::fromStdString(model_doc_->document().toText()),
                             detectPanel_->weightsPath(), hasHeads, this);
    dialog->setObjectName("onnxExportDialog");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // It exports the network as it was when it opened: no edits behind it (it exported a stale network).
    dialog->setWindowModality(Qt::WindowModal);
    // The result in the status bar too: a dialog closed during its export closes when it ends.
    connect(dialog, &OnnxExportDialog::exported, this,
            [this](bool, const QString& message) { statusBar()->showMessage(message, 10000); });
    dialog->show();
#endif
}

namespace {

// The desktop's key for a standard action, or the common one where the platform has none (Save As,
// Reload and Quit have no standard key on a plain X11 session: they had no shortcut at all there).
QKeySequence standardKey(QKeySequence::StandardKey key, QKeySequence fallback)
{
    return QKeySequence::keyBindings(key).isEmpty() ? fallback : QKeySequence(key);
}

} // namespace

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = openAction_ = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton),
                                                  tr("&Open..."), this, &MainWindow::chooseFile);
    open->setShortcut(QKeySequence::Open);
    QAction* reload = reloadAction_ =
        file->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Reload"), this, [this] {
            if (model_doc_->path().isEmpty()) {
                statusBar()->showMessage(tr("This network has not been saved yet: there is no "
                                            "file to reload"),
                                         8000);
                return;
            }
            openFile(model_doc_->path());
        });
    reload->setShortcut(standardKey(QKeySequence::Refresh, Qt::Key_F5));
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    recentMenu_->setObjectName("recentMenu");
    updateRecentMenu();
    QAction* newAction = file->addAction(tr("&New"), this, &MainWindow::newNetwork);
    newAction->setShortcut(QKeySequence::New);
    QAction* saveAction = file->addAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save"),
                                          this, [this] { save(); });
    saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAsAction = file->addAction(tr("Save &As..."), this, [this] {
        const QString path = chooseFileToSave(
            this, tr("Save network"), model_doc_->path().isEmpty() ? tr("untitled.cfg") : model_doc_->path(),
            tr("Darknet networks (*.cfg)"), "cfg");
        if (!path.isEmpty())
            saveAs(withCfgSuffix(path));
    });
    saveAsAction->setShortcut(standardKey(QKeySequence::SaveAs, Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    file->addSeparator();
    QAction* exportOnnx = file->addAction(tr("&Export ONNX..."), this, &MainWindow::showOnnxExport);
    exportOnnx->setObjectName("exportOnnxAction");
#ifndef NETWRIGHT_WITH_ONNX
    exportOnnx->setEnabled(false);
    exportOnnx->setToolTip(tr("This build has no ONNX export (it needs libonnx-dev)"));
#endif
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = model_doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = model_doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    // Every key the desktop has for Redo (QKeySequence(Redo) is only the first: Ctrl+Shift+Z did
    // nothing on X11), and Ctrl+Y where it is not one of them.
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    if (!redoKeys.contains(QKeySequence(Qt::CTRL | Qt::Key_Y)))
        redoKeys << QKeySequence(Qt::CTRL | Qt::Key_Y);
    redo->setShortcuts(redoKeys);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // The layer edits' keys (Del, Ctrl+C/V/X/D) act where layers are selected — the graph and the layer
    // table — so Del in the Properties or Problems list never deletes a layer; the menu works anywhere.
    for (QAction* action : edits_->actions()) {
        edit->addAction(action);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        graph_->addAction(action);
        table_->addAction(action);
    }
    // A move that the layers' references would not survive is refused in words; the selection stays.
    const auto move = [this](int step) {
        const int layer = selectedLayer();
        if (layer + step < 0 || layer + step >= cfg::layerCount(model_doc_->document()))
            return;
        if (const QString problem = model_doc_->moveLayer(layer, layer + step); !problem.isEmpty()) {
            statusBar()->showMessage(problem, 10000);
            return;
        }
        selectLayer(layer + step);
    };
    QAction* up = edit->addAction(tr("Move layer &up"), this, [move] { move(-1); });
    up->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up));
    QAction* down = edit->addAction(tr("Move layer d&own"), this, [move] { move(1); });
    down->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down));
    edit->addSeparator();
    edit->addAction(tr("Copy table as &text"), this,
                    [this] { QGuiApplication::clipboard()->setText(model_->toText(false)); });
    edit->addAction(tr("Copy table as &CSV"), this,
                    [this] { QGuiApplication::clipboard()->setText(model_->toText(true)); });
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("&Fit the graph"), this, [this] { graph_->fitAll(); });
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addAction(tr("Zoom &in"), this,
                    [this] {
                        graph_->zoomBy(1.25);
                        graph_->centreOnSelection();
                    })
        ->setShortcuts({QKeySequence(QKeySequence::ZoomIn), QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    // (Ctrl++ takes Shift on most keyboards; Ctrl+= is the same key without it)
    view->addAction(tr("Zoom &out"), this,
                    [this] {
                        graph_->zoomBy(1 / 1.25);
                        graph_->centreOnSelection();
                    })
        ->setShortcut(QKeySequence::ZoomOut);
    view->addAction(tr("&Actual size (100 %)"), this,
                    [this] {
                        graph_->zoomActualSize();
                        graph_->centreOnSelection();
                    })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    view->addSeparator();
    // Every dock can be shown again after it was closed; one behind another's tab comes to the front
    // (Qt's own toggle closed it: it counts as visible there).
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        QAction* toggle = dock->toggleViewAction();
        auto* show = new QAction(toggle->text(), this);
        show->setCheckable(true);
        show->setObjectName(dock->objectName() + "Action");
        connect(toggle, &QAction::changed, show, [show, toggle] { show->setChecked(toggle->isChecked()); });
        show->setChecked(toggle->isChecked());
        connect(show, &QAction::triggered, dock, [dock, show] {
            const bool behind = dock->isVisible() && dock->visibleRegion().isEmpty() && !dock->isFloating();
            if (dock->isVisible() && !behind) {
                dock->hide();
            } else {
                dock->show();
                dock->raise();
                dock->widget()->setFocus(Qt::ShortcutFocusReason);
            }
            show->setChecked(dock->isVisible());
        });
        view->addAction(show);
    }
    view->addSeparator();
    view->addAction(tr("&Reset layout"), this, [this] {
        restoreState(defaultState_);
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            if (!dock->isFloating())
                dock->show();
    });
    // [net] in Properties with no layer selected, as a click on empty space gives: a layer selected
    // behind it could not be chosen again (a click on the selected card changes no selection).
    QAction* netSection = edit->addAction(tr("Edit [&net]"), this, [this] {
        table_->selectionModel()->clear();
        graph_->selectLayers({});
        properties_->showSection(0);
        raiseProperties();
    });
    QAction* setClasses = edit->addAction(tr("Set &classes..."), this, &MainWindow::showSetClasses);
    setClasses->setObjectName("setClassesAction");
    setClasses->setStatusTip(tr("Every detection head's classes= and the filters= before it, in one step"));
    undo_ = undo;
    redo_ = redo;
    editActions_ = {undo, redo, up, down, newAction, setClasses};
    editActions_.append(edits_->actions());
    quit->setShortcut(standardKey(QKeySequence::Quit, Qt::CTRL | Qt::Key_Q));

    // Training and detection from the keyboard: each clicks its panel's own button (which checks what
    // it needs and says why not) with that panel in front.
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    const auto clickIn = [this](const char* dockName, QAbstractButton* button) {
        auto* dock = findChild<QDockWidget*>(dockName);
        dock->show();
        dock->raise();
        if (button->isEnabled())
            button->click();
        else
            statusBar()->showMessage(tr("\"%1\" is not available now").arg(button->text().remove('&')), 5000);
    };
    QAction* train = run->addAction(tr("&Train"), this,
                                    [this, clickIn] { clickIn("trainDock", trainPanel_->trainButton()); });
    train->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    QAction* pause = run->addAction(tr("&Pause or resume training"), this,
                                    [this, clickIn] { clickIn("trainDock", trainPanel_->pauseButton()); });
    pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    QAction* stopTraining = run->addAction(
        tr("&Stop training"), this, [this, clickIn] { clickIn("trainDock", trainPanel_->stopButton()); });
    stopTraining->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    run->addSeparator();
    QAction* detectImage = run->addAction(tr("&Detect on an image..."), this, [this, clickIn] {
        clickIn("detectDock", detectPanel_->imageButton());
    });
    detectImage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    for (QAction* action : {train, pause, stopTraining, detectImage})
        action->setShortcutContext(Qt::ApplicationShortcut);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Getting started"), this, [this] {
        QMessageBox::information(
            this, tr("Getting started"),
            tr("<ol><li><b>A network</b>: File ▸ Open a Darknet .cfg, or File ▸ New and drag layer types "
               "from "
               "the Layers palette onto the canvas (onto an edge to insert between two layers).</li>"
               "<li><b>Connect</b> by dragging a card's output port (the dot at its bottom) onto a later "
               "card; select a card to edit its keys in Properties. Problems lists what is wrong, with "
               "lines.</li>"
               "<li><b>Train</b>: save the network, choose a .data file in Training (or Shapes data set "
               "for a detector), then Train: the curves update as it runs; Stop writes a checkpoint.</li>"
               "<li><b>Detect</b>: choose weights (a run's own are offered when it ends) and an image, "
               "folder, video or the camera.</li></ol>"
               "<p>The same work without a window: <tt>netwright-cli --help</tt>.</p>"));
    });
    help->addAction(tr("&Keyboard shortcuts"), this,
                    [this] { QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText()); });
    help->addAction(tr("&About Netwright"), this, [this] {
        QMessageBox::about(this, tr("About Netwright"),
                           tr("<b>Netwright %1</b><p>Design, train and test Darknet networks.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName("mainToolbar");
    toolbar->addAction(open);
    toolbar->addAction(saveAction);
    toolbar->addAction(reload);
    toolbar->addSeparator();
    // The toolbar's Undo and Redo keep a fixed label; the command they would undo is in their tooltip.
    // The menu's "Undo Set anchors = 10,14, 23,27, …" grew the button up to 600 px and moved the
    // buttons after it from under the pointer.
    const auto fixedLabel = [this](QAction* action, const QString& label) {
        auto* button = new QAction(label, this);
        const auto follow = [action, button] {
            button->setEnabled(action->isEnabled());
            button->setToolTip(QString(action->text()).remove('&'));
        };
        follow();
        connect(action, &QAction::changed, button, follow);
        // (a toolbar button takes no focus: text typed in Source goes into the history first)
        connect(button, &QAction::triggered, action, [this, action] {
            commitPendingEdits();
            action->trigger();
        });
        return button;
    };
    toolbar->addAction(fixedLabel(undo, tr("Undo")));
    toolbar->addAction(fixedLabel(redo, tr("Redo")));
    toolbar->addAction(netSection);
    toolbar->addAction(fit);
}

const NetworkSpec& MainWindow::spec() const
{
    return model_->spec();
}

bool MainWindow::openFile(const QString& path)
{
    // The run writes into the opened network's folder and reports it: it stays until the run ends
    // (every way to open is disabled meanwhile; this holds for any that is not).
    if (trainPanel_->isTraining()) {
        statusBar()->showMessage(tr("Training is running: stop it before opening %1").arg(path), 8000);
        return false;
    }
    if (!maybeSave())
        return false;
    cfg::Document document = cfg::Document::load(path.toStdString());
    if (document.readFailed()) {
        const QString message = QString::fromStdString(document.diagnostics().front().format());
        statusBar()->showMessage(message);
        if (isVisible())
            QMessageBox::warning(this, tr("Cannot open"), message);
        return false;
    }
    // A new file starts with nothing selected, at its first layers (the selection followed the row).
    table_->selectionModel()->clear();
    graph_->selectLayers({});
    model_doc_->reset(std::move(document), path);
    rememberRecent(path);
    graph_->showStart();
    statusBar()->clearMessage(); // (what it said was about the network before)
    trainPanel_->setNetwork(path);
    detectPanel_->setNetwork(path);
    // The .data found beside the cfg, and the weights of a run trained before (by the CLI into backup=,
    // or here), where nothing else was chosen.
    detectPanel_->suggest(runWeights(), trainPanel_->dataEdit()->text());
    updateTitle();
    return true;
}

void MainWindow::showSpec()
{
    const int selected = selectedLayer();
    const bool showingNet = properties_->section() == 0; // an edit of [net] stays on [net]
    model_->setSpec(buildNetworkSpec(model_doc_->document()));
    graph_->setSpec(model_->spec());
    const NetworkSpec& spec = model_->spec();
    table_->resizeColumnsToContents();
    for (int column = 0; column < model_->columnCount(); ++column) // breathing room between columns
        table_->setColumnWidth(column, table_->columnWidth(column) + 16);
    updateTitle();
    trainPanel_->setDetector(std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerSpec& layer) {
        return detectionHeadInfo(layer.config.get()).has_value();
    }));
    trainPanel_->setPlannedIterations(spec.net.maxBatches);
    // What the Training panel's data check depends on: the data is read again when one of them changes
    // (Set classes to the .data's classes, say).
    QString needs = QString("%1x%2x%3, max %4, errors %5, classes")
                        .arg(spec.input.w)
                        .arg(spec.input.h)
                        .arg(spec.input.c)
                        .arg(maxTruthBoxes(spec.layers))
                        .arg(std::count_if(spec.diagnostics.begin(), spec.diagnostics.end(),
                                           [](const Diagnostic& d) { return d.isError(); }));
    for (const LayerSpec& layer : spec.layers)
        if (const auto head = detectionHeadInfo(layer.config.get()))
            needs += " " + QString::number(head->classes);
    trainPanel_->setDataNeeds(needs);
    if (selected >= 0)
        selectLayer(std::min(selected, int(spec.layers.size()) - 1));
    if (showingNet)
        properties_->showSection(0);
    showProblems();
}

// The training data's classes against the network's: found here, not only when Train is clicked.
std::optional<Diagnostic> MainWindow::dataClassesProblem() const
{
    const auto [classes, dataName] = dataClasses();
    const NetworkSpec& spec = model_->spec();
    if (classes < 1 || spec.layers.empty())
        return std::nullopt;
    // A detector: the first head whose classes differ (read from the heads themselves, so a network Set
    // classes cannot edit — yolo9000's tree, a head after a route — is still checked).
    bool detector = false;
    for (const LayerSpec& layer : spec.layers) {
        const auto head = detectionHeadInfo(layer.config.get());
        detector = detector || head.has_value();
        if (head && head->classes != classes)
            return Diagnostic{Severity::Warning, spec.file, layer.line, layer.index,
                              "classes=" + std::to_string(head->classes) + " but the training data " +
                                  dataName.toStdString() + " has classes=" + std::to_string(classes) +
                                  ": Edit ▸ Set classes… changes every head (and the filters= before it)"};
    }
    if (detector)
        return std::nullopt;
    const ClassesPlan plan = planClasses(spec, classes); // a classifier: its outputs
    const LayerSpec* at = outputSizeLayer(spec);
    if (plan.currentClasses < 1 || plan.currentClasses == classes || !at)
        return std::nullopt;
    return Diagnostic{Severity::Warning, spec.file, at->line, at->index,
                      "the network ends with " + std::to_string(plan.currentClasses) +
                          " outputs but the training data " + dataName.toStdString() +
                          " has classes=" + std::to_string(classes) + ": Edit ▸ Set classes… changes them"};
}

std::pair<int, QString> MainWindow::dataClasses() const
{
    const QString path = trainPanel_ ? trainPanel_->dataEdit()->text() : QString();
    if (path.isEmpty() || !QFileInfo(path).isFile())
        return {0, QString()};
    std::string error;
    const auto dataFile = loadDataFile(path.toStdString(), error);
    return {dataFile ? dataFile->classes() : 0, QFileInfo(path).fileName()};
}

void MainWindow::showSetClasses()
{
    if (model_doc_->isReadOnly())
        return;
    commitPendingEdits();
    const auto [classes, dataName] = dataClasses();
    SetClassesDialog dialog(model_->spec(), classes, dataName, this);
    if (dialog.exec() != QDialog::Accepted || dialog.plan().edits.empty())
        return;
    const QString step = setClassesStepText(dialog.classesBox()->value(), dialog.plan());
    const QString refused = model_doc_->setValues(step, dialog.plan().edits);
    statusBar()->showMessage(refused.isEmpty() ? step : refused, 8000);
}

void MainWindow::showProblems()
{
    const NetworkSpec& spec = model_->spec();
    Diagnostics shown = spec.diagnostics;
    if (auto problem = dataClassesProblem())
        shown.push_back(*problem);
    source_->setProblems(shown);
    problems_->clear();
    for (const Diagnostic& d : shown) {
        auto* item = new QListWidgetItem(
            style()->standardIcon(d.isError() ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning),
            QString::fromStdString(d.format()), problems_);
        item->setData(Qt::UserRole, d.layer);
        if (d.file.empty() || d.file == model_doc_->document().fileName())
            item->setData(Qt::UserRole + 1, d.line);
        item->setToolTip(item->text());
    }
    if (shown.empty()) {
        auto* item =
            new QListWidgetItem(tr("No problems: every layer's shape and cost is known."), problems_);
        item->setData(Qt::UserRole, -2);
        item->setFlags(Qt::ItemIsEnabled);
    }
    const auto errors =
        std::count_if(shown.begin(), shown.end(), [](const Diagnostic& d) { return d.isError(); });
    const auto warnings = static_cast<qsizetype>(shown.size()) - errors;
    // The problems first: on a narrow window the end of the line is what is cut off.
    const auto counted = [](qsizetype n, const QString& one, const QString& many) {
        return n == 1 ? one : many.arg(n);
    };
    totals_->setText(tr("%1, %2 · %3 · %4 BFLOPs · %5 params · workspace %6 · activations %7 at inference")
                         .arg(counted(errors, tr("1 error"), tr("%1 errors")))
                         .arg(counted(warnings, tr("1 warning"), tr("%1 warnings")))
                         .arg(counted(qsizetype(spec.layers.size()), tr("1 layer"), tr("%1 layers")))
                         .arg(QLocale().toString(spec.totalBflops, 'f', 3))
                         .arg(QLocale().toString(qlonglong(spec.totalParams)))
                         .arg(QString::fromStdString(humanBytes(spec.maxWorkspaceBytes)))
                         .arg(QString::fromStdString(humanBytes(spec.inferenceMemoryBytes))));
}

QString MainWindow::runWeights() const
{
    if (trainPanel_->cfgPath().isEmpty())
        return {};
    // The newer of the run's final weights and its checkpoint (a resumed run stopped early has an
    // older _final.weights beside it).
    const QString run =
        trainPanel_->outputEdit()->text() + "/" + QFileInfo(trainPanel_->cfgPath()).completeBaseName();
    const QFileInfo finalWeights(run + "_final.weights"), lastWeights(run + "_last.weights");
    if (finalWeights.exists() &&
        (!lastWeights.exists() || finalWeights.lastModified() >= lastWeights.lastModified()))
        return finalWeights.filePath();
    return lastWeights.exists() ? lastWeights.filePath() : QString();
}

QString MainWindow::shortcutsText() const
{
    QString rows;
    for (QAction* menu : menuBar()->actions())
        for (QAction* action : menu->menu() ? menu->menu()->actions() : QList<QAction*>())
            if (!action->shortcut().isEmpty())
                rows += QString("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td></tr>")
                            .arg(action->text().remove('&'),
                                 action->shortcut().toString(QKeySequence::NativeText));
    return "<table>" + rows + "</table>" +
           tr("<p>In the graph: Up and Down (or Left and Right) choose the previous or next layer, Home "
              "and End the first and last. In the Layers palette: type a layer type's first letters, "
              "Enter inserts it after the selected layer. Tab moves between controls.</p>");
}

int MainWindow::selectedLayer() const
{
    const QModelIndex current =
        table_->selectionModel() ? table_->selectionModel()->currentIndex() : QModelIndex();
    if (!current.isValid())
        return -1;
    const int row = proxy_->mapToSource(current).row();
    return row < model_->totalsRow() ? row : -1;
}

void MainWindow::insertLayer(const QString& type)
{
    const int selected = selectedLayer();
    const int at = selected >= 0 ? selected + 1 : int(model_->spec().layers.size());
    model_doc_->insertLayer(at, type, LayerPalette::defaults(type));
    selectLayer(at);
}

bool MainWindow::save()
{
    commitPendingEdits();
    if (model_doc_->path().isEmpty()) {
        const QString path = chooseFileToSave(this, tr("Save network"), tr("untitled.cfg"),
                                              tr("Darknet networks (*.cfg)"), "cfg");
        return !path.isEmpty() && saveAs(withCfgSuffix(path));
    }
    // Another program (a teammate's edit, a git checkout) changed the file since it was read or saved:
    // replacing its changes is the user's call.
    if (model_doc_->changedOnDisk()) {
        const QString name = QFileInfo(model_doc_->path()).fileName();
        const auto answer = QMessageBox::warning(
            this, tr("Changed on disk"),
            tr("%1 was changed on disk since it was opened or last saved. Saving replaces those changes "
               "with the network as the editor shows it.")
                .arg(name),
            QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel);
        if (answer != QMessageBox::Save) {
            statusBar()->showMessage(
                tr("Not saved: %1 keeps the changes made on disk (File ▸ Reload shows them)").arg(name));
            return false;
        }
    }
    return saveAs(model_doc_->path());
}

bool MainWindow::saveAs(const QString& path)
{
    commitPendingEdits();
    const QString error = model_doc_->saveAs(path);
    if (!error.isEmpty()) {
        statusBar()->showMessage(error);
        if (isVisible())
            QMessageBox::warning(this, tr("Cannot save"), error);
        return false;
    }
    // Saving keeps what the panels hold (data, weights, curves); a new network gets its first path.
    if (trainPanel_->cfgPath().isEmpty())
        detectPanel_->setNetwork(path);
    trainPanel_->renameNetwork(path);
    rememberRecent(path);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value("recentFiles").toStringList();
}

void MainWindow::rememberRecent(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    QSettings().setValue("recentFiles", files.mid(0, 10));
    // Later: this may run inside one of the menu's own actions, which the rebuild deletes.
    QMetaObject::invokeMethod(this, &MainWindow::updateRecentMenu, Qt::QueuedConnection);
}

void MainWindow::updateRecentMenu()
{
    recentMenu_->clear();
    for (const QString& path : recentFiles())
        recentMenu_->addAction(
            QFileInfo(path).fileName() + "   " + QFileInfo(path).path(), this, [this, path] {
                if (QFileInfo::exists(path)) {
                    openFile(path);
                    return;
                }
                // Moved or deleted since: say so and drop it from the list.
                QStringList files = recentFiles();
                files.removeAll(path);
                QSettings().setValue("recentFiles", files);
                QMetaObject::invokeMethod(this, &MainWindow::updateRecentMenu, Qt::QueuedConnection);
                statusBar()->showMessage(tr("%1 no longer exists").arg(path), 8000);
            });
    recentMenu_->setEnabled(!recentMenu_->isEmpty() && !trainPanel_->isTraining());
}

void MainWindow::newNetwork()
{
    if (!maybeSave())
        return;
    model_doc_->reset(
        cfg::Document::parse("[net]\nbatch=64\nsubdivisions=1\nwidth=28\nheight=28\nchannels=1\n"
                             "learning_rate=0.01\nmomentum=0.9\ndecay=0.0005\nmax_batches=1000\n\n"),
        QString());
    table_->selectionModel()->clear();
    graph_->selectLayers({});
    graph_->showStart();
    statusBar()->clearMessage();
    trainPanel_->setNetwork(QString());
    detectPanel_->setNetwork(QString());
}

bool MainWindow::maybeSave()
{
    if (properties_)
        commitPendingEdits(); // (a typed value counts as a change to save)
    if (!model_doc_ || !model_doc_->isModified() || !isVisible())
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"),
        tr("%1 has unsaved changes. Save them?")
            .arg(model_doc_->path().isEmpty() ? tr("The network") : QFileInfo(model_doc_->path()).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::updateTitle()
{
    const QString name =
        model_doc_->path().isEmpty() ? tr("untitled.cfg") : QFileInfo(model_doc_->path()).fileName();
    setWindowTitle(tr("%1%2 — Netwright").arg(name, model_doc_->isModified() ? "*" : ""));
}

void MainWindow::setEditable(bool editable)
{
    palette_->setEnabled(editable);
    properties_->setEnabled(editable);
    source_->setEditable(editable);
    // The graph's port drags and a click in History reach the document without an action: it refuses.
    model_doc_->setReadOnly(!editable);
    if (auto* history = findChild<QUndoView*>("historyView"))
        history->setEnabled(editable);
    for (QAction* action : editActions_)
        action->setEnabled(editable);
    // Undo and redo follow their stack again (enabled only with something to undo or redo).
    undo_->setEnabled(editable && model_doc_->undoStack()->canUndo());
    redo_->setEnabled(editable && model_doc_->undoStack()->canRedo());
}

void MainWindow::commitPendingEdits()
{
    properties_->commitPendingEdit();
    source_->commitPendingEdit();
}

void MainWindow::raiseProperties()
{
    if (auto* source = findChild<QDockWidget*>("sourceDock");
        source && source->isVisible() && !source->visibleRegion().isEmpty())
        return;
    if (auto* dock = findChild<QDockWidget*>("propertiesDock")) { // its tab in front of Training/Detect
        dock->show();
        dock->raise();
    }
}

void MainWindow::selectLayer(int layer)
{
    if (layer < 0)
        return;
    const QModelIndex index = proxy_->mapFromSource(model_->index(layer, 0));
    table_->selectRow(index.row());
    table_->scrollTo(index);
}

void MainWindow::chooseFile()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open network"), QFileInfo(model_doc_->path()).path(),
                                     tr("Darknet networks (*.cfg);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (trainPanel_->isTraining() && isVisible() &&
        QMessageBox::question(this, tr("Training is running"),
                              tr("Stop the training run and quit? It stops after the current iteration "
                                 "and writes its checkpoint, so it can be resumed."),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes) {
        event->ignore();
        return;
    }
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
}

// The graph keeps room for a card beside the docks: a layout saved on a large screen, restored on a
// small one (or a HiDPI laptop at 200 %: 960 logical pixels), left the canvas 100 pixels wide.
void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (std::exchange(shownOnce_, true))
        return; // (a layout the user made since, un-minimised, is theirs)
    QTimer::singleShot(0, this, [this] {
        constexpr int kCanvasRoom = 320; // a card (190) with its ports, edges and the mini-map's margin
        if (centralWidget()->width() >= kCanvasRoom)
            return;
        auto* palette = findChild<QDockWidget*>("paletteDock");
        auto* properties = findChild<QDockWidget*>("propertiesDock");
        const int paletteWidth = std::min(palette->width(), std::max(120, width() / 6));
        const int rightWidth = std::max(200, width() - paletteWidth - kCanvasRoom - 30);
        resizeDocks({palette, properties}, {paletteWidth, rightWidth}, Qt::Horizontal);
    });
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile() && url.toLocalFile().endsWith(".cfg")) {
            event->acceptProposedAction();
            return;
        }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile() && url.toLocalFile().endsWith(".cfg")) {
            openFile(url.toLocalFile());
            event->acceptProposedAction();
            return;
        }
}

} // namespace nw::ui
