#include "test_support.h"

#include <QDir>
#include <QFile>

namespace nw::test {

QStringList cfgFiles(const QString& dir)
{
    QStringList files;
    for (const QString& name : QDir(dir).entryList({"*.cfg"}, QDir::Files, QDir::Name))
        files << dir + "/" + name;
    return files;
}

QStringList darknetCfgs()
{
    return cfgFiles(DARKNET_CFG_DIR);
}
QStringList abCfgs()
{
    return cfgFiles(QString(NETWRIGHT_TEST_DATA_DIR) + "/ab-cfgs");
}
QStringList bundledCfgs()
{
    return cfgFiles(NETWRIGHT_SOURCE_CFG_DIR);
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

NetworkSpec specFromText(const std::string& text, const std::string& name)
{
    return buildNetworkSpec(cfg::Document::parse(text, name));
}

const Diagnostic* findDiagnostic(const Diagnostics& diagnostics, const std::string& needle)
{
    for (const Diagnostic& d : diagnostics)
        if (d.format().find(needle) != std::string::npos)
            return &d;
    return nullptr;
}

std::string allText(const Diagnostics& diagnostics)
{
    std::string text;
    for (const Diagnostic& d : diagnostics)
        text += d.format() + "\n";
    return text;
}

} // namespace nw::test
