#pragma once
// Find in the Source view's text (Ctrl+F there): a field under the text; Enter or F3 goes to the next
// match, Shift+Enter or Shift+F3 to the previous (wrapping around), every match is highlighted and
// counted, Esc closes it and gives the text back the keyboard. The match's section becomes the
// selected layer, as any cursor move in the text does.
#include <QWidget>

class QLabel;
class QLineEdit;

namespace nw::ui {

class SourceView;

class SourceFindBar : public QWidget {
    Q_OBJECT
public:
    SourceFindBar(SourceView& view, QWidget* parent = nullptr);
    // Shows the bar with the text's selection (one line of it) as the term, ready to type.
    void open();
    // Goes to the next (or previous) match, wrapping; false when there is none.
    bool findNext(bool backwards = false);
    QLineEdit* field() const { return field_; }
    QString countText() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void termChanged();
    void showCount(int matches); // "3 matches", the field red for none
    void close();

    SourceView& view_;
    QLineEdit* field_ = nullptr;
    QLabel* count_ = nullptr;
};

} // namespace nw::ui
