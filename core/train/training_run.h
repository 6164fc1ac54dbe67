#pragma once
// One run of Trainer::run, from its start in the output folder to its final weights. Each step a reader
// looks for has a method of its own: the settings checked, the folder taken (a fresh start or a resume),
// an earlier run set aside, one iteration (passes, the ranks' sums, the solver's step), evaluation and
// the best weights, checkpoints and backups, a stop. What the steps share is the run's state below.
#include "train/checkpoint.h"
#include "train/communicator.h"
#include "train/data_parallel.h"
#include "train/metrics_log.h"
#include "train/multi_scale.h"
#include "train/previous_run.h"
#include "train/run_folder_lock.h"
#include "train/trainer.h"
#include "train/training_backend.h"

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace nw {

class BatchLoader;

class TrainingRun {
public:
    TrainingRun(Net& net, const TrainingSet& train, const ClassificationDataset* valid,
                const DetectionDataset* mapSet, const TrainOptions& options, TrainObserver& observer);
    ~TrainingRun();
    // An error message, or nullopt: the end reached, or a stop with its checkpoint written.
    std::optional<std::string> run();

private:
    using Result = std::optional<std::string>;
    Result runStages();                               // run() before a failure's clean-up
    void bringBackAfterFailure(std::string* problem); // the set-aside run, said in `problem`
    Result checkSettings();
    // The data against the network: input size, classes, a loss layer, truth values per image.
    Result checkData() const;
    // Rank 0: the folder locked, and a fresh start's notes or a resume's checkpoint loaded.
    Result takeFolder();
    Result resumeFromCheckpoint();
    Result startBackend();
    // A fresh run: an earlier run's files moved aside, metrics.csv begun.
    Result setAsideEarlierRun();
    Result writeTrainedCfg();         // <name>_trained.cfg: the network the run trains
    Result writeRunNotes();           // <name>_data.txt and _trained.cfg
    Result keepFolder(int iteration); // the folder's lock still this run's (made again when deleted)
    // A stop asked on any rank: the run's end (its result), or nullopt to go on.
    std::optional<Result> stopIfAsked();
    // Iteration `iteration`'s passes, the ranks' sums and the solver's step; its figures in `stats`.
    Result trainIteration(int iteration, IterationStats& stats);
    // Validation top-1 and mAP@0.5 when due, and the best weights so far.
    Result evaluate(int iteration, IterationStats& stats);
    void keepBest(int iteration, const IterationStats& stats);
    // The figures per class of a validation, in <name>_classes.json (the studio shows them after a restart).
    void keepClassResults(int iteration, const IterationStats& stats);
    // The checkpoint and backup weights due after `iteration`.
    Result writeDueFiles(int iteration);
    Result checkpoint();
    Result resizeNet(InputSize size);
    Result multiScaleProblem() const;
    std::string lastCheckpoint() const;
    void reportSkipped();
    void warnUnreadable(const char* what, std::size_t unreadable, std::size_t total,
                        const std::vector<std::string>& warnings);
    // What every rank would say alike (the team, a new input size, a stop) is said once, by rank 0.
    void leaderSays(const std::string& text);

    Net& net_;
    const TrainingSet& train_;
    const ClassificationDataset* valid_;
    const DetectionDataset* mapSet_;
    const TrainOptions& options_;
    TrainObserver& observer_;

    NetConfig cfg_;
    SingleProcess alone_;
    Communicator& team_;
    bool leader_ = true; // writes the files, validates
    int rankBatch_ = 0;  // images per iteration on this rank
    int fullBatch_ = 0;  // B: images per weight update
    int subdivisions_ = 1;
    int maxBatches_ = 0;
    unsigned seed_ = 1;      // --seed, or a resumed run's own
    float rateOverride_ = 0; // --learning-rate, or a resumed run's own (0: the cfg's)
    int lengthOverride_ = 0; // --max-batches, or a resumed run's own (0: the cfg's max_batches)
    // Batch norm's rolling statistics combined across ranks as one process would have them (the CPU
    // path); GPU ranks keep their own (rank 0's are saved), as Darknet's -gpus does.
    bool combineRolling_ = false;
    std::string base_, statePath_, metricsPath_, weightsPath_;
    TrainState state_;

    // (declared in the order they must go: the loader's batches live in the backend's memory)
    std::optional<RunFolderLock> lock_;
    std::unique_ptr<TrainingBackend> backend_;
    SetAside previous_;
    std::optional<MetricsLog> metrics_;
    std::vector<Net::LayerParameters> parameters_;
    std::unique_ptr<BatchLoader> loader_;
    RollingStatistics rolling_;

    // Multi-scale training changes the net's input size every 10 iterations.
    MultiScale multiScale_;
    InputSize ownSize_, current_;

    int checkpointed_ = -1; // the iteration the files on disk hold
    int running_ = 0;       // the iteration under way, for a failure's message
    // Unreadable samples are skipped (another takes their place) and counted for the run's summary.
    std::size_t skipped_ = 0;
    std::set<std::string> unreadableShown_;
    bool validationWarned_ = false; // validation's unreadable images, said once
    int snapshotEvery_ = 0;
    double bestScore_ = -1;
    std::optional<std::vector<std::string>> classNames_; // the data set's, read at the first validation
    std::chrono::steady_clock::time_point started_;
    double elapsedBefore_ = 0;
    double pausedSeconds_ = 0; // held in stopRequested (the studio's Pause): not training time
};

} // namespace nw
