#include "train/run_folders.h"

#include "cfg/document.h"
#include "data/data_file.h"

#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStringList>
#include <string>

namespace nw::ui {

QString defaultRunFolder(const QString& cfgPath)
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/netwright/runs/" +
           QFileInfo(cfgPath).completeBaseName();
}

QString runFolderFor(const QString& cfgPath, const QString& dataPath)
{
    std::string error;
    if (!dataPath.trimmed().isEmpty())
        if (const auto data = loadDataFile(dataPath.trimmed().toStdString(), error);
            data && !data->get("backup").empty()) {
            const QFileInfo backup(QDir::cleanPath(QString::fromStdString(data->outputFolder("backup", {}))));
            if (backup.isDir() && backup.isWritable())
                return QDir::cleanPath(backup.absoluteFilePath());
            // An absolute one names its place without a doubt: made there, in a folder that exists.
            const QFileInfo parent(backup.absolutePath());
            if (backup.isAbsolute() && !backup.exists() && parent.isDir() && parent.isWritable())
                return QDir::cleanPath(backup.absoluteFilePath());
        }
    return defaultRunFolder(cfgPath);
}

QString resolvedRunFolder(const QString& typed, const QString& cfgPath)
{
    QString folder = typed.trimmed();
    if (folder.isEmpty())
        return folder;
    if (folder == "~" || folder.startsWith("~/"))
        folder = QDir::homePath() + folder.mid(1);
    return QDir::cleanPath(QFileInfo(cfgPath).absoluteDir().absoluteFilePath(folder));
}

QString dataFileFor(const QString& cfgPath)
{
    const QFileInfo cfg(cfgPath);
    const QDir folder = cfg.dir();
    if (const QString beside = folder.filePath(cfg.completeBaseName() + ".data"); QFileInfo::exists(beside))
        return beside;
    QStringList unclaimed, prefixes;
    for (const QFileInfo& data : folder.entryInfoList({"*.data"}, QDir::Files)) {
        if (cfg.completeBaseName().startsWith(data.completeBaseName() + "_")) // cifar.data of cifar_small.cfg
            prefixes << data.filePath();
        if (!QFileInfo::exists(folder.filePath(data.completeBaseName() + ".cfg")))
            unclaimed << data.filePath();
    }
    if (prefixes.size() == 1)
        return prefixes.first();
    if (unclaimed.size() == 1)
        return unclaimed.first();
    for (const QString& obj : {folder.filePath("data/obj.data"), folder.filePath("../data/obj.data")})
        if (QFileInfo(obj).isFile())
            return QDir::cleanPath(QFileInfo(obj).absoluteFilePath());
    return {};
}

bool sameNetworkApartFromSchedule(const QByteArray& trained, const QByteArray& current)
{
    static const std::vector<std::string_view> schedule = {
        "max_batches", "steps", "scales", "step",  "scale",    "learning_rate", "learning_rate_min",
        "burn_in",     "power", "policy", "gamma", "momentum", "decay",         "sgdr_cycle",
        "sgdr_mult"};
    return trained == current || cfg::valuesText(trained.toStdString(), schedule) ==
                                     cfg::valuesText(current.toStdString(), schedule);
}

} // namespace nw::ui
