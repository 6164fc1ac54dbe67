#include "train/data_check.h"

#include "cfg/document.h"
#include "data/data_file.h"
#include "data/training_data.h"
#include "graph/network_spec.h"

#include <QObject>
#include <algorithm>

namespace nw::ui {

namespace {

NetworkSpec specOf(const QString& cfgPath, const QString& cfgText)
{
    return buildNetworkSpec(cfgText.isEmpty()
                                ? cfg::Document::load(cfgPath.toStdString())
                                : cfg::Document::parse(cfgText.toStdString(), cfgPath.toStdString()));
}

const Diagnostic* firstError(const NetworkSpec& spec)
{
    const auto error = std::find_if(spec.diagnostics.begin(), spec.diagnostics.end(),
                                    [](const Diagnostic& d) { return d.isError(); });
    return error == spec.diagnostics.end() ? nullptr : &*error;
}

} // namespace

QString firstNetworkError(const QString& cfgPath, const QString& cfgText)
{
    try {
        const NetworkSpec spec = specOf(cfgPath, cfgText);
        const Diagnostic* error = firstError(spec);
        return error ? QString::fromStdString(error->format()) : QString();
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

DataCheck checkTrainingData(const QString& dataPath, const QString& cfgPath, const QString& cfgText,
                            const std::atomic<bool>* cancelled)
{
    DataCheck check;
    try {
        const NetworkSpec spec = specOf(cfgPath, cfgText);
        if (firstError(spec)) {
            check.error = QObject::tr("not read while the network has errors (see Problems)");
            check.networkErrors = true;
            return check;
        }
        std::string error;
        std::vector<std::string> warnings;
        if (const auto data = loadDataFile(dataPath.toStdString(), error))
            if (const auto sets =
                    openTrainingData(*data, spec, 1, error, warnings, Validation::IfUsable, cancelled))
                check.summary = QString::fromStdString(sets->describe());
        if (check.summary.isEmpty())
            check.error = QString::fromStdString(error);
        for (const std::string& warning : warnings)
            check.warnings << QString::fromStdString(warning);
    } catch (const std::exception& e) { // (a data set too large for memory, say)
        check.error = QString::fromUtf8(e.what());
    }
    return check;
}

} // namespace nw::ui
