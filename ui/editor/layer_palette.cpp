#include "editor/layer_palette.h"

#include "layers/registry.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QListWidget>
#include <QMimeData>
#include <QMouseEvent>
#include <QPushButton>
#include <QVBoxLayout>
#include <functional>
#include <map>
#include <utility>

namespace nw::ui {

namespace {

// Drags carry the layer type for the graph canvas; Enter inserts the current type; typing its first
// letters goes to it (the shown names are indented, which Qt's own type-ahead matched against).
class PaletteList : public QListWidget {
public:
    explicit PaletteList(std::function<void()> insert, QWidget* parent)
        : QListWidget(parent), insert_(std::move(insert))
    {
    }

    void keyboardSearch(const QString& search) override
    {
        if (!typed_.isValid() || typed_.elapsed() > QApplication::keyboardInputInterval())
            typedText_.clear();
        typed_.start();
        typedText_ += search;
        for (int row = 0; row < count(); ++row)
            if (item(row)->data(Qt::UserRole).toString().startsWith(typedText_, Qt::CaseInsensitive)) {
                setCurrentRow(row);
                scrollToItem(item(row));
                return;
            }
    }

protected:
    void keyPressEvent(QKeyEvent* event) override
    {
        if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
            insert_();
            return;
        }
        QListWidget::keyPressEvent(event);
    }

    // A drag that starts on a category header carries nothing: Qt's drag takes the selected items,
    // and the header's drag inserted whichever layer type was selected before.
    void mousePressEvent(QMouseEvent* event) override
    {
        const QListWidgetItem* pressed = itemAt(event->position().toPoint());
        pressedLayer_ = pressed && pressed->data(Qt::UserRole).isValid();
        QListWidget::mousePressEvent(event);
    }

    void startDrag(Qt::DropActions actions) override
    {
        if (pressedLayer_) // copied, never moved: a Move drop (Shift held) took the entry out of the list
            QListWidget::startDrag(actions & Qt::CopyAction);
    }

    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override
    {
        auto* mime = new QMimeData;
        if (!items.isEmpty())
            mime->setData("application/x-netwright-layer",
                          items.first()->data(Qt::UserRole).toString().toUtf8());
        return mime;
    }

private:
    std::function<void()> insert_;
    bool pressedLayer_ = false; // the last press was on a layer type (not a category header)
    QElapsedTimer typed_;
    QString typedText_;
};

} // namespace

LayerPalette::LayerPalette(QWidget* parent) : QWidget(parent)
{
    auto request = [this] {
        if (auto* item = list_->currentItem(); item && item->data(Qt::UserRole).isValid())
            emit insertRequested(item->data(Qt::UserRole).toString());
    };
    list_ = new PaletteList(request, this);
    list_->setAccessibleName(tr("Layer types"));
    list_->setDragEnabled(true);
    list_->setDragDropMode(QAbstractItemView::DragOnly);
    list_->setObjectName("layerPalette");
    std::map<std::string, std::vector<std::string>> byCategory;
    for (const LayerType& type : LayerRegistry::builtin().types())
        byCategory[type.category].push_back(type.name);
    for (const auto& [category, names] : byCategory) {
        auto* header = new QListWidgetItem(QString::fromStdString(category), list_);
        QFont bold = header->font();
        bold.setBold(true);
        header->setFont(bold);
        header->setFlags(Qt::NoItemFlags);
        for (const std::string& name : names) {
            auto* item = new QListWidgetItem("  " + QString::fromStdString(name), list_);
            item->setData(Qt::UserRole, QString::fromStdString(name));
            item->setToolTip(tr("Double-click or Enter inserts a [%1] after the selected layer; drag it onto "
                                "the canvas or an edge")
                                 .arg(QString::fromStdString(name)));
        }
    }
    // (a short word: "Insert after selection" made the palette scroll sideways in a 200-pixel dock)
    auto* insert = new QPushButton(tr("Insert"), this);
    insert->setObjectName("paletteInsert");
    insert->setToolTip(tr("Insert the chosen layer type after the selected layer (at the end when none is "
                          "selected)"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(list_);
    layout->addWidget(insert);
    connect(list_, &QListWidget::itemDoubleClicked, this, request);
    connect(insert, &QPushButton::clicked, this, request);
}

std::vector<std::pair<std::string, std::string>> LayerPalette::defaults(const QString& type)
{
    if (type == "convolutional")
        return {{"batch_normalize", "1"}, {"filters", "32"}, {"size", "3"},
                {"stride", "1"},          {"pad", "1"},      {"activation", "leaky"}};
    if (type == "connected")
        return {{"output", "128"}, {"activation", "leaky"}};
    if (type == "maxpool")
        return {{"size", "2"}, {"stride", "2"}};
    if (type == "dropout")
        return {{"probability", "0.5"}};
    if (type == "route")
        return {{"layers", "-1"}};
    if (type == "shortcut")
        return {{"from", "-2"}, {"activation", "linear"}};
    if (type == "upsample" || type == "reorg")
        return {{"stride", "2"}};
    if (type == "activation")
        return {{"activation", "leaky"}};
    if (type == "yolo" || type == "Gaussian_yolo")
        return {{"mask", "0,1,2"},
                {"anchors", "10,14, 23,27, 37,58, 81,82, 135,169, 344,319"},
                {"classes", "80"},
                {"num", "6"}};
    return {};
}

} // namespace nw::ui
