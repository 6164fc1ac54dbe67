#pragma once
// The open cfg document for the GUI: one cfg::Document, its path, and the undo stack every edit goes
// through. Edits are QUndoCommands holding before/after snapshots of the document (cheap: a cfg is a
// few kilobytes), so undo restores exactly the bytes that were there.
#include "cfg/document.h"
#include "graph/set_classes.h"

#include <QObject>
#include <QUndoStack>
#include <functional>

namespace nw::ui {

class DocumentModel : public QObject {
    Q_OBJECT
public:
    explicit DocumentModel(QObject* parent = nullptr);

    const cfg::Document& document() const { return document_; }
    QString path() const { return path_; }
    QUndoStack* undoStack() { return &undo_; }
    bool isModified() const { return !undo_.isClean(); }

    // Replaces the document (open, new): clears the undo history.
    void reset(cfg::Document document, const QString& path);
    // Writes the document (atomically) and marks it clean; an error message or empty.
    QString saveAs(const QString& path);

    // Edits, each one undo step. Layer indices count from 0 (the [net] section is not a layer);
    // section indices count sections, [net] being 0.
    // (`keepComment`: as cfg::Section::set; false for a name, which a comment after it spoils)
    void setValue(int section, const QString& key, const QString& value, bool keepComment = true);
    void removeKey(int section, const QString& key);
    // Several key edits (Set classes) as one step named `text`; the refusal, or empty when done.
    QString setValues(const QString& text, const std::vector<KeyEdit>& edits);
    void insertLayer(int index, const QString& type,
                     const std::vector<std::pair<std::string, std::string>>& entries);
    // A cfg that starts with a layer gets a [net] section at the top (its sections become layers).
    void addNetSection(const std::vector<std::pair<std::string, std::string>>& entries);
    // Structural edits that another layer's reference would not survive (a removed layer it reads, or
    // one moved after it) are refused: the reason is returned, empty when the edit was made.
    QString removeLayer(int index);
    QString moveLayer(int from, int to);
    QString removeLayers(const std::vector<int>& layers);
    // Makes `layer` read `source` (route: one more input; shortcut & co.: `from=`). Returns why it
    // cannot, or an empty string when done.
    QString connectLayers(int source, int layer);
    // Stops route `layer` from reading `source`; returns why not, or empty.
    QString disconnectLayers(int source, int layer);
    // Inserts a layer on the edge from → to: after `from`; a route/shortcut edge then reads the new
    // layer instead of `from`. Returns the new layer's index.
    int insertLayerOnEdge(const QString& type,
                          const std::vector<std::pair<std::string, std::string>>& entries, int from, int to);
    // Pastes the layers of cfg `text` so that the first becomes layer `index`; returns how many, 0 with
    // `error` when the text has none.
    // `duplicate`: the undo step says "Duplicate" (Ctrl+D), not "Paste".
    int pasteLayers(int index, const QString& text, QString& error, bool duplicate = false);
    // The whole text as typed in the Source view (`text`: the file's bytes), one undo step named after
    // the changed lines; consecutive edits of the same single line merge into one step (a value typed
    // with pauses), and one that types the line back to what it was leaves no step. Text that cannot be
    // read as a cfg at all (binary data, a .data file's keys) is refused: the reason, else empty.
    QString editText(const std::string& text, int firstLine, int lastLine);
    // Runs first in every edit above but editText: a view holding typed text not yet in the document
    // (the Source view) puts it there, so the edit applies to what is on screen. When it returns false
    // (the text is no cfg and stays unapplied) the edit is not made: it would replace that text.
    void setBeforeEdit(std::function<bool()> hook) { beforeEdit_ = std::move(hook); }
    static QString pendingTextRefusal();

    // Whether another program changed the file since it was opened or last saved here (its bytes are
    // not the text as then); false without a file, or when it is gone or unreadable (Save says why).
    bool changedOnDisk() const;

    // While a run trains on the network nothing changes it: edits are refused (those that say why, with
    // "read-only while training"), and the undo stack stays where it is.
    void setReadOnly(bool readOnly) { readOnly_ = readOnly; }
    bool isReadOnly() const { return readOnly_; }

signals:
    // The document changed (an edit, undo, redo, open): re-derive the description.
    void changed();
    // An undo brought these layers back (a Delete of several): the window selects them all again.
    void layersRestored(const std::vector<int>& layers);
    // A layer edit was made (its undo step's text, "Insert [maxpool] at 12"): said in the status bar,
    // where the last undo's or refusal's words stayed after a drop.
    void edited(const QString& text);

private:
    friend class SnapshotCommand;
    friend class TextEditCommand;
    bool beginEdit();
    void apply(const cfg::Document& document);
    void push(const QString& text, cfg::Document after, std::vector<int> undone = {});
    // Applies `edit` to a copy and pushes it; the edit's refusal (non-empty) is returned, nothing changes.
    QString pushIfPossible(const QString& text, const std::function<std::string(cfg::Document&)>& edit,
                           std::vector<int> undone = {});

    cfg::Document document_;
    QString path_;
    std::string savedText_; // the text as last opened or saved
    QUndoStack undo_;
    bool readOnly_ = false;
    std::function<bool()> beforeEdit_;
    bool inBeforeEdit_ = false;
};

} // namespace nw::ui
