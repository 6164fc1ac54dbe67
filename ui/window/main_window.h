#pragma once
// The studio's main window: the graph in the centre, docks around it (layer table, Problems, Properties,
// Source, Layers palette, History, Training, Detect), all showing one document. main_window.cpp builds
// the docks and keeps them in step (selection, problems, editability while training);
// main_window_menus.cpp has the menus, toolbar and shortcuts; main_window_files.cpp opening and saving.
#include "cfg/document.h"
#include "graph/network_spec.h"

#include <QMainWindow>
#include <optional>
#include <utility>

class QListWidget;
class QTableView;
class QLabel;
class QMenu;

namespace nw::ui {

class LayerTableModel;
class LayerSortProxy;
class TrainPanel;
class DocumentModel;
class PropertyPanel;
class LayerPalette;
class GraphView;
class DetectPanel;
class EditActions;
class SourceView;

// A name typed without a suffix in a save dialog gets ".cfg", as users of this tool expect.
QString withCfgSuffix(const QString& path);

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    // Whether a window at `frame` can be used on these screens (their available areas): large enough,
    // and enough of it on one of them. A damaged saved geometry is dropped when not.
    static bool isUsablePlace(const QRect& frame, const QList<QRect>& screens);
    // `frame` shrunk to fit `screen` and moved inside it (a window saved on a larger screen).
    static QRect placeInside(const QRect& frame, const QRect& screen);
    // Why the studio's settings cannot be written (a read-only or impossible config folder), else empty.
    static QString settingsProblem();
    ~MainWindow() override;

    // The docks' sizes a first window of this size gets (View ▸ Reset layout goes back to the first
    // window's).
    void sizeDocksForWindow();

    // Loads a cfg and shows it; returns false (with a message in the window) when it cannot be read.
    bool openFile(const QString& path);
    const NetworkSpec& spec() const;
    LayerTableModel* layerModel() const { return model_; }
    QTableView* layerTable() const { return table_; }
    QListWidget* problemList() const { return problems_; }
    TrainPanel* trainPanel() const { return trainPanel_; }
    DocumentModel* documentModel() const { return model_doc_; }
    PropertyPanel* propertyPanel() const { return properties_; }
    LayerPalette* palette() const { return palette_; }
    GraphView* graphView() const { return graph_; }
    DetectPanel* detectPanel() const { return detectPanel_; }
    EditActions* editActions() const { return edits_; }
    SourceView* sourceView() const { return source_; }
    // The layer selected in the table, or -1.
    int selectedLayer() const;
    // Selects a layer in the table, the graph and the Properties dock.
    void selectLayer(int layer);
    // Inserts a palette layer type after the selection (at the end when nothing is selected).
    void insertLayer(const QString& type);
    bool save();
    bool saveAs(const QString& path);
    // The folders of the networks Netwright ships: Save on one of them asks where to save a copy (Ctrl+S
    // replaced the bundled default, which every launch then opened as it was left).
    void setBundledNetworkFolders(const QStringList& folders) { bundledFolders_ = folders; }
    // Files opened or saved, newest first (at most 10), kept in QSettings.
    QStringList recentFiles() const;
    // Help ▸ Keyboard shortcuts: every menu command with a shortcut, read from the menus themselves.
    QString shortcutsText() const;
    // The weights of the run the Training panel's folder holds for this network: the newer of its
    // _final and _last weights; empty when it has neither.
    QString runWeights() const;

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    // Tab and Shift+Tab pass over docks behind another dock's tab (keyboard_focus.h).
    bool focusNextPrevChild(bool next) override;

private:
    QStringList bundledFolders_;
    // Brings Properties in front of Training and Detect (the Source tab in front stays: it shows the
    // same section, as text).
    void raiseProperties();
    // Values typed in Properties and text typed in Source, not yet confirmed, go into the document;
    // false (said in the status bar) when Source's text is no cfg and stays unapplied.
    bool commitPendingEdits();
    bool refuseLayersWithoutNet(); // says why, true when the cfg starts with a layer
    void keepCanvasRoom();         // narrows the docks when the graph has no room for a card
    // "<outcome>: the text typed in Source is not a cfg (why); fix it …" — Save's and Train's refusal.
    QString unappliedSourceText(const QString& outcome) const;
    void createActions();
    void keepKeyboardInView(); // (keyboard_focus.h)
    void showSpec();
    // The Problems list and the status bar's totals: the description's diagnostics and the data check.
    void showProblems();
    std::optional<Diagnostic> dataClassesProblem() const;
    // The classes= of the Training panel's .data file and its name; 0 when there is none.
    std::pair<int, QString> dataClasses() const;
    // Edit ▸ Set classes.
    void showSetClasses();
    void chooseFile();
    void newNetwork();
    // File ▸ Export ONNX: a dialog over the editor's network and the Detect panel's weights.
    void showOnnxExport();
    // Asks what to do with unsaved edits; false means cancel.
    bool maybeSave();
    void updateTitle();
    void setEditable(bool editable);
    void rememberRecent(const QString& path);
    void updateRecentMenu();

    DocumentModel* model_doc_ = nullptr;
    QByteArray defaultState_; // the docks as first laid out, for View ▸ Reset layout
    QAction* undo_ = nullptr;
    QAction* redo_ = nullptr;
    QAction* addNet_ = nullptr; // Edit ▸ Add [net] section: shown for a cfg that starts with a layer
    PropertyPanel* properties_ = nullptr;
    SourceView* source_ = nullptr;
    LayerPalette* palette_ = nullptr;
    GraphView* graph_ = nullptr;
    EditActions* edits_ = nullptr;
    DetectPanel* detectPanel_ = nullptr;
    QList<QAction*> editActions_;
    LayerTableModel* model_ = nullptr;
    LayerSortProxy* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    QListWidget* problems_ = nullptr;
    QLabel* totals_ = nullptr;
    QString runStateMessage_; // what the status line says while a run lasts (empty when none)
    TrainPanel* trainPanel_ = nullptr;
    bool shownOnce_ = false; // the canvas's room is made at the first show only
    QAction* openAction_ = nullptr;
    QAction* reloadAction_ = nullptr;
    QMenu* recentMenu_ = nullptr;
};

} // namespace nw::ui
