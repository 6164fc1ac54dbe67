#include "editor/document_model.h"

#include "cfg/layer_clipboard.h"
#include "cfg/layer_edits.h"
#include "cfg/layer_links.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>

namespace nw::ui {

// One edit: the document before and after.
class SnapshotCommand : public QUndoCommand {
public:
    SnapshotCommand(DocumentModel& model, const QString& text, cfg::Document before, cfg::Document after,
                    std::vector<int> undone = {})
        : QUndoCommand(text), model_(model), before_(std::move(before)), after_(std::move(after)),
          undone_(std::move(undone))
    {
    }
    void redo() override { model_.apply(after_); }
    void undo() override
    {
        model_.apply(before_);
        if (!undone_.empty())
            emit model_.layersRestored(undone_);
    }

protected:
    DocumentModel& model_;
    cfg::Document before_, after_;
    std::vector<int> undone_; // the layers an undo brings back (removed ones), selected again
};

// Text typed in the Source view: the same line typed on with pauses is one step.
class TextEditCommand : public SnapshotCommand {
public:
    TextEditCommand(DocumentModel& model, cfg::Document before, cfg::Document after, int first, int last)
        : SnapshotCommand(model, name(first, last), std::move(before), std::move(after)), first_(first),
          last_(last)
    {
    }
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* next = static_cast<const TextEditCommand*>(other);
        if (first_ != last_ || next->first_ != first_ || next->last_ != last_)
            return false;
        after_ = next->after_;
        setObsolete(after_.toText() == before_.toText()); // typed back: no step at all
        return true;
    }

private:
    static QString name(int first, int last)
    {
        if (last < first)
            return DocumentModel::tr("Delete text at line %1").arg(first);
        return first == last ? DocumentModel::tr("Edit line %1 as text").arg(first)
                             : DocumentModel::tr("Edit lines %1–%2 as text").arg(first).arg(last);
    }
    int first_, last_;
};

DocumentModel::DocumentModel(QObject* parent) : QObject(parent)
{
    // An edit that brings the text back to what is on disk (a value typed back to the old one, or
    // undone past a Save) leaves nothing to save.
    connect(&undo_, &QUndoStack::indexChanged, this, [this] {
        if (!undo_.isClean() && document_.toText() == savedText_)
            undo_.setClean();
    });
}

void DocumentModel::reset(cfg::Document document, const QString& path)
{
    undo_.clear();
    path_ = path;
    document_ = std::move(document);
    savedText_ = document_.toText();
    undo_.setClean();
    emit changed();
}

bool DocumentModel::changedOnDisk() const
{
    QFile file(path_);
    if (path_.isEmpty() || !file.open(QIODevice::ReadOnly))
        return false;
    // A cfg is small; one far larger than the text cannot be the same (and is not read whole).
    if (file.size() != qint64(savedText_.size()))
        return true;
    return file.readAll() != QByteArray::fromStdString(savedText_);
}

QString DocumentModel::saveAs(const QString& path)
{
    if (auto error = document_.save(path.toStdString()))
        return QString::fromStdString(*error);
    path_ = path;
    document_.setFileName(path.toStdString());
    savedText_ = document_.toText();
    undo_.setClean();
    return {};
}

void DocumentModel::apply(const cfg::Document& document)
{
    document_ = document;
    // A snapshot taken before a Save As still carries the old name: the file is the one open now.
    if (!path_.isEmpty())
        document_.setFileName(path_.toStdString());
    emit changed();
}

bool DocumentModel::beginEdit()
{
    if (!beforeEdit_ || inBeforeEdit_)
        return true;
    inBeforeEdit_ = true;
    const bool applied = beforeEdit_();
    inBeforeEdit_ = false;
    return applied;
}

QString DocumentModel::pendingTextRefusal()
{
    return tr("The text typed in Source is not a cfg yet (the status bar says why): fix it there, or press "
              "Ctrl+Z in it to drop it; nothing else changes the network until then.");
}

QString DocumentModel::editText(const std::string& text, int firstLine, int lastLine)
{
    if (readOnly_)
        return tr("The network is read-only while training.");
    if (text == document_.toText())
        return {};
    cfg::Document after = cfg::Document::parse(text, path_.toStdString());
    if (after.readFailed()) // (it would hold no line: the typed text would be gone)
        return QString::fromStdString(after.diagnostics().front().format());
    undo_.push(new TextEditCommand(*this, document_, std::move(after), firstLine, lastLine));
    return {};
}

void DocumentModel::push(const QString& text, cfg::Document after, std::vector<int> undone)
{
    if (readOnly_)
        return;
    // Read back from its own text, so every line number (Problems, Properties) is the line that Save
    // writes — an inserted layer shifts the lines below it — and the text's syntax is checked as a
    // reload would.
    if (cfg::Document reread = after.reread(); !reread.readFailed())
        after = std::move(reread);
    undo_.push(new SnapshotCommand(*this, text, document_, std::move(after), std::move(undone)));
    emit edited(text);
}

void DocumentModel::setValue(int section, const QString& key, const QString& value, bool keepComment)
{
    if (!beginEdit())
        return;
    if (section < 0 || std::size_t(section) >= document_.sections().size())
        return;
    const cfg::Line* existing = document_.sections()[std::size_t(section)].find(key.toStdString());
    if (existing && existing->value == cfg::darknetStrip(value.toStdString()))
        return;
    cfg::Document after = document_;
    after.section(std::size_t(section))
        .set(key.toStdString(), value.toStdString(), after.preferredEol(), keepComment);
    // Each confirmed value is its own step (merging edits of one key made an earlier value, confirmed
    // with Enter, impossible to get back); the step names the layer.
    const QString type = QString::fromStdString(document_.sections()[std::size_t(section)].type);
    push(section == 0 ? tr("Set %1 = %2 in [%3]").arg(key, value, type)
                      : tr("Set %1 = %2 in layer %3 [%4]").arg(key, value).arg(section - 1).arg(type),
         std::move(after));
}

QString DocumentModel::setValues(const QString& text, const std::vector<KeyEdit>& edits)
{
    if (!beginEdit())
        return pendingTextRefusal();
    return pushIfPossible(text, [&](cfg::Document& document) {
        applyEdits(document, edits);
        return std::string();
    });
}

void DocumentModel::removeKey(int section, const QString& key)
{
    if (!beginEdit())
        return;
    if (section < 0 || std::size_t(section) >= document_.sections().size())
        return;
    cfg::Document after = document_;
    if (after.section(std::size_t(section)).remove(key.toStdString()))
        push(tr("Remove %1").arg(key), std::move(after));
}

void DocumentModel::insertLayer(int index, const QString& type,
                                const std::vector<std::pair<std::string, std::string>>& entries)
{
    if (!beginEdit())
        return;
    cfg::Document after = document_;
    cfg::insertLayer(after, index, type.toStdString(), entries);
    push(tr("Insert [%1] at %2").arg(type).arg(index), std::move(after));
}

void DocumentModel::addNetSection(const std::vector<std::pair<std::string, std::string>>& entries)
{
    if (readOnly_ || cfg::startsWithNet(document_) || !beginEdit())
        return;
    cfg::Document after = document_;
    cfg::addNetSection(after, entries);
    push(tr("Add [net] section"), std::move(after));
}

QString DocumentModel::removeLayer(int index)
{
    if (!beginEdit())
        return pendingTextRefusal();
    if (index < 0 || index >= cfg::layerCount(document_))
        return {};
    const QString type = QString::fromStdString(document_.sections()[std::size_t(index) + 1].type);
    return pushIfPossible(tr("Remove layer %1 [%2]").arg(index).arg(type),
                          [&](cfg::Document& doc) { return cfg::removeLayer(doc, index); }, {index});
}

QString DocumentModel::moveLayer(int from, int to)
{
    if (!beginEdit())
        return pendingTextRefusal();
    const int count = cfg::layerCount(document_);
    if (from < 0 || from >= count || to < 0 || to >= count || from == to)
        return {};
    return pushIfPossible(tr("Move layer %1 to %2").arg(from).arg(to),
                          [&](cfg::Document& doc) { return cfg::moveLayer(doc, from, to); });
}

QString DocumentModel::removeLayers(const std::vector<int>& layers)
{
    if (!beginEdit())
        return pendingTextRefusal();
    if (layers.size() == 1)
        return removeLayer(layers.front());
    if (readOnly_)
        return tr("The network is read-only while training.");
    cfg::Document after = document_;
    if (const std::string problem = cfg::removeLayers(after, layers); !problem.empty())
        return QString::fromStdString(problem);
    // (counted before the call: the argument moved from `after` may be built before the label is)
    if (const int removed = cfg::layerCount(document_) - cfg::layerCount(after); removed > 0) {
        std::vector<int> sorted = layers;
        std::sort(sorted.begin(), sorted.end());
        push(tr("Remove %1 layers").arg(removed), std::move(after), std::move(sorted));
    }
    return {};
}

QString DocumentModel::connectLayers(int source, int layer)
{
    if (!beginEdit())
        return pendingTextRefusal();
    return pushIfPossible(tr("Connect layer %1 → %2").arg(source).arg(layer),
                          [&](cfg::Document& doc) { return cfg::connectLayers(doc, source, layer); });
}

QString DocumentModel::disconnectLayers(int source, int layer)
{
    if (!beginEdit())
        return pendingTextRefusal();
    return pushIfPossible(tr("Disconnect layer %1 → %2").arg(source).arg(layer),
                          [&](cfg::Document& doc) { return cfg::disconnectLayers(doc, source, layer); });
}

QString DocumentModel::pushIfPossible(const QString& text,
                                      const std::function<std::string(cfg::Document&)>& edit,
                                      std::vector<int> undone)
{
    if (readOnly_)
        return tr("The network is read-only while training.");
    cfg::Document after = document_;
    if (const std::string problem = edit(after); !problem.empty())
        return QString::fromStdString(problem);
    push(text, std::move(after), std::move(undone));
    return {};
}

int DocumentModel::insertLayerOnEdge(const QString& type,
                                     const std::vector<std::pair<std::string, std::string>>& entries,
                                     int from, int to)
{
    if (!beginEdit())
        return -1;
    if (readOnly_)
        return -1;
    cfg::Document after = document_;
    const int at = from + 1; // from = −1: the network input, so the new layer comes first
    cfg::insertLayer(after, at, type.toStdString(), entries);
    const int target = to >= at ? to + 1 : to;
    const std::vector<int> read = cfg::referencedLayers(after, target);
    if (from >= 0 && std::find(read.begin(), read.end(), from) != read.end())
        cfg::repointReference(after, target, from, at); // a reference edge: the target reads the new layer

    push(tr("Insert [%1] between %2 and %3").arg(type).arg(from).arg(to), std::move(after));
    return at;
}

int DocumentModel::pasteLayers(int index, const QString& text, QString& error, bool duplicate)
{
    if (!beginEdit()) {
        error = pendingTextRefusal();
        return 0;
    }
    if (readOnly_) {
        error = tr("The network is read-only while training.");
        return 0;
    }
    cfg::Document after = document_;
    std::string problem;
    const int count = cfg::insertLayersText(after, index, text.toStdString(), problem);
    if (count == 0) {
        error = QString::fromStdString(problem);
        return 0;
    }
    const QString verb = duplicate ? tr("Duplicate") : tr("Paste");
    push(count == 1 ? tr("%1 1 layer at %2").arg(verb).arg(index)
                    : tr("%1 %2 layers at %3").arg(verb).arg(count).arg(index),
         std::move(after));
    return count;
}

} // namespace nw::ui
