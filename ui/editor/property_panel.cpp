#include "editor/property_panel.h"

#include "editor/document_model.h"
#include "window/message_colours.h"

#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace nw::ui {

namespace {

using Kind = cfg::KeyInfo::Kind;

// Item data of a value cell.
constexpr int kKindRole = Qt::UserRole;        // Kind as int
constexpr int kChoicesRole = Qt::UserRole + 1; // QStringList
constexpr int kSetRole = Qt::UserRole + 2;     // the key is written in the section
constexpr int kKeyRole = Qt::UserRole + 3;     // the key (group rows have none)

// The editor a value cell gets: from its kind and choices; text when the value does not fit the kind.
class ValueDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override
    {
        const auto kind = Kind(index.data(kKindRole).toInt());
        const QStringList choices = index.data(kChoicesRole).toStringList();
        const QString text = index.data(Qt::DisplayRole).toString();
        bool number = false;
        if (!choices.isEmpty() && kind != Kind::Flag) {
            auto* combo = new QComboBox(parent);
            combo->addItems(choices);
            combo->setEditable(true); // a value Netwright does not list stays possible
            return combo;
        }
        if (kind == Kind::Int && (text.toInt(&number), number)) {
            auto* spin = new QSpinBox(parent);
            spin->setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
            return spin;
        }
        if (kind == Kind::Float && (text.toDouble(&number), number)) {
            // The text as written (1e-8, .5), checked as a number: a spin box rounded to its decimals
            // (learning_rate=0.00000001 came back as 0) and rewrote an untouched value.
            auto* line = new QLineEdit(parent);
            auto* validator = new QDoubleValidator(line);
            validator->setNotation(QDoubleValidator::ScientificNotation);
            validator->setLocale(QLocale::c()); // cfg numbers use a dot whatever the desktop's language
            line->setValidator(validator);
            return line;
        }
        return QStyledItemDelegate::createEditor(parent, option, index);
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        const QString text = index.data(Qt::DisplayRole).toString();
        if (auto* combo = qobject_cast<QComboBox*>(editor)) {
            // A listed value is the current item too: the list opened on the first one (elu for leaky).
            if (const int listed = combo->findText(text); listed >= 0)
                combo->setCurrentIndex(listed);
            else
                combo->setCurrentText(text);
        } else if (auto* spin = qobject_cast<QSpinBox*>(editor))
            spin->setValue(text.toInt());
        else
            QStyledItemDelegate::setEditorData(editor, index);
    }
    bool eventFilter(QObject* object, QEvent* event) override
    {
        // Leaving an unfinished number ("1e") for another control closes its editor without setting it,
        // as Qt does: said there, not dropped in silence.
        if (const auto* line = qobject_cast<QLineEdit*>(object);
            line && event->type() == QEvent::FocusOut && !line->hasAcceptableInput() && line->isVisible())
            QToolTip::showText(line->mapToGlobal(QPoint(0, line->height())),
                               QObject::tr("\u201c%1\u201d is not a number: not set").arg(line->text()));
        return QStyledItemDelegate::eventFilter(object, event);
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        if (auto* combo = qobject_cast<QComboBox*>(editor))
            model->setData(index, combo->currentText());
        else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
            // (a cell opened and left rewrote filters=016 as 16, an undo step for nothing)
            if (spin->value() != index.data(Qt::DisplayRole).toString().toInt())
                model->setData(index, QString::number(spin->value()));
        } else if (const auto* line = qobject_cast<QLineEdit*>(editor); line && !line->hasAcceptableInput())
            return; // "1e": Enter refused it, and so does everything else that commits (Save wrote it)
        else
            QStyledItemDelegate::setModelData(editor, model, index);
    }
};

// Space on a value with choices opens its list, as on any combo box: the cell's editor took the Space
// as typed text ("leaky ").
class SpaceOpensChoices : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        auto* table = qobject_cast<QTableWidget*>(watched);
        if (!table || event->type() != QEvent::KeyPress)
            return false;
        const auto* key = static_cast<QKeyEvent*>(event);
        const QModelIndex index = table->currentIndex();
        if (key->key() != Qt::Key_Space || key->modifiers() != Qt::NoModifier || index.column() != 1 ||
            index.data(kChoicesRole).toStringList().isEmpty() ||
            Kind(index.data(kKindRole).toInt()) == Kind::Flag || !(index.flags() & Qt::ItemIsEditable))
            return false;
        table->edit(index);
        auto* combo = qobject_cast<QComboBox*>(table->indexWidget(index)); // (its open editor)
        if (!combo)
            return false; // (not opened: the Space goes on as before)
        combo->showPopup();
        return true;
    }
};

QString kindName(Kind kind)
{
    switch (kind) {
    case Kind::Int:
        return QObject::tr("integer");
    case Kind::Float:
        return QObject::tr("number");
    case Kind::Flag:
        return QObject::tr("0 or 1");
    case Kind::Text:
        return QObject::tr("text");
    case Kind::IntList:
        return QObject::tr("list of integers");
    case Kind::FloatList:
        return QObject::tr("list of numbers");
    case Kind::Other:
        break;
    }
    return QObject::tr("text");
}

} // namespace

PropertyPanel::PropertyPanel(DocumentModel& model, QWidget* parent) : QWidget(parent), model_(model)
{
    title_ = new QLabel(tr("Select a layer to edit its keys."), this);
    sectionProblems_ = new QLabel(this);
    sectionProblems_->setObjectName("sectionProblems");
    sectionProblems_->setWordWrap(true);
    sectionProblems_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sectionProblems_->hide();
    table_ = new QTableWidget(0, 2, this);
    table_->setObjectName("propertyTable");
    table_->setAccessibleName(tr("Keys and values of the selected section"));
    table_->setHorizontalHeaderLabels({tr("Key"), tr("Value")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setTabKeyNavigation(false); // Tab leaves the table (arrows move inside it)
    table_->setItemDelegateForColumn(1, new ValueDelegate(table_));
    table_->installEventFilter(new SpaceOpensChoices(table_));
    newKey_ = new QLineEdit(this);
    newKey_->setObjectName("newKey");
    newKey_->setAccessibleName(tr("New key"));
    newKey_->setPlaceholderText(tr("key"));
    newValue_ = new QLineEdit(this);
    newValue_->setObjectName("newValue");
    newValue_->setAccessibleName(tr("Value of the new key"));
    newValue_->setPlaceholderText(tr("value"));
    auto* add = new QPushButton(tr("Add"), this);
    add->setObjectName("addKey");
    auto* remove = new QPushButton(tr("Remove key"), this);
    remove->setToolTip(tr("Remove the selected key from the section: it takes its default again"));
    auto* addRow = new QHBoxLayout;
    addRow->addWidget(newKey_);
    addRow->addWidget(newValue_);
    addRow->addWidget(add);
    addRow->addWidget(remove);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(sectionProblems_);
    layout->addWidget(table_);
    layout->addLayout(addRow);

    connect(table_, &QTableWidget::itemChanged, this, &PropertyPanel::valueEdited);
    connect(add, &QPushButton::clicked, this, &PropertyPanel::addKey);
    connect(newValue_, &QLineEdit::returnPressed, this, &PropertyPanel::addKey);
    connect(remove, &QPushButton::clicked, this, &PropertyPanel::removeSelectedKey);
    connect(&model_, &DocumentModel::changed, this, &PropertyPanel::refresh);
}

void PropertyPanel::showSection(int section)
{
    // A value typed but not confirmed belongs to the section shown until now: a toolbar button takes
    // no focus, so without this Edit [net] dropped it with the cell editor.
    if (section != section_ && !applyingEdit_)
        if (const QString refusal = commitPendingEdit(); !refusal.isEmpty()) // (its rows are rebuilt)
            QToolTip::showText(mapToGlobal(QPoint(0, 0)), refusal.section(';', 0, 0) + tr(": not set"), this);
    section_ = section;
    refresh();
}

QString PropertyPanel::commitPendingEdit()
{
    // An open cell editor is a child of the viewport (commitData, a protected slot of the view, is called
    // by name as the delegate's own signal does; the view ignores a widget that is not its editor).
    for (QWidget* editor : table_->viewport()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (!editor->isVisible())
            continue;
        if (const auto* line = qobject_cast<QLineEdit*>(editor); line && !line->hasAcceptableInput()) {
            const QModelIndex index = table_->currentIndex();
            return tr("%1 = \u201c%2\u201d in Properties is not a number; finish it, or press Esc to keep %3")
                .arg(index.data(kKeyRole).toString(), line->text(), index.data(Qt::DisplayRole).toString());
        }
        QMetaObject::invokeMethod(table_, "commitData", Qt::DirectConnection, Q_ARG(QWidget*, editor));
    }
    return QString();
}

void PropertyPanel::closeOpenEditor()
{
    // Rows about to go: an open cell editor is closed by its view first. Qt releases a removed row's
    // editor taking off the view's default delegate's event filter, not this column's, and the editor's
    // focus-out then committed to a view that no longer owned it ("commitData called with an editor that
    // does not belong to this view"; after Save or Edit [net] with a value typed).
    for (QWidget* editor : table_->viewport()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (editor->isVisible()) {
            editor->removeEventFilter(table_->itemDelegateForColumn(1));
            QMetaObject::invokeMethod(
                table_, "closeEditor", Qt::DirectConnection, Q_ARG(QWidget*, editor),
                Q_ARG(QAbstractItemDelegate::EndEditHint, QAbstractItemDelegate::NoHint));
        }
}

int PropertyPanel::rowOf(const QString& key) const
{
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, 1) && table_->item(row, 1)->data(kKeyRole).toString() == key)
            return row;
    return -1;
}

void PropertyPanel::addGroupRow(const QString& title)
{
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* item = new QTableWidgetItem(title);
    QFont font = item->font();
    font.setBold(true);
    item->setFont(font);
    item->setFlags(Qt::ItemIsEnabled);
    item->setBackground(palette().alternateBase());
    table_->setItem(row, 0, item);
    table_->setSpan(row, 0, 1, 2);
}

void PropertyPanel::addRow(const KeySpec& spec, const std::string* value)
{
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QString key = QString::fromStdString(spec.key);
    auto* keyItem = new QTableWidgetItem(key);
    keyItem->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    QString tip = spec.description.empty() ? key : key + ": " + QString::fromStdString(spec.description);
    tip +=
        "\n" + (spec.kind == Kind::Other && spec.fallback.empty() && spec.choices.empty()
                    ? tr("Read elsewhere or not by Netwright; kept as written.")
                    : tr("%1, default %2")
                          .arg(kindName(spec.kind),
                               spec.fallback.empty() ? tr("none") : QString::fromStdString(spec.fallback)));
    keyItem->setToolTip(tip);
    table_->setItem(row, 0, keyItem);

    const QString text = QString::fromStdString(value ? *value : spec.fallback);
    auto* valueItem = new QTableWidgetItem;
    valueItem->setData(kKindRole, int(spec.kind));
    QStringList choices;
    for (const std::string& choice : spec.choices)
        choices << QString::fromStdString(choice);
    choices.sort(Qt::CaseInsensitive); // found by name (Darknet's order put "leaky" below the fold)
    valueItem->setData(kChoicesRole, choices);
    valueItem->setData(kSetRole, value != nullptr);
    valueItem->setData(kKeyRole, key);
    valueItem->setToolTip(value ? tip : tip + "\n" + tr("Not set: the default applies. Edit to set it."));
    if (spec.kind == Kind::Flag && (text == "0" || text == "1")) {
        valueItem->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        valueItem->setCheckState(text == "1" ? Qt::Checked : Qt::Unchecked);
    } else {
        valueItem->setText(text);
    }
    if (!value) { // the default, shown for reference
        valueItem->setForeground(palette().placeholderText());
        QFont font = valueItem->font();
        font.setItalic(true);
        valueItem->setFont(font);
    }
    table_->setItem(row, 1, valueItem);
}

void PropertyPanel::refresh()
{
    if (applyingEdit_) {
        // The change came from a cell editor that is still open: rebuilding the rows now would delete
        // it under the view, which then closes an editor it no longer owns ("closeEditor called with
        // an editor that does not belong to this view"). Rebuild once the edit has returned.
        QMetaObject::invokeMethod(this, &PropertyPanel::refresh, Qt::QueuedConnection);
        return;
    }
    const auto& sections = model_.document().sections();
    if (section_ >= int(sections.size()))
        section_ = -1;
    // The key the keyboard was on, found again after the rebuild (an edit confirmed with Enter sent the
    // cursor back to the first row).
    const int currentRow = table_->currentRow(), currentColumn = std::max(0, table_->currentColumn());
    const QString currentKey = currentRow >= 0 && table_->item(currentRow, 0) && shownSection_ == section_
                                   ? table_->item(currentRow, 0)->text()
                                   : QString();
    shownSection_ = section_;
    refreshing_ = true;
    closeOpenEditor();
    table_->clearSpans();
    table_->setRowCount(0);
    if (section_ < 0) {
        title_->setText(tr("Select a layer to edit its keys."));
        sectionProblems_->hide();
        refreshing_ = false;
        return;
    }
    const cfg::Section& section = sections[std::size_t(section_)];
    // Lines count in the text as Save writes it (edits renumber them).
    const QString where = tr("line %1").arg(section.headerLine());
    const bool net = section.type == "net" || section.type == "network";
    title_->setText(
        section_ == 0 && !net
            ? tr("[%1] (%2): the first section, where [net] belongs (Edit ▸ Add [net] section)")
                  .arg(QString::fromStdString(section.type), where)
        : section_ == 0
            ? tr("[%1] (%2): the network's input, batch, solver and augmentation")
                  .arg(QString::fromStdString(section.type), where)
            : tr("Layer %1: [%2] (%3)").arg(section_ - 1).arg(QString::fromStdString(section.type), where));
    std::vector<KeySpec> schema = keySchema(section); // (defaults as this section's values give them)
    // Keys written in the section but not read by the type's parser: at the end, as text.
    for (const cfg::Line* line : section.entries())
        if (std::none_of(schema.begin(), schema.end(), [&](const KeySpec& k) { return k.key == line->key; }))
            schema.push_back({line->key, Kind::Other, "", {}, "", section_ == 0 ? "Other" : ""});
    if (section_ == 0) // [net]: one block per group, in a fixed order
        std::stable_sort(schema.begin(), schema.end(), [](const KeySpec& a, const KeySpec& b) {
            static const QStringList order = {"Input", "Batch", "Solver", "Policy", "Augmentation", "Other"};
            return order.indexOf(QString::fromStdString(a.group)) <
                   order.indexOf(QString::fromStdString(b.group));
        });
    std::string group;
    for (const KeySpec& spec : schema) {
        const bool written = section.find(spec.key) != nullptr;
        if (section_ == 0 && spec.group != group && (written || spec.kind != Kind::Other))
            addGroupRow(QString::fromStdString(group = spec.group));
        const cfg::Line* line = section.find(spec.key);
        if (!line && spec.kind == Kind::Other)
            continue; // accepted but not used by Netwright (AlexeyAB extras): only shown when written
        // As written ("10,14,  23,27", not Darknet's "10,14,23,27"; "255" without its "# 3*(80+5)").
        const std::string shown = !line                          ? std::string()
                                  : line->writtenValue().empty() ? line->value
                                                                 : line->writtenValue();
        addRow(spec, line ? &shown : nullptr);
    }
    markProblems();
    table_->resizeColumnToContents(0);
    if (!currentKey.isEmpty())
        for (int row = 0; row < table_->rowCount(); ++row)
            if (table_->item(row, 0) && table_->item(row, 0)->text() == currentKey) {
                table_->setCurrentCell(row, currentColumn);
                break;
            }
    refreshing_ = false;
}

void PropertyPanel::setProblems(const Diagnostics& problems)
{
    // (called after every edit, once the rows are rebuilt for it: again only when the problems differ)
    const auto same = [](const Diagnostic& a, const Diagnostic& b) {
        return a.line == b.line && a.severity == b.severity && a.message == b.message;
    };
    if (std::equal(problems.begin(), problems.end(), problems_.begin(), problems_.end(), same))
        return;
    problems_ = problems;
    refresh();
}

void PropertyPanel::markProblems()
{
    sectionProblems_->hide();
    if (section_ < 0 || problems_.empty())
        return;
    const cfg::Section& section = model_.document().sections()[std::size_t(section_)];
    // The layer's own problems on its header line (its output too large, its input unusable): no key's
    // row holds them, and the panel said nothing of a filters=2000000 that the card badged.
    QStringList headerSaid;
    bool headerError = false;
    for (const Diagnostic& d : problems_)
        if (d.line == section.headerLine()) {
            headerSaid << QString::fromStdString(d.message);
            headerError = headerError || d.isError();
        }
    if (!headerSaid.isEmpty()) {
        sectionProblems_->setText(headerSaid.join("\n"));
        sectionProblems_->setStyleSheet(
            "color: " + (headerError ? errorTextColour(this) : warningTextColour(this)).name());
        sectionProblems_->show();
    }
    for (int row = 0; row < table_->rowCount(); ++row) {
        QTableWidgetItem* value = table_->item(row, 1);
        const cfg::Line* line =
            value ? section.find(value->data(kKeyRole).toString().toStdString()) : nullptr;
        if (!line)
            continue;
        QStringList said;
        bool error = false;
        for (const Diagnostic& d : problems_)
            if (d.line == line->number) {
                said << QString::fromStdString(d.message);
                error = error || d.isError();
            }
        if (said.isEmpty())
            continue;
        const QColor colour = error ? errorTextColour(table_) : warningTextColour(table_);
        for (QTableWidgetItem* item : {table_->item(row, 0), value}) {
            item->setForeground(colour);
            item->setToolTip(said.join("\n") + "\n\n" + item->toolTip());
        }
    }
}

void PropertyPanel::valueEdited(QTableWidgetItem* item)
{
    if (refreshing_ || item->column() != 1 || item->data(kKeyRole).toString().isEmpty())
        return;
    const QString key = item->data(kKeyRole).toString();
    const bool checkBox = item->data(Qt::CheckStateRole).isValid(); // a 0/1 switch
    const QString value =
        checkBox ? QString(item->checkState() == Qt::Checked ? "1" : "0") : item->text().trimmed();
    const QString refusal = valueRefusal(value);
    if (value.isEmpty() || !refusal.isEmpty()) {
        // Darknet cannot read an empty value ("Remove key" goes back to the default): show the
        // document's value again, once this edit has returned.
        if (!refusal.isEmpty())
            QToolTip::showText(table_->viewport()->mapToGlobal(table_->visualItemRect(item).bottomLeft()),
                               refusal, table_);
        QMetaObject::invokeMethod(this, &PropertyPanel::refresh, Qt::QueuedConnection);
        return;
    }
    applyingEdit_ = true;
    // A name (an activation, a policy) takes a comment after it along: Darknet reads "leaky # x" as one
    // unknown name, which no value chosen here could mend while the comment stayed.
    model_.setValue(section_, key, value, Kind(item->data(kKindRole).toInt()) != Kind::Text);
    applyingEdit_ = false;
}

QString PropertyPanel::valueRefusal(const QString& value)
{
    // Darknet reads a key per line: a pasted "2\n[maxpool]\nsize=2" made a layer that took the keys after
    // it from this one.
    static const QRegularExpression lineBreak("[\\r\\n\\x{2028}\\x{2029}\\x{85}\\v\\f]");
    if (value.contains(lineBreak))
        return tr("A value is one line (Darknet reads one key per line): the text had line breaks; not set");
    return QString();
}

void PropertyPanel::addKey()
{
    const QString key = newKey_->text().trimmed();
    if (section_ < 0 || key.isEmpty() || newValue_->text().trimmed().isEmpty())
        return;
    // A key is a name: "[maxpool]", "size=5" or "#note" would change the file's structure when read back.
    static const QRegularExpression name("^[A-Za-z0-9_]+$");
    if (!name.match(key).hasMatch()) {
        QToolTip::showText(newKey_->mapToGlobal(QPoint(0, newKey_->height())),
                           tr("A key is a name of letters, digits and _ (such as filters or learning_rate)"),
                           newKey_);
        return;
    }
    if (const QString refusal = valueRefusal(newValue_->text().trimmed()); !refusal.isEmpty()) {
        QToolTip::showText(newValue_->mapToGlobal(QPoint(0, newValue_->height())), refusal, newValue_);
        return;
    }
    model_.setValue(section_, key, newValue_->text().trimmed());
    newKey_->clear();
    newValue_->clear();
}

void PropertyPanel::removeSelectedKey()
{
    const int row = table_->currentRow();
    if (section_ < 0 || row < 0 || !table_->item(row, 1))
        return;
    model_.removeKey(section_, table_->item(row, 1)->data(kKeyRole).toString());
}

} // namespace nw::ui
