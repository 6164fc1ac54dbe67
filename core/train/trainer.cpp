#include "train/trainer.h"

#include "data/batch_loader.h"
#include "detect/map.h"
#include "graph/set_classes.h"
#include "train/checkpoint.h"
#include "train/data_parallel.h"
#include "train/lr_policy.h"
#include "train/metrics_log.h"
#include "train/multi_scale.h"
#include "train/previous_run.h"
#include "train/run_folder_lock.h"
#include "train/training_backend.h"
#include "util/atomic_file.h"
#include "util/counted.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

namespace nw {

namespace {

// Where class `label` comes in the scores sorted as Darknet's top_k sorts them: a higher score first,
// and of equal scores the lower class first (so all-equal outputs are not all "right"). Outputs with a
// NaN rank nothing (a NaN compares false with everything: every class came first).
std::size_t rankOf(const float* scores, std::size_t count, std::size_t label)
{
    const float truth = scores[label];
    std::size_t rank = 0;
    for (std::size_t c = 0; c < count; ++c) {
        if (std::isnan(scores[c]))
            return std::numeric_limits<std::size_t>::max();
        rank += scores[c] > truth || (c < label && scores[c] == truth);
    }
    return rank;
}

constexpr std::string_view kEvaluatingAt = "evaluating at iteration ";

} // namespace

std::string evaluatingMessage(int iteration, const std::string& measure, std::size_t images)
{
    return std::string(kEvaluatingAt) + std::to_string(iteration) + ": " + measure + " on " +
           std::to_string(images) + " validation images";
}

bool isEvaluatingMessage(const std::string& text)
{
    return text.starts_with(kEvaluatingAt);
}

Accuracy evaluate(Net& net, const ClassificationDataset& data, const ForwardPass& forward, int k)
{
    const int batch = net.batch();
    const std::size_t imageSize = std::size_t(net.inputShape().size);
    std::vector<float> images(imageSize * std::size_t(batch));
    Accuracy accuracy;
    accuracy.k = k;
    std::string warning;
    for (std::size_t start = 0; start < data.size(); start += std::size_t(batch)) {
        const std::size_t count = std::min<std::size_t>(std::size_t(batch), data.size() - start);
        std::vector<bool> readable(count, true);
        for (std::size_t b = 0; b < std::size_t(batch);
             ++b) { // the last batch is padded with its first image
            const bool read = data.image(start + (b < count ? b : 0), images.data() + b * imageSize, warning);
            if (!read && b < count) {
                readable[b] = false;
                if (accuracy.warnings.size() < 20)
                    accuracy.warnings.push_back(warning);
                ++accuracy.unreadable;
            }
        }
        if (forward)
            forward(images.data());
        else
            net.forward(images.data());
        const Tensor& out = net.output();
        for (std::size_t b = 0; b < count; ++b) {
            if (!readable[b])
                continue;
            ++accuracy.images;
            const float* scores = out.item(int(b));
            const int label = data.label(start + b);
            if (out.itemSize() == 1) { // a binary classifier: right when on the label's side of ½
                const bool right = !std::isnan(scores[0]) && (scores[0] >= 0.5f) == (label == 0);
                accuracy.top1 += right;
                accuracy.topK += right;
                continue;
            }
            const std::size_t rank = rankOf(scores, out.itemSize(), std::size_t(label));
            accuracy.top1 += rank == 0;
            accuracy.topK += rank < std::size_t(std::max(1, k));
        }
    }
    if (accuracy.images) {
        accuracy.top1 /= double(accuracy.images);
        accuracy.topK /= double(accuracy.images);
    }
    return accuracy;
}

namespace {

const char* kMetricsHeader = "iteration,loss,avg_loss,lr,images_per_sec,elapsed_s,valid_top1,map50\n";

// metrics.csv as it was at the checkpoint: rows after it belong to work that was lost.
std::optional<std::string> trimMetrics(const std::string& path, int lastIteration)
{
    std::ifstream in(path);
    std::string kept = kMetricsHeader, line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        const int iteration = std::atoi(line.c_str());
        if (iteration > 0 && iteration <= lastIteration)
            kept += line + "\n";
    }
    return writeFileAtomically(path, kept);
}

// Another network trained into the same folder (Darknet's one backup/ for every cfg) writes metrics.csv
// too. When the folder's is not this run's, it is kept as metrics-of-another-run.csv, and this run's own
// comes back from where the other run set it aside: a previous-… folder (its fresh start; a copy stays
// there) or a metrics-of-another-run file (its resume; moved back).
std::optional<std::string> keepOnlyOwnMetrics(const std::string& outDir, const std::string& metricsPath,
                                              const TrainState& state, TrainObserver& observer)
{
    if (metricsReachCheckpoint(metricsPath, state))
        return std::nullopt;
    std::error_code ec;
    std::string aside = outDir + "/metrics-of-another-run.csv";
    for (int n = 2; std::filesystem::exists(aside, ec); ++n)
        aside = outDir + "/metrics-of-another-run-" + std::to_string(n) + ".csv";
    std::filesystem::rename(metricsPath, aside, ec);
    if (ec)
        return "cannot move " + metricsPath + " aside: " + ec.message();
    std::string own;
    std::filesystem::file_time_type ownTime{};
    for (const auto& entry : std::filesystem::directory_iterator(outDir, ec)) {
        const std::string name = entry.path().filename().string();
        const bool previous = name.starts_with("previous-");
        const auto candidate = previous ? entry.path() / "metrics.csv" : entry.path();
        if ((previous || name.starts_with("metrics-of-another-run")) &&
            std::filesystem::exists(candidate, ec) && metricsReachCheckpoint(candidate.string(), state) &&
            (own.empty() || std::filesystem::last_write_time(candidate, ec) > ownTime)) {
            own = candidate.string();
            ownTime = std::filesystem::last_write_time(candidate, ec);
        }
    }
    const bool found = !own.empty() && (own.find("/previous-") != std::string::npos
                                            ? std::filesystem::copy_file(own, metricsPath, ec)
                                            : (std::filesystem::rename(own, metricsPath, ec), !ec));
    observer.message(
        metricsPath + " is not this run's (its row at iteration " + std::to_string(state.iteration) +
        " does not hold the checkpoint's loss: another network trained into this folder?): kept as " + aside +
        (found ? "; this run's own, set aside in " + own + ", goes on"
               : std::string("; this run's curve starts again here")) +
        "; give each network its own folder to keep both curves");
    return std::nullopt;
}

// The best validation figure (top-1 or mAP@0.5) in metrics.csv: a resumed run's _best.weights holds it.
double bestScoreIn(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line); // header
    double best = -1;
    while (std::getline(in, line))
        for (int column : {6, 7}) // valid_top1, map50
            if (const std::string cell = metricsCell(line, column); !cell.empty())
                best = std::max(best, std::atof(cell.c_str()));
    return best;
}

std::string metricsRow(const IterationStats& s)
{
    std::ostringstream row;
    row << s.iteration << ',' << s.loss << ',' << s.averageLoss << ',' << s.learningRate << ','
        << s.imagesPerSecond << ',' << s.elapsedSeconds << ',';
    if (s.validTop1)
        row << *s.validTop1;
    row << ',';
    if (s.map50)
        row << *s.map50;
    row << '\n';
    return row.str();
}

} // namespace

namespace {

// "output= of layer 4 [connected]": the key and layer that give the network its number of outputs.
std::string outputSetter(const Net& net)
{
    if (const LayerSpec* layer = outputSizeLayer(net.spec()))
        return outputSizeKey(net.spec(), *layer) + "= of layer " + std::to_string(layer->index) + " [" +
               layer->type + "]";
    return "output= (or filters=) of the last layer";
}

} // namespace

std::optional<std::string> classifierFits(const Net& net, const ClassificationDataset& data)
{
    if (net.maxTruthBoxes() > 0)
        return "the network ends in a detection head but the .data file names classification data: a "
               "detector is scored by map (and trains on an image list with YOLO label files)";
    const Shape input = net.inputShape();
    if (data.width() != input.w || data.height() != input.h || data.channels() != input.c)
        return "the images are " + std::to_string(data.width()) + "x" + std::to_string(data.height()) + "x" +
               std::to_string(data.channels()) + " but the network's input is " + input.text() +
               ": change width/height/channels in [net]";
    if (int(net.output().itemSize()) != data.classes())
        return "the network ends with " + std::to_string(net.output().itemSize()) +
               " outputs but the data has " + std::to_string(data.classes()) + " classes: set " +
               outputSetter(net) + " to " + std::to_string(data.classes());
    return std::nullopt;
}

std::optional<std::string> Trainer::checkData() const
{
    const Shape input = net_.inputShape();
    if (train_.width() != input.w || train_.height() != input.h || train_.channels() != input.c)
        return "the training images are " + std::to_string(train_.width()) + "x" +
               std::to_string(train_.height()) + "x" + std::to_string(train_.channels()) +
               " but the network's input is " + input.text() + ": change width/height/channels in [net]";
    const auto* classification = dynamic_cast<const ClassificationDataset*>(&train_);
    if (classification)
        if (auto problem = classifierFits(net_, *classification))
            return problem;
    // Only these layers give a loss (they add to it in the training pass; [iseg], which cannot train, is
    // refused later by name): without one every gradient is 0, and a run "trained" with loss 0.0000.
    const auto& layers = net_.spec().layers;
    if (std::none_of(layers.begin(), layers.end(), [](const LayerSpec& layer) {
            for (const char* type :
                 {"softmax", "logistic", "cost", "yolo", "Gaussian_yolo", "region", "detection", "iseg"})
                if (layer.type == type)
                    return true;
            return false;
        }))
        return "the network has no loss layer, so training has nothing to learn from: it ends in layer " +
               std::to_string(layers.size() - 1) + " [" + layers.back().type +
               "]; end a classifier with [softmax] (Darknet's classifiers do), a detector with [yolo] heads";
    if (valid_) // (its images used to be written past the end of the network's input buffer)
        if (auto problem = classifierFits(net_, *valid_))
            return "the validation set: " + *problem;
    if (train_.truthFloats() != net_.truthFloats())
        return "the data gives " + std::to_string(train_.truthFloats()) +
               " truth values per image but the "
               "network reads " +
               std::to_string(net_.truthFloats());
    return std::nullopt;
}

namespace {

// Each head's figures over the subdivisions of one iteration: the per-truth averages weighted by the
// truths each subdivision assigned, no-obj and the loss averaged over the subdivisions.
void addHeadStats(std::vector<HeadStats>& sum, const std::vector<HeadStats>& part, int parts)
{
    if (sum.empty()) {
        sum = part;
        for (HeadStats& s : sum) {
            s.loss = s.averageIou = s.classScore = s.objectness = s.noObject = s.recall50 = s.recall75 = 0;
            s.count = 0;
        }
    }
    for (std::size_t h = 0; h < sum.size() && h < part.size(); ++h) {
        HeadStats& s = sum[h];
        const HeadStats& p = part[h];
        s.loss += p.loss / parts;
        s.noObject += p.noObject / parts;
        s.averageIou += p.averageIou * p.count; // sums for now: finishHeadSums divides
        s.classScore += p.classScore * p.count;
        s.objectness += p.objectness * p.count;
        s.recall50 += p.recall50 * p.count;
        s.recall75 += p.recall75 * p.count;
        s.count += p.count;
    }
}

void finishHeadSums(std::vector<HeadStats>& heads)
{
    for (HeadStats& s : heads)
        if (s.count > 0) {
            s.averageIou /= s.count;
            s.classScore /= s.count;
            s.objectness /= s.count;
            s.recall50 /= s.count;
            s.recall75 /= s.count;
        }
}

} // namespace

std::optional<std::string> batchProblem(const NetConfig& net)
{
    if (net.timeSteps > 1)
        return "time_steps=" + std::to_string(net.timeSteps) +
               " in [net]: training on sequences (Darknet's text and sequence data) is not supported; the "
               "data sets here give one image per batch row: set time_steps=1";
    const int subdivisions = std::max(1, net.subdivisions);
    if (net.batch % subdivisions != 0) {
        const int lower = net.batch / subdivisions * subdivisions;
        return "batch=" + std::to_string(net.batch) +
               " in [net] is not a multiple of subdivisions=" + std::to_string(subdivisions) +
               ": each pass would take " + std::to_string(net.batch / subdivisions) +
               " images and leave the rest out; make batch a multiple of subdivisions (batch=" +
               (lower > 0 ? std::to_string(lower) + " or " : std::string()) +
               std::to_string(lower + subdivisions) + ")";
    }
    return std::nullopt;
}

std::optional<std::string> Trainer::run(TrainObserver& observer)
{
    NetConfig cfg = net_.spec().net;
    if (options_.learningRate > 0)
        cfg.learningRate = options_.learningRate;
    SingleProcess alone;
    Communicator& team = options_.communicator ? *options_.communicator : alone;
    const bool leader = team.rank() == 0;          // writes the files, validates
    const int rankBatch = cfg.batch;               // images per iteration on this rank
    const int fullBatch = rankBatch * team.size(); // B: images per weight update
    const int subdivisions = std::max(1, cfg.subdivisions);
    const int maxBatches = options_.maxBatches > 0 ? options_.maxBatches : cfg.maxBatches;
    if (maxBatches <= 0)
        return "max_batches is 0: set max_batches in [net] or pass --max-batches";
    if (options_.gpu >= 0 && team.size() > 1 && !dynamic_cast<DeviceSums*>(&team))
        return "data-parallel training on GPUs goes through NCCL: start it with train --gpus 0,1,... (one "
               "process per GPU); ranks under mpirun train on CPUs";
    // Batch norm's rolling statistics combined across ranks as one process would have them (the CPU
    // path); GPU ranks keep their own (rank 0's are saved), as Darknet's -gpus does.
    const bool combineRolling = team.size() > 1 && options_.gpu < 0;
    if (auto problem = batchProblem(cfg))
        return problem;
    if (net_.batch() * subdivisions != rankBatch)
        return "the network was built for " + std::to_string(net_.batch()) +
               " images per pass but batch=" + std::to_string(rankBatch) +
               " / subdivisions=" + std::to_string(subdivisions) + " needs " +
               std::to_string(rankBatch / subdivisions);
    if (auto problem = checkData())
        return problem;
    if (auto problem = net_.setTraining(true))
        return *problem;

    const std::string base = options_.outDir + "/" + options_.name;
    const std::string statePath = base + "_last.state", metricsPath = options_.outDir + "/metrics.csv";
    const std::string weightsPath = base + "_last.weights";
    TrainState state;
    // Rank 0 owns the run folder; the others get its start through shareStart (they may be on other
    // machines). Rank 0 tells them when it could not start, so no rank waits for it forever.
    std::optional<RunFolderLock> lock;
    std::optional<std::string> leaderProblem = leader ? [&]() -> std::optional<std::string> {
        std::error_code ec;
        if (options_.resume && !std::filesystem::is_directory(options_.outDir, ec))
            return "nothing to resume: " + options_.outDir +
                   " does not exist (no run trained there); train without resume to start one";
        std::filesystem::create_directories(options_.outDir, ec);
        if (ec)
            return "cannot create " + options_.outDir + ": " + ec.message();
        std::string lockError;
        lock.emplace(options_.outDir, "training " + options_.name, lockError);
        if (!lock->locked())
            return lockError;
        for (const std::string& file :
             {statePath, weightsPath, metricsPath, base + "_final.weights", base + "_best.weights"})
            removeLeftTemporaries(file);
        if (!options_.resume) {
            // A fresh run counts from zero — iterations, images seen, the learning-rate schedule — also
            // from weights that have trained before (Darknet's -clear; their own `seen` would put the
            // schedule past its steps and burn-in). Said, since Darknet without -clear continues it.
            if (net_.seen() > 0)
                observer.message("note: the starting weights have trained on " + std::to_string(net_.seen()) +
                                 " images (iteration " +
                                 std::to_string(net_.seen() / std::uint64_t(fullBatch)) +
                                 " at this batch); this run starts again from iteration 0, burn-in and the "
                                 "learning-rate steps included (Darknet's -clear). To continue a run, resume "
                                 "it from its folder (--resume, or Resume in the studio)");
            net_.setSeen(0);
            for (const auto& entry : std::filesystem::directory_iterator(options_.outDir, ec)) {
                const std::string file = entry.path().filename().string();
                if (file.ends_with("_last.state") && file != options_.name + "_last.state") {
                    observer.message("note: " + options_.outDir + " also holds another network's run (" +
                                     file +
                                     "): the two share metrics.csv and chart.png; give each network its own "
                                     "folder to keep both curves");
                    break;
                }
            }
            return std::nullopt; // (an earlier run's files are set aside once the start has succeeded)
        }
        if (auto problem = loadCheckpoint(statePath, net_, state)) {
            std::error_code missing;
            const std::string stateName = options_.name + "_last.state";
            if (!std::filesystem::exists(statePath, missing)) {
                if (auto aside = newestSetAside(options_.outDir, stateName))
                    *problem += ". A fresh run set the last checkpoint aside in " + options_.outDir + "/" +
                                *aside + ": move " + aside->substr(0, aside->find('/')) +
                                "'s files back into " + options_.outDir + " to resume it";
                else if (std::filesystem::exists(weightsPath, missing)) // Darknet's backup/ has only these
                    *problem += ". " + weightsPath +
                                " is there without its state (Darknet writes no state): train from it as "
                                "starting weights (the WEIGHTS argument, without --resume); the iterations "
                                "and the learning-rate schedule then start again from 0";
            }
            return problem;
        }
        // A run killed between its two checkpoint files leaves _last.weights one checkpoint ahead of
        // the state; the state is what resumes, so the weights are made to match it again.
        if (auto problem = net_.saveWeights(weightsPath))
            return problem;
        // metrics.csv must be this run's, or trimming would splice two runs' curves.
        if (auto problem = keepOnlyOwnMetrics(options_.outDir, metricsPath, state, observer))
            return problem;
        if (auto problem = trimMetrics(metricsPath, state.iteration))
            return problem;
        observer.message("resuming from " + statePath + " at iteration " + std::to_string(state.iteration));
        if (std::ifstream recorded(base + "_data.txt"); recorded && !options_.data.empty()) {
            std::string trainedOn;
            std::getline(recorded, trainedOn);
            if (!trainedOn.empty() && trainedOn != options_.data)
                observer.message("note: this run trained on " + trainedOn + " and resumes on " +
                                 options_.data +
                                 ": the checkpoint goes on learning from other data (give each data set its "
                                 "own output folder to keep their runs apart)");
        }
        if (state.iteration >= maxBatches)
            observer.message(
                "the checkpoint is at iteration " + std::to_string(state.iteration) +
                ", already at max_batches=" + std::to_string(maxBatches) +
                ": nothing more to train; raise --max-batches (or max_batches in [net]) to go on");
        return std::nullopt;
    }()
        : std::nullopt;
    if (auto problem = shareStart(team, net_, state, leaderProblem.has_value()))
        return leaderProblem ? leaderProblem : problem;
    if (leaderProblem)
        return leaderProblem;
    // What every rank would say alike (the team, a new input size, a stop) is said once, by rank 0.
    const auto leaderSays = [&](const std::string& text) {
        if (leader)
            observer.message(text);
    };
    if (team.size() > 1)
        leaderSays("data-parallel training over " + team.describe() + ": " + std::to_string(rankBatch) +
                   " images per rank, " + std::to_string(fullBatch) + " per update");
    std::string backendError;
    std::unique_ptr<TrainingBackend> backend =
        options_.gpu >= 0 ? makeGpuTrainingBackend(net_, cfg, options_.gpu, backendError)
                          : makeCpuTrainingBackend(net_, cfg);
    if (!backend)
        return backendError;
    try { // a resumed Adam state on a GPU is twice the weights: it may not fit
        backend->setSolverState(state.velocity);
    } catch (const std::exception& e) {
        return std::string("cannot restore the solver's state: ") + e.what();
    }
    if (options_.gpu >= 0)
        observer.message("training on " + backend->describe());
    // A fresh run into a folder holding an earlier run's files moves them aside first — now that nothing
    // can fail before training starts — and puts them back if stopped before its first iteration.
    SetAside previous;
    if (leader && !options_.resume) {
        // A finished run (final weights as new as its checkpoint) has nothing to continue.
        std::error_code ec;
        const auto finalTime = std::filesystem::last_write_time(base + "_final.weights", ec);
        const bool finished = !ec && finalTime >= std::filesystem::last_write_time(statePath, ec) && !ec;
        previous = setAsidePreviousRun(options_.outDir, options_.name);
        if (previous.error)
            return previous.error;
        if (!previous.folder.empty())
            observer.message("a fresh run: the previous " + std::string(finished ? "(finished) " : "") +
                             "run's checkpoint, weights and metrics in " + options_.outDir +
                             " were moved to " + previous.folder +
                             (finished
                                  ? std::string()
                                  : " (to continue that run instead, stop this one in its first iteration "
                                    "and resume)"));
        if (auto problem = writeFileAtomically(metricsPath, kMetricsHeader))
            return problem;
        if (!options_.data.empty())
            if (auto problem = writeFileAtomically(base + "_data.txt", options_.data + "\n"))
                return problem;
    }
    MetricsLog metrics(metricsPath);
    // However the run ends (the end, a stop, an error), rows that still wait are tried once more and
    // otherwise named.
    struct WaitingRowsNote {
        MetricsLog& log;
        TrainObserver& observer;
        const std::string& path;
        ~WaitingRowsNote()
        {
            log.flush();
            if (log.waitingRows() > 0)
                observer.message("warning: the last " + std::to_string(log.waitingRows()) + " rows of " +
                                 path + " could not be written");
        }
    } waitingRowsNote{metrics, observer, metricsPath};
    auto parameters = net_.trainableParameters();
    // This rank's passes of every iteration: rank r takes passes r·S … r·S + S − 1 of the N·S passes one
    // process with N times the batch would run.
    const int loaderThreads =
        options_.loaderThreads > 0
            ? options_.loaderThreads
            : (options_.gpu >= 0 ? std::max(1, int(std::thread::hardware_concurrency()) /
                                                   std::max(1, team.ranksOnThisHost()))
                                 : 1);
    BatchLoader loader(train_, net_.batch(), options_.seed, state.seen,
                       Shard{team.rank(), team.size(), subdivisions}, loaderThreads, backend->batchMemory());
    RollingStatistics rolling;

    // Multi-scale training changes the net's input size every 10 iterations; the caller gets the net
    // back at its own size however the run ends.
    const MultiScale multiScale = train_.resizable() ? MultiScale::of(net_.spec()) : MultiScale{};
    const InputSize ownSize{net_.inputShape().w, net_.inputShape().h};
    InputSize current = ownSize;
    auto resizeNet = [&](InputSize size) -> std::optional<std::string> {
        if (size.width == net_.inputShape().w && size.height == net_.inputShape().h)
            return std::nullopt; // (mAP at the size already trained at)
        backend->syncToHost();   // the resized layers start from the host's values
        if (auto problem = net_.resizeInput(size.width, size.height))
            return problem;
        parameters = net_.trainableParameters(); // the layers (and their arrays) are new
        return backend->netChanged();
    };
    struct RestoreSize {
        std::function<void()> restore;
        ~RestoreSize()
        {
            try {
                restore();
            } catch (...) { // out of memory while the run already ends in an error: that error stands
            }
        }
    } restoreSize{[&] { net_.resizeInput(ownSize.width, ownSize.height); }};

    int checkpointed = options_.resume ? state.iteration : -1; // the iteration the files on disk hold
    const auto lastCheckpoint = [&] {
        return checkpointed >= 0 ? "the last checkpoint (iteration " + std::to_string(checkpointed) +
                                       ") is kept in " + options_.outDir
                                 : std::string("no checkpoint was written in this run");
    };
    int running = state.iteration + 1; // the iteration under way, for a failure's message
    // The weights first, the state last: the state is the commit point (see the resume above).
    auto checkpoint = [&]() -> std::optional<std::string> {
        if (!leader) { // rank 0 writes it
            checkpointed = state.iteration;
            return std::nullopt;
        }
        if (auto note = metrics.flush()) // the checkpoint's row must be in metrics.csv for a resume
            observer.message(*note);
        backend->syncToHost();
        state.velocity = backend->solverState();
        state.seen = net_.seen();
        auto problem = net_.saveWeights(weightsPath);
        if (!problem)
            problem = saveCheckpoint(statePath, net_, state);
        if (!problem) {
            checkpointed = state.iteration;
            return std::nullopt;
        }
        return *problem + "; " + lastCheckpoint();
    };

    // Unreadable samples are skipped (another takes their place) and counted for the run's summary.
    std::size_t skipped = 0;
    std::set<std::string> unreadableShown;
    // Validation's unreadable images, said once (the same images each time).
    bool validationWarned = false;
    const auto warnUnreadable = [&](const char* what, std::size_t unreadable, std::size_t total,
                                    const std::vector<std::string>& warnings) {
        if (unreadable == 0 || validationWarned)
            return;
        observer.message(std::string("warning: ") + what + " leaves out " +
                         counted(unreadable, "unreadable image", "unreadable images") + " of " +
                         std::to_string(total) + "; the first: " + warnings.front());
        validationWarned = true;
    };
    auto reportSkipped = [&] {
        if (skipped > 0)
            observer.message(counted(skipped, "sample", "samples") + " of " +
                             counted(unreadableShown.size(), "unreadable image", "unreadable images") +
                             " skipped in this run (named in the warnings above)");
    };
    const int snapshotEvery = options_.snapshotEvery >= 0 ? options_.snapshotEvery
                              : maxBatches < 10000        ? 1000
                                                          : 10000;
    // (the metrics trimmed above; without the file itself, the next validation writes it again)
    std::error_code noBest;
    double bestScore = leader && options_.resume && std::filesystem::exists(base + "_best.weights", noBest)
                           ? bestScoreIn(metricsPath)
                           : -1;
    const auto started = std::chrono::steady_clock::now();
    const double elapsedBefore = state.elapsedSeconds;
    double pausedSeconds = 0; // held in stopRequested (the studio's Pause): not training time
    // A failure inside an iteration (the GPU out of memory, a driver fault) ends the run in words; the
    // files on disk are the last checkpoint's, whole (written atomically).
    try {
        while (state.iteration < maxBatches) {
            running = state.iteration + 1;
            // A stop asked on any rank (Ctrl+C reaches every rank under mpirun) stops all of them here.
            // (Not in the first iteration of a run that set an earlier one aside: a stop there brings that
            // run's files back.)
            if (team.size() == 1 && state.iteration > checkpointed &&
                (state.iteration >= 2 || options_.resume || previous.folder.empty()) &&
                observer.checkpointWanted())
                if (auto problem = checkpoint())
                    observer.message("warning: the checkpoint at the pause could not be written: " +
                                     *problem);
            const auto asked = std::chrono::steady_clock::now();
            double stop = observer.stopRequested() ? 1.0 : 0.0;
            pausedSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
            if (auto problem = team.sum(&stop, 1))
                return problem;
            if (stop > 0) {
                reportSkipped();
                // Nothing trained, or the one iteration in which the stop came (Ctrl+C on seeing "a fresh
                // run: … moved"): nothing to keep, the earlier run comes back.
                if (!options_.resume &&
                    (state.iteration == 0 || (state.iteration == 1 && !previous.folder.empty()))) {
                    if (leader && !previous.folder.empty()) {
                        if (auto problem = bringPreviousRunBack(previous, options_.outDir, options_.name))
                            return problem;
                        observer.message("stopped in or before the first iteration: the previous run's files "
                                         "are back in " +
                                         options_.outDir + " (resume it to go on)");
                    } else {
                        if (leader) { // only metrics.csv's header was: the folder is left as found
                            std::error_code ignored;
                            std::filesystem::remove(metricsPath, ignored);
                        }
                        leaderSays("stopped before the first iteration: nothing was written");
                    }
                    return std::nullopt;
                }
                // Said once it is written (a full disk turned "checkpoint written" into a false claim).
                if (checkpointed != state.iteration) // (a pause wrote it)
                    if (auto problem = checkpoint())
                        return problem;
                leaderSays("stopped at iteration " + std::to_string(state.iteration) +
                           "; checkpoint written");
                return std::nullopt;
            }
            const auto iterationStart = std::chrono::steady_clock::now();
            const int iteration = state.iteration + 1;
            if (multiScale.enabled())
                if (const InputSize size = multiScale.sizeAt(iteration, maxBatches, options_.seed);
                    size != current) {
                    if (auto problem = resizeNet(size))
                        return "iteration " + std::to_string(iteration) + ": " + *problem + "; " +
                               lastCheckpoint();
                    loader.setInputSize(size.width, size.height);
                    current = size;
                    leaderSays("multi-scale training: input " + std::to_string(size.width) + "x" +
                               std::to_string(size.height) + " from iteration " + std::to_string(iteration));
                }
            std::mt19937 random(options_.seed * 7919u + unsigned(iteration));
            // Dropout draws differ per rank; the learning rate's draws (policy=random) are the same on all.
            std::mt19937 rankRandom(options_.seed * 7919u + unsigned(iteration) +
                                    104729u * unsigned(team.rank()));
            std::mt19937& passRandom = team.size() > 1 ? rankRandom : random;
            if (combineRolling)
                rolling.remember(net_);
            double loss = 0;
            std::vector<HeadStats> heads;
            for (int s = 0; s < subdivisions; ++s) {
                Batch batch = loader.next();
                if (batch.images.size() != std::size_t(net_.batch()) * net_.inputShape().size)
                    return "internal error: a training batch of " + std::to_string(batch.images.size()) +
                           " floats for a network that reads " +
                           std::to_string(std::size_t(net_.batch()) * net_.inputShape().size);
                if (!batch.failed.empty())
                    return "iteration " + std::to_string(iteration) + ": " + batch.failed + "; " +
                           lastCheckpoint();
                // Each unreadable image named once: it comes up again every epoch.
                for (const std::string& warning : batch.warnings)
                    if (unreadableShown.insert(warning).second)
                        observer.message("warning: " + warning + " (and whenever it comes up again)");
                skipped += batch.warnings.size();
                loss += backend->forwardTraining(batch.images.data(), batch.truth.data(), passRandom);
                addHeadStats(heads, backend->headStats(), subdivisions);
                backend->backward();
                loader.recycle(std::move(batch)); // read by now (a GPU's upload finished in the pass)
            }
            // The ranks' loss and gradient sums added up: every rank then takes the same step.
            if (auto problem = team.sum(&loss, 1))
                return problem;
            if (auto problem = backend->sumGradients(team))
                return problem;
            if (combineRolling)
                if (auto problem = rolling.combine(team, net_, subdivisions))
                    return problem;
            loss /= fullBatch;
            if (!std::isfinite(loss))
                return "the loss became " + std::to_string(loss) + " at iteration " +
                       std::to_string(iteration) + " (learning rate too high?); " + lastCheckpoint();
            net_.setSeen(net_.seen() + std::uint64_t(fullBatch));
            // Darknet's batch number (seen / batch) is the iteration here, as a fresh run counts from 0:
            // a run resumed with another rank count or batch keeps its schedule in iterations, as its
            // end (max_batches) is.
            const float rate = learningRate(cfg, iteration, &random);
            backend->step(parameters, rate, fullBatch);
            state.iteration = iteration;
            state.averageLoss = state.averageLoss < 0 ? loss : 0.9 * state.averageLoss + 0.1 * loss;

            IterationStats stats;
            stats.iteration = iteration;
            stats.maxBatches = maxBatches;
            stats.loss = loss;
            stats.averageLoss = state.averageLoss;
            stats.learningRate = rate;
            finishHeadSums(heads);
            stats.heads = std::move(heads);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - iterationStart).count();
            stats.imagesPerSecond = seconds > 0 ? fullBatch / seconds : 0;
            stats.epoch = double(net_.seen()) / double(train_.size());
            const bool last = iteration == maxBatches;
            const bool validating =
                leader && valid_ &&
                ((options_.validEvery > 0 && iteration % options_.validEvery == 0) || last);
            const bool mapping =
                leader && mapSet_ && ((options_.mapEvery > 0 && iteration % options_.mapEvery == 0) || last);
            if (validating) {
                observer.message(evaluatingMessage(iteration, "top-1", valid_->size()));
                const Accuracy accuracy = evaluate(net_, *valid_, backend->evaluationPass());
                if (accuracy.images > 0)
                    stats.validTop1 = accuracy.top1;
                warnUnreadable("validation", accuracy.unreadable, valid_->size(), accuracy.warnings);
            }
            if (mapping) {
                observer.message(evaluatingMessage(iteration, "mAP@0.5", mapSet_->size()));
                if (auto problem = resizeNet(ownSize)) // mAP at the size the net is used at
                    return *problem;
                const MapResult map =
                    evaluateMap(net_, *mapSet_, options_.letterbox, {}, {}, backend->evaluationPass());
                if (map.images > 0)
                    stats.map50 = map.map50;
                warnUnreadable("mAP", map.unreadable, mapSet_->size(), map.warnings);
                if (auto problem = resizeNet(current))
                    return *problem;
            }
            state.elapsedSeconds =
                elapsedBefore +
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
                pausedSeconds;
            stats.elapsedSeconds = state.elapsedSeconds;
            // The weights of the best validation so far, as Darknet's _best.weights (a run that ends
            // past its best, overfitted, keeps them).
            if (const std::optional<double> score = stats.map50 ? stats.map50 : stats.validTop1;
                score && *score > bestScore) {
                backend->syncToHost();
                char figure[32];
                std::snprintf(figure, sizeof figure, "%.2f %%", *score * 100);
                // A full disk: the run goes on (as for a checkpoint), and a later best is written.
                if (auto problem = net_.saveWeights(base + "_best.weights")) {
                    observer.message("warning: iteration " + std::to_string(iteration) +
                                     ": the best weights so far (" + figure +
                                     ") could not be written: " + *problem + "; training goes on");
                } else {
                    bestScore = *score;
                    observer.message(std::string("best ") + (stats.map50 ? "mAP@0.5" : "top-1") +
                                     " so far, " + figure + ": weights in " + base + "_best.weights");
                }
            }
            if (leader)
                if (auto note = metrics.append(metricsRow(stats)))
                    observer.message(*note);
            observer.iteration(stats);
            if (iteration % std::max(1, options_.checkpointEvery) == 0 || last)
                if (auto problem = checkpoint()) {
                    if (last)
                        return problem;
                    // A full disk or a folder that refuses writes for a while: what is learnt is still in
                    // memory, so the run goes on and the next checkpoint tries again.
                    observer.message("warning: the checkpoint at iteration " + std::to_string(iteration) +
                                     " could not be written: " + *problem +
                                     "; training goes on and tries again at "
                                     "iteration " +
                                     std::to_string(std::min(
                                         iteration + std::max(1, options_.checkpointEvery), maxBatches)));
                }
            if (leader && snapshotEvery > 0 && iteration % snapshotEvery == 0) {
                backend->syncToHost();
                if (auto problem = net_.saveWeights(base + "_" + std::to_string(iteration) + ".weights"))
                    observer.message("warning: iteration " + std::to_string(iteration) +
                                     ": the backup weights could "
                                     "not be written: " +
                                     *problem + "; training goes on");
            }
        }
    } catch (const std::bad_alloc&) {
        return "training stopped in iteration " + std::to_string(running) +
               ": out of memory on the host (lower batch or raise subdivisions in [net]); " +
               lastCheckpoint();
    } catch (const std::exception& e) {
        return "training stopped in iteration " + std::to_string(running) + ": " + e.what() + "; " +
               lastCheckpoint();
    }
    reportSkipped();
    backend->syncToHost();
    return leader ? net_.saveWeights(base + "_final.weights") : std::nullopt;
}

} // namespace nw
