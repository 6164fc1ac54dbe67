#include "editor/edit_actions.h"

#include "cfg/layer_clipboard.h"
#include "cfg/layer_edits.h"
#include "cfg/layer_links.h"
#include "editor/document_model.h"
#include "editor/graph_view.h"
#include "editor/layer_palette.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QMimeData>
#include <numeric>

namespace nw::ui {

namespace {

constexpr char kCfgMime[] = "application/x-netwright-cfg";

std::vector<int> range(int first, int count)
{
    std::vector<int> layers(static_cast<std::size_t>(std::max(0, count)));
    std::iota(layers.begin(), layers.end(), first);
    return layers;
}

} // namespace

EditActions::EditActions(DocumentModel& model, GraphView& graph, std::function<std::vector<int>()> selection,
                         QWidget* parent)
    : QObject(parent), model_(model), graph_(graph), selection_(std::move(selection))
{
    cut_ = new QAction(tr("Cu&t layers"), parent);
    cut_->setShortcut(QKeySequence::Cut);
    connect(cut_, &QAction::triggered, this, [this] {
        // Cut takes layers only: with an edge selected, deleting the selection would disconnect it.
        if (graph_.selectedEdge() && graph_.selectedLayers().empty()) {
            emit message(
                tr("Cut takes layers: select the layers to cut (Del disconnects the selected edge)"));
            return;
        }
        const std::vector<int> layers = selection_();
        copyLayers(); // or says what to select
        if (!layers.empty())
            removeLayers(layers);
    });
    copy_ = new QAction(tr("&Copy layers"), parent);
    copy_->setShortcut(QKeySequence::Copy);
    connect(copy_, &QAction::triggered, this, &EditActions::copyLayers);
    paste_ = new QAction(tr("&Paste layers"), parent);
    paste_->setShortcut(QKeySequence::Paste);
    connect(paste_, &QAction::triggered, this, &EditActions::pasteLayers);
    duplicate_ = new QAction(tr("Dup&licate layers"), parent);
    duplicate_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(duplicate_, &QAction::triggered, this, &EditActions::duplicateLayers);
    delete_ = new QAction(tr("&Delete"), parent);
    // (Backspace too, as on a Mac and in other node editors: on Linux Delete is only the Del key)
    delete_->setShortcuts({QKeySequence(QKeySequence::Delete), QKeySequence(Qt::Key_Backspace)});
    delete_->setToolTip(tr("Delete the selected layers, or disconnect the selected route input"));
    connect(delete_, &QAction::triggered, this, &EditActions::deleteSelection);
    // (the window gives them the graph's and the layer table's focus as their context; text fields keep
    // their own Ctrl+C/V)
}

void EditActions::copyLayers()
{
    const std::vector<int> layers = selection_();
    if (layers.empty()) {
        emit message(tr("Select layers to copy (Ctrl+click or Shift+drag in the graph selects several)"));
        return;
    }
    const QString text = QString::fromStdString(cfg::layersText(model_.document(), layers));
    auto* data = new QMimeData;
    data->setText(text);
    data->setData(kCfgMime, text.toUtf8());
    QGuiApplication::clipboard()->setMimeData(data);
    emit message(layers.size() == 1 ? tr("Copied 1 layer as cfg text")
                                    : tr("Copied %1 layers as cfg text").arg(layers.size()));
}

void EditActions::pasteLayers()
{
    // A cfg that starts with a layer has no layers to paste among until [net] comes first (a paste went in
    // and showed nowhere, as Insert and drop refuse).
    if (const cfg::Document& document = model_.document();
        !document.sections().empty() && !cfg::startsWithNet(document)) {
        emit message(tr("Not pasted: this cfg starts with [%1], not [net]. Add the [net] section first "
                        "(Edit ▸ Add [net] section); its sections then show as layers.")
                         .arg(QString::fromStdString(document.sections().front().type)));
        return;
    }
    const QMimeData* data = QGuiApplication::clipboard()->mimeData();
    const QString text = data && data->hasFormat(kCfgMime) ? QString::fromUtf8(data->data(kCfgMime))
                                                           : QGuiApplication::clipboard()->text();
    const std::vector<int> selected = selection_();
    const int at = selected.empty() ? cfg::layerCount(model_.document()) : selected.back() + 1;
    QString error;
    const int count = model_.pasteLayers(at, text, error);
    if (count == 0) {
        emit message(error);
        return;
    }
    emit selectRequested(range(at, count));
    emit message(count == 1 ? tr("Pasted 1 layer at %1").arg(at)
                            : tr("Pasted %1 layers at %2").arg(count).arg(at));
}

void EditActions::duplicateLayers()
{
    const std::vector<int> layers = selection_();
    if (layers.empty())
        return;
    QString error;
    const int at = layers.back() + 1;
    const int count = model_.pasteLayers(
        at, QString::fromStdString(cfg::layersText(model_.document(), layers)), error, true);
    if (count > 0)
        emit selectRequested(range(at, count));
}

void EditActions::deleteSelection()
{
    if (const auto edge = graph_.selectedEdge(); edge && graph_.selectedLayers().empty()) {
        const QString problem = model_.disconnectLayers(edge->first, edge->second);
        emit message(problem.isEmpty()
                         ? tr("Layer %1 no longer reads layer %2").arg(edge->second).arg(edge->first)
                         : problem);
        return;
    }
    if (const std::vector<int> layers = selection_(); !layers.empty())
        removeLayers(layers);
}

void EditActions::removeLayers(const std::vector<int>& layers)
{
    if (const QString problem = model_.removeLayers(layers); !problem.isEmpty()) {
        emit message(problem);
        return;
    }
    emit selectRequested({std::min(layers.front(), cfg::layerCount(model_.document()) - 1)});
}

void EditActions::connectLayers(int source, int target)
{
    // A [shortcut]'s from= holds one layer: the new one takes the place of the one it read (said, not
    // silent: the edge to that layer went without a word). A [route] adds an input.
    const bool route = target >= 0 && target < cfg::layerCount(model_.document()) &&
                       model_.document().sections()[std::size_t(target) + 1].type == "route";
    const std::vector<int> before = cfg::referencedLayers(model_.document(), target);
    if (const QString problem = model_.connectLayers(source, target); !problem.isEmpty()) {
        emit message(problem);
        return;
    }
    emit selectRequested({target});
    emit message(!route && !before.empty() && before.front() != source
                     ? tr("Layer %1 now reads layer %2 instead of layer %3 (the first layer its from= names; "
                          "Undo brings it back)")
                           .arg(target)
                           .arg(source)
                           .arg(before.front())
                     : tr("Layer %1 now reads layer %2").arg(target).arg(source));
}

void EditActions::insertOnEdge(const QString& type, int from, int to)
{
    // Only an edge into the next layer can take a layer between its ends: placed after `from`, a layer
    // on a route's or shortcut's edge would also come between `from` and the layer after it.
    if (from >= 0 && to != from + 1) {
        emit message(
            tr("A layer goes between two consecutive layers: drop it on an edge into the next layer, "
               "or insert it and connect it by dragging from its ports"));
        return;
    }
    const int at = model_.insertLayerOnEdge(type, LayerPalette::defaults(type), from, to);
    emit selectRequested({at});
}

} // namespace nw::ui
