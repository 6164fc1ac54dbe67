#pragma once
// A spin box for a learning rate: rates run from 1e-7 (fine-tuning) to 1, so the value is shown as
// written ("0.000004", "1e-06") and typed in either form; a box of five decimals turned 0.000004 into 0,
// which read as "cfg's rate".
#include <QDoubleSpinBox>

namespace nw::ui {

class RateSpinBox : public QDoubleSpinBox {
public:
    explicit RateSpinBox(QWidget* parent = nullptr);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& position) const override;
};

} // namespace nw::ui
