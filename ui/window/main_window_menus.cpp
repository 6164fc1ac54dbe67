// The studio's menus, toolbar and keyboard shortcuts (MainWindow's actions), and Help ▸ Keyboard
// shortcuts read back from them.
#include "window/main_window.h"

#include "cfg/layer_edits.h"
#include "detect/detect_panel.h"
#include "editor/document_model.h"
#include "editor/edit_actions.h"
#include "editor/graph_view.h"
#include "editor/property_panel.h"
#include "table/layer_table_model.h"
#include "train/train_panel.h"
#include "window/keyboard_focus.h"
#include "window/save_file_dialog.h"
#include "window/text_dialog.h"
#ifdef NETWRIGHT_WITH_ONNX
#include "export/onnx_export_dialog.h"
#endif

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QGuiApplication>
#include <QMap>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QToolBar>
#include <QUndoStack>

namespace nw::ui {

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
                                                  tr("&Open…"), this, &MainWindow::chooseFile);
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
    recentMenu_ = file->addMenu(tr("Open Recen&t"));
    recentMenu_->setObjectName("recentMenu");
    updateRecentMenu();
    QAction* newAction = file->addAction(tr("&New"), this, &MainWindow::newNetwork);
    newAction->setShortcut(QKeySequence::New);
    QAction* saveAction = file->addAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save"),
                                          this, [this] { save(); });
    saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAsAction = file->addAction(tr("Save &As…"), this, [this] {
        const QString path = chooseFileToSave(
            this, tr("Save network"), model_doc_->path().isEmpty() ? tr("untitled.cfg") : model_doc_->path(),
            tr("Darknet networks (*.cfg)"), "cfg");
        if (!path.isEmpty())
            saveAs(withCfgSuffix(path));
    });
    saveAsAction->setShortcut(standardKey(QKeySequence::SaveAs, Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    file->addSeparator();
    QAction* exportOnnx = file->addAction(tr("&Export ONNX…"), this, &MainWindow::showOnnxExport);
    exportOnnx->setObjectName("exportOnnxAction");
#ifndef NETWRIGHT_WITH_ONNX
    exportOnnx->setEnabled(false);
    exportOnnx->setToolTip(tr("This build has no ONNX export (it needs libonnx-dev)"));
#endif
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = model_doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setProperty("commandName", tr("Undo")); // (its text names the step it would undo)
    undo->setShortcuts(QKeySequence::Undo);       // (every key the desktop has for it: Alt+Backspace too)
    QAction* redo = model_doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setProperty("commandName", tr("Redo"));
    // Every key the desktop has for Redo (QKeySequence(Redo) is only the first: Ctrl+Shift+Z did
    // nothing on X11), and Ctrl+Y where it is not one of them.
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    if (!redoKeys.contains(QKeySequence(Qt::CTRL | Qt::Key_Y)))
        redoKeys << QKeySequence(Qt::CTRL | Qt::Key_Y);
    redo->setShortcuts(redoKeys);
    edit->addAction(undo);
    edit->addAction(redo);
    // What was undone or redone, in the status bar (the step's own message, "Layer 3 now reads layer
    // 0", stayed there after it was undone).
    QUndoStack* stack = model_doc_->undoStack();
    connect(undo, &QAction::triggered, this, [this, stack] {
        if (const QUndoCommand* undone = stack->command(stack->index()))
            statusBar()->showMessage(tr("Undone: %1").arg(undone->text()), 10000);
    });
    connect(redo, &QAction::triggered, this, [this, stack] {
        if (const QUndoCommand* redone = stack->command(stack->index() - 1))
            statusBar()->showMessage(tr("Redone: %1").arg(redone->text()), 10000);
    });
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
        // A value typed in Properties first (Ctrl+Up/Down reach the window from its cell editor, whose
        // value the move's rebuild of the rows dropped).
        if (const QString refusal = properties_->commitPendingEdit(); !refusal.isEmpty()) {
            statusBar()->showMessage(tr("Not moved: %1").arg(refusal));
            return;
        }
        if (!source_->commitPendingEdit()) {
            statusBar()->showMessage(unappliedSourceText(tr("Not moved")));
            return;
        }
        const int layer = selectedLayer();
        if (layer + step < 0 || layer + step >= cfg::layerCount(model_doc_->document()))
            return;
        if (const QString problem = model_doc_->moveLayer(layer, layer + step); !problem.isEmpty()) {
            statusBar()->showMessage(problem, 10000);
            return;
        }
        selectLayer(layer + step);
    };
    QAction* up = edit->addAction(tr("Move la&yer up"), this, [move] { move(-1); });
    up->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up));
    QAction* down = edit->addAction(tr("Move layer do&wn"), this, [move] { move(1); });
    down->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down));
    edit->addSeparator();
    edit->addAction(tr("Copy table as te&xt"), this,
                    [this] { QGuiApplication::clipboard()->setText(model_->toText(false)); });
    edit->addAction(tr("Copy table as CS&V"), this,
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
        // (a letter of its own for Alt+V and the letter)
        static const QMap<QString, QString> withMnemonic = {
            {"tableDock", tr("Layer &table")}, {"propertiesDock", tr("&Properties")},
            {"sourceDock", tr("&Source")},     {"historyDock", tr("&History")},
            {"paletteDock", tr("&Layers")},    {"problemsDock", tr("Pro&blems")},
            {"trainDock", tr("Trai&ning")},    {"detectDock", tr("&Detect")}};
        auto* show = new QAction(withMnemonic.value(dock->objectName(), toggle->text()), this);
        show->setCheckable(true);
        show->setObjectName(dock->objectName() + "Action");
        connect(toggle, &QAction::changed, show, [show, toggle] { show->setChecked(toggle->isChecked()); });
        show->setChecked(toggle->isChecked());
        connect(show, &QAction::triggered, dock, [dock, show] {
            const bool behind = isBehindAnotherTab(dock);
            if (dock->isVisible() && !behind) {
                dock->hide();
            } else {
                dock->show();
                dock->raise();
                // Its first control, not the scroll area around a panel (typing then went nowhere).
                if (QWidget* first = firstFocusableIn(dock->widget()))
                    first->setFocus(Qt::ShortcutFocusReason);
            }
            show->setChecked(dock->isVisible());
        });
        view->addAction(show);
    }
    view->addSeparator();
    // The keyboard from pane to pane (the graph, each dock in view), as F6 does in most applications:
    // the graph was fifty Tabs away from the docks.
    const auto focusPane = [this](bool forward) {
        QWidget* pane = neighbourPane(*this, QApplication::focusWidget(), forward);
        QWidget* target = pane == graph_ ? pane : firstFocusableIn(pane);
        if (target)
            target->setFocus(forward ? Qt::TabFocusReason : Qt::BacktabFocusReason);
    };
    view->addAction(tr("Ne&xt pane"), this, [focusPane] { focusPane(true); })
        ->setShortcut(QKeySequence(Qt::Key_F6));
    view->addAction(tr("Pre&vious pane"), this, [focusPane] { focusPane(false); })
        ->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F6));
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
    // A cfg that starts with a layer (a fragment copied from another) has no input: one click adds the
    // [net] section, with the input of Darknet's detectors to change in Properties, and a schedule that
    // trains (as File ▸ New's does: without max_batches Train had nothing to run; lr 0.001 with a
    // burn_in, as Darknet's detectors start).
    addNet_ = edit->addAction(tr("&Add [net] section"), this, [this] {
        model_doc_->addNetSection({{"batch", "16"},
                                   {"subdivisions", "1"},
                                   {"width", "416"},
                                   {"height", "416"},
                                   {"channels", "3"},
                                   {"learning_rate", "0.001"},
                                   {"burn_in", "100"},
                                   {"momentum", "0.9"},
                                   {"decay", "0.0005"},
                                   {"max_batches", "2000"}});
        if (!cfg::startsWithNet(model_doc_->document()))
            return; // (refused: read-only while training)
        table_->selectionModel()->clear();
        graph_->selectLayers({});
        properties_->showSection(0);
        raiseProperties();
        statusBar()->showMessage(
            tr("Added [net] at the top: set width, height and channels to the network's input"), 10000);
    });
    addNet_->setObjectName("addNetAction");
    addNet_->setVisible(false);
    QAction* setClasses = edit->addAction(tr("Set cla&sses…"), this, &MainWindow::showSetClasses);
    setClasses->setObjectName("setClassesAction");
    setClasses->setStatusTip(tr("Every detection head's classes= and the filters= before it, in one step"));
    undo_ = undo;
    redo_ = redo;
    editActions_ = {undo, redo, up, down, newAction, setClasses, addNet_};
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
    QAction* detectImage = run->addAction(tr("&Detect on an image…"), this, [this, clickIn] {
        clickIn("detectDock", detectPanel_->imageButton());
    });
    detectImage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    for (QAction* action : {train, pause, stopTraining, detectImage})
        action->setShortcutContext(Qt::ApplicationShortcut);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Getting started"), this, [this] {
        showTextDialog( // (scrolls: as a message box it just fitted a 600-pixel screen)
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
                    [this] { showTextDialog(this, tr("Keyboard shortcuts"), shortcutsText()); });
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

QString MainWindow::shortcutsText() const
{
    QString rows;
    for (QAction* menu : menuBar()->actions())
        for (QAction* action : menu->menu() ? menu->menu()->actions() : QList<QAction*>())
            if (!action->shortcut().isEmpty()) {
                QStringList keys; // every key it has (Redo: Ctrl+Shift+Z and Ctrl+Y; only the first was said)
                for (const QKeySequence& key : action->shortcuts())
                    keys << key.toString(QKeySequence::NativeText);
                rows += QString("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td></tr>")
                            .arg(action->property("commandName").isValid()
                                     ? action->property("commandName").toString()
                                     : action->text().remove('&'),
                                 keys.join(", "));
            }
    return "<table>" + rows + "</table>" +
           tr("<p>In the graph: Up and Down (or Left and Right) choose the previous or next layer, Home "
              "and End the first and last. In the Layers palette: type a layer type's first letters, "
              "Enter inserts it after the selected layer. In Source: Ctrl+F finds in the text, F3 and "
              "Shift+F3 go to the next and previous match, Ctrl+Z undoes the typing. Tab moves between "
              "controls.</p>");
}

} // namespace nw::ui
