#pragma once
// Where the studio finds a network's data set and writes its runs: the same rules the CLI and Darknet
// follow (a .data file's backup= folder), with the studio's own folder when none applies.
#include <QString>

namespace nw::ui {

// Where a network's runs go unless the user chooses: runs/<cfg name> in the user's data folder.
QString defaultRunFolder(const QString& cfgPath);
// Where a run writes unless the user chooses: the .data file's backup= folder when it exists (Darknet
// and the CLI write there), else the studio's own folder for the network.
QString runFolderFor(const QString& cfgPath, const QString& dataPath);
// The Output folder as the user means it: the spaces around it dropped (a pasted path), a leading ~ the
// home folder, a relative path beside the cfg (a desktop launch's working folder is nobody's choice);
// clean and absolute. Empty stays empty.
QString resolvedRunFolder(const QString& typed, const QString& cfgPath);
// The .data file a cfg most likely trains on, or empty: the one named after it beside it; else the
// one whose name starts its name (Darknet's cifar.data of cifar_small.cfg, among coco.data and
// others); else the only one beside it not named after another cfg there; else AlexeyAB's
// data/obj.data in its folder or the one above.
QString dataFileFor(const QString& cfgPath);
// Whether a run folder's `<cfg>_trained.cfg` is the network `current` is, apart from its schedule: the
// [net] keys of the solver and the rate's policy (max_batches, steps, learning_rate, …) may change
// between a run and its resume, as Darknet's users raise max_batches to train further.
bool sameNetworkApartFromSchedule(const QByteArray& trained, const QByteArray& current);

} // namespace nw::ui
