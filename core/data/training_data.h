#pragma once
// The data a .data file names, opened the way the network needs it: classification sets for a
// classifier, YOLO image lists with labels for a detector (augmented per [net] and the head's jitter).
#include "data/data_file.h"
#include "data/dataset.h"
#include "data/detection_dataset.h"
#include "runtime/net.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct TrainingData {
    std::unique_ptr<TrainingSet> train;
    std::unique_ptr<ClassificationDataset> valid;     // a classifier's accuracy set (optional)
    std::unique_ptr<DetectionDataset> detectionValid; // a detector's mAP set (optional)

    const DetectionDataset* detectionTrain() const
    {
        return dynamic_cast<const DetectionDataset*>(train.get());
    }
    // One line on what will be trained: images, classes, and for detectors the label summary.
    std::string describe() const;
};

// What the run asks of its valid= list. Darknet trains a detector without reading it unless told to
// measure mAP (-map), and without a valid= line measures mAP on the training list.
enum class Validation {
    IfUsable, // a valid= list that cannot be used is a warning: the run trains without validation
    Required, // asked for (--map): such a list is an error, a detector without one uses train= and a
              // classifier without one is an error
};

std::optional<TrainingData> openTrainingData(const DataFile& data, const Net& net, unsigned seed,
                                             std::string& error, std::vector<std::string>& warnings,
                                             Validation validation = Validation::IfUsable);
// The same from the network description alone (no weights allocated): the studio's check of a data set
// before Train.
// (`cancelled`: see loadDetectionDataset.)
std::optional<TrainingData> openTrainingData(const DataFile& data, const NetworkSpec& spec, unsigned seed,
                                             std::string& error, std::vector<std::string>& warnings,
                                             Validation validation = Validation::IfUsable,
                                             const std::atomic<bool>* cancelled = nullptr);

// A detector's "train" or "valid" list (augmented only for "train").
std::unique_ptr<DetectionDataset> openDetectionSet(const DataFile& data, const std::string& which,
                                                   const Net& net, std::string& error,
                                                   std::vector<std::string>& warnings);
std::unique_ptr<DetectionDataset> openDetectionSet(const DataFile& data, const std::string& which,
                                                   const NetworkSpec& spec, std::string& error,
                                                   std::vector<std::string>& warnings,
                                                   const std::atomic<bool>* cancelled = nullptr);

} // namespace nw
