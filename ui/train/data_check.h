#pragma once
// What a data set holds, read before Train: the lists and label files of the chosen .data, opened the
// way the network will train on them (no weights allocated), so bad label lines, classes without a box,
// unreadable lists and a names file of another data set are in view before a run starts.
#include <QString>
#include <QStringList>
#include <atomic>

namespace nw::ui {

struct DataCheck {
    QString summary;            // "1800 images, 5123 boxes of 5 classes; …" (empty on an error)
    QString error;              // why the run would not start
    QStringList warnings;       // the loader's warnings, as train prints them
    bool networkErrors = false; // not read: the network has errors (`error` says so)
};

// The first error of the network in `cfgText` (or the file `cfgPath` when the text is empty), with its
// file and line; empty when it builds. Fast (no data, no weights): Train asks before it starts.
QString firstNetworkError(const QString& cfgPath, const QString& cfgText);

// Reads `dataPath` for the network in `cfgText` (or the file `cfgPath` when the text is empty). Slow on a
// large set (every label file): call it off the GUI thread; `cancelled`, once set, ends it early.
DataCheck checkTrainingData(const QString& dataPath, const QString& cfgPath, const QString& cfgText,
                            const std::atomic<bool>* cancelled = nullptr);

} // namespace nw::ui
