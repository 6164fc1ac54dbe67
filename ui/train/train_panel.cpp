#include "train/train_panel.h"

#include "device/device_box.h"
#include "train/class_results_view.h"
#include "train/compare_menu.h"
#include "train/data_check.h"
#include "train/evaluation_runner.h"
#include "train/run_folders.h"
#include "train/train_worker.h"
#include "train/training_curves.h"
#include "widgets/bring_into_view.h"
#include "widgets/flow_layout.h"
#include "widgets/rate_spin_box.h"
#include "window/message_colours.h"
#include "window/save_file_dialog.h"
#include "window/wheel_guard.h"
#include "window/whole_file.h"

#include "data/data_file.h"
#include "data/make_shapes.h"
#include "train/checkpoint.h"
#include "train/class_results_file.h"
#include "train/metrics_log.h"
#include "train/run_folder_lock.h"
#include "util/file_check.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextCursor>
#include <QTextStream>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <utility>

namespace nw::ui {

namespace {

QString duration(double seconds)
{
    const int total = int(seconds);
    return QString("%1:%2:%3")
        .arg(total / 3600)
        .arg(total / 60 % 60, 2, 10, QChar('0'))
        .arg(total % 60, 2, 10, QChar('0'));
}

// The progress bar's text during and before a run ("%v / %m": Qt's value and maximum).
QString iterationsFormat()
{
    return QObject::tr("%v / %m iterations");
}

// A path with a "…" browse button: a folder when `filter` is empty, else a file of that kind.
QLineEdit* pathEdit(QWidget* parent, QHBoxLayout*& row, const QString& title, const QString& filter)
{
    auto* edit = new QLineEdit(parent);
    auto* browse = new QPushButton(QObject::tr("…"), parent);
    browse->setFixedWidth(32);
    browse->setToolTip(title + QObject::tr(": choose…"));
    browse->setAccessibleName(QObject::tr("Choose: %1").arg(title));
    edit->setAccessibleName(title);
    row = new QHBoxLayout;
    row->addWidget(edit);
    row->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, parent, [=] {
        const QString chosen =
            filter.isEmpty()
                ? QFileDialog::getExistingDirectory(parent, title, edit->text())
                : QFileDialog::getOpenFileName(parent, title, QFileInfo(edit->text()).path(), filter);
        if (!chosen.isEmpty())
            edit->setText(chosen);
    });
    return edit;
}

// A setting kept per network (its .data, schedule, run folder), under its cfg's absolute path.
void rememberForNetwork(const QString& key, const QString& cfgPath, const QVariant& value)
{
    QVariantMap values = QSettings().value(key).toMap();
    values.insert(QFileInfo(cfgPath).absoluteFilePath(), value);
    QSettings().setValue(key, values);
}

} // namespace

TrainPanel::TrainPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout;
    // In a narrow dock (a 1024-pixel screen, or 150 % scaling) a field goes below its label.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    const auto atOwnWidth = [](QWidget* field) {
        auto* row = new QHBoxLayout;
        row->addWidget(field);
        row->addStretch();
        return row;
    };
    QHBoxLayout* dataRow = nullptr;
    QHBoxLayout* outputRow = nullptr;
    QHBoxLayout* weightsRow = nullptr;
    data_ = pathEdit(this, dataRow, tr("Data set"), tr("Darknet data (*.data)"));
    data_->setObjectName("trainData");
    weights_ = pathEdit(this, weightsRow, tr("Starting weights"), tr("Darknet weights (*.weights)"));
    weights_->setObjectName("trainWeights");
    weights_->setPlaceholderText(tr("none: random initialisation"));
    output_ = pathEdit(this, outputRow, tr("Output folder"), QString());
    output_->setObjectName("trainOutput");
    connect(data_, &QLineEdit::textChanged, this, [this] { // the folder follows the data's backup=
        if (!training_ && output_->text() == autoOutput_)
            output_->setText(autoOutput_ = runFolderFor(cfgPath_, data_->text()));
    });
    // Another data file or folder: the run found there (or none) is shown again, once typing pauses.
    earlierRun_ = new QTimer(this);
    earlierRun_->setSingleShot(true);
    earlierRun_->setInterval(300);
    connect(earlierRun_, &QTimer::timeout, this, &TrainPanel::showEarlierRun);
    for (QLineEdit* edit : {data_, output_})
        connect(edit, &QLineEdit::textChanged, this, [this] {
            if (!training_)
                earlierRun_->start();
        });
    shapes_ = new QPushButton(tr("Shapes data set"), this);
    shapes_->setToolTip(tr("Generate (once) the synthetic shapes detection set and train on it"));
    shapesFolder_ =
        QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/netwright/shapes";
    connect(shapes_, &QPushButton::clicked, this, &TrainPanel::useShapesDataSet);
    // The browse buttons are locked with their fields while a run uses them.
    for (QHBoxLayout* row : {dataRow, weightsRow, outputRow})
        pathButtons_.push_back(row->itemAt(1)->widget());
    form->addRow(tr("Data (.data)"), dataRow);
    // A row of its own: beside the field it left the path six letters wide in a docked panel.
    form->addRow(QString(), atOwnWidth(shapes_));
    // What the data set holds, before Train: its bad label lines, classes without a box, lists that
    // cannot be read (the warnings came only in the run's log, the first of them scrolled away).
    dataCheckLabel_ = new QLabel(this);
    dataCheckLabel_->setObjectName("trainDataCheck");
    dataCheckLabel_->setWordWrap(true);
    dataCheckLabel_->setTextFormat(Qt::PlainText);
    dataCheckLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), dataCheckLabel_);
    dataCheck_ = new QTimer(this);
    dataCheck_->setSingleShot(true);
    dataCheck_->setInterval(400);
    connect(dataCheck_, &QTimer::timeout, this, &TrainPanel::checkData);
    connect(data_, &QLineEdit::textChanged, this, [this] {
        if (!training_)
            dataCheck_->start();
    });
    form->addRow(tr("Starting weights"), weightsRow);
    form->addRow(tr("Output folder"), outputRow);
    maxBatches_ = new QSpinBox(this);
    maxBatches_->setRange(0, 1 << 30); // (as --max-batches)
    maxBatches_->setSpecialValueText(tr("cfg's max_batches"));
    connect(maxBatches_, &QSpinBox::valueChanged, this, [this] {
        if (training_)
            return;
        showPlannedIterations();
        // (the status said "Train resumes it" with Iterations below the checkpoint)
        if (earlierIteration_ > 0)
            earlierRun_->start();
    });
    validEvery_ = new QSpinBox(this);
    validEvery_->setObjectName("validEvery");
    validEvery_->setRange(0, 1'000'000);
    validEvery_->setValue(100);
    validEvery_->setSpecialValueText(tr("at the end"));
    resume_ = new QCheckBox(tr("Resume from the last checkpoint"), this);
    learningRate_ = new RateSpinBox(this);
    learningRate_->setObjectName("learningRate");
    learningRate_->setRange(0, 100); // (as --learning-rate)
    learningRate_->setSpecialValueText(tr("cfg's rate"));
    // (their form labels sit beside layouts, which a screen reader cannot tie to them)
    maxBatches_->setAccessibleName(tr("Iterations"));
    validEvery_->setAccessibleName(tr("Validate every"));
    learningRate_->setAccessibleName(tr("Learning rate"));
    // A row each, at their own width (two to a row made the panel too wide for a small screen's dock).
    form->addRow(tr("Iterations"), atOwnWidth(maxBatches_));
    form->addRow(tr("Validate every"), atOwnWidth(validEvery_));
    form->addRow(tr("Learning rate"), atOwnWidth(learningRate_));
    form->addRow(QString(), resume_);
    device_ = makeDeviceBox(tr("Where training runs"), this, true);
    device_->setAccessibleName(tr("Device"));
    form->addRow(tr("Device"), atOwnWidth(device_));

    train_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Train"), this);
    pause_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause"), this);
    stop_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"), this);
    // The curves' own controls sit beside their tabs (a row of seven buttons above the settings made
    // the panel 860 px wide: on a 1024×640 screen it scrolled sideways and hid Train).
    auto* exportButton = new QToolButton(this);
    exportButton->setObjectName("exportButton");
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    QAction* exportPng = exportMenu->addAction(tr("Curves as PNG…"));
    QAction* exportCsv = exportMenu->addAction(tr("Metrics as CSV…"));
    exportButton->setMenu(exportMenu);
    logScale_ = new QCheckBox(tr("Log scale"), this);
    auto* compare = new QToolButton(this);
    compare->setObjectName("compareButton");
    compare->setText(tr("Compare"));
    compare->setToolTip(tr("Draw earlier runs' curves beside this one's (the runs a fresh start set aside in "
                           "the output folder, or any metrics.csv)"));
    compare->setPopupMode(QToolButton::InstantPopup);
    // The settings stay folded after a run (the curves and Per class were below the fold at 1280×720
    // once they unfolded): this button shows them, and a run or another network folds or unfolds them.
    settingsButton_ = new QToolButton(this);
    settingsButton_->setObjectName("settingsButton");
    settingsButton_->setText(tr("Settings"));
    settingsButton_->setCheckable(true);
    settingsButton_->setToolTip(tr("Show the run's settings (data, weights, output folder, iterations); they "
                                   "fold away while a run trains and stay folded after it"));
    connect(settingsButton_, &QToolButton::toggled, this, &TrainPanel::showSettings);
    auto* buttons = new FlowLayout; // (Settings goes to a line of its own in a narrow dock)
    for (QWidget* w : std::initializer_list<QWidget*>{train_, pause_, stop_, settingsButton_})
        buttons->addWidget(w);
    auto* curveControls = new QWidget(this);
    auto* curveRow = new QHBoxLayout(curveControls);
    curveRow->setContentsMargins(0, 2, 0, 0);
    curveRow->addStretch();
    curveRow->addWidget(logScale_);
    curveRow->addWidget(compare);
    curveRow->addWidget(exportButton);

    progress_ = new QProgressBar(this);
    progress_->setFormat(iterationsFormat());
    status_ = new QLabel(tr("Not training."), this);
    status_->setWordWrap(true); // a long error wraps instead of widening the window

    curves_ = new TrainingCurves(this);
    compareMenu_ = new CompareMenu(
        *curves_, [this] { return output_->text(); }, this);
    compare->setMenu(compareMenu_);
    connect(compareMenu_, &CompareMenu::message, this, [this](const QString& text) {
        if (status_->text() != compareError_)
            statusBeforeCompareError_ = status_->text();
        compareError_ = text;
        status_->setText(text);
        appendLog(text);
    });
    // A refused comparison's message stays only until one succeeds (it stayed under a drawn curve).
    connect(compareMenu_, &CompareMenu::compared, this, [this] {
        if (!compareError_.isEmpty() && status_->text() == compareError_)
            status_->setText(statusBeforeCompareError_);
        compareError_.clear();
    });

    log_ = new QPlainTextEdit(this);
    log_->setAccessibleName(tr("Training log"));
    log_->setTabChangesFocus(true); // (read-only: Tab stayed in it, the controls after it out of reach)
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(2000);
    log_->setMaximumHeight(110);

    // The settings fold away while a run trains, a line saying what it uses in their place: at
    // 1366×768 (and even at the first window's 1480×900) the curves were below the fold.
    settings_ = new QWidget(this);
    form->setContentsMargins(0, 0, 0, 0);
    settings_->setLayout(form);
    runSummary_ = new QLabel(this);
    runSummary_->setObjectName("runSummary");
    runSummary_->setWordWrap(true);
    runSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    runSummary_->hide();

    // Train, Pause and Stop first: folding the settings (or a summary line that wraps) moves nothing
    // above them, so Stop is where it was when Train was clicked (below, a Stop click landed on the bar).
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(settings_);
    layout->addWidget(runSummary_);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    // The curves, and each class's figures at the latest validation (a page of its own: the curves keep
    // their room).
    classResults_ = new ClassResultsView(this);
    views_ = new QTabWidget(this);
    views_->setObjectName("trainViews");
    views_->setDocumentMode(true);
    // Its tab bar takes Tab in its place (beside Device, below): the tab widget itself, after the log in
    // the chain, sent Tab back up to its bar, and the keyboard went round the panel for ever.
    views_->setFocusPolicy(Qt::NoFocus);
    views_->setFocusProxy(nullptr);                 // (Tab on the tab widget went to its proxy, the bar)
    views_->tabBar()->setFocusPolicy(Qt::TabFocus); // (NoFocus above was passed on to the bar)
    // The curves' controls above them, not beside the tabs: there the tabs were squeezed to "Pe◂▸" and
    // the two together set the panel's smallest width.
    auto* curvesPage = new QWidget(this);
    auto* curvesLayout = new QVBoxLayout(curvesPage);
    curvesLayout->setContentsMargins(0, 0, 0, 0);
    curvesLayout->setSpacing(0);
    curvesLayout->addWidget(curveControls);
    curvesLayout->addWidget(curves_, 1);
    views_->addTab(curvesPage, tr("Curves"));
    views_->addTab(classResults_, tr("Per class"));
    views_->setTabToolTip(1,
                          tr("Each class at the latest validation: a classifier's confusion matrix, recall "
                             "and precision; a detector's AP per class"));
    layout->addWidget(views_, 1);
    layout->addWidget(log_);

    // Evaluate: the run's latest weights (or others from the arrow's menu) on the validation set.
    evaluation_ = new EvaluationRunner(this);
    auto* evaluateMenu = new QMenu(this);
    evaluateMenu->setObjectName("evaluateMenu");
    classResults_->evaluateButton()->setMenu(evaluateMenu);
    connect(evaluateMenu, &QMenu::aboutToShow, this, [this, evaluateMenu] {
        evaluateMenu->clear();
        for (const QString& weights : weightsToEvaluate())
            evaluateMenu->addAction(QDir::toNativeSeparators(weights), this,
                                    [this, weights] { evaluateWeights(weights); });
        evaluateMenu->addAction(tr("Other weights…"), this, [this] {
            const QString weights = QFileDialog::getOpenFileName(
                this, tr("Evaluate weights"), output_->text(), tr("Darknet weights (*.weights)"));
            if (!weights.isEmpty())
                evaluateWeights(weights);
        });
    });
    connect(classResults_->evaluateButton(), &QToolButton::clicked, this, [this] {
        if (evaluation_->isRunning()) {
            evaluation_->cancel();
            return;
        }
        const QStringList candidates = weightsToEvaluate();
        evaluateWeights(candidates.isEmpty() ? QString() : candidates.first());
    });
    connect(evaluation_, &EvaluationRunner::progress, this, [this](qulonglong done, qulonglong total) {
        if (evaluationStarted_ != evaluationGeneration_) // (queued before another network or a run came)
            return;
        classResults_->showNote(tr("Evaluating %1 on the validation set: %2 of %3 images…")
                                    .arg(QFileInfo(evaluatedWeights_).fileName())
                                    .arg(done)
                                    .arg(total));
    });
    connect(evaluation_, &EvaluationRunner::finished, this, &TrainPanel::onEvaluated);

    connect(train_, &QPushButton::clicked, this, &TrainPanel::start);
    connect(pause_, &QPushButton::clicked, this, &TrainPanel::togglePause);
    connect(stop_, &QPushButton::clicked, this, &TrainPanel::stop);
    connect(exportPng, &QAction::triggered, this, &TrainPanel::exportPng);
    connect(exportCsv, &QAction::triggered, this, [this] {
        const QString source = output_->text() + "/metrics.csv";
        const QString path =
            chooseFileToSave(this, tr("Export the metrics"), source, tr("CSV (*.csv)"), "csv");
        if (path.isEmpty() || path == source)
            return;
        QFile metrics(source);
        if (!metrics.open(QIODevice::ReadOnly)) {
            appendLog(tr("error: cannot read %1 (has a run written it yet?): %2")
                          .arg(source, metrics.errorString()));
            return;
        }
        if (const QString problem = writeWholeFile(path, metrics.readAll()); !problem.isEmpty()) {
            appendLog(tr("error: %1").arg(problem));
            status_->setText(tr("Export CSV: %1").arg(problem));
        }
    });
    connect(logScale_, &QCheckBox::toggled, curves_, &TrainingCurves::setLogScale);

    // Tab follows the rows as they read (Shapes data set and the browse buttons came after the rows
    // below them: the widgets were made in another order than laid out).
    // Then the curves' tabs and their controls on the right, left to right (Settings, on the top row,
    // came last and Export before Log scale).
    QWidget* const curveTabs = views_->tabBar();
    QWidget* const tabOrder[] = {
        train_,   pause_,          stop_,     settingsButton_, data_,       pathButtons_[0], shapes_,
        weights_, pathButtons_[1], output_,   pathButtons_[2], maxBatches_, validEvery_,     learningRate_,
        resume_,  device_,         curveTabs, logScale_,       compare,     exportButton,    log_};
    for (std::size_t i = 0; i + 1 < std::size(tabOrder); ++i)
        setTabOrder(tabOrder[i], tabOrder[i + 1]);

    thread_ = new QThread(this);
    worker_ = new TrainWorker;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &TrainWorker::started, this, &TrainPanel::onStarted);
    connect(worker_, &TrainWorker::heldBack, this, [this](const std::vector<nw::MetricsRow>& rows) {
        if (pendingCurve_.isEmpty()) // (a resume's first points come after the earlier run's curve)
            curves_->addRows(rows);
    });
    connect(worker_, &TrainWorker::progress, this, &TrainPanel::onProgress);
    connect(worker_, &TrainWorker::classNames, classResults_, &ClassResultsView::setClassNames);
    connect(worker_, &TrainWorker::message, this, [this](const QString& text) {
        appendLog(text);
        if (text.startsWith("stopped in or before the first iteration") ||
            text.startsWith("stopped before the first iteration"))
            stopNote_ = text; // no checkpoint of this run: the status must not promise one
        if (isEvaluatingMessage(text.toStdString())) { // a validation pass may take many iterations' time
            evaluating_ = true;
            // The iteration it scores is trained: the bar says so (it stood one behind, "99 / 120" beside
            // "Evaluating at iteration 100", until the pass ended).
            static const QRegularExpression at("(\\d+):");
            if (const auto match = at.match(text); match.hasMatch())
                progress_->setValue(std::min(match.captured(1).toInt(), progress_->maximum()));
            if (!stopRequested_) // a stop asked stays said
                status_->setText(text.left(1).toUpper() + text.mid(1) + "…");
        }
        // Resumed at or past the end (core/train/trainer.cpp): the run ends at once, having trained nothing.
        static const QRegularExpression atTheEnd(
            "^the checkpoint is at iteration (\\d+), already at max_batches=(\\d+)");
        if (const auto match = atTheEnd.match(text); match.hasMatch()) {
            progress_->setValue(std::min(match.captured(1).toInt(), progress_->maximum()));
            nothingToTrain_ = tr("Nothing to train: the checkpoint is already at iteration %1 of %2. Raise "
                                 "Iterations to go on, or untick Resume to start afresh.")
                                  .arg(match.captured(1), match.captured(2));
        }
    });
    connect(worker_, &TrainWorker::finished, this, &TrainPanel::onFinished);
    connect(worker_, &TrainWorker::pausedAt, this, [this](int iteration) {
        iteration = std::max(iteration, resumedFrom_); // (paused before a resumed run's first iteration)
        if (paused_)                                   // a resume may already be on its way
            status_->setText(tr("Paused after iteration %1.").arg(iteration));
        emit pausedAt(iteration);
    });
    thread_->start();
    setTraining(false);
    guardFieldsAgainstStrayWheel(this); // (the panel scrolls in its dock: a wheel there moved values)
}

TrainPanel::~TrainPanel()
{
    if (shapesThread_)
        shapesThread_->wait();
    if (checkThread_) {
        checkCancelled_->store(true); // a large set would hold the studio's exit for seconds
        checkThread_->wait();
    }
    worker_->requestStop();
    thread_->quit();
    thread_->wait();
}

void TrainPanel::setNetwork(const QString& cfgPath)
{
    ++networksOpened_;
    // Runs compared with another network's (a classifier's top-1 drawn on a detector's mAP axis, its
    // 600 iterations squeezing the new run): not this one's comparisons. (The same cfg keeps them.)
    const bool sameNetwork =
        cfgPath.isEmpty() || cfgPath_.isEmpty()
            ? cfgPath.isEmpty() == cfgPath_.isEmpty()
            : QFileInfo(cfgPath).absoluteFilePath() == QFileInfo(cfgPath_).absoluteFilePath();
    if (!training_ && !sameNetwork)
        for (const QString& id : curves_->comparisons())
            curves_->removeComparison(id);
    cfgPath_ = cfgPath;
    if (!training_) {
        // Another network starts clean: its own .data (or none), no curves or log of the last one.
        data_->setText(cfgPath.isEmpty() ? QString() : dataFileFor(cfgPath));
        // The .data this network last trained on here (chosen by hand, it was gone at the next start).
        const QString remembered = QSettings()
                                       .value("training/dataFiles")
                                       .toMap()
                                       .value(QFileInfo(cfgPath).absoluteFilePath())
                                       .toString();
        if (!cfgPath.isEmpty() && QFileInfo(remembered).isFile())
            data_->setText(remembered);
        // The bundled shapes detector and the shapes set made here (in the user's data folder, not
        // beside the cfg): found, where the Data line stayed empty after Shapes data set had made it.
        else if (data_->text().isEmpty() && QFileInfo(cfgPath).fileName() == "shapes-tiny.cfg" &&
                 QFileInfo::exists(shapesFolder_ + "/shapes.data"))
            data_->setText(shapesFolder_ + "/shapes.data");
        // Its schedule as last trained here: a run stopped at 1337 of 3000 came back under the cfg's
        // max_batches of 1000, and Train then had nothing to train.
        const QVariantList schedule = QSettings()
                                          .value("training/schedules")
                                          .toMap()
                                          .value(QFileInfo(cfgPath).absoluteFilePath())
                                          .toList();
        maxBatches_->setValue(schedule.size() == 3 ? schedule[0].toInt() : 0);
        validEvery_->setValue(schedule.size() == 3 ? schedule[1].toInt() : 100);
        learningRate_->setValue(schedule.size() == 3 ? schedule[2].toDouble() : 0);
        weights_->clear();
        clearCurves();
        classResults_->clear(); // (another data set or folder keeps it: it names what it scored)
        if (evaluation_->isRunning())
            evaluation_->cancel();
        ++evaluationGeneration_; // (the last network's figures never land on this one's page)
        progress_->setValue(0);
        log_->clear();
        status_->setText(tr("Ready."));
        showSettings(true); // (another network: its settings to choose)
    }
    output_->setText(autoOutput_ = runFolderFor(cfgPath, data_->text()));
    // The folder this network last trained into here, when chosen by hand: its run is found again.
    const QString rememberedOutput = QSettings()
                                         .value("training/outputFolders")
                                         .toMap()
                                         .value(QFileInfo(cfgPath).absoluteFilePath())
                                         .toString();
    if (!training_ && !cfgPath.isEmpty() && QFileInfo(rememberedOutput).isDir())
        output_->setText(rememberedOutput);
    train_->setEnabled(!training_ && !makingShapes_);
    if (!training_) {
        showEarlierRun();
        dataCheck_->start(); // the same data read for another network (its classes, its max=)
    }
}

// The figures per class of that run's last validation (<cfg>_classes.json), when they are of the weights
// it left: a validation after its last checkpoint was of work that is lost.
void TrainPanel::showEarlierClassResults(const QString& base, int iteration)
{
    const QString path = base + "_classes.json", folder = QFileInfo(QFileInfo(base).path()).fileName();
    std::string error;
    const auto results = QFileInfo::exists(path) ? loadClassResults(path.toStdString(), error) : std::nullopt;
    if (!results || results->iteration > iteration) {
        const QString why = !error.empty() ? QString::fromStdString(error)
                            : results
                                ? tr("its last figures per class are from iteration %1, after its last "
                                     "checkpoint")
                                      .arg(results->iteration)
                                : tr("it kept no figures per class (no validation set, or trained by an "
                                     "older Netwright)");
        classResults_->showNote(
            tr("The last run in %1/ reached iteration %2; %3. Evaluate scores its weights.")
                .arg(folder)
                .arg(iteration)
                .arg(why));
        return;
    }
    QStringList names;
    for (const std::string& name : results->names)
        names << QString::fromStdString(name);
    classResults_->setClassNames(names);
    // (named by its folder: the figures stay on the page when another folder is chosen)
    runResultsFolder_.clear();
    const QString source =
        tr("Validation at iteration %1 of the run in %2/").arg(results->iteration).arg(folder);
    if (results->confusion)
        classResults_->showConfusion(source, *results->confusion);
    else
        classResults_->showClassAps(source, *results->classAps);
}

void TrainPanel::showEarlierRun()
{
    earlierRun_->stop();
    if (cfgPath_.isEmpty() || training_)
        return;
    clearCurves();
    resume_->setChecked(false);
    status_->setText(tr("Ready."));
    earlierIteration_ = 0;
    showPlannedIterations();
    // (the folder Train will use: "~/runs", " run " and relative paths as start() takes them)
    const QString folder = resolvedRunFolder(output_->text(), cfgPath_);
    const QString base = folder + "/" + QFileInfo(cfgPath_).completeBaseName();
    const QFileInfo state(base + "_last.state"), finalWeights(base + "_final.weights");
    const std::optional<TrainState> header = readCheckpointHeader(state.filePath().toStdString());
    if (!header || header->iteration < 1) {
        // A folder without a run: figures per class of another folder's run go (they stayed, titled with
        // its validation, under a folder that holds nothing); an evaluation's stay (they name weights).
        if (!runResultsFolder_.isEmpty() && runResultsFolder_ != folder) {
            classResults_->clear();
            runResultsFolder_.clear();
        }
        return;
    }
    const int iteration = header->iteration;
    earlierIteration_ = iteration; // the progress bar stands where that run stopped
    showEarlierClassResults(base, iteration);
    showPlannedIterations();
    // Its curve, when metrics.csv is its own (two cfgs in Darknet's one backup/ share that file).
    const QString metrics = folder + "/metrics.csv";
    if (metricsReachCheckpoint(metrics.toStdString(), *header)) {
        curves_->addEarlierRun(metrics, iteration + 1);
        curves_->showUpTo(iteration);
    }
    const QString when = QLocale().toString(state.lastModified(), QLocale::ShortFormat);
    if (finalWeights.exists() && finalWeights.lastModified() >= state.lastModified()) {
        status_->setText(
            tr("The last run here finished at iteration %1 (%2); its weights: %3. Train starts a new "
               "run and sets that one aside.")
                .arg(iteration)
                .arg(when, finalWeights.filePath()));
        return;
    }
    // A run training there now (the CLI, another window): not a stopped one to resume (Train was then
    // refused as "in use by another training run").
    if (folderInUse(folder.toStdString())) {
        status_->setText(tr("A run is training in %1 now (at iteration %2 or past it, %3): wait for it to "
                            "end, stop it, or choose another output folder.")
                             .arg(folder)
                             .arg(iteration)
                             .arg(when));
        return;
    }
    // The data it trained on (<cfg>_data.txt): on other data (another project with a cfg of this name,
    // or a .data chosen since) Train starts afresh unless Resume is ticked by hand.
    QFile dataNote(base + "_data.txt");
    const QString trainedOn =
        dataNote.open(QIODevice::ReadOnly) ? QString::fromUtf8(dataNote.readLine()).trimmed() : QString();
    const QFileInfo trainedInfo(trainedOn), chosenInfo(data_->text().trimmed());
    const bool sameData =
        trainedOn.isEmpty() ||
        (trainedInfo.isAbsolute() ? trainedInfo.absoluteFilePath() == chosenInfo.absoluteFilePath()
                                  : trainedInfo.fileName() == chosenInfo.fileName());
    if (!sameData) {
        status_->setText(
            tr("A run stopped at iteration %1 (%2) in %3 trained on %4, not on the chosen data: Train "
               "starts a new run and sets it aside (tick \"Resume from the last checkpoint\" to go "
               "on with it on the chosen data).")
                .arg(iteration)
                .arg(when, folder, trainedOn));
        return;
    }
    // The network it trained (<cfg>_trained.cfg) against the one Train trains (the editor's text, unsaved
    // edits included, else the file): another project's network of this name shares the default folder,
    // and Train went on with its checkpoint (and overwrote it). Another network, or this one edited
    // since: Train starts afresh unless Resume is ticked by hand.
    QFile trained(base + "_trained.cfg"), cfg(cfgPath_);
    const QByteArray trainedText = trained.open(QIODevice::ReadOnly) ? trained.readAll() : QByteArray();
    const QByteArray current = cfgTextPeek_                    ? QByteArray::fromStdString(cfgTextPeek_())
                               : cfg.open(QIODevice::ReadOnly) ? cfg.readAll()
                                                               : QByteArray();
    // (a schedule raised in the cfg, max_batches say, is still the network it trained: Darknet's users
    // raise it to train further)
    const bool sameNetwork = trainedText.isEmpty() || sameNetworkApartFromSchedule(trainedText, current);
    if (!sameNetwork) {
        status_->setText(tr("A run stopped at iteration %1 (%2) in %3 trained another network of this name, "
                            "or another version of this one (%4): Train starts a new run and sets it aside "
                            "(tick \"Resume from the last checkpoint\" to go on with it with this cfg).")
                             .arg(iteration)
                             .arg(when, folder, trained.fileName()));
        return;
    }
    // A run stopped, or ended with the studio (a crash, a power cut): Train carries on from it.
    resume_->setChecked(true);
    const int planned = maxBatches_->value() > 0 ? maxBatches_->value() : cfgMaxBatches_;
    status_->setText(
        planned > 0 && iteration >= planned
            ? tr("A run stopped at iteration %1 (%2) has its checkpoint in %3, already past Iterations "
                 "(%4): raise Iterations to resume it, or untick \"Resume from the last checkpoint\" to "
                 "start over.")
                  .arg(iteration)
                  .arg(when, folder)
                  .arg(planned)
            : tr("A run stopped at iteration %1 (%2) has its checkpoint in %3: Train resumes it. Untick "
                 "\"Resume from the last checkpoint\" to start over.")
                  .arg(iteration)
                  .arg(when, folder));
}

void TrainPanel::setPlannedIterations(int cfgMaxBatches)
{
    if (std::exchange(cfgMaxBatches_, cfgMaxBatches) != cfgMaxBatches && !training_)
        showPlannedIterations();
}

void TrainPanel::showPlannedIterations()
{
    const int planned = maxBatches_->value() > 0 ? maxBatches_->value() : cfgMaxBatches_;
    progress_->setRange(0, std::max({1, planned, earlierIteration_}));
    progress_->setValue(earlierIteration_);
    progress_->setFormat(planned > 0 ? iterationsFormat() : tr("no max_batches in [net]: set Iterations"));
}

void TrainPanel::setDetector(bool detector)
{
    detector_ = detector;
    if (!training_)
        curves_->setDetector(detector);
}

void TrainPanel::renameNetwork(const QString& cfgPath)
{
    // A run under way keeps its name (its checkpoint and weights are named after the cfg it started
    // with): the new name takes over when it ends, as after a Stop (Save As during a run left Resume
    // ticked for a checkpoint of the new name that did not exist, and Train failed).
    if (training_) {
        pendingRename_ = cfgPath;
        return;
    }
    const QString oldOutput = output_->text();
    const bool wasResuming = resume_->isChecked();
    if (!training_) {
        // A new network's first save takes the .data beside it, unless one is chosen already.
        if (cfgPath_.isEmpty() && data_->text().isEmpty())
            data_->setText(dataFileFor(cfgPath));
        // The run folder follows the name unless chosen by hand: a new network trained into runs/ itself,
        // and a saved-as copy into the original's runs/<name>/, setting that network's files aside.
        if (output_->text() == autoOutput_)
            output_->setText(autoOutput_ = runFolderFor(cfgPath, data_->text()));
    }
    // A run's files are named after its cfg: the checkpoint Resume pointed at is the old name's, which a
    // run of the new name cannot continue (Train failed with "cannot open the training state").
    const QString oldName = QFileInfo(cfgPath_).completeBaseName(),
                  newName = QFileInfo(cfgPath).completeBaseName();
    cfgPath_ = cfgPath;
    // The data set goes with the saved copy: reopened, its Data line was empty (no .data beside it).
    if (!training_ && QFileInfo(data_->text().trimmed()).isFile())
        rememberForNetwork("training/dataFiles", cfgPath_,
                           QFileInfo(data_->text().trimmed()).absoluteFilePath());
    if (!training_ && output_->text() != oldOutput) { // what the new folder holds, shown now
        earlierRun_->stop();
        showEarlierRun();
    }
    if (!training_ && wasResuming && oldName != newName &&
        !QFileInfo::exists(output_->text() + "/" + newName + "_last.state")) {
        resume_->setChecked(false);
        status_->setText(
            tr("Saved as %1: its runs are named %2_…, so Train starts a new one. The stopped run "
               "of %3 keeps its checkpoint in %4 (open %3.cfg to resume it).")
                .arg(QFileInfo(cfgPath).fileName(), newName, oldName, oldOutput));
    }
    train_->setEnabled(!training_ && !makingShapes_);
}

void TrainPanel::setTraining(bool training)
{
    training_ = training;
    // The keyboard stays on the buttons, moved before the button it is on is disabled: a disabled Train
    // (or Stop) passed it down the chain, to the curves' tabs, and the dock scrolled there.
    // (the window's focus widget, not hasFocus(): a run ending while another program is active)
    QWidget* const focused = window()->focusWidget();
    if (training) {
        pause_->setEnabled(true);
        stop_->setEnabled(true);
        if (focused && isAncestorOf(focused)) // (a settings field, or Train, about to be disabled)
            pause_->setFocus(Qt::OtherFocusReason);
        train_->setEnabled(false);
    } else {
        train_->setEnabled(!makingShapes_);
        if ((focused == pause_ || focused == stop_) && train_->isEnabled())
            train_->setFocus(Qt::OtherFocusReason);
        pause_->setEnabled(false);
        stop_->setEnabled(false);
    }
    for (QWidget* w : std::initializer_list<QWidget*>{data_, weights_, output_, maxBatches_, validEvery_,
                                                      learningRate_, resume_, device_})
        w->setEnabled(!training);
    shapes_->setEnabled(!training && !shapesThread_); // one generation at a time
    for (QWidget* w : pathButtons_)
        w->setEnabled(!training);
    if (training) {
        const QString weights = weights_->text().trimmed();
        runSummary_->setText(tr("Data %1 · %2 · %3 · into %4")
                                 .arg(data_->text().trimmed(),
                                      resume_->isChecked() ? tr("resumed from the last checkpoint")
                                      : weights.isEmpty()  ? tr("random initialisation")
                                                           : tr("from %1").arg(QFileInfo(weights).fileName()),
                                      device_->currentText(), output_->text().trimmed()));
    }
    classResults_->evaluateButton()->setEnabled(!training);
    settingsButton_->setEnabled(!training);
    showSettings(!training && runSummary_->text().isEmpty()); // (before any run: unfolded)
    if (!training)
        dataCheck_->start(); // what the set holds now, under the settings
    emit trainingChanged(training);
}

void TrainPanel::showSettings(bool show)
{
    settings_->setVisible(show);
    runSummary_->setVisible(!show && !runSummary_->text().isEmpty());
    const QSignalBlocker quiet(settingsButton_);
    settingsButton_->setChecked(show);
}

QStringList TrainPanel::weightsToEvaluate() const
{
    QStringList found;
    const auto add = [&](const QString& path) {
        if (!path.isEmpty() && QFileInfo(path).isFile() && !found.contains(path))
            found << path;
    };
    if (!cfgPath_.isEmpty()) {
        // The run's newest weights first (a resumed run stopped early has an older _final beside its
        // checkpoint), then its best validation, then the other one.
        const QString run = output_->text() + "/" + QFileInfo(cfgPath_).completeBaseName();
        const QFileInfo finalWeights(run + "_final.weights"), lastWeights(run + "_last.weights");
        const bool finalNewer =
            finalWeights.exists() &&
            (!lastWeights.exists() || finalWeights.lastModified() >= lastWeights.lastModified());
        add(finalNewer ? finalWeights.filePath() : lastWeights.filePath());
        add(run + "_best.weights");
        add(finalWeights.filePath());
        add(lastWeights.filePath());
    }
    add(weights_->text().trimmed());
    return found;
}

void TrainPanel::evaluateWeights(const QString& weights)
{
    const auto refuse = [this](const QString& text) {
        status_->setText(text);
        appendLog(text);
        bringIntoView(status_);
    };
    if (training_ || evaluation_->isRunning())
        return;
    if (makingShapes_)
        return refuse(tr("The shapes data set is being generated: Evaluate once it is chosen."));
    if (const QString problem = editorCheck_ ? editorCheck_() : QString(); !problem.isEmpty())
        return refuse(problem);
    if (cfgPath_.isEmpty() && !cfgText_)
        return refuse(tr("Open or save a network first."));
    if (data_->text().trimmed().isEmpty())
        return refuse(tr("Choose the data set first: Evaluate scores weights on the validation set (valid=) "
                         "of the .data file in \"Data (.data)\"."));
    if (weights.isEmpty())
        return refuse(tr("No weights to evaluate: train the network first, or choose weights with the arrow "
                         "beside Evaluate."));
    nw::EvaluationRequest request;
    request.dataPath = data_->text().trimmed().toStdString();
    request.cfgPath = cfgPath_.toStdString();
    request.cfgText = cfgText_ ? cfgText_().toStdString() : std::string();
    request.weightsPath = weights.toStdString();
    evaluatedWeights_ = weights;
    evaluationStarted_ = ++evaluationGeneration_;
    evaluation_->start(request);
    classResults_->evaluateButton()->setText(tr("Cancel"));
    classResults_->showNote(tr("Evaluating %1 on the validation set…").arg(QFileInfo(weights).fileName()));
    status_->setText(tr("Evaluating %1 on the validation set of %2…")
                         .arg(QDir::toNativeSeparators(QDir::cleanPath(weights)), data_->text().trimmed()));
    views_->setCurrentWidget(classResults_);
}

void TrainPanel::onEvaluated(std::shared_ptr<const nw::Evaluation> evaluation, const QString& error)
{
    classResults_->evaluateButton()->setText(tr("Evaluate"));
    if (evaluationStarted_ != evaluationGeneration_) // cancelled by another network or a run: not theirs
        return;
    const QString name = QFileInfo(evaluatedWeights_).fileName();
    if (!evaluation) {
        const QString text = error == "cancelled" ? tr("Evaluation of %1 cancelled.").arg(name)
                                                  : tr("Cannot evaluate %1: %2").arg(name, error);
        classResults_->showNote(text);
        status_->setText(text);
        appendLog(text);
        return;
    }
    QStringList names;
    for (const std::string& n : evaluation->names)
        names << QString::fromStdString(n);
    classResults_->setClassNames(names);
    const QString source = tr("%1 on the validation set").arg(name);
    QString figure;
    if (evaluation->accuracy) {
        classResults_->showConfusion(source, evaluation->accuracy->confusion);
        figure = tr("top-1 %1 %").arg(evaluation->accuracy->top1 * 100, 0, 'f', 2);
    } else if (evaluation->map) {
        classResults_->showClassAps(source, evaluation->map->classes);
        figure = tr("mAP@0.5 %1 %").arg(evaluation->map->map50 * 100, 0, 'f', 2);
    }
    for (const std::string& warning : evaluation->warnings)
        appendLog(tr("warning: %1").arg(QString::fromStdString(warning)));
    status_->setText(tr("Evaluated %1 on %2 validation images: %3")
                         .arg(QDir::toNativeSeparators(QDir::cleanPath(evaluatedWeights_)))
                         .arg(evaluation->images)
                         .arg(figure));
    appendLog(status_->text());
}

void TrainPanel::refuseStart(const QString& why, QWidget* field)
{
    status_->setText(why);
    appendLog(why);
    if (field)
        field->setFocus();
    bringIntoView(status_);
}

void TrainPanel::start()
{
    if (training_ || makingShapes_)
        return;
    // (it trained the last network that was a cfg, not what is shown)
    if (const QString problem = editorCheck_ ? editorCheck_() : QString(); !problem.isEmpty())
        return refuseStart(problem);
    if (cfgPath_.isEmpty()) // (Train was greyed out without a word)
        return refuseStart(tr("Save the network first (File ▸ Save As…): a run names its weights and "
                              "checkpoints after the cfg file."));
    if (data_->text().trimmed().isEmpty()) // say what to do rather than start a run that cannot load
        return refuseStart(tr("Choose the data set first: a .data file in \"Data (.data)\", or \"Shapes data "
                              "set\" to train a detector on synthetic shapes."),
                           data_);
    // A network with errors is said before anything of the last run is cleared (it started, failed at
    // once and wiped the curves, and Detect blamed the run's weights for the network's error).
    if (const QString error = firstNetworkError(cfgPath_, cfgText_ ? cfgText_() : QString());
        !error.isEmpty())
        return refuseStart(
            networkRefusal_ =
                tr("Not started: the network has errors (see Problems). The first: %1").arg(error));
    // (it started, cleared the curves, failed for want of a length and left the bar spinning)
    if (maxBatches_->value() == 0 && cfgMaxBatches_ == 0)
        return refuseStart(tr("Not started: [net] has no max_batches (the run's length): set Iterations, or "
                              "max_batches in [net]."),
                           maxBatches_);
    // The output folder as the user means it (a pasted leading space made a folder named " " in the
    // working folder, ~ one named "~"), checked as the CLI checks --out, before the data set loads and
    // before anything of the last run is cleared.
    if (const QString folder = resolvedRunFolder(output_->text(), cfgPath_); folder != output_->text()) {
        output_->setText(folder);
        earlierRun_->stop();
    }
    if (output_->text().isEmpty())
        return refuseStart(tr("Not started: the Output folder is empty: choose the folder its weights and "
                              "checkpoints go to."),
                           output_);
    if (const auto reason = unwritableFolderReason(output_->text().toStdString()))
        return refuseStart(
            tr("Not started: %1: choose another Output folder.").arg(QString::fromStdString(*reason)),
            output_);
    if (folderInUse(output_->text().toStdString()))
        return refuseStart(
            tr("Not started: a run is training in %1 now: wait for it to end, stop it, or choose "
               "another Output folder.")
                .arg(output_->text()),
            output_);
    // A checkpoint written there since the panel looked (a CLI run stopped meanwhile): said, and Resume
    // offered, before a fresh run sets it aside (it did, unasked).
    if (!resume_->isChecked() && earlierIteration_ == 0) {
        const QString state = output_->text() + "/" + QFileInfo(cfgPath_).completeBaseName() + "_last.state";
        if (const auto header = readCheckpointHeader(state.toStdString()); header && header->iteration > 0) {
            showEarlierRun();
            if (resume_->isChecked())
                return; // (the status says "Train resumes it": the next Train does)
        }
    }
    if (startQuestion_ && !startQuestion_())
        return;
    // (remembered at the run's first iteration, for this network)
    startingData_ = {cfgPath_, QFileInfo(data_->text().trimmed()).absoluteFilePath()};
    rememberForNetwork("training/schedules", cfgPath_,
                       QVariantList{maxBatches_->value(), validEvery_->value(), learningRate_->value()});
    rememberForNetwork("training/outputFolders", cfgPath_, QFileInfo(output_->text()).absoluteFilePath());
    TrainRequest request;
    request.cfgPath = cfgPath_;
    request.dataPath = data_->text();
    request.outDir = output_->text();
    request.maxBatches = maxBatches_->value();
    request.validEvery = validEvery_->value();
    request.learningRate = learningRate_->value();
    request.resume = resume_->isChecked();
    request.weightsPath = weights_->text();
    const QVariant device = device_->currentData();
    if (device.typeId() == QMetaType::QVariantList) { // all GPUs: one rank each
        for (const QVariant& index : device.toList())
            request.gpus << index.toInt();
    } else {
        request.device = device.toInt();
    }
    if (cfgText_)
        request.cfgText = cfgText_();
    clearCurves();
    classResults_->clear();
    // A resumed run stands at its checkpoint (a pause or stop before its first iteration said "after
    // iteration 0" and "before the first iteration" while its log said "stopped at iteration 33").
    resumedFrom_ = 0;
    if (request.resume)
        if (const auto header = readCheckpointHeader(
                (request.outDir + "/" + QFileInfo(cfgPath_).completeBaseName() + "_last.state")
                    .toStdString()))
            resumedFrom_ = std::max(0, header->iteration);
    // (a run refused before its first iteration shows none of the last one's; a value past the
    // maximum would be ignored)
    progress_->setRange(0, std::max(progress_->maximum(), resumedFrom_));
    progress_->setValue(resumedFrom_);
    stopRequested_ = false;
    stopNote_.clear();
    evaluating_ = false;
    earlierIteration_ = 0;
    earlierRun_->stop(); // (a folder typed just before Train: this run is what the panel shows now)
    nothingToTrain_.clear();
    lastValidation_.clear();
    // A resumed run first trims metrics.csv back to its checkpoint: its rows are drawn at the first
    // iteration (drawn now, rows past the checkpoint zigzagged with the new ones).
    pendingCurve_ = request.resume ? request.outDir + "/metrics.csv" : QString();
    firstIteration_ = -1;
    pausedMs_ = 0;
    paused_ = false;
    pause_->setText(tr("Pause"));
    pause_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    status_->setText(tr("Loading the data set…"));
    // A new run's lines are followed from its first (a log scrolled up to an earlier run stayed there, and
    // "a fresh run: … moved to previous-…" went unseen below it).
    log_->moveCursor(QTextCursor::End);
    log_->ensureCursorVisible();
    if (evaluation_->isRunning()) { // the cores are the run's now
        evaluation_->cancel();
        appendLog(tr("Evaluation cancelled: a run starts."));
    }
    ++evaluationGeneration_; // (what an evaluation sends from now on is not this run's)
    appendLog(
        tr("Training %1 on %2 → %3").arg(QFileInfo(cfgPath_).fileName(), request.dataPath, request.outDir));
    views_->setCurrentIndex(0); // the curves (Per class, left open, showed an empty table)
    setTraining(true);
    worker_->prepareRun();
    QMetaObject::invokeMethod(worker_, "run", Qt::QueuedConnection, Q_ARG(nw::ui::TrainRequest, request));
}

void TrainPanel::clearCurves()
{
    curves_->clear(detector_);
    lastLoggedIteration_ = 0;
}

void TrainPanel::togglePause()
{
    paused_ = !paused_;
    worker_->requestPause(paused_);
    if (paused_)
        pauseClock_.start();
    else if (pauseClock_.isValid())
        pausedMs_ += pauseClock_.elapsed();
    pause_->setText(paused_ ? tr("Resume") : tr("Pause"));
    pause_->setIcon(style()->standardIcon(paused_ ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    status_->setText(paused_ ? tr("Paused.") : tr("Training…"));
    emit pauseChanged(paused_);
}

void TrainPanel::stop()
{
    stopRequested_ = true;
    worker_->requestStop();
    // A stop waits for the validation pass under way (minutes on a large detector): said, not hidden.
    status_->setText(evaluating_
                         ? tr("Stopping once the validation pass under way ends, then writing a checkpoint…")
                         : tr("Stopping: writing a checkpoint…"));
}

void TrainPanel::onStarted(int maxBatches, int batch)
{
    progress_->setFormat(iterationsFormat());
    progress_->setRange(0, std::max(maxBatches, resumedFrom_));
    progress_->setValue(resumedFrom_);
    status_->setText(tr("Training, batch %1…").arg(batch));
}

void TrainPanel::onProgress(const nw::IterationStats& s)
{
    ++progressSignals_;
    // A run that trains has opened its data: a .data it refused (3 labels but classes=4) was still
    // offered for the network the next time it was opened. (Another network may be open by now.)
    if (!startingData_.first.isEmpty()) {
        rememberForNetwork("training/dataFiles", startingData_.first, startingData_.second);
        startingData_ = {};
    }
    progress_->setRange(0, s.maxBatches);
    progress_->setValue(s.iteration);
    evaluating_ = false;
    if (!pendingCurve_.isEmpty()) {
        curves_->addEarlierRun(pendingCurve_, s.iteration);
        pendingCurve_.clear();
    }
    if (firstIteration_ < 0) {
        firstIteration_ = s.iteration;
        runClock_.start();
        pausedMs_ = 0;
        if (paused_) // paused before this run's clock started: only the time from now counts
            pauseClock_.start();
    }
    curves_->add(s);
    // (titled without their folder: they go when a folder without a run is chosen)
    if (s.confusion || s.classAps)
        runResultsFolder_ = output_->text();
    if (s.confusion)
        classResults_->showConfusion(tr("Validation at iteration %1").arg(s.iteration), *s.confusion);
    if (s.classAps)
        classResults_->showClassAps(tr("Validation at iteration %1").arg(s.iteration), *s.classAps);
    if (s.validTop1 || s.map50)
        lastValidation_ = tr("%1 %2 % at iteration %3")
                              .arg(s.validTop1 ? tr("validation top-1") : tr("validation mAP@0.5"))
                              .arg(*(s.validTop1 ? s.validTop1 : s.map50) * 100, 0, 'f', 2)
                              .arg(s.iteration);
    // This run's pace on the panel's clock, pauses left out (a child process's own clock runs on
    // through SIGSTOP); the run's own figure until a second iteration gives a pace.
    const qint64 activeMs = runClock_.elapsed() - pausedMs_ - (paused_ ? pauseClock_.elapsed() : 0);
    const double perIteration = s.iteration > firstIteration_
                                    ? activeMs / 1000.0 / (s.iteration - firstIteration_)
                                : s.iteration > 0 ? s.elapsedSeconds / s.iteration
                                                  : 0;
    if (!stopRequested_) // a stop asked stays said
        status_->setText(
            tr("Iteration %1 / %2 · epoch %3 · loss %4 (avg %5) · lr %6 · %7 images/s · ETA %8%9")
                .arg(s.iteration)
                .arg(s.maxBatches)
                .arg(s.epoch, 0, 'f', 2)
                .arg(s.loss, 0, 'f', 4)
                .arg(s.averageLoss, 0, 'f', 4)
                .arg(double(s.learningRate), 0, 'g', 3)
                .arg(s.imagesPerSecond, 0, 'f', 0)
                .arg(duration(perIteration * (s.maxBatches - s.iteration)))
                .arg(s.validTop1 ? tr(" · valid top-1 %1%").arg(*s.validTop1 * 100, 0, 'f', 2)
                     : s.map50   ? tr(" · mAP@0.5 %1%").arg(*s.map50 * 100, 0, 'f', 2)
                                 : QString()));
    if (s.validTop1 || s.map50 || s.iteration - lastLoggedIteration_ >= 50 || s.iteration == s.maxBatches) {
        appendLog(status_->text());
        lastLoggedIteration_ = s.iteration;
    }
}

void TrainPanel::onFinished(const QString& error)
{
    setTraining(false);
    // (a Save As during the run: after what the run's end says, which it then amends)
    const auto renameAfter = qScopeGuard([this] {
        if (!pendingRename_.isEmpty())
            renameNetwork(std::exchange(pendingRename_, QString()));
    });
    if (!pendingCurve_.isEmpty()) { // a resumed run that ended before an iteration: the earlier curve
        curves_->addEarlierRun(pendingCurve_, std::numeric_limits<int>::max());
        pendingCurve_.clear();
        curves_->showUpTo(progress_->value());
    }
    if (paused_) { // (stopped while paused)
        paused_ = false;
        pause_->setText(tr("Pause"));
        pause_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    }
    // A stop asked in the last iteration (or its final validation) comes after the run's end: finished.
    const bool stopped = stopRequested_ && progress_->value() < progress_->maximum();
    if (error.isEmpty() && stopRequested_ && !stopNote_.isEmpty()) {
        status_->setText(stopNote_.left(1).toUpper() + stopNote_.mid(1) + ".");
        resume_->setChecked(stopNote_.contains("resume it to go on")); // the earlier run is back
    } else if (error.isEmpty() && !nothingToTrain_.isEmpty()) {
        status_->setText(nothingToTrain_);
        appendLog(status_->text());
    } else if (error.isEmpty() && stopRequested_ && progress_->value() == 0) {
        status_->setText(tr("Stopped before the first iteration."));
        appendLog(status_->text());
    } else if (error.isEmpty() && stopped) {
        status_->setText(
            tr("Stopped at iteration %1 / %2; checkpoint in %3. Train resumes it (untick \"Resume "
               "from the last checkpoint\" to start over).")
                .arg(progress_->value())
                .arg(progress_->maximum())
                .arg(output_->text()));
        appendLog(status_->text());
        resume_->setChecked(true);              // Train after Stop carries on: it set the stopped run aside
        earlierIteration_ = progress_->value(); // (Iterations changed now: the bar went back to 0)
    } else if (error.isEmpty()) {
        status_->setText(
            lastValidation_.isEmpty()
                ? tr("Finished. Weights and checkpoint in %1").arg(output_->text())
                : tr("Finished: %1. Weights and checkpoint in %2").arg(lastValidation_, output_->text()));
        appendLog(status_->text());
        resume_->setChecked(false); // (a finished run has nothing to resume: Train said "Nothing to train")
    } else {
        status_->setText(tr("Stopped with an error: %1").arg(error));
        appendLog(tr("error: %1").arg(error));
        showSettings(true); // (an error is mended there, as a rule)
    }
}

void TrainPanel::appendLog(const QString& text)
{
    log_->appendPlainText(text);
}

// Makes the synthetic shapes set once (2,000 images, seed 1) in the background, then selects it.
void TrainPanel::useShapesDataSet()
{
    // A classifier on a detection set is refused at Train with a puzzle about labels in image paths,
    // and the choice was remembered for it: said here, nothing chosen.
    if (!detector_ && !dataNeeds_.isEmpty()) {
        status_->setText(tr("The shapes data set is for detectors (a network with a [yolo] head); this "
                            "network is a classifier. Open a detector to train on it: the bundled "
                            "shapes-tiny.cfg is beside fashion-mnist.cfg."));
        return;
    }
    const QString existing = shapesFolder_ + "/shapes.data";
    if (QFileInfo::exists(existing)) {
        data_->setText(existing);
        appendLog(tr("Using the shapes data set in %1").arg(shapesFolder_));
        return;
    }
    if (shapesThread_)
        return; // already being made (the button is disabled meanwhile)
    shapes_->setEnabled(false);
    makingShapes_ = true; // Train would start on the Data path the set is about to replace
    train_->setEnabled(false);
    status_->setText(tr("Generating the shapes data set in %1…").arg(shapesFolder_));
    shapesThread_ =
        QThread::create([this, folder = shapesFolder_, count = shapesCount_, opened = networksOpened_] {
            ShapesOptions options;
            options.count = count;
            options.progress = [this, folder](int made, int all) { // (45 s with one unchanging line)
                QMetaObject::invokeMethod(this, [this, folder, made, all] {
                    if (makingShapes_)
                        status_->setText(tr("Generating the shapes data set in %1… %2 of %3 images")
                                             .arg(folder)
                                             .arg(made)
                                             .arg(all));
                });
            };
            std::optional<std::string> problem;
            try { // an escaping exception (an image writer's) would end the whole studio
                problem = makeShapes(folder.toStdString(), options);
            } catch (const std::exception& e) {
                problem = e.what();
            }
            QMetaObject::invokeMethod(this, [this, folder, problem, opened] {
                shapes_->setEnabled(!training_);
                makingShapes_ = false;
                train_->setEnabled(!training_);
                if (problem) {
                    status_->setText(
                        tr("Cannot make the shapes data set: %1").arg(QString::fromStdString(*problem)));
                    appendLog(tr("error: %1").arg(QString::fromStdString(*problem)));
                    return;
                }
                // For the network that asked (one opened meanwhile, a classifier, got it as its Data; a Save
                // As meanwhile is the same network).
                if (networksOpened_ == opened)
                    data_->setText(folder + "/shapes.data");
                status_->setText(tr("Shapes data set ready: %1").arg(folder + "/shapes.data"));
                appendLog(status_->text());
            });
        });
    connect(shapesThread_, &QThread::finished, shapesThread_, &QObject::deleteLater);
    shapesThread_->start();
}

void TrainPanel::setDataNeeds(const QString& needs)
{
    if (std::exchange(dataNeeds_, needs) == needs || training_)
        return;
    dataCheck_->start();
    // The network changed (its errors among what the data needs): a refusal for its errors no longer
    // stands (it stayed after the fix, beside "0 errors").
    if (!networkRefusal_.isEmpty() && status_->text() == networkRefusal_) {
        status_->setText(tr("Ready."));
        showEarlierRun();
    }
    networkRefusal_.clear();
}

void TrainPanel::checkData()
{
    const QString dataPath = data_->text().trimmed();
    const int generation = ++checkGeneration_;
    if (training_)
        return; // read again when the run ends (setTraining)
    // (a new network not saved yet is read as the editor shows it: the line stayed empty)
    if (dataPath.isEmpty() || (cfgPath_.isEmpty() && !cfgText_)) {
        dataCheckLabel_->clear();
        dataCheckLabel_->setToolTip(QString());
        return;
    }
    if (checkThread_) { // one read at a time: the abandoned one ends early, then this one runs
        checkCancelled_->store(true);
        dataCheck_->start();
        return;
    }
    checkCancelled_ = std::make_shared<std::atomic<bool>>(false);
    dataCheckLabel_->setText(tr("Reading %1…").arg(QFileInfo(dataPath).fileName()));
    checkThread_ = QThread::create([this, dataPath, cfg = cfgPath_,
                                    cfgText = cfgText_ ? cfgText_() : QString(), generation,
                                    cancelled = checkCancelled_] {
        const DataCheck check = checkTrainingData(dataPath, cfg, cfgText, cancelled.get());
        QMetaObject::invokeMethod(this, [this, check, generation] {
            if (generation != checkGeneration_)
                return; // the data or the network changed since; another read follows
            constexpr int kShown = 3, kInTooltip = 30;
            QString text = check.error.isEmpty() ? tr("Data: %1").arg(check.summary)
                           : check.networkErrors ? tr("Data: %1").arg(check.error)
                                                 : tr("Data: cannot train on it: %1").arg(check.error);
            if (!check.warnings.isEmpty())
                text += "\n" +
                        (check.warnings.size() == 1 ? tr("1 warning:")
                                                    : tr("%1 warnings:").arg(check.warnings.size())) +
                        "\n" + check.warnings.mid(0, kShown).join("\n") +
                        (check.warnings.size() > kShown ? "\n" + tr("… (hover for more)") : QString());
            dataCheckLabel_->setText(text);
            dataCheckLabel_->setToolTip(check.warnings.mid(0, kInTooltip).join("\n"));
            dataCheckLabel_->setStyleSheet(!check.error.isEmpty() ? "color: " + errorTextColour(this).name()
                                           : !check.warnings.isEmpty()
                                               ? "color: " + warningTextColour(this).name()
                                               : QString());
        });
    });
    connect(checkThread_, &QThread::finished, checkThread_, &QObject::deleteLater);
    checkThread_->start();
}

void TrainPanel::exportPng()
{
    const QString path = chooseFileToSave(this, tr("Export the curves"), output_->text() + "/curves.png",
                                          tr("PNG images (*.png)"), "png");
    if (path.isEmpty())
        return;
    // "fashion-mnist.cfg · iteration 2345 of 2345 · validation top-1 91.20 % at iteration 2300"
    QString title = cfgPath_.isEmpty() ? tr("A new network") : QFileInfo(cfgPath_).fileName();
    if (progress_->value() > 0)
        title += tr(" · iteration %1 of %2").arg(progress_->value()).arg(progress_->maximum());
    if (!lastValidation_.isEmpty())
        title += " · " + lastValidation_;
    if (const QString problem = curves_->savePng(path, title); !problem.isEmpty()) {
        appendLog(tr("error: %1").arg(problem));
        status_->setText(tr("Export PNG: %1").arg(problem));
    }
}

} // namespace nw::ui
