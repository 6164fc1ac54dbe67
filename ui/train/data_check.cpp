#include "train/data_check.h"

#include "cfg/document.h"
#include "data/data_file.h"
#include "data/training_data.h"
#include "graph/network_spec.h"

#include <QObject>
#include <algorithm>

namespace nw::ui {

DataCheck checkTrainingData(const QString& dataPath, const QString& cfgPath, const QString& cfgText,
                            const std::atomic<bool>* cancelled)
{
    DataCheck check;
    try {
        const NetworkSpec spec = buildNetworkSpec(
            cfgText.isEmpty() ? cfg::Document::load(cfgPath.toStdString())
                              : cfg::Document::parse(cfgText.toStdString(), cfgPath.toStdString()));
        if (std::any_of(spec.diagnostics.begin(), spec.diagnostics.end(),
                        [](const Diagnostic& d) { return d.isError(); })) {
            check.error =
                QObject::tr("the network has errors (see Problems): the data is read once they are fixed");
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
