#include "editor/property_panel.h"

#include "editor/document_model.h"
#include "graph/net_config.h"
#include "layers/layer_config.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

namespace nw::ui {

namespace {

// Combo boxes for the keys whose values come from a fixed list; free text elsewhere.
class ValueDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override
    {
        const QStringList choices = choicesFor(index.siblingAtColumn(0).data().toString());
        if (choices.isEmpty())
            return QStyledItemDelegate::createEditor(parent, option, index);
        auto* combo = new QComboBox(parent);
        combo->addItems(choices);
        combo->setEditable(true);
        return combo;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        if (auto* combo = qobject_cast<QComboBox*>(editor))
            combo->setCurrentText(index.data().toString());
        else
            QStyledItemDelegate::setEditorData(editor, index);
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        if (auto* combo = qobject_cast<QComboBox*>(editor))
            model->setData(index, combo->currentText());
        else
            QStyledItemDelegate::setModelData(editor, model, index);
    }

private:
    static QStringList toList(const std::vector<std::string>& names)
    {
        QStringList list;
        for (const auto& name : names)
            list << QString::fromStdString(name);
        return list;
    }
    static QStringList choicesFor(const QString& key)
    {
        if (key == "activation")
            return toList(activationNames());
        if (key == "policy")
            return toList(learningRatePolicies());
        if (key == "iou_loss")
            return {"mse", "iou", "giou", "diou", "ciou"};
        if (key == "batch_normalize" || key == "pad" || key == "adam" || key == "stopbackward")
            return {"0", "1"};
        return {};
    }
};

} // namespace

PropertyPanel::PropertyPanel(DocumentModel& model, QWidget* parent) : QWidget(parent), model_(model)
{
    title_ = new QLabel(tr("Select a layer to edit its keys."), this);
    table_ = new QTableWidget(0, 2, this);
    table_->setObjectName("propertyTable");
    table_->setHorizontalHeaderLabels({tr("Key"), tr("Value")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setItemDelegateForColumn(1, new ValueDelegate(table_));
    newKey_ = new QLineEdit(this);
    newKey_->setPlaceholderText(tr("key"));
    newValue_ = new QLineEdit(this);
    newValue_->setPlaceholderText(tr("value"));
    auto* add = new QPushButton(tr("Add"), this);
    auto* remove = new QPushButton(tr("Remove key"), this);
    auto* addRow = new QHBoxLayout;
    addRow->addWidget(newKey_);
    addRow->addWidget(newValue_);
    addRow->addWidget(add);
    addRow->addWidget(remove);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(table_);
    layout->addLayout(addRow);

    connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (refreshing_ || item->column() != 1)
            return;
        model_.setValue(section_, table_->item(item->row(), 0)->text(), item->text());
    });
    connect(add, &QPushButton::clicked, this, &PropertyPanel::addKey);
    connect(newValue_, &QLineEdit::returnPressed, this, &PropertyPanel::addKey);
    connect(remove, &QPushButton::clicked, this, &PropertyPanel::removeSelectedKey);
    connect(&model_, &DocumentModel::changed, this, &PropertyPanel::refresh);
}

void PropertyPanel::showSection(int section)
{
    section_ = section;
    refresh();
}

void PropertyPanel::refresh()
{
    const auto& sections = model_.document().sections();
    if (section_ >= int(sections.size()))
        section_ = -1;
    refreshing_ = true;
    table_->setRowCount(0);
    if (section_ < 0) {
        title_->setText(tr("Select a layer to edit its keys."));
        refreshing_ = false;
        return;
    }
    const cfg::Section& section = sections[std::size_t(section_)];
    title_->setText(
        section_ == 0
            ? tr("[%1] (line %2)").arg(QString::fromStdString(section.type)).arg(section.headerLine())
            : tr("Layer %1: [%2] (line %3)")
                  .arg(section_ - 1)
                  .arg(QString::fromStdString(section.type))
                  .arg(section.headerLine()));
    for (const cfg::Line* line : section.entries()) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        auto* key = new QTableWidgetItem(QString::fromStdString(line->key));
        key->setFlags(key->flags() & ~Qt::ItemIsEditable);
        table_->setItem(row, 0, key);
        table_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(line->value)));
    }
    refreshing_ = false;
}

void PropertyPanel::addKey()
{
    const QString key = newKey_->text().trimmed();
    if (section_ < 0 || key.isEmpty() || newValue_->text().trimmed().isEmpty())
        return;
    model_.setValue(section_, key, newValue_->text().trimmed());
    newKey_->clear();
    newValue_->clear();
}

void PropertyPanel::removeSelectedKey()
{
    const int row = table_->currentRow();
    if (section_ >= 0 && row >= 0)
        model_.removeKey(section_, table_->item(row, 0)->text());
}

} // namespace nw::ui
