#include "train/evaluation.h"

#include "cfg/document.h"
#include "data/data_file.h"
#include "data/training_data.h"

#include <exception>
#include <new>

namespace nw {

namespace {

struct Cancelled {}; // thrown from the progress callback, caught below: a pass ends between batches

std::optional<Evaluation> evaluateUnguarded(const EvaluationRequest& request, std::string& error,
                                            const std::function<void(std::size_t, std::size_t)>& progress,
                                            const std::atomic<bool>* cancelled)
{
    if (request.weightsPath.empty()) {
        error = "no weights to evaluate: train the network first, or choose its weights";
        return std::nullopt;
    }
    const auto data = loadDataFile(request.dataPath, error);
    if (!data)
        return std::nullopt;
    const NetworkSpec spec =
        buildNetworkSpec(request.cfgText.empty() ? cfg::Document::load(request.cfgPath)
                                                 : cfg::Document::parse(request.cfgText, request.cfgPath));
    for (const Diagnostic& d : spec.diagnostics)
        if (d.isError()) {
            error = d.format();
            return std::nullopt;
        }
    // The cfg's own batch (batch / subdivisions), as validation during training; only forward passes.
    auto net = Net::create(spec, std::max(1, spec.net.layerBatch()), error, Net::Use::InferenceOnly);
    if (!net)
        return std::nullopt;
    Evaluation evaluation;
    if (auto problem = net->loadWeights(request.weightsPath, &evaluation.warnings)) {
        error = *problem;
        return std::nullopt;
    }
    const bool detector = net->maxTruthBoxes() > 0;
    std::string namesError;
    if (auto names = classNamesOf(*data, detector, namesError))
        evaluation.names = std::move(*names);
    else
        evaluation.warnings.push_back(namesError + "; the classes are numbered");
    const auto step = [&](std::size_t total) {
        return [&, total](std::size_t done) {
            if (cancelled && cancelled->load())
                throw Cancelled{};
            if (progress)
                progress(done, total);
        };
    };
    try {
        if (detector) {
            // (the spec's overload: a long list's reading ends early when cancelled)
            auto set = openDetectionSet(*data, "valid", spec, error, evaluation.warnings, cancelled);
            if (!set)
                return std::nullopt;
            evaluation.map = evaluateMap(*net, *set, spec.net.letterBox, {}, step(set->size()));
            evaluation.images = evaluation.map->images;
            evaluation.warnings.insert(evaluation.warnings.end(), evaluation.map->warnings.begin(),
                                       evaluation.map->warnings.end());
        } else {
            auto set = openClassificationSet(*data, "valid", spec.net, 1, error, &evaluation.warnings);
            if (!set)
                return std::nullopt;
            if (auto problem = classifierFits(*net, *set)) {
                error = request.cfgPath + ": " + *problem;
                return std::nullopt;
            }
            evaluation.accuracy = evaluate(*net, *set, {}, 5, step(set->size()));
            evaluation.images = evaluation.accuracy->images;
            evaluation.warnings.insert(evaluation.warnings.end(), evaluation.accuracy->warnings.begin(),
                                       evaluation.accuracy->warnings.end());
        }
    } catch (const Cancelled&) {
        error = "cancelled";
        return std::nullopt;
    }
    if (evaluation.images == 0) {
        error = data->get("valid").empty()
                    ? request.dataPath + " has no valid= list to evaluate on"
                    : "none of the validation images (" + data->get("valid") + ") can be read";
        return std::nullopt;
    }
    return evaluation;
}

} // namespace

std::optional<Evaluation> evaluateWeights(const EvaluationRequest& request, std::string& error,
                                          const std::function<void(std::size_t, std::size_t)>& progress,
                                          const std::atomic<bool>* cancelled)
{
    // On a worker thread nothing may escape: an exception there would end the whole studio.
    try {
        return evaluateUnguarded(request, error, progress, cancelled);
    } catch (const std::bad_alloc&) {
        error = "out of memory: lower batch (or raise subdivisions) in [net]";
    } catch (const std::exception& e) {
        error = e.what();
    }
    return std::nullopt;
}

} // namespace nw
