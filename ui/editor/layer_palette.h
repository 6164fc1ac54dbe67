#pragma once
// The layer types, by category; double-click, Enter (or Insert) asks for a new layer of that type with
// sensible defaults after the selected one.
#include <QWidget>

#include <string>
#include <utility>
#include <vector>

class QListWidget;

namespace nw::ui {

class LayerPalette : public QWidget {
    Q_OBJECT
public:
    explicit LayerPalette(QWidget* parent = nullptr);
    QListWidget* list() const { return list_; }
    // The keys a new layer of this type starts with (a 3×3 leaky convolution with batch norm, ...).
    static std::vector<std::pair<std::string, std::string>> defaults(const QString& type);

signals:
    void insertRequested(const QString& type);

private:
    QListWidget* list_ = nullptr;
};

} // namespace nw::ui
