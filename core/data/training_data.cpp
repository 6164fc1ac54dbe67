#include "data/training_data.h"

#include "data/class_names.h"
#include "detect/decode.h"
#include "layers/detection_heads.h"
#include "util/counted.h"

#include <filesystem>

namespace nw {

std::string TrainingData::describe() const
{
    if (const DetectionDataset* detection = detectionTrain()) {
        const auto& s = detection->summary();
        return counted(s.images, "image", "images") + ", " + counted(s.boxes, "box", "boxes") + " of " +
               counted(detection->classes(), "class", "classes") + "; " +
               counted(s.emptyImages, "image", "images") + " without objects (" +
               std::to_string(s.missingLabels) + " without a label file), " +
               counted(s.lines.skipped, "bad label line", "bad label lines") + " skipped" +
               (s.lines.polygons ? ", " + counted(s.lines.polygons, "polygon", "polygons") + " taken as boxes"
                                 : "");
    }
    const auto* classification = dynamic_cast<const ClassificationDataset*>(train.get());
    return counted(train->size(), "image", "images") +
           (classification ? " of " + counted(classification->classes(), "class", "classes") : std::string());
}

std::unique_ptr<DetectionDataset> openDetectionSet(const DataFile& data, const std::string& which,
                                                   const Net& net, std::string& error,
                                                   std::vector<std::string>& warnings)
{
    return openDetectionSet(data, which, net.spec(), error, warnings);
}

std::unique_ptr<DetectionDataset> openDetectionSet(const DataFile& data, const std::string& which,
                                                   const NetworkSpec& spec, std::string& error,
                                                   std::vector<std::string>& warnings,
                                                   const std::atomic<bool>* cancelled)
{
    const std::string list = data.get(which);
    if (list.empty()) {
        error = data.missingEntry(which) + " (the list of " + which + " images)";
        return nullptr;
    }
    const int classes = detectionClasses(spec);
    for (const LayerSpec& layer : spec.layers) {
        const auto head = detectionHeadInfo(layer.config.get());
        const int headClasses = head ? head->classes : -1;
        if (headClasses >= 0 && headClasses != data.classes()) {
            error = spec.file + ":" + std::to_string(layer.line) + ": layer " + std::to_string(layer.index) +
                    " [" + layer.type + "] has classes=" + std::to_string(headClasses) + " but " + data.path +
                    " has classes=" + std::to_string(data.classes()) +
                    ": every detection head needs the data's classes (and filters= before it to match); "
                    "set-classes writes both (the studio's Edit > Set classes)";
            return nullptr;
        }
    }
    if (classes != data.classes()) {
        error = data.path + ": classes=" + std::to_string(data.classes()) +
                " but the network's detection heads have classes=" + std::to_string(classes) +
                ": make them equal (and filters= before each [yolo])";
        return nullptr;
    }
    DetectionAugmentation augmentation;
    augmentation.enabled = which == "train";
    augmentation.flip = spec.net.flip;
    augmentation.hue = spec.net.hue;
    augmentation.saturation = spec.net.saturation;
    augmentation.exposure = spec.net.exposure;
    augmentation.letterbox = spec.net.letterBox;
    augmentation.mosaic = spec.net.mosaic;
    for (const LayerSpec& layer : spec.layers)
        if (auto head = detectionHeadInfo(layer.config.get()))
            augmentation.jitter = head->jitter;
    const auto listPath = data.existingFile(which, error);
    if (!listPath)
        return nullptr;
    return loadDetectionDataset(*listPath, classes, spec.input.w, spec.input.h, spec.input.c,
                                maxTruthBoxes(spec.layers), augmentation, error, warnings, true, cancelled);
}

namespace {

// A classifier of several classes whose training images all fall in one (the others' paths skipped, or
// a folder name that contains a label): it learns nothing, and scored 100 % on a list alike.
std::optional<std::string> oneClassOnly(const DataFile& data, const TrainingSet* train)
{
    const auto* set = dynamic_cast<const ClassificationDataset*>(train);
    if (!set || set->classes() < 2 || set->size() == 0)
        return std::nullopt;
    const int first = set->label(0);
    for (std::size_t i = 1; i < set->size(); ++i)
        if (set->label(i) != first)
            return std::nullopt;
    std::string nameError, name;
    if (const auto names = classNamesOf(data, false, nameError);
        names && first >= 0 && std::size_t(first) < names->size())
        name = " ('" + (*names)[std::size_t(first)] + "')";
    return data.get("train") + ": every training image is of class " + std::to_string(first) + name +
           ", of " + std::to_string(set->classes()) +
           ": a classifier learns nothing from one class (and would score 100 % on a list alike); the "
           "warnings above name the classes without images (and the lines skipped, if any)";
}

} // namespace

std::optional<TrainingData> openTrainingData(const DataFile& data, const Net& net, unsigned seed,
                                             std::string& error, std::vector<std::string>& warnings,
                                             Validation validation)
{
    return openTrainingData(data, net.spec(), seed, error, warnings, validation);
}

std::optional<TrainingData> openTrainingData(const DataFile& data, const NetworkSpec& spec, unsigned seed,
                                             std::string& error, std::vector<std::string>& warnings,
                                             Validation validation, const std::atomic<bool>* cancelled)
{
    TrainingData result;
    const bool detector = maxTruthBoxes(spec.layers) > 0;
    for (const char* key : {"train", "valid"})
        if (auto note = data.workingFolderNote(key))
            warnings.push_back(*note);
    if (detector)
        result.train = openDetectionSet(data, "train", spec, error, warnings, cancelled);
    else
        result.train = openClassificationSet(data, "train", spec.net, seed, error, &warnings);
    if (!result.train)
        return std::nullopt;
    if (auto problem = oneClassOnly(data, result.train.get())) {
        error = *problem;
        return std::nullopt;
    }
    // A detector trains without its names; said now rather than when detect or map shows numbers. A
    // names file of another count is another data set's: every box would be labelled wrong.
    if (std::string namesError; detector && !data.get("names").empty()) {
        if (const auto path = data.existingFile("names", namesError)) {
            const int classes = result.detectionTrain()->classes();
            if (const auto names = loadNames(*path, namesError)) {
                if (names->size() != std::size_t(classes))
                    warnings.push_back(*path + " has " + std::to_string(names->size()) + " names but " +
                                       data.path + " has classes=" + std::to_string(classes) +
                                       " (the names file of another data set?): detect and map would label "
                                       "boxes with the wrong names");
                if (auto warning = namesEncodingWarning(*names, *path))
                    warnings.push_back(*warning);
            } else {
                warnings.push_back(namesError + " (detect and map would show class numbers)");
            }
        } else {
            warnings.push_back(namesError +
                               " (training goes on without the class names; detect and map would "
                               "show class numbers)");
        }
    }

    DataFile validData = data;
    if (data.get("valid").empty()) {
        if (validation != Validation::Required)
            return result;
        if (!detector) {
            error = data.path + " has no valid= list, which the validation asked for needs (valid= with "
                                "valid_labels=, or a list of images)";
            return std::nullopt;
        }
        validData.values["valid"] = data.get("train"); // Darknet's fallback for -map
        warnings.push_back(data.path + " has no valid= list: mAP is measured on the training list (train=" +
                           data.get("train") +
                           "), as Darknet does; a list of images kept out of training gives a truer figure");
    }
    std::string validError;
    bool opened = false;
    // The training list again (valid= naming it, or its fallback): its warnings were said once already.
    std::vector<std::string> validWarnings;
    std::error_code ec; // (the same file however the two lines spell it)
    const bool sameList = validData.get("valid") == data.get("train") ||
                          std::filesystem::equivalent(validData.resolve(validData.get("valid")),
                                                      data.resolve(data.get("train")), ec);
    // valid= naming the training list itself (many exports do): said as the fallback above says it.
    if (sameList && !data.get("valid").empty())
        warnings.push_back(
            data.path + ": valid= is the training list (train=" + data.get("train") +
            "): " + (detector ? "mAP" : "accuracy") +
            " is measured on images the network learns from, and says little about new ones; a "
            "list of images kept out of training gives a truer figure");
    if (detector)
        opened =
            bool(result.detectionValid = openDetectionSet(validData, "valid", spec, validError,
                                                          sameList ? validWarnings : warnings, cancelled));
    else
        opened = bool(result.valid = openClassificationSet(validData, "valid", spec.net, seed, validError,
                                                           sameList ? &validWarnings : &warnings));
    if (opened)
        return result;
    const char* measure = detector ? "mAP" : "validation";
    if (validation == Validation::Required) {
        error = validError + " (the valid= list, needed for the " + measure + " asked for)";
        return std::nullopt;
    }
    warnings.push_back(validError + " (the valid= list): this run trains without " + measure +
                       "; fix the list, or remove valid= from " + data.path);
    return result;
}

} // namespace nw
