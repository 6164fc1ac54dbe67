#pragma once
// Trainer: Darknet's training loop for classifiers and detectors — batch split into subdivisions (gradient
// accumulation), SGD with the cfg's learning-rate policy, checkpoints written atomically, resume,
// periodic validation, metrics.csv. Reports through a small observer the CLI prints and the GUI's
// worker turns into signals.
#include "data/dataset.h"
#include "data/detection_dataset.h"
#include "detect/map.h"
#include "runtime/net.h"
#include "train/communicator.h"
#include "train/confusion_matrix.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace nw {

struct TrainOptions {
    std::string outDir = "backup";
    std::string name = "net"; // files: <name>_last.weights, <name>_last.state, <name>_final.weights
    // What the run trains on (the .data file, absolute), kept in <name>_data.txt: a resume on other
    // data is said (two projects sharing a folder resumed each other's checkpoints without a word).
    std::string data;
    // The network's cfg as trained (the editor's text, unsaved edits included), kept in
    // <name>_trained.cfg: the weights of the run always have the cfg they fit. Empty: none written.
    std::string cfgText;
    int maxBatches = 0;     // 0: the cfg's max_batches
    float learningRate = 0; // 0: the cfg's learning_rate
    unsigned seed = 1;
    int validEvery = 0;        // 0: never during training
    int mapEvery = 0;          // detectors: mAP@0.5 on the validation set every N iterations (0: never)
    int mapFrom = 0;           // the first at this iteration, then every mapEvery (0: at mapEvery)
    bool letterbox = false;    // detectors: letterbox the validation images for mAP
    int checkpointEvery = 100; // iterations
    // <name>_<iteration>.weights every N iterations, kept (Darknet's backups to go back to): -1 is
    // AlexeyAB's rule, every 1000 for runs under 10000 iterations, else every 10000; 0: none.
    int snapshotEvery = -1;
    bool resume = false;
    // A data-parallel run's ranks (nullptr: this process alone). Each rank trains on batch images
    // per iteration (the cfg's batch, as Darknet's -gpus), the gradients are summed across ranks, so
    // an update covers ranks × batch images; only rank 0 writes files and validates.
    Communicator* communicator = nullptr;
    // The CUDA device that trains (its index), or -1: the CPU. One process per GPU.
    int gpu = -1;
    // Workers preparing a batch's images (0: one beside CPU training, which uses the cores itself; every
    // core for a GPU, which would otherwise wait for them). Any count gives the same batches.
    int loaderThreads = 0;
};

struct IterationStats {
    int iteration = 0, maxBatches = 0;
    double loss = 0, averageLoss = 0;
    float learningRate = 0;
    double imagesPerSecond = 0, elapsedSeconds = 0;
    std::optional<double> validTop1;
    std::optional<double> map50;
    // At a validation iteration, how each class fared: a classifier's confusion matrix, a detector's AP
    // per class (shared: the stats are copied to observers and across threads).
    std::shared_ptr<const ConfusionMatrix> confusion;
    std::shared_ptr<const std::vector<ClassAp>> classAps;
    double epoch = 0;
    std::vector<HeadStats> heads; // detectors: each head's figures, averaged over the subdivisions
};

// The message a run sends before a validation or mAP pass, which can take longer than many iterations
// ("evaluating at iteration 200: top-1 on 10000 validation images"), so a front end can say what it waits
// for; isEvaluatingMessage tells it from the others.
std::string evaluatingMessage(int iteration, const std::string& measure, std::size_t images);
bool isEvaluatingMessage(const std::string& text);

class TrainObserver {
public:
    virtual ~TrainObserver() = default;
    virtual void iteration(const IterationStats&) {}
    virtual void message(const std::string&) {}
    // Polled between iterations: true stops the run after a checkpoint. (It may wait there: the studio's
    // Pause holds the run inside it.)
    virtual bool stopRequested() { return false; }
    // Polled during a validation or mAP pass, after each batch: true ends the pass (its figure is not
    // taken). Never waits.
    virtual bool stopPending() { return false; }
    // Polled between iterations, before stopRequested: true writes a checkpoint first (the studio's
    // Pause, so that a run paused overnight is on disk).
    virtual bool checkpointWanted() { return false; }
};

struct Accuracy {
    int k = 5; // topK counts the label among the k highest scores
    double top1 = 0, topK = 0;
    std::size_t images = 0;     // scored (the readable ones)
    std::size_t unreadable = 0; // left out, each named in `warnings` (the first 20)
    std::vector<std::string> warnings;
    ConfusionMatrix confusion; // true class × top-1 class of the scored images
};

// What in [net] no training run can take (a batch that subdivisions does not divide, sequences), said
// before any data is read; Trainer::run refuses the same.
std::optional<std::string> batchProblem(const NetConfig& net);

// Whether `net` can be scored on (and trained on) `data`: a classifier ending in one output per class;
// the reason, with what to change, when not.
std::optional<std::string> classifierFits(const Net& net, const ClassificationDataset& data);

// Top-1 and top-k over a whole data set, in inference mode, `net.batch()` images at a time (through
// `forward` when given: a GPU copy of the net; else the net's own forward). Images that cannot be read
// are left out of the scores and named.
// `progress` (optional) is told the images done after each batch.
Accuracy evaluate(Net& net, const ClassificationDataset& data, const ForwardPass& forward = {}, int k = 5,
                  const std::function<void(std::size_t)>& progress = {});

class Trainer {
public:
    // `valid`: a classifier's accuracy set; `mapSet`: a detector's validation images for mAP.
    Trainer(Net& net, const TrainingSet& train, const ClassificationDataset* valid, TrainOptions options,
            const DetectionDataset* mapSet = nullptr)
        : net_(net), train_(train), valid_(valid), mapSet_(mapSet), options_(std::move(options))
    {
        // Darknet's backup=backup/ names files backup/x, not backup//x.
        while (options_.outDir.size() > 1 && options_.outDir.back() == '/')
            options_.outDir.pop_back();
    }
    // Runs to max_batches (or until the observer asks to stop). Returns an error message, or
    // nullopt on success; a stopped run is a success with its last checkpoint written.
    std::optional<std::string> run(TrainObserver& observer);

private:
    Net& net_;

    const TrainingSet& train_;
    const ClassificationDataset* valid_;
    const DetectionDataset* mapSet_;
    TrainOptions options_;
};

} // namespace nw
