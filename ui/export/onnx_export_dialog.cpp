#include "export/onnx_export_dialog.h"

#include "cfg/document.h"
#include "export/onnx_export.h"
#include "graph/network_spec.h"
#include "runtime/net.h"
#include "util/file_check.h"
#include "window/save_file_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>
#include <utility>

namespace nw::ui {

namespace {

// A line edit with a "…" button that opens a file dialog.
QWidget* withBrowse(QLineEdit* edit, QWidget* parent, std::function<QString(const QString&)> choose)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto* browse = new QPushButton(QObject::tr("Browse…"), row);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, row, [edit, choose] {
        const QString path = choose(edit->text());
        if (!path.isEmpty())
            edit->setText(path);
    });
    return row;
}

// The whole export, in the worker thread: cfg text → description → runtime net → weights → file.
std::optional<std::string> runExport(const std::string& cfgPath, const std::string& cfgText,
                                     const std::string& weights, const OnnxExportOptions& options,
                                     const std::string& out, std::string& summary)
{
    const NetworkSpec spec = buildNetworkSpec(cfg::Document::parse(cfgText, cfgPath));
    std::string error;
    // Batch 1 whatever the graph's batch: the export runs no pass, the batch is only the input's dims.
    auto net = Net::create(spec, 1, error, Net::Use::InferenceOnly);
    if (!net)
        return error;
    if (weights.empty()) {
        // A layer without an ONNX form is said first (the user looked for weights, then was refused).
        std::string unused;
        if (auto problem = buildOnnxModel(*net, options, unused))
            return problem;
        return std::string("choose the .weights file to export with the network");
    }
    if (auto problem = net->loadWeights(weights))
        return problem;
    OnnxExportReport report;
    if (auto problem = exportOnnx(*net, options, out, &report))
        return problem;
    summary = "Wrote " + out + " (opset " + std::to_string(options.opset) + ", " +
              std::to_string(report.nodes) + " nodes, " + std::to_string((report.bytes + (1 << 19)) >> 20) +
              " MB). Outputs:";
    for (const std::string& output : report.outputs)
        summary += " " + output;
    return std::nullopt;
}

} // namespace

OnnxExportDialog::OnnxExportDialog(const QString& cfgPath, const QString& cfgText, const QString& weights,
                                   bool hasHeads, QWidget* parent)
    : QDialog(parent), cfgPath_(cfgPath), cfgText_(cfgText)
{
    setWindowTitle(tr("Export ONNX"));
    auto* form = new QFormLayout;
    weights_ = new QLineEdit(weights, this);
    weights_->setObjectName("onnxWeights");
    form->addRow(tr("Weights:"), withBrowse(weights_, this, [this](const QString& current) {
                     return QFileDialog::getOpenFileName(this, tr("Weights to export"), current,
                                                         tr("Darknet weights (*.weights);;All files (*)"));
                 }));
    const QFileInfo cfg(cfgPath);
    output_ = new QLineEdit(
        cfgPath.isEmpty() ? QString() : cfg.absoluteDir().filePath(cfg.completeBaseName() + ".onnx"), this);
    output_->setObjectName("onnxOutput");
    form->addRow(tr("Write to:"), withBrowse(output_, this, [this](const QString& current) {
                     confirmedOutput_ = chooseFileToSave(this, tr("Export ONNX"), current,
                                                         tr("ONNX models (*.onnx)"), "onnx");
                     return confirmedOutput_;
                 }));
    opset_ = new QSpinBox(this);
    opset_->setRange(kMinOnnxOpset, kMaxOnnxOpset);
    opset_->setValue(11);
    opset_->setMaximumWidth(90);
    opset_->setToolTip(tr("11 is read by every ONNX runtime in use (OpenCV DNN, ONNX Runtime, TensorRT)"));
    form->addRow(tr("Opset:"), opset_);
    auto* batchRow = new QWidget(this);
    auto* batchLayout = new QHBoxLayout(batchRow);
    batchLayout->setContentsMargins(0, 0, 0, 0);
    batch_ = new QSpinBox(batchRow);
    batch_->setRange(1, 1024);
    dynamic_ = new QCheckBox(tr("Dynamic"), batchRow);
    dynamic_->setToolTip(tr("The batch dimension is named \"batch\" and set by the runtime"));
    connect(dynamic_, &QCheckBox::toggled, batch_, &QWidget::setDisabled);
    batchLayout->addWidget(batch_);
    batchLayout->addWidget(dynamic_);
    batchLayout->addStretch(1);
    form->addRow(tr("Batch:"), batchRow);
    decode_ = new QCheckBox(tr("Decode boxes in the graph (one \"detections\" output)"), this);
    decode_->setEnabled(hasHeads);
    if (!hasHeads)
        decode_->setToolTip(tr("The network has no [yolo] or [region] head"));
    form->addRow(QString(), decode_);

    status_ = new QLabel(this);
    status_->setObjectName("onnxStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setMinimumHeight(3 * status_->fontMetrics().lineSpacing()); // a result of two lines fits
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    exportButton_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    exportButton_->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &OnnxExportDialog::startExport);
    connect(buttons, &QDialogButtonBox::rejected, this, &OnnxExportDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(status_);
    layout->addWidget(buttons);
    resize(620, sizeHint().height());
}

// A long message (another network's weights: six lines) grows the dialog, rather than squeezing its
// fields to a few pixels.
void OnnxExportDialog::showStatus(const QString& text)
{
    status_->setText(text);
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width())
                                                     : layout()->totalSizeHint().height();
    if (needed > height())
        resize(width(), needed);
}

OnnxExportDialog::~OnnxExportDialog()
{
    if (worker_) { // the worker writes into this object
        worker_->wait();
        delete worker_;
    }
}

void OnnxExportDialog::startExport()
{
    if (worker_)
        return;
    if (output_->text().trimmed().isEmpty()) {
        showStatus(tr("Choose where to write the .onnx file."));
        return;
    }
    OnnxExportOptions options;
    options.opset = opset_->value();
    options.batch = dynamic_->isChecked() ? 0 : batch_->value();
    options.withDecode = decode_->isEnabled() && decode_->isChecked();
    QString target = output_->text().trimmed();
    if (QFileInfo(target).suffix().isEmpty()) // a typed name: the model's usual suffix, as Browse… adds
        target += ".onnx";
    // A relative name goes beside the network, as the default does (not into the studio's working folder).
    // Written out whole, so the result names the folder ("Wrote ././x.onnx" did not, the studio started
    // with a relative path).
    if (QFileInfo(target).isRelative() && !cfgPath_.isEmpty())
        target = QDir::cleanPath(QFileInfo(cfgPath_).absoluteDir().filePath(target));
    const std::string cfgPath = cfgPath_.toStdString(), cfgText = cfgText_.toStdString(),
                      weights = weights_->text().trimmed().toStdString(), out = target.toStdString();
    // Never over the network's own files; another existing file only once the user says so: Browse…
    // asked already for the file it chose, and a typed name is replaced on a second Export.
    for (const std::string& input : {cfgPath, weights})
        if (auto same = input.empty() ? std::nullopt : outputIsAnInput(out, {input})) {
            showStatus(QString::fromStdString("Not exported: " + *same));
            return;
        }
    if (QFileInfo(target).isFile() && target != confirmedOutput_) {
        confirmedOutput_ = target;
        showStatus(tr("%1 exists: Export again to replace it, or choose another name.").arg(target));
        return;
    }
    error_.reset();
    summary_.clear();
    exportButton_->setEnabled(false);
    showStatus(tr("Exporting…"));
    worker_ = QThread::create([this, cfgPath, cfgText, weights, options, out] {
        try {
            error_ = runExport(cfgPath, cfgText, weights, options, out, summary_);
        } catch (const std::exception& e) { // bad_alloc, protobuf: a message, never a crash
            error_ = std::string("the export failed: ") + e.what();
        } catch (...) {
            error_ = std::string("the export failed (an unknown exception)");
        }
    });
    connect(worker_, &QThread::finished, this, &OnnxExportDialog::finish);
    worker_->start();
}

void OnnxExportDialog::finish()
{
    worker_->wait();
    worker_->deleteLater();
    worker_ = nullptr;
    exportButton_->setEnabled(true);
    const QString message = QString::fromStdString(error_ ? "Not exported: " + *error_ : summary_);
    showStatus(message);
    emit exported(!error_, message);
    if (std::exchange(closeWhenDone_, false) && !error_) // a failure stays on screen
        QDialog::reject();
}

void OnnxExportDialog::reject()
{
    if (worker_) {
        closeWhenDone_ = true;
        showStatus(tr("Exporting… the dialog closes once the file is written."));
        return;
    }
    QDialog::reject();
}

} // namespace nw::ui
