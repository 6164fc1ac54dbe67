#pragma once
// File ▸ Export ONNX: the network as the editor shows it, with a weights file, written as an ONNX
// model (core/export/onnx_export.h) in a worker thread; the result or the refusal is shown in the
// dialog, which stays open so another variant (opset, batch, decode) is one click away.
#include <QDialog>

#include <optional>
#include <string>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QThread;

namespace nw::ui {

class OnnxExportDialog : public QDialog {
    Q_OBJECT
public:
    // `cfgText` is the editor's document; `hasHeads` enables "decode boxes" ([yolo]/[region] present).
    OnnxExportDialog(const QString& cfgPath, const QString& cfgText, const QString& weights, bool hasHeads,
                     QWidget* parent = nullptr);
    ~OnnxExportDialog() override;

    void startExport();
    bool exporting() const { return worker_ != nullptr; }

    // For tests.
    QLineEdit* weightsEdit() const { return weights_; }
    QLineEdit* outputEdit() const { return output_; }
    QSpinBox* opsetBox() const { return opset_; }
    QSpinBox* batchBox() const { return batch_; }
    QCheckBox* dynamicBatchBox() const { return dynamic_; }
    QCheckBox* decodeBox() const { return decode_; }
    QLabel* status() const { return status_; }

signals:
    void exported(bool ok, const QString& message);

protected:
    // Close during an export: nothing waits (the studio keeps drawing); the export goes on (its file is
    // written whole or not at all) and the dialog closes once it is written, or stays with the error.
    void reject() override;

private:
    void finish();
    void showStatus(const QString& text);

    QString cfgPath_, cfgText_;
    QString confirmedOutput_; // the file Browse… chose (its dialog asked about replacing it)
    QLineEdit* weights_ = nullptr;
    QLineEdit* output_ = nullptr;
    QSpinBox* opset_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QCheckBox* dynamic_ = nullptr;
    QCheckBox* decode_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* exportButton_ = nullptr;
    QThread* worker_ = nullptr;
    bool closeWhenDone_ = false;
    // Written by the worker, read after it finished.
    std::optional<std::string> error_;
    std::string summary_;
};

} // namespace nw::ui
