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
    // Up from the special value at the minimum ("cfg's rate") goes to 0.001, not 1e-12; elsewhere
    // adaptive steps (0.0001 by 0.00001).
    void stepBy(int steps) override;
};

} // namespace nw::ui
