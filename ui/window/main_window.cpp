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
#include "editor/source_find_bar.h"
#include "editor/source_view.h"
#include "layers/detection_heads.h"
#include "report/summary.h"
#include "table/layer_sort_proxy.h"
#include "table/layer_table_model.h"
#include "train/train_panel.h"
#include "widgets/cost_text.h"
#include "window/dialog_activation.h"
#include "window/keyboard_focus.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QUndoView>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

namespace nw::ui {

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
    table_->setAccessibleName(tr("Layer table"));
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
    graph_->setAccessibleName(tr("Network graph"));
    setCentralWidget(graph_);
    auto* tableDock = new QDockWidget(tr("Layer table"), this);
    tableDock->setObjectName("tableDock");
    tableDock->setWidget(table_);
    addDockWidget(Qt::BottomDockWidgetArea, tableDock);

    model_doc_ = new DocumentModel(this);
    connect(model_doc_->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    properties_ = new PropertyPanel(*model_doc_, this);
    auto* propertiesDock = new QDockWidget(tr("Properties"), this);
    propertiesDock->setObjectName("propertiesDock");
    propertiesDock->setWidget(scrollable(properties_));
    addDockWidget(Qt::RightDockWidgetArea, propertiesDock);
    source_ = new SourceView(*model_doc_, this);
    auto* sourcePanel = new QWidget(this); // the text and, under it, Find (Ctrl+F there)
    auto* find = new SourceFindBar(*source_, sourcePanel);
    auto* sourceLayout = new QVBoxLayout(sourcePanel);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    sourceLayout->setSpacing(0);
    sourceLayout->addWidget(source_, 1);
    sourceLayout->addWidget(find);
    sourcePanel->setFocusProxy(source_); // (View ▸ Source gives the text the keyboard)
    const auto addFindAction = [sourcePanel](const QString& text, QList<QKeySequence> keys, auto slot) {
        auto* action = new QAction(text, sourcePanel);
        action->setShortcuts(keys);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        QObject::connect(action, &QAction::triggered, sourcePanel, slot);
        sourcePanel->addAction(action);
    };
    addFindAction(tr("Find in the text"), QKeySequence::keyBindings(QKeySequence::Find),
                  [find] { find->open(); });
    addFindAction(tr("Find the next match"), {QKeySequence(Qt::Key_F3)}, [find] {
        if (find->isVisible())
            find->findNext();
    });
    addFindAction(tr("Find the previous match"), {QKeySequence(Qt::SHIFT | Qt::Key_F3)}, [find] {
        if (find->isVisible())
            find->findNext(true);
    });
    auto* sourceDock = new QDockWidget(tr("Source"), this);
    sourceDock->setObjectName("sourceDock");
    sourceDock->setWidget(sourcePanel);
    addDockWidget(Qt::RightDockWidgetArea, sourceDock);
    tabifyDockWidget(propertiesDock, sourceDock);
    // (after the Source view's own connection: it shows the new text before problems and the selection
    // are put on its lines)
    connect(model_doc_, &DocumentModel::changed, this, &MainWindow::showSpec);
    connect(model_doc_, &DocumentModel::edited, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    // An undone Delete selects every layer it brings back (one was, the rest lost their selection).
    connect(model_doc_, &DocumentModel::layersRestored, this, [this](const std::vector<int>& layers) {
        selectLayer(layers.front());
        graph_->selectLayers(layers);
    });
    // While Source holds text that is no cfg, the history waits: an undo or a History click would
    // replace that text (Ctrl+Z in it drops it; fixing it applies it).
    connect(source_, &SourceView::refused, this, [this](const QString& reason) {
        if (reason.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(tr("The text in Source is not applied: %1").arg(reason));
        setEditable(!trainPanel_->isTraining());
    });
    // Every edit made elsewhere applies to the text as typed in Source, not to what it was before.
    model_doc_->setBeforeEdit([this] { return source_->commitPendingEdit(); });
    palette_ = new LayerPalette(this);
    auto* paletteDock = new QDockWidget(tr("Layers"), this);
    paletteDock->setObjectName("paletteDock");
    paletteDock->setWidget(scrollable(palette_));
    addDockWidget(Qt::LeftDockWidgetArea, paletteDock);
    connect(palette_, &LayerPalette::insertRequested, this, &MainWindow::insertLayer);
    auto* undoView = new QUndoView(model_doc_->undoStack(), this);
    undoView->setObjectName("historyView");
    undoView->setAccessibleName(tr("Edit history"));
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
    // (The selection, not the current row: a table given the keyboard makes its first row current,
    // unselected, and that chose layer 0 everywhere.)
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
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
            if (!trainPanel_->isTraining()) // (the live curves stay: the keys are read-only meanwhile)
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
        if (refuseLayersWithoutNet())
            return;
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
    problems_->setAccessibleName(tr("Problems"));
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
        // A problem of the text itself (an unclosed header, a line without '='): fixed in Source, where
        // its line is; Properties, raised for it before, shows no such line.
        if (item->data(Qt::UserRole + 2).toBool()) {
            findChild<QDockWidget*>("sourceDock")->raise();
            source_->goToLine(item->data(Qt::UserRole + 1).toInt());
            source_->setFocus();
            return;
        }
        if (layer == -1) {
            table_->selectionModel()->clear(); // as Edit [net]
            graph_->selectLayers({});
            properties_->showSection(0);
        } else
            selectLayer(layer);
        raiseProperties();
        // Its line, where the text shows it (after the layer's choice put the cursor on its header).
        source_->goToLine(item->data(Qt::UserRole + 1).toInt());
    });

    trainPanel_ = new TrainPanel(this);
    auto* trainDock = new QDockWidget(tr("Training"), this);
    trainDock->setObjectName("trainDock");
    trainDock->setWidget(scrollable(trainPanel_));
    addDockWidget(Qt::RightDockWidgetArea, trainDock);
    tabifyDockWidget(propertiesDock, trainDock);
    detectPanel_ = new DetectPanel(this);
    connect(detectPanel_, &DetectPanel::saved, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(model_doc_, &DocumentModel::changed, detectPanel_, &DetectPanel::networkEdited);
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
    trainPanel_->setEditorCheck([this] {
        if (const QString refusal = properties_->commitPendingEdit(); !refusal.isEmpty())
            return tr("Not started: %1").arg(refusal);
        return source_->commitPendingEdit() ? QString() : unappliedSourceText(tr("Not started"));
    });
    trainPanel_->setCfgTextSource([this] {
        commitPendingEdits();
        return QString::fromStdString(model_doc_->document().toText());
    });
    trainPanel_->setCfgTextPeek([this] { return model_doc_->document().toText(); });
    // Unsaved edits train too, but the weights then fit no file on disk (the run folder keeps the cfg it
    // trained): saving first is offered.
    trainPanel_->setStartQuestion([this] {
        if (!model_doc_->isModified() || model_doc_->path().isEmpty() || !isVisible())
            return true;
        QMessageBox question(QMessageBox::Question, tr("Unsaved changes"),
                             tr("%1 has unsaved changes.").arg(QFileInfo(model_doc_->path()).fileName()),
                             QMessageBox::Save | QMessageBox::Cancel, this);
        question.setInformativeText(
            tr("Training uses the network as the editor shows it. Save it first, so that the weights fit the "
               "file? (Without saving, the run's folder keeps the network it trained, as %1_trained.cfg.)")
                .arg(QFileInfo(model_doc_->path()).completeBaseName()));
        question.button(QMessageBox::Save)->setText(tr("Save and train"));
        QPushButton* without = question.addButton(tr("Train without saving"), QMessageBox::AcceptRole);
        question.setDefaultButton(QMessageBox::Save);
        question.exec();
        if (question.clickedButton() == without)
            return true;
        return question.clickedButton() == question.button(QMessageBox::Save) && save();
    });
    detectPanel_->setEditorCheck([this] {
        if (const QString refusal = properties_->commitPendingEdit(); !refusal.isEmpty())
            return tr("Not run: %1").arg(refusal);
        return source_->commitPendingEdit() ? QString() : unappliedSourceText(tr("Not run"));
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
        runStateMessage_ =
            training ? tr("Training — the network is read-only until the run ends") : QString();
        statusBar()->showMessage(runStateMessage_);
    });
    connect(trainPanel_, &TrainPanel::pauseChanged, this, [this](bool paused) {
        if (runStateMessage_.isEmpty())
            return; // (no run)
        runStateMessage_ = paused ? tr("Paused — the network stays read-only until the run ends (Resume goes "
                                       "on, Stop ends it)")
                                  : tr("Training — the network is read-only until the run ends");
        statusBar()->showMessage(runStateMessage_);
    });
    // While a run lasts its state comes back whenever the line empties: a menu's status tip, a timed
    // message or a cleared one took it away for good, and the window looked editable again.
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& message) {
        if (message.isEmpty() && !runStateMessage_.isEmpty())
            statusBar()->showMessage(runStateMessage_);
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
    keepKeyboardInView();

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
    const bool droppedAsUnusable = restored && !usable(); // (asked before the window is resized below)
    if (restored && usable() && !(windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))) {
        // Saved on a larger screen (1406×828 on a 1280×720 one hid the status bar and the panels' right
        // edge): brought inside the screen it is most on.
        QRect best;
        long long bestOverlap = -1;
        for (const QScreen* screen : QGuiApplication::screens()) {
            const QRect overlap = frameGeometry().intersected(screen->availableGeometry());
            if (const long long area = (long long)overlap.width() * overlap.height(); area > bestOverlap) {
                bestOverlap = area;
                best = screen->availableGeometry();
            }
        }
        const QMargins frame(
            geometry().left() - frameGeometry().left(), geometry().top() - frameGeometry().top(),
            frameGeometry().right() - geometry().right(), frameGeometry().bottom() - geometry().bottom());
        if (const QRect inside = placeInside(frameGeometry(), best); inside != frameGeometry())
            setGeometry(inside - frame);
    }
    if (!restored || !usable()) {
        // The first window fits the screen it opens on (1480×900 at most): a 1366×768 laptop included.
        const QRect available = screen()->availableGeometry();
        resize(std::min(1480, available.width() * 95 / 100), std::min(900, available.height() * 92 / 100));
        if (restored) // (placed by the garbage, maybe off every screen: centred instead)
            move(available.center() - rect().center());
    }
    sizeDocksForWindow();
    defaultState_ = saveState(); // View ▸ Reset layout goes back to this
    // The docks' sizes belong to the window they were saved with: one dropped as unusable (too small)
    // had squashed them, and they stayed 110 px wide in the full-size window that replaced it.
    if (!droppedAsUnusable)
        restoreState(settings.value("window/state").toByteArray());
}

void MainWindow::sizeDocksForWindow()
{
    // The right-hand panels get about half the window (at most ~680 px: each fits in 640, tested).
    resizeDocks({findChild<QDockWidget*>("paletteDock"), findChild<QDockWidget*>("propertiesDock")},
                {200, std::min(680, width() * 55 / 100)}, Qt::Horizontal);
    // The table shows its header and three rows at least (at 150 % on a 1280×720 screen, 2/9 of the
    // window left half of one row).
    const int threeRows = 10 * fontMetrics().lineSpacing(); // title, tabs, header, rows and scroll bar
    resizeDocks({findChild<QDockWidget*>("tableDock")},
                {std::min(250, std::max(threeRows, height() * 2 / 9))}, Qt::Vertical);
}

QString MainWindow::settingsProblem()
{
    // (QSettings says nothing when it cannot write: recent files and the layout were lost at exit)
    const QString file = QSettings().fileName();
    const QFileInfo info(file);
    // (the folder too: QSettings writes a new file beside the old one and renames it)
    const bool writable = QDir().mkpath(info.absolutePath()) && QFileInfo(info.absolutePath()).isWritable() &&
                          (!info.exists() || info.isWritable());
    return writable
               ? QString()
               : tr("Settings are not saved: %1 cannot be written (recent files, the window's layout and "
                    "the last data set will be forgotten when the studio closes)")
                     .arg(QDir::toNativeSeparators(file));
}

QRect MainWindow::placeInside(const QRect& frame, const QRect& screen)
{
    QRect placed(frame.topLeft(),
                 QSize(std::min(frame.width(), screen.width()), std::min(frame.height(), screen.height())));
    placed.moveLeft(
        std::clamp(placed.left(), screen.left(), screen.left() + screen.width() - placed.width()));
    placed.moveTop(std::clamp(placed.top(), screen.top(), screen.top() + screen.height() - placed.height()));
    return placed;
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

const NetworkSpec& MainWindow::spec() const
{
    return model_->spec();
}

void MainWindow::showSpec()
{
    const int selected = selectedLayer();
    // The rebuilt table and graph stay where they were scrolled: a value committed by a click further
    // down the table, or on another card, scrolled both back to the edited layer first, and the click
    // then landed on another layer (or on empty canvas). Edits that add a layer select it afterwards.
    const int tableScroll = table_->verticalScrollBar()->value();
    const bool showingNet = properties_->section() == 0; // an edit of [net] stays on [net]
    model_->setSpec(buildNetworkSpec(model_doc_->document()));
    graph_->setSpec(model_->spec());
    // (where the graph's rebuild kept the card looked at)
    const QPoint graphScroll(graph_->horizontalScrollBar()->value(), graph_->verticalScrollBar()->value());
    const NetworkSpec& spec = model_->spec();
    Diagnostics ownLines; // (a line number of another file, a 9k.tree, would mark an unrelated key)
    for (const Diagnostic& d : spec.diagnostics)
        if (d.file.empty() || d.file == model_doc_->document().fileName())
            ownLines.push_back(d);
    properties_->setProblems(ownLines);
    if (addNet_)
        addNet_->setVisible(!model_doc_->document().sections().empty() &&
                            !cfg::startsWithNet(model_doc_->document()));
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
    // The same layer, or none when the edit (an undo of a paste) took it away: the one that took its
    // number was selected, and Del removed it.
    if (const int followed = graph_->followedLayer(selected); followed >= 0) {
        selectLayer(followed);
    } else if (selected >= 0) { // (Properties kept its section: another layer's keys now)
        table_->selectionModel()->clear();
        properties_->showSection(0);
    }
    table_->verticalScrollBar()->setValue(tableScroll);
    graph_->horizontalScrollBar()->setValue(graphScroll.x());
    graph_->verticalScrollBar()->setValue(graphScroll.y());
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
    std::set<std::pair<int, std::string>> textProblems; // the cfg's syntax, as opposed to its values
    for (const Diagnostic& d : model_doc_->document().diagnostics())
        textProblems.emplace(d.line, d.message);
    for (const Diagnostic& d : shown) {
        auto* item = new QListWidgetItem(
            style()->standardIcon(d.isError() ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning),
            QString::fromStdString(d.format()), problems_);
        item->setData(Qt::UserRole, d.layer);
        if (d.file.empty() || d.file == model_doc_->document().fileName())
            item->setData(Qt::UserRole + 1, d.line);
        item->setData(Qt::UserRole + 2, textProblems.contains({d.line, d.message}));
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
    // (the totals' caveat right after the problems: last, it was the first thing a narrow window cut)
    const int leftOut = spec.layersLeftOutOfTotals();
    totals_->setText(tr("%1, %2")
                         .arg(counted(errors, tr("1 error"), tr("%1 errors")))
                         .arg(counted(warnings, tr("1 warning"), tr("%1 warnings"))) +
                     (leftOut == 0   ? QString()
                      : leftOut == 1 ? tr(" · totals without 1 layer at or behind an error")
                                     : tr(" · totals without %1 layers at or behind an error").arg(leftOut)) +
                     tr(" · %1 · %2 BFLOPs · %3 params · workspace %4 · activations %5 at inference")
                         .arg(counted(qsizetype(spec.layers.size()), tr("1 layer"), tr("%1 layers")))
                         .arg(bflopsText(spec.totalBflops))
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

int MainWindow::selectedLayer() const
{
    const QModelIndexList rows =
        table_->selectionModel() ? table_->selectionModel()->selectedRows() : QModelIndexList();
    if (rows.isEmpty())
        return -1;
    const int row = proxy_->mapToSource(rows.first()).row();
    return row < model_->totalsRow() ? row : -1;
}

// A cfg that starts with a layer shows no layers: one dropped there landed between its sections.
bool MainWindow::refuseLayersWithoutNet()
{
    const cfg::Document& document = model_doc_->document();
    if (document.sections().empty() || cfg::startsWithNet(document))
        return false;
    statusBar()->showMessage(tr("Not inserted: this cfg starts with [%1], not [net]. Add the [net] section "
                                "first (Edit ▸ Add [net] section); its sections then show as layers.")
                                 .arg(QString::fromStdString(document.sections().front().type)),
                             15000);
    return true;
}

void MainWindow::insertLayer(const QString& type)
{
    if (refuseLayersWithoutNet())
        return;
    const int selected = selectedLayer();
    const int at = selected >= 0 ? selected + 1 : int(model_->spec().layers.size());
    model_doc_->insertLayer(at, type, LayerPalette::defaults(type));
    selectLayer(at);
}

void MainWindow::setEditable(bool editable)
{
    // Text in Source that is no cfg pauses the other editors too (their edits would replace it).
    const bool textRefused = !source_->refusal().isEmpty();
    palette_->setEnabled(editable && !textRefused);
    properties_->setEnabled(editable && !textRefused);
    source_->setEditable(editable);
    // The graph's port drags and a click in History reach the document without an action: it refuses.
    model_doc_->setReadOnly(!editable);
    if (auto* history = findChild<QUndoView*>("historyView"))
        history->setEnabled(editable && !textRefused);
    for (QAction* action : editActions_)
        action->setEnabled(editable && !textRefused);
    // Undo and redo follow their stack again (enabled only with something to undo or redo).
    undo_->setEnabled(editable && !textRefused && model_doc_->undoStack()->canUndo());
    redo_->setEnabled(editable && !textRefused && model_doc_->undoStack()->canRedo());
}

bool MainWindow::commitPendingEdits()
{
    // (an unfinished number, "1e", that Enter refused was saved as typed)
    if (const QString refusal = properties_->commitPendingEdit(); !refusal.isEmpty()) {
        statusBar()->showMessage(tr("Not saved: %1").arg(refusal));
        return false;
    }
    if (source_->commitPendingEdit())
        return true;
    // (what Save would write is not what Source shows: said, and the refusal kept in view)
    statusBar()->showMessage(unappliedSourceText(tr("Not saved")));
    return false;
}

QString MainWindow::unappliedSourceText(const QString& outcome) const
{
    return tr("%1: the text typed in Source is not a cfg (%2); fix it there, or press Ctrl+Z in it to drop "
              "it")
        .arg(outcome, source_->refusal());
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
    table_->selectRow(proxy_->mapFromSource(model_->index(layer, 0)).row());
    // (selecting may commit a value typed in Properties, which rebuilds the model: the index again)
    table_->scrollTo(proxy_->mapFromSource(model_->index(layer, 0)));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // (the words for a run stopped in its first iteration only then: they came at iteration 16 too)
    if (trainPanel_->isTraining() && isVisible() &&
        QMessageBox::question(
            this, tr("Training is running"),
            trainPanel_->hasTrainedAnIteration()
                ? tr("Stop the training run and quit? It stops after the current iteration "
                     "and writes its checkpoint, so it can be resumed.")
                : tr("Stop the training run and quit? It has not finished an iteration yet: it "
                     "stops there and leaves its output folder as it found it."),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes) {
        event->ignore();
        return;
    }
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    // A window shrunk too small to use is not the one to open next time: the last usable one is.
    QList<QRect> screens;
    for (const QScreen* screen : QGuiApplication::screens())
        screens << screen->availableGeometry();
    if (isUsablePlace(frameGeometry(), screens)) {
        QSettings settings;
        settings.setValue("window/geometry", saveGeometry());
        settings.setValue("window/state", saveState());
    }
    event->accept();
}

// The keyboard never stays where no one sees it: a dock sent behind another's tab hands it to the dock
// now in front, and a window left with none (its focused control hidden or deleted, as after a
// dialog) gives it to the graph. Typed keys went into hidden panels, or nowhere.
void MainWindow::keepKeyboardInView()
{
    activateAfterDialogs(this);
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
            if (visible || !dock->isAncestorOf(QApplication::focusWidget()))
                return;
            QTimer::singleShot(0, this, [this, dock] {
                if (!isBehindAnotherTab(QApplication::focusWidget()))
                    return;
                QWidget* target = graph_;
                for (QDockWidget* other : tabifiedDockWidgets(dock))
                    if (!other->visibleRegion().isEmpty())
                        if (QWidget* first = firstFocusableIn(other->widget()))
                            target = first;
                target->setFocus(Qt::OtherFocusReason);
            });
        });
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        if (now)
            return;
        QTimer::singleShot(0, this, [this] {
            if (isActiveWindow() && !QApplication::focusWidget() && !QApplication::activePopupWidget())
                graph_->setFocus(Qt::OtherFocusReason);
        });
    });
}

bool MainWindow::focusNextPrevChild(bool next)
{
    // Qt's own rule for a Tab stop, with a dock behind another's tab passed over. The chain is walked
    // without giving each control the keyboard on the way (that announced hidden controls to screen
    // readers and committed or selected their text).
    QWidget* start = QApplication::focusWidget();
    if (!start || start->window() != this)
        return QMainWindow::focusNextPrevChild(next);
    for (QWidget* w = start;;) {
        w = next ? w->nextInFocusChain() : w->previousInFocusChain();
        if (!w || w == start)
            return false;
        if (w->window() != this || !isTabStop(w, this) || isBehindAnotherTab(w))
            continue;
        w->setFocus(next ? Qt::TabFocusReason : Qt::BacktabFocusReason);
        for (QWidget* up = w->parentWidget(); up; up = up->parentWidget()) // (a panel scrolled past it)
            if (auto* area = qobject_cast<QScrollArea*>(up))
                area->ensureWidgetVisible(w);
        return true;
    }
}

// The graph keeps room for a card beside the docks: a layout saved on a large screen, restored on a
// small one (or a HiDPI laptop at 200 %: 960 logical pixels), left the canvas 100 pixels wide.
void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (std::exchange(shownOnce_, true))
        return; // (a layout the user made since, un-minimised, is theirs)
    if (const QString problem = settingsProblem(); !problem.isEmpty())
        statusBar()->showMessage(problem, 20000);
    QTimer::singleShot(0, this, &MainWindow::keepCanvasRoom);
}

// A window made narrower takes from the docks too: Qt takes it all from the canvas (from 1480 to 1024
// pixels wide, the graph was left 120 pixels, not one card in view).
void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    if (shownOnce_ && isVisible() && event->oldSize().width() > event->size().width())
        QTimer::singleShot(0, this, &MainWindow::keepCanvasRoom);
}

void MainWindow::keepCanvasRoom()
{
    constexpr int kCanvasRoom = 320; // a card (190) with its ports, edges and the mini-map's margin
    if (centralWidget()->width() >= kCanvasRoom)
        return;
    auto* palette = findChild<QDockWidget*>("paletteDock");
    auto* properties = findChild<QDockWidget*>("propertiesDock");
    const int paletteWidth = std::min(palette->width(), std::max(120, width() / 6));
    const int rightWidth = std::max(200, width() - paletteWidth - kCanvasRoom - 30);
    resizeDocks({palette, properties}, {paletteWidth, rightWidth}, Qt::Horizontal);
}

} // namespace nw::ui
