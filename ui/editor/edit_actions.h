#pragma once
// The editing commands that act on selected layers and on the graph's connections: Cut, Copy, Paste,
// Duplicate, Delete (layers, or a selected route input), connecting ports and inserting on an edge.
// Each one is a single undo step of the DocumentModel; what cannot be done is said, never half done.
// Copied layers travel as cfg text, so they paste into another network or a text editor.
#include <QList>
#include <QObject>
#include <functional>
#include <vector>

class QAction;
class QWidget;

namespace nw::ui {

class DocumentModel;
class GraphView;

class EditActions : public QObject {
    Q_OBJECT
public:
    // `selection` gives the selected layers (the graph's, or the table's current row).
    EditActions(DocumentModel& model, GraphView& graph, std::function<std::vector<int>()> selection,
                QWidget* parent);

    QAction* cutAction() const { return cut_; }
    QAction* copyAction() const { return copy_; }
    QAction* pasteAction() const { return paste_; }
    QAction* duplicateAction() const { return duplicate_; }
    QAction* deleteAction() const { return delete_; }
    QList<QAction*> actions() const { return {cut_, copy_, paste_, duplicate_, delete_}; }

    void copyLayers();
    void pasteLayers();
    void duplicateLayers();
    void deleteSelection();
    void connectLayers(int source, int target);
    void insertOnEdge(const QString& type, int from, int to);

signals:
    // A refusal or a result, for the status bar.
    void message(const QString& text);
    // Layers to select after an edit (pasted, inserted, connected).
    void selectRequested(const std::vector<int>& layers);

private:
    void removeLayers(const std::vector<int>& layers); // one undo step, or the refusal said

    DocumentModel& model_;
    GraphView& graph_;
    std::function<std::vector<int>()> selection_;
    QAction *cut_, *copy_, *paste_, *duplicate_, *delete_;
};

} // namespace nw::ui
