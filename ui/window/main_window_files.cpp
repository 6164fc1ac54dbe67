// The studio's files: open, new, save, save as, reload, recent files, a cfg dropped on the window, and
// the question about unsaved edits before any of them replaces the document.
#include "window/main_window.h"

#include "detect/detect_panel.h"
#include "editor/document_model.h"
#include "editor/graph_view.h"
#include "editor/source_view.h"
#include "train/train_panel.h"
#include "window/save_file_dialog.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <algorithm>

namespace nw::ui {

QString withCfgSuffix(const QString& path)
{
    return QFileInfo(path).suffix().isEmpty() ? path + ".cfg" : path;
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
    table_->scrollToTop();       // (a rebuild keeps the table where it was: another file starts at its top)
    statusBar()->clearMessage(); // (what it said was about the network before)
    trainPanel_->setNetwork(path);
    detectPanel_->setNetwork(path, spec());
    // The .data found beside the cfg, and the weights of a run trained before (by the CLI into backup=,
    // or here), where nothing else was chosen.
    detectPanel_->suggest(runWeights(), trainPanel_->dataEdit()->text());
    updateTitle();
    return true;
}

void MainWindow::chooseFile()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open network"), QFileInfo(model_doc_->path()).path(),
                                     tr("Darknet networks (*.cfg);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
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
    table_->scrollToTop(); // (a rebuild keeps the table where it was: another file starts at its top)
    statusBar()->clearMessage();
    trainPanel_->setNetwork(QString());
    detectPanel_->setNetwork(QString(), spec());
}

bool MainWindow::maybeSave()
{
    // A typed value counts as a change to save. (Not commitPendingEdits: text typed in Source that is
    // refused is asked about below, and its "Not saved" stayed in the status bar after a Cancel.)
    // (an unfinished number, "1e", is no value to save: dropped, as a click elsewhere drops it — a
    // question's dialog took the focus and closed its editor anyway)
    if (properties_ && !properties_->commitPendingEdit().isEmpty())
        properties_->dropPendingEdit();
    if (source_)
        source_->commitPendingEdit();
    // Text typed in Source that the document refused (binary data) is in no file: not dropped unasked.
    if (source_ && source_->hasPendingEdit() && isVisible()) {
        if (QMessageBox::warning(this, tr("Text not applied"),
                                 tr("The text typed in Source is not in the network: %1\n\nDiscard it?")
                                     .arg(source_->refusal()),
                                 QMessageBox::Discard | QMessageBox::Cancel) != QMessageBox::Discard)
            return false;
        source_->dropPendingEdit(); // (else saving the edits before it is refused for its sake)
    }
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

bool MainWindow::save()
{
    if (!commitPendingEdits())
        return false;
    if (model_doc_->path().isEmpty()) {
        const QString path = chooseFileToSave(this, tr("Save network"), tr("untitled.cfg"),
                                              tr("Darknet networks (*.cfg)"), "cfg");
        return !path.isEmpty() && saveAs(withCfgSuffix(path));
    }
    const QString folder = QFileInfo(model_doc_->path()).canonicalPath();
    if (std::ranges::any_of(bundledFolders_, [&](const QString& bundled) {
            return !folder.isEmpty() && QFileInfo(bundled).canonicalFilePath() == folder;
        })) {
        const QString path =
            chooseFileToSave(this, tr("Save your copy of the bundled network"),
                             QDir::homePath() + "/" + QFileInfo(model_doc_->path()).fileName(),
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
    if (!commitPendingEdits())
        return false;
    if (const QString problem = model_doc_->saveAs(path); !problem.isEmpty()) {
        // What is wrong with the folder, when that is it (the file's own error named only the file),
        // and that nothing is lost.
        const QFileInfo folder(QFileInfo(path).absolutePath());
        const QString where = !folder.exists()  ? tr(" (the folder %1 does not exist)").arg(folder.filePath())
                              : !folder.isDir() ? tr(" (%1 is not a folder)").arg(folder.filePath())
                                                : QString();
        // A read-only file in a folder that takes files: another name is enough (another folder was the
        // advice). Read from the file, as the refusal decided it (no one may write it, or this user not).
        const QFileInfo file(path);
        const bool fileRefused =
            file.isFile() &&
            (!file.isWritable() ||
             !(file.permissions() & (QFile::WriteOwner | QFile::WriteGroup | QFile::WriteOther)));
        const QString error =
            problem + where +
            (fileRefused
                 ? tr(". The network stays open with its edits (File ▸ Save As… saves it under another "
                      "name)")
                 : tr(". The network stays open with its edits: save it in another folder with "
                      "File ▸ Save As…"));
        statusBar()->showMessage(error);
        if (isVisible())
            QMessageBox::warning(this, tr("Cannot save"), error);
        return false;
    }
    // Saving keeps what the panels hold (data, weights, curves); a new network gets its first path.
    if (trainPanel_->cfgPath().isEmpty())
        detectPanel_->setNetwork(path, spec());
    trainPanel_->renameNetwork(path);
    rememberRecent(path);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::updateTitle()
{
    const QString name =
        model_doc_->path().isEmpty() ? tr("untitled.cfg") : QFileInfo(model_doc_->path()).fileName();
    setWindowTitle(tr("%1%2 — Netwright").arg(name, model_doc_->isModified() ? "*" : ""));
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
