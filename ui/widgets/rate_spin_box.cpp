#include "widgets/rate_spin_box.h"

#include <QRegularExpression>
#include <algorithm>

namespace nw::ui {

RateSpinBox::RateSpinBox(QWidget* parent) : QDoubleSpinBox(parent)
{
    setDecimals(12); // (the value is rounded to these: 12 keep 1e-9 whole)
    setStepType(QAbstractSpinBox::AdaptiveDecimalStepType); // 0.0001 steps by 0.00001, 0.01 by 0.001
}

void RateSpinBox::stepBy(int steps)
{
    if (value() <= minimum() && steps > 0) {
        setValue(std::max(minimum(), 0.001));
        selectAll();
        return;
    }
    QDoubleSpinBox::stepBy(steps);
}

QString RateSpinBox::textFromValue(double value) const
{
    return locale().toString(value, 'g', 6);
}

double RateSpinBox::valueFromText(const QString& text) const
{
    bool ok = false;
    const double value = locale().toDouble(text.trimmed(), &ok);
    return ok ? value : minimum();
}

QValidator::State RateSpinBox::validate(QString& text, int&) const
{
    const QString typed = text.trimmed();
    if (typed.isEmpty() || (!specialValueText().isEmpty() && typed == specialValueText()))
        return typed.isEmpty() ? QValidator::Intermediate : QValidator::Acceptable;
    bool ok = false;
    const double value = locale().toDouble(typed, &ok);
    if (ok)
        return value >= minimum() && value <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    // On the way to a number: "1e", "1e-", "0." ("," where the locale writes decimals so).
    static const QRegularExpression partial("^[0-9.,]*([eE][-+]?[0-9]*)?$");
    return partial.match(typed).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

} // namespace nw::ui
