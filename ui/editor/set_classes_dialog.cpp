#include "editor/set_classes_dialog.h"

#include "window/message_colours.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>

namespace nw::ui {

namespace {

QString classesText(int classes)
{
    return classes == 1 ? QObject::tr("1 class") : QObject::tr("%1 classes").arg(classes);
}

} // namespace

SetClassesDialog::SetClassesDialog(const NetworkSpec& spec, int suggested, const QString& dataName,
                                   QWidget* parent)
    : QDialog(parent), spec_(spec)
{
    setWindowTitle(tr("Set classes"));
    auto* layout = new QVBoxLayout(this);
    const int current = planClasses(spec, 1).currentClasses;
    QString intro = current > 0 ? tr("The network now finds %1.").arg(classesText(current))
                                : tr("The network's number of classes is not known yet.");
    if (suggested > 0)
        intro += " " + tr("The training data %1 has %2.").arg(dataName, classesText(suggested));
    auto* introLabel = new QLabel(intro, this);
    introLabel->setWordWrap(true);
    layout->addWidget(introLabel);

    auto* form = new QFormLayout;
    classes_ = new QSpinBox(this);
    classes_->setRange(1, 100000);
    classes_->setValue(suggested > 0 ? suggested : std::max(current, 1));
    form->addRow(tr("&Classes:"), classes_);
    layout->addLayout(form);
    // A short box and a note that wraps (the whole rule as the box's text made the dialog wider than a
    // 1280×720 screen at 150 % scaling: a check box's text never wraps).
    schedule_ = new QCheckBox(tr("Also set the training schedule (max_batches, steps)"), this);
    layout->addWidget(schedule_);
    auto* rule = scheduleRule_ =
        new QLabel(tr("AlexeyAB's rule for a detector: max_batches 2000 per class (at least 6000), "
                      "steps at 80 % and 90 % of it."),
                   this);
    rule->setWordWrap(true);
    rule->setIndent(schedule_->style()->pixelMetric(QStyle::PM_IndicatorWidth) +
                    schedule_->style()->pixelMetric(QStyle::PM_CheckBoxLabelSpacing)); // under the box's text
    layout->addWidget(rule);

    // The edits in a scroll area: a network of many heads lists many, and the dialog keeps within a
    // small screen (a label of its own height overlapped the buttons once the dialog was narrow).
    preview_ = new QLabel(this);
    preview_->setWordWrap(true);
    preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    preview_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* previewArea = new QScrollArea(this);
    previewArea->setWidget(preview_);
    previewArea->setWidgetResizable(true);
    previewArea->setFrameShape(QFrame::NoFrame);
    previewArea->setMinimumHeight(6 * fontMetrics().lineSpacing());
    layout->addWidget(previewArea, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    ok_ = buttons->button(QDialogButtonBox::Ok);
    ok_->setText(tr("Set classes"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(classes_, &QSpinBox::valueChanged, this, &SetClassesDialog::replan);
    connect(schedule_, &QCheckBox::toggled, this, &SetClassesDialog::replan);
    replan();
    // Room for the edits' rows, within the screen (the smallest size cut them off).
    const QRect screen = (parent ? parent->screen() : this->screen())->availableGeometry();
    resize(std::min(560, screen.width() * 9 / 10), std::min(440, screen.height() * 85 / 100));
}

void SetClassesDialog::replan()
{
    plan_ = planClasses(spec_, classes_->value(), schedule_->isChecked());
    schedule_->setEnabled(plan_.detector); // AlexeyAB's rule is a detector's
    scheduleRule_->setEnabled(plan_.detector);
    ok_->setEnabled(plan_.error.empty() && !plan_.edits.empty());
    if (!plan_.error.empty()) {
        preview_->setText("<span style='color:" + errorTextColour(this).name() + "'>" +
                          QString::fromStdString(plan_.error).toHtmlEscaped() + "</span>");
        return;
    }
    if (plan_.edits.empty()) {
        preview_->setText(tr("Nothing to change: the network already has these values."));
        return;
    }
    // Each edit with the line it changes, as the file is now: what Save will write differently.
    QString rows;
    for (const KeyEdit& edit : plan_.edits) {
        const cfg::Section& section = spec_.document->sections()[edit.section];
        const cfg::Line* line = section.find(edit.key);
        const QString was =
            line ? QString::fromStdString(std::string(cfg::valueBeforeComment(line->value))) : tr("not set");
        rows += QString("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td><td>&nbsp;&nbsp;%3: %4 → <b>%5</b></td></tr>")
                    .arg(line ? tr("line %1").arg(line->number) : QString())
                    .arg(QString::fromStdString(edit.where).toHtmlEscaped(), QString::fromStdString(edit.key),
                         was.toHtmlEscaped(), QString::fromStdString(edit.value));
    }
    preview_->setText(tr("These values change (one undo step):") + "<table>" + rows + "</table>");
}

QString setClassesStepText(int classes, const ClassesPlan& plan)
{
    const int edits = int(plan.edits.size());
    return edits == 1 ? QObject::tr("Set classes = %1 (1 edit)").arg(classes)
                      : QObject::tr("Set classes = %1 (%2 edits)").arg(classes).arg(edits);
}

} // namespace nw::ui
