#include "window/main_window.h"

#include "report/summary.h"
#include "table/layer_sort_proxy.h"
#include "table/layer_table_model.h"
#include "train/train_panel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QToolBar>

namespace nw::ui {

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
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(false);
    setCentralWidget(table_);

    problems_ = new QListWidget(this);
    problems_->setObjectName("problemList");
    auto* problemsDock = new QDockWidget(tr("Problems"), this);
    problemsDock->setObjectName("problemsDock");
    problemsDock->setWidget(problems_);
    addDockWidget(Qt::BottomDockWidgetArea, problemsDock);
    resizeDocks({problemsDock}, {130}, Qt::Vertical);
    connect(problems_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { selectLayer(item->data(Qt::UserRole).toInt()); });

    trainPanel_ = new TrainPanel(this);
    auto* trainDock = new QDockWidget(tr("Training"), this);
    trainDock->setObjectName("trainDock");
    trainDock->setWidget(trainPanel_);
    addDockWidget(Qt::RightDockWidgetArea, trainDock);
    connect(trainPanel_, &TrainPanel::trainingChanged, this, [this](bool training) {
        // The network being trained stays as it is until the run ends.
        openAction_->setEnabled(!training);
        reloadAction_->setEnabled(!training);
        setAcceptDrops(!training);
        statusBar()->showMessage(training ? tr("Training — the network is read-only until the run ends")
                                          : QString());
    });

    totals_ = new QLabel(this);
    statusBar()->addPermanentWidget(totals_);
    createActions();

    QSettings settings;
    if (!restoreGeometry(settings.value("window/geometry").toByteArray()))
        resize(1480, 860);
    restoreState(settings.value("window/state").toByteArray());
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = openAction_ = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton),
                                                  tr("&Open..."), this, &MainWindow::chooseFile);
    open->setShortcut(QKeySequence::Open);
    QAction* reload = reloadAction_ = file->addAction(style()->standardIcon(QStyle::SP_BrowserReload),
                                                      tr("&Reload"), this, [this] { openFile(path_); });
    reload->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Netwright"), this, [this] {
        QMessageBox::about(this, tr("About Netwright"),
                           tr("<b>Netwright %1</b><p>Design, train and test Darknet networks.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName("mainToolbar");
    toolbar->addAction(open);
    toolbar->addAction(reload);
}

const NetworkSpec& MainWindow::spec() const
{
    return model_->spec();
}

bool MainWindow::openFile(const QString& path)
{
    cfg::Document document = cfg::Document::load(path.toStdString());
    if (document.readFailed()) {
        const QString message = QString::fromStdString(document.diagnostics().front().format());
        statusBar()->showMessage(message);
        if (isVisible())
            QMessageBox::warning(this, tr("Cannot open"), message);
        return false;
    }
    document_ = std::move(document);
    path_ = path;
    showSpec();
    trainPanel_->setNetwork(path);
    return true;
}

void MainWindow::showSpec()
{
    model_->setSpec(buildNetworkSpec(document_));
    const NetworkSpec& spec = model_->spec();
    table_->resizeColumnsToContents();
    for (int column = 0; column < model_->columnCount(); ++column) // breathing room between columns
        table_->setColumnWidth(column, table_->columnWidth(column) + 16);
    setWindowTitle(tr("%1 — Netwright").arg(QFileInfo(path_).fileName()));

    problems_->clear();
    for (const Diagnostic& d : spec.diagnostics) {
        auto* item = new QListWidgetItem(
            style()->standardIcon(d.isError() ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning),
            QString::fromStdString(d.format()), problems_);
        item->setData(Qt::UserRole, d.layer);
    }
    if (spec.diagnostics.empty()) {
        auto* item =
            new QListWidgetItem(tr("No problems: every layer's shape and cost is known."), problems_);
        item->setData(Qt::UserRole, -1);
        item->setFlags(Qt::ItemIsEnabled);
    }
    const auto errors = std::count_if(spec.diagnostics.begin(), spec.diagnostics.end(),
                                      [](const Diagnostic& d) { return d.isError(); });
    const auto warnings = static_cast<qsizetype>(spec.diagnostics.size()) - errors;
    totals_->setText(tr("%1 layers · %2 BFLOPs · %3 params · workspace %4 · %5 errors, %6 warnings")
                         .arg(spec.layers.size())
                         .arg(spec.totalBflops, 0, 'f', 3)
                         .arg(QLocale().toString(qlonglong(spec.totalParams)))
                         .arg(QString::fromStdString(humanBytes(spec.maxWorkspaceBytes)))
                         .arg(errors)
                         .arg(warnings));
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
    const QString path = QFileDialog::getOpenFileName(this, tr("Open network"), QFileInfo(path_).path(),
                                                      tr("Darknet networks (*.cfg);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
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
