#pragma once
// Shows one section's keys and values for editing: every change is an undo step through the
// DocumentModel. Activation, policy and iou_loss get combo boxes; unknown keys stay editable text.
#include <QWidget>

class QLabel;
class QLineEdit;
class QTableWidget;

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

private:
    void refresh();
    void addKey();
    void removeSelectedKey();

    DocumentModel& model_;
    int section_ = -1;
    bool refreshing_ = false;
    QLabel* title_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLineEdit* newKey_ = nullptr;
    QLineEdit* newValue_ = nullptr;
};

} // namespace nw::ui
