#pragma once
// Shows one section's keys for editing, every change an undo step through the DocumentModel. The rows
// come from the section type's key schema (graph/key_schema.h): every key the type reads, set ones in
// plain text and the others showing their default in grey; integers get spin boxes, numbers decimal
// spin boxes, 0/1 switches check boxes, activation/policy/iou_loss/... combo boxes, and each key a
// tooltip with its meaning and default. [net] is grouped (input, batch, solver, policy, augmentation).
// Keys the schema does not know stay editable as text.
#include "graph/key_schema.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableWidget;
class QTableWidgetItem;

namespace nw::ui {

class DocumentModel;

class PropertyPanel : public QWidget {
    Q_OBJECT
public:
    PropertyPanel(DocumentModel& model, QWidget* parent = nullptr);

    // Section index in the document ([net] is 0, layer i is i + 1); -1 shows nothing.
    void showSection(int section);
    int section() const { return section_; }
    QTableWidget* table() const { return table_; }
    // The row of `key`, or -1.
    int rowOf(const QString& key) const;
    // A value typed into a cell but not yet confirmed (Enter, focus elsewhere) goes into the document now:
    // before saving, closing, opening another file or training, so what is on screen is what is used.
    // A number not finished ("1e") is not: why, else empty.
    QString commitPendingEdit();
    // Closes a cell editor without writing its value (a refused one the user chose to discard).
    void dropPendingEdit() { closeOpenEditor(); }
    // Why a value cannot be written as typed (line breaks), else empty.
    static QString valueRefusal(const QString& value);
    // The network's errors and warnings: a key on a line they name is marked, their words in its tooltip
    // (a filters=-5 looked like any other value).
    void setProblems(const Diagnostics& problems);

private:
    void refresh();
    void closeOpenEditor();
    void addRow(const KeySpec& spec, const std::string* value);
    void addGroupRow(const QString& title);
    void markProblems();
    void valueEdited(QTableWidgetItem* item);
    void addKey();
    void removeSelectedKey();

    DocumentModel& model_;
    int section_ = -1;
    int shownSection_ = -1; // the section the rows were last built for
    bool refreshing_ = false;
    bool applyingEdit_ = false; // inside valueEdited: the model's change signal must not rebuild now
    QLabel* title_ = nullptr;
    QLabel* sectionProblems_ = nullptr; // the problems on the section's header line
    QTableWidget* table_ = nullptr;
    QLineEdit* newKey_ = nullptr;
    QLineEdit* newValue_ = nullptr;
    Diagnostics problems_;
};

} // namespace nw::ui
