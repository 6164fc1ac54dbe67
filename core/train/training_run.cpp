#include "train/training_run.h"

#include "cfg/document.h"
#include "data/batch_loader.h"
#include "data/data_file.h"
#include "detect/map.h"
#include "train/class_results_file.h"
#include "train/lr_policy.h"
#include "util/atomic_file.h"
#include "util/counted.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace nw {

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

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A rate as a cfg writes it: 0.001, 1e-05.
std::string formatRate(float rate)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", double(rate));
    return text;
}

} // namespace

TrainingRun::TrainingRun(Net& net, const TrainingSet& train, const ClassificationDataset* valid,
                         const DetectionDataset* mapSet, const TrainOptions& options, TrainObserver& observer)
    : net_(net), train_(train), valid_(valid), mapSet_(mapSet), options_(options), observer_(observer),
      cfg_(net.spec().net), team_(options.communicator ? *options.communicator : alone_)
{
    // A rate or length given equal to the cfg's (the studio passes its fields as shown) is the cfg's:
    // not kept in the checkpoint as the run's own (a CLI resume was then held to it).
    if (options_.learningRate > 0) {
        cfg_.learningRate = options_.learningRate;
        rateOverride_ = options_.learningRate != net.spec().net.learningRate ? options_.learningRate : 0;
    }
    leader_ = team_.rank() == 0;
    rankBatch_ = cfg_.batch;
    fullBatch_ = rankBatch_ * team_.size();
    subdivisions_ = std::max(1, cfg_.subdivisions);
    maxBatches_ = options_.maxBatches > 0 ? options_.maxBatches : cfg_.maxBatches;
    lengthOverride_ =
        options_.maxBatches > 0 && options_.maxBatches != net.spec().net.maxBatches ? options_.maxBatches : 0;
    seed_ = options_.seed;
    // The schedule follows the run's length (poly's end, sgdr's first cycle): with --max-batches past
    // the cfg's the rate stayed 0 from there on, and with max_batches=0 in the cfg it was 0 throughout.
    cfg_.maxBatches = maxBatches_;
    combineRolling_ = team_.size() > 1 && options_.gpu < 0;
    base_ = options_.outDir + "/" + options_.name;
    statePath_ = base_ + "_last.state";
    metricsPath_ = options_.outDir + "/metrics.csv";
    weightsPath_ = base_ + "_last.weights";
}

TrainingRun::~TrainingRun() = default;

void TrainingRun::leaderSays(const std::string& text)
{
    if (leader_)
        observer_.message(text);
}

TrainingRun::Result TrainingRun::checkSettings()
{
    if (maxBatches_ <= 0)
        return "max_batches is 0 or missing in [net], so there is nothing to train: set max_batches (the "
               "number of iterations) or give the run's length (--max-batches N, the Train panel's "
               "Iterations)";
    if (options_.gpu >= 0 && team_.size() > 1 && !dynamic_cast<DeviceSums*>(&team_))
        return "data-parallel training on GPUs goes through NCCL: start it with train --gpus 0,1,... (one "
               "process per GPU); ranks under mpirun train on CPUs";
    if (auto problem = batchProblem(cfg_))
        return problem;
    if (net_.batch() * subdivisions_ != rankBatch_)
        return "the network was built for " + std::to_string(net_.batch()) +
               " images per pass but batch=" + std::to_string(rankBatch_) +
               " / subdivisions=" + std::to_string(subdivisions_) + " needs " +
               std::to_string(rankBatch_ / subdivisions_);
    return std::nullopt;
}

TrainingRun::Result TrainingRun::checkData() const
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

// Rank 0 owns the run folder; the others get its start through shareStart (they may be on other
// machines).
TrainingRun::Result TrainingRun::takeFolder()
{
    std::error_code ec;
    if (options_.resume && !std::filesystem::is_directory(options_.outDir, ec))
        return "nothing to resume: " + options_.outDir +
               " does not exist (no run trained there); train without resume to start one";
    std::filesystem::create_directories(options_.outDir, ec);
    if (ec)
        return "cannot create " + options_.outDir + ": " + ec.message();
    std::string lockError;
    lock_.emplace(options_.outDir, "training " + options_.name, lockError);
    if (!lock_->locked())
        return lockError;
    for (const std::string& file :
         {statePath_, weightsPath_, metricsPath_, base_ + "_final.weights", base_ + "_best.weights",
          base_ + "_data.txt", base_ + "_trained.cfg", classResultsPath(options_.outDir, options_.name)})
        removeLeftTemporaries(file);
    // The backups' too (<name>_<N>.weights): a kill while one was written left a weights-sized file.
    std::set<std::string> backups;
    const std::string backupPrefix = options_.name + "_";
    for (const auto& entry : std::filesystem::directory_iterator(options_.outDir, ec)) {
        const std::string file = entry.path().filename().string();
        const auto end = file.find(".weights.tmp-");
        if (file.starts_with(backupPrefix) && end != std::string::npos && end > backupPrefix.size() &&
            file.find_first_not_of("0123456789", backupPrefix.size()) == end)
            backups.insert(options_.outDir + "/" + file.substr(0, end + std::string_view(".weights").size()));
    }
    for (const std::string& backup : backups)
        removeLeftTemporaries(backup);
    if (options_.resume)
        return resumeFromCheckpoint();
    // A fresh run counts from zero — iterations, images seen, the learning-rate schedule — also from
    // weights that have trained before (Darknet's -clear; their own `seen` would put the schedule past its
    // steps and burn-in). Said, since Darknet without -clear continues it.
    if (net_.seen() > 0)
        observer_.message("note: the starting weights have trained on " + std::to_string(net_.seen()) +
                          " images (iteration " + std::to_string(net_.seen() / std::uint64_t(fullBatch_)) +
                          " at this batch); this run starts again from iteration 0, burn-in and the "
                          "learning-rate steps included (Darknet's -clear). To continue a run, resume "
                          "it from its folder (--resume, or Resume in the studio)");
    net_.setSeen(0);
    for (const auto& entry : std::filesystem::directory_iterator(options_.outDir, ec)) {
        const std::string file = entry.path().filename().string();
        if (file.ends_with("_last.state") && file != options_.name + "_last.state") {
            observer_.message("note: " + options_.outDir + " also holds another network's run (" + file +
                              "): the two share metrics.csv and chart.png; give each network its own "
                              "folder to keep both curves");
            break;
        }
    }
    return std::nullopt; // (an earlier run's files are set aside once the start has succeeded)
}

TrainingRun::Result TrainingRun::resumeFromCheckpoint()
{
    // The run's files are read below: one that is no regular file held the resume for good (a named
    // pipe waits for a writer) or failed without its name ("Is a directory").
    for (const std::string& file : {statePath_, weightsPath_, metricsPath_, base_ + "_data.txt",
                                    base_ + "_trained.cfg", base_ + "_best.weights"}) {
        std::error_code ec;
        if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec))
            return file + " is " +
                   (std::filesystem::is_directory(file, ec)
                        ? "a folder"
                        : "not a regular file (a named pipe or a device)") +
                   ", where the run keeps a file of its own: move it away, then resume";
    }
    if (auto problem = loadCheckpoint(statePath_, net_, state_)) {
        std::error_code missing;
        const std::string stateName = options_.name + "_last.state";
        if (!std::filesystem::exists(statePath_, missing)) {
            if (auto aside = newestSetAside(options_.outDir, stateName))
                *problem += ". A fresh run set the last checkpoint aside in " + options_.outDir + "/" +
                            *aside + ": move " + aside->substr(0, aside->find('/')) + "'s files back into " +
                            options_.outDir + " to resume it";
            else if (std::filesystem::exists(weightsPath_, missing)) // Darknet's backup/ has only these
                *problem += ". " + weightsPath_ +
                            " is there without its state (Darknet writes no state): train from it as "
                            "starting weights (the WEIGHTS argument, without --resume); the iterations "
                            "and the learning-rate schedule then start again from 0";
            else // another network's run there: the checkpoint is named after the cfg it trained
                for (const auto& entry : std::filesystem::directory_iterator(options_.outDir, missing))
                    if (const std::string file = entry.path().filename().string();
                        file.ends_with("_last.state")) {
                        *problem += ". " + options_.outDir + " holds " + file + ", the run of " +
                                    file.substr(0, file.size() - std::string_view("_last.state").size()) +
                                    ".cfg: a checkpoint is named after its cfg, so resume it with that cfg";
                        break;
                    }
        } else if (std::ifstream trained(base_ + "_trained.cfg", std::ios::binary);
                   trained && !options_.cfgText.empty() &&
                   std::string(std::istreambuf_iterator<char>(trained), {}) != options_.cfgText) {
            // (the checkpoint of another version of the network: edited since it trained)
            *problem += (problem->ends_with('?') ? " " : ". ") + std::string("The run trained ") + base_ +
                        "_trained.cfg, the network as it was then: to resume, put it back in place of " +
                        options_.name +
                        ".cfg; or start a fresh run of this one (without --resume; in the "
                        "studio, untick Resume)";
        }
        return problem;
    }
    // Its --max-batches likewise (3000 resumed without it went on to the cfg's 1000, or found nothing to
    // train, and the schedule followed the new length). A length from the cfg is not kept: raising
    // max_batches there and resuming trains further, as in Darknet.
    if (state_.maxBatches > 0 && options_.maxBatches <= 0) {
        if (state_.maxBatches != maxBatches_)
            observer_.message("note: this run was trained to --max-batches " +
                              std::to_string(state_.maxBatches) +
                              ": it goes on to that iteration (the cfg says " + std::to_string(maxBatches_) +
                              "; give --max-batches to change it)");
        maxBatches_ = cfg_.maxBatches = lengthOverride_ = state_.maxBatches;
    }
    std::error_code noFinal;
    if (state_.iteration == maxBatches_ && leader_ &&
        !std::filesystem::exists(base_ + "_final.weights", noFinal)) {
        // Stopped between its last checkpoint and its final weights (killed, or stopped at the end): they
        // are the checkpoint's, written now (a resume said "nothing more to train" and they never came).
        if (auto problem = net_.saveWeights(base_ + "_final.weights"))
            return problem;
        observer_.message("the checkpoint is at the run's last iteration (" +
                          std::to_string(state_.iteration) + ") without its final weights: " + base_ +
                          "_final.weights written from it");
        return std::nullopt;
    }
    // At or past the end already: the run trains nothing, so it changes no file either (it wrote
    // _final.weights, and the studio then took a stopped run for a finished one and set it aside).
    if (state_.iteration >= maxBatches_) {
        observer_.message("the checkpoint is at iteration " + std::to_string(state_.iteration) +
                          ", already at max_batches=" + std::to_string(maxBatches_) +
                          ": nothing more to train, no file changed; raise --max-batches (or max_batches "
                          "in [net]) to go on");
        return std::nullopt;
    }
    // A run killed between its two checkpoint files leaves _last.weights one checkpoint ahead of the
    // state; the state is what resumes, so the weights are made to match it again.
    if (auto problem = net_.saveWeights(weightsPath_))
        return problem;
    // metrics.csv must be this run's, or trimming would splice two runs' curves.
    if (auto problem = keepOnlyOwnMetrics(options_.outDir, metricsPath_, state_, observer_))
        return problem;
    if (auto problem = trimMetrics(metricsPath_, state_.iteration))
        return problem;
    // A network edited since it trained, in what has no weights (the solver, the rates, the steps): said,
    // and the cfg of the iterations so far kept beside the new one (it was overwritten unsaid).
    // (values compared, not bytes: a comment or a blank line changes no run; a kept file is never
    // replaced: a second resume at the same checkpoint would put a cfg that trained nothing there)
    if (std::ifstream trained(base_ + "_trained.cfg", std::ios::binary);
        trained && leader_ && !options_.cfgText.empty()) {
        const std::string before{std::istreambuf_iterator<char>(trained), {}};
        const std::string kept = base_ + "_trained-to-" + std::to_string(state_.iteration) + ".cfg";
        std::error_code exists;
        if (cfg::valuesText(before) != cfg::valuesText(options_.cfgText) &&
            !std::filesystem::exists(kept, exists)) {
            if (auto problem = writeFileAtomically(kept, before))
                return problem;
            observer_.message("note: the cfg differs from the one this run trained to iteration " +
                              std::to_string(state_.iteration) + " (kept as " + kept +
                              "): it goes on with the cfg as it is now");
        }
    }
    if (auto problem = writeTrainedCfg()) // (a resumed network may differ in what has no weights: rates)
        return problem;
    // The run goes on with its own seed: another one draws other batches than the run would have
    // (shareStart gives it to the other ranks).
    if (state_.seed && *state_.seed != seed_) {
        // (the default seed, 1, is what a resume without --seed has: no --seed to answer then)
        observer_.message("note: this run was started with --seed " + std::to_string(*state_.seed) +
                          ": it goes on with that seed" +
                          (seed_ != 1 ? " (--seed " + std::to_string(seed_) + " is for a fresh run)" : ""));
        seed_ = *state_.seed;
    }
    // Its --learning-rate likewise, unless another is given now (it went on at the cfg's, 10x higher).
    if (state_.learningRate > 0 && options_.learningRate <= 0) {
        observer_.message("note: this run was trained with --learning-rate " +
                          formatRate(state_.learningRate) + ": it goes on at that rate (the cfg says " +
                          formatRate(cfg_.learningRate) + "; give --learning-rate to change it)");
        cfg_.learningRate = rateOverride_ = state_.learningRate;
    }
    observer_.message("resuming from " + statePath_ + " at iteration " + std::to_string(state_.iteration));
    if (std::ifstream recorded(base_ + "_data.txt"); recorded && !options_.data.empty()) {
        std::string trainedOn;
        std::getline(recorded, trainedOn);
        if (!trainedOn.empty() && trainedOn != options_.data)
            observer_.message("note: this run trained on " + trainedOn + " and resumes on " + options_.data +
                              ": the checkpoint goes on learning from other data (give each data set its "
                              "own output folder to keep their runs apart)");
    }
    return std::nullopt;
}

TrainingRun::Result TrainingRun::startBackend()
{
    std::string backendError;
    backend_ = options_.gpu >= 0 ? makeGpuTrainingBackend(net_, cfg_, options_.gpu, backendError)
                                 : makeCpuTrainingBackend(net_, cfg_);
    if (!backend_)
        return backendError;
    try { // a resumed Adam state on a GPU is twice the weights: it may not fit
        backend_->setSolverState(state_.velocity);
    } catch (const std::exception& e) {
        return std::string("cannot restore the solver's state: ") + e.what();
    }
    if (options_.gpu >= 0)
        observer_.message("training on " + backend_->describe());
    return std::nullopt;
}

// Now that nothing can fail before training starts; they come back if the run stops before its first
// iteration.
TrainingRun::Result TrainingRun::setAsideEarlierRun()
{
    const bool finished = runFinished(options_.outDir, options_.name); // (nothing to continue)
    previous_ = setAsidePreviousRun(options_.outDir, options_.name);
    if (previous_.error)
        return previous_.error;
    if (!previous_.folder.empty()) {
        // What was moved, said as it is: in a folder shared by several cfgs (Darknet's backup/) only the
        // curve may be another network's, and its checkpoint stays (it was called a moved checkpoint).
        const std::vector<std::string>& moved = previous_.files;
        const bool ownRun = std::ranges::find(moved, options_.name + "_last.state") != moved.end() ||
                            std::ranges::find(moved, options_.name + "_final.weights") != moved.end();
        std::string names;
        for (const std::string& file : moved)
            names += (names.empty() ? "" : ", ") + file;
        if (ownRun)
            observer_.message("a fresh run: the previous " + std::string(finished ? "(finished) " : "") +
                              "run's checkpoint, weights and metrics in " + options_.outDir + " (" + names +
                              ") were moved to " + previous_.folder +
                              (finished ? std::string()
                                        : " (to continue that run instead, stop this one in its first "
                                          "iteration and resume)"));
        else
            observer_.message(
                "a fresh run: " + names + " in " + options_.outDir +
                " (the curve of an earlier run there, of another cfg or without its checkpoint) " +
                (moved.size() == 1 ? "was" : "were") + " moved to " + previous_.folder);
    }
    if (auto problem = writeFileAtomically(metricsPath_, kMetricsHeader))
        return problem;
    return writeRunNotes();
}

// What the run trains on and the network it trains: <name>_data.txt and <name>_trained.cfg.
TrainingRun::Result TrainingRun::writeRunNotes()
{
    if (!leader_)
        return std::nullopt;
    if (!options_.data.empty())
        if (auto problem = writeFileAtomically(base_ + "_data.txt", options_.data + "\n"))
            return problem;
    return writeTrainedCfg();
}

TrainingRun::Result TrainingRun::writeTrainedCfg()
{
    if (options_.cfgText.empty() || !leader_)
        return std::nullopt;
    return writeFileAtomically(base_ + "_trained.cfg", options_.cfgText);
}

// A size multi-scale training can draw that the network cannot take, said before the first iteration
// (the run died at iteration 11, at its first new size, advising what did not apply).
TrainingRun::Result TrainingRun::multiScaleProblem() const
{
    if (!multiScale_.enabled())
        return std::nullopt;
    for (const InputSize size : multiScale_.drawableSizes()) {
        auto problem = net_.inputSizeProblem(size.width, size.height);
        if (!problem)
            continue;
        // How far the network shrinks its input: sizes must be multiples of it.
        const NetworkSpec& spec = net_.spec();
        int smallest = spec.input.w;
        for (const LayerSpec& layer : spec.layers)
            if (layer.figuresKnown() && layer.output.w > 1 && layer.output.h > 1)
                smallest = std::min(smallest, layer.output.w);
        const int shrink = std::max(1, spec.input.w / std::max(1, smallest));
        return "multi-scale training (random= in the detection head) draws input sizes in steps of "
               "resize_step=" +
               std::to_string(multiScale_.step) + " (up to " + std::to_string(multiScale_.largest().width) +
               "x" + std::to_string(multiScale_.largest().height) + "): " + *problem +
               ". Set resize_step to a multiple of " + std::to_string(shrink) +
               " (the network shrinks its input " + std::to_string(shrink) + " times), or random=0";
    }
    return std::nullopt;
}

TrainingRun::Result TrainingRun::resizeNet(InputSize size)
{
    if (size.width == net_.inputShape().w && size.height == net_.inputShape().h)
        return std::nullopt; // (mAP at the size already trained at)
    backend_->syncToHost();  // the resized layers start from the host's values
    if (auto problem = net_.resizeInput(size.width, size.height))
        return problem;
    parameters_ = net_.trainableParameters(); // the layers (and their arrays) are new
    return backend_->netChanged();
}

std::string TrainingRun::lastCheckpoint() const
{
    return checkpointed_ >= 0 ? "the last checkpoint (iteration " + std::to_string(checkpointed_) +
                                    ") is kept in " + options_.outDir
                              : std::string("no checkpoint was written in this run");
}

// The weights first, the state last: the state is the commit point (see resumeFromCheckpoint).
TrainingRun::Result TrainingRun::checkpoint()
{
    if (!leader_) { // rank 0 writes it
        checkpointed_ = state_.iteration;
        return std::nullopt;
    }
    if (auto note = metrics_->flush()) // the checkpoint's row must be in metrics.csv for a resume
        observer_.message(*note);
    backend_->syncToHost();
    state_.velocity = backend_->solverState();
    state_.seen = net_.seen();
    state_.seed = seed_;
    state_.learningRate = rateOverride_;
    state_.maxBatches = lengthOverride_;
    if (auto problem = net_.saveWeights(weightsPath_))
        return *problem + "; " + lastCheckpoint();
    if (auto problem = saveCheckpoint(statePath_, net_, state_))
        // (the weights file is whole and newer than the state: said, not left to look like a checkpoint)
        return *problem + "; " + weightsPath_ + " holds the weights of iteration " +
               std::to_string(state_.iteration) + " (without the state a resume needs); " + lastCheckpoint();
    checkpointed_ = state_.iteration;
    return std::nullopt;
}

void TrainingRun::warnUnreadable(const char* what, std::size_t unreadable, std::size_t total,
                                 const std::vector<std::string>& warnings)
{
    if (unreadable == 0 || validationWarned_)
        return;
    observer_.message(std::string("warning: ") + what + " leaves out " +
                      counted(unreadable, "unreadable image", "unreadable images") + " of " +
                      std::to_string(total) + "; the first: " + warnings.front());
    validationWarned_ = true;
}

void TrainingRun::reportSkipped()
{
    if (skipped_ > 0)
        observer_.message(counted(skipped_, "sample", "samples") + " of " +
                          counted(unreadableShown_.size(), "unreadable image", "unreadable images") +
                          " skipped in this run (named in the warnings above)");
}

std::optional<TrainingRun::Result> TrainingRun::stopIfAsked()
{
    // The studio's Pause: a checkpoint before it waits. (Not in the first iteration of a run that set an
    // earlier one aside: a stop there brings that run's files back.)
    // (Nor before the first: nothing is trained, and a stop then leaves the folder as found.)
    if (team_.size() == 1 && state_.iteration > checkpointed_ && state_.iteration >= 1 &&
        (state_.iteration >= 2 || options_.resume || previous_.folder.empty()) &&
        observer_.checkpointWanted())
        if (auto problem = checkpoint())
            observer_.message("warning: the checkpoint at the pause could not be written: " + *problem);
    // A stop asked on any rank (Ctrl+C reaches every rank under mpirun) stops all of them here.
    const auto asked = std::chrono::steady_clock::now();
    double stop = observer_.stopRequested() ? 1.0 : 0.0;
    pausedSeconds_ += secondsSince(asked);
    if (auto problem = team_.sum(&stop, 1))
        return problem;
    if (!(stop > 0))
        return std::nullopt;
    reportSkipped();
    // Nothing trained, or the one iteration in which the stop came (Ctrl+C on seeing "a fresh run: …
    // moved"): nothing to keep, the earlier run comes back.
    if (!options_.resume && (state_.iteration == 0 || (state_.iteration == 1 && !previous_.folder.empty()))) {
        if (leader_ && !previous_.folder.empty()) {
            // (once: a failure here is not tried again by run()'s clean-up)
            if (auto problem =
                    bringPreviousRunBack(std::exchange(previous_, {}), options_.outDir, options_.name))
                return problem;
            observer_.message(
                "stopped in or before the first iteration: the previous run's files are back in " +
                options_.outDir + " (resume it to go on)");
        } else {
            if (leader_) // only metrics.csv's header and the run's notes were: the folder is left as found
                for (const std::string& file : {metricsPath_, base_ + "_data.txt", base_ + "_trained.cfg"}) {
                    std::error_code ignored;
                    std::filesystem::remove(file, ignored);
                }
            leaderSays("stopped before the first iteration: nothing was written");
        }
        return Result{};
    }
    // Said once it is written (a full disk turned "checkpoint written" into a false claim).
    if (checkpointed_ != state_.iteration) // (a pause wrote it)
        if (auto problem = checkpoint())
            return problem;
    leaderSays("stopped at iteration " + std::to_string(state_.iteration) + "; checkpoint written");
    return Result{};
}

TrainingRun::Result TrainingRun::trainIteration(int iteration, IterationStats& stats)
{
    const auto iterationStart = std::chrono::steady_clock::now();
    if (multiScale_.enabled())
        if (const InputSize size = multiScale_.sizeAt(iteration, maxBatches_, seed_); size != current_) {
            if (auto problem = resizeNet(size))
                return "iteration " + std::to_string(iteration) + ": " + *problem + "; " + lastCheckpoint();
            loader_->setInputSize(size.width, size.height);
            current_ = size;
            leaderSays("multi-scale training: input " + std::to_string(size.width) + "x" +
                       std::to_string(size.height) + " from iteration " + std::to_string(iteration));
        }
    std::mt19937 random(seed_ * 7919u + unsigned(iteration));
    // Dropout draws differ per rank; the learning rate's draws (policy=random) are the same on all.
    std::mt19937 rankRandom(seed_ * 7919u + unsigned(iteration) + 104729u * unsigned(team_.rank()));
    std::mt19937& passRandom = team_.size() > 1 ? rankRandom : random;
    if (combineRolling_)
        rolling_.remember(net_);
    double loss = 0;
    std::vector<HeadStats> heads;
    for (int s = 0; s < subdivisions_; ++s) {
        Batch batch = loader_->next();
        if (batch.images.size() != std::size_t(net_.batch()) * net_.inputShape().size)
            return "internal error: a training batch of " + std::to_string(batch.images.size()) +
                   " floats for a network that reads " +
                   std::to_string(std::size_t(net_.batch()) * net_.inputShape().size);
        if (!batch.failed.empty()) {
            // The iterations done since the last checkpoint are kept (a network share that dropped lost
            // up to --checkpoint-every − 1 of them): the weights are those of the last whole iteration.
            // Its batch norm's running statistics include this one's passes before the failure, if any.
            const std::string failed = "iteration " + std::to_string(iteration) + ": " + batch.failed + "; ";
            if (auto lost = keepFolder(iteration))
                return failed + *lost;
            if (state_.iteration > std::max(checkpointed_, 0))
                if (auto problem = checkpoint()) // (it ends with where the last checkpoint is)
                    return failed + "its checkpoint of iteration " + std::to_string(state_.iteration) +
                           " failed: " + *problem;
            return failed + lastCheckpoint();
        }
        // Each unreadable image named once: it comes up again every epoch.
        for (const std::string& warning : batch.warnings)
            if (unreadableShown_.insert(warning).second)
                observer_.message("warning: " + warning + " (and whenever it comes up again)");
        skipped_ += batch.warnings.size();
        loss += backend_->forwardTraining(batch.images.data(), batch.truth.data(), passRandom);
        addHeadStats(heads, backend_->headStats(), subdivisions_);
        backend_->backward();
        loader_->recycle(std::move(batch)); // read by now (a GPU's upload finished in the pass)
    }
    // The ranks' loss and gradient sums added up: every rank then takes the same step.
    if (auto problem = team_.sum(&loss, 1))
        return problem;
    if (auto problem = backend_->sumGradients(team_))
        return problem;
    if (combineRolling_)
        if (auto problem = rolling_.combine(team_, net_, subdivisions_))
            return problem;
    loss /= fullBatch_;
    if (!std::isfinite(loss))
        return "the loss became " + std::to_string(loss) + " at iteration " + std::to_string(iteration) +
               (net_.maxTruthBoxes() > 0 && net_.spec().net.burnIn == 0
                    ? " (learning rate too high? a detector starts with a warm-up: burn_in=1000 in [net], "
                      "as Darknet's cfgs); "
                    : " (learning rate too high?); ") +
               lastCheckpoint();
    net_.setSeen(net_.seen() + std::uint64_t(fullBatch_));
    // Darknet's batch number (seen / batch) is the iteration here, as a fresh run counts from 0: a run
    // resumed with another rank count or batch keeps its schedule in iterations, as its end (max_batches)
    // is.
    const float rate = learningRate(cfg_, iteration, &random);
    if (!std::isfinite(rate)) // (the step would make every weight NaN, saved as the final ones)
        return "the learning rate became " + std::to_string(rate) + " at iteration " +
               std::to_string(iteration) + " (the cfg's policy=" + net_.spec().net.policy +
               " schedule: its warning says why); " + lastCheckpoint();
    backend_->step(parameters_, rate, fullBatch_);
    state_.iteration = iteration;
    state_.averageLoss = state_.averageLoss < 0 ? loss : 0.9 * state_.averageLoss + 0.1 * loss;

    stats.iteration = iteration;
    stats.maxBatches = maxBatches_;
    stats.loss = loss;
    stats.averageLoss = state_.averageLoss;
    stats.learningRate = rate;
    finishHeadSums(heads);
    stats.heads = std::move(heads);
    const double seconds = secondsSince(iterationStart);
    stats.imagesPerSecond = seconds > 0 ? fullBatch_ / seconds : 0;
    stats.epoch = double(net_.seen()) / double(train_.size());
    return std::nullopt;
}

TrainingRun::Result TrainingRun::evaluate(int iteration, IterationStats& stats)
{
    const bool last = iteration == maxBatches_;
    const bool validating =
        leader_ && valid_ && ((options_.validEvery > 0 && iteration % options_.validEvery == 0) || last);
    const int firstMap = options_.mapFrom > 0 ? options_.mapFrom : options_.mapEvery;
    const bool mapping = leader_ && mapSet_ &&
                         ((options_.mapEvery > 0 && iteration >= firstMap &&
                           (iteration - firstMap) % options_.mapEvery == 0) ||
                          last);
    // A stop asked for during a validation ends it after its batch: a whole pass (seconds, minutes for a
    // large set) stood between Stop, or quitting, and the checkpoint. The iteration then has no figure.
    struct Stopped {};
    const auto stopWhenAsked = [this](std::size_t) {
        if (observer_.stopPending()) // (not stopRequested: a pause waits inside it, without its checkpoint)
            throw Stopped{};
    };
    const auto sayStopped = [&](const char* measure) {
        observer_.message(std::string(measure) + " at iteration " + std::to_string(iteration) +
                          " left unfinished: a stop was asked");
    };
    if (validating) {
        observer_.message(evaluatingMessage(iteration, "top-1", valid_->size()));
        Accuracy accuracy;
        try {
            accuracy = nw::evaluate(net_, *valid_, backend_->evaluationPass(), 5, stopWhenAsked);
        } catch (const Stopped&) {
            sayStopped("top-1");
            return std::nullopt;
        }
        if (accuracy.images > 0) {
            stats.validTop1 = accuracy.top1;
            stats.confusion = std::make_shared<const ConfusionMatrix>(accuracy.confusion);
        }
        warnUnreadable("validation", accuracy.unreadable, valid_->size(), accuracy.warnings);
    }
    if (mapping) {
        observer_.message(evaluatingMessage(iteration, "mAP@0.5", mapSet_->size()));
        if (auto problem = resizeNet(ownSize_)) // mAP at the size the net is used at
            return problem;
        MapResult map;
        try {
            map = evaluateMap(net_, *mapSet_, options_.letterbox, {}, stopWhenAsked,
                              backend_->evaluationPass());
        } catch (const Stopped&) {
            sayStopped("mAP@0.5");
            return resizeNet(current_);
        }
        if (map.images > 0) {
            stats.map50 = map.map50;
            stats.classAps = std::make_shared<const std::vector<ClassAp>>(map.classes);
        }
        warnUnreadable("mAP", map.unreadable, mapSet_->size(), map.warnings);
        if (auto problem = resizeNet(current_))
            return problem;
    }
    return std::nullopt;
}

// The weights of the best validation so far, as Darknet's _best.weights (a run that ends past its best,
// overfitted, keeps them).
void TrainingRun::keepBest(int iteration, const IterationStats& stats)
{
    const std::optional<double> score = stats.map50 ? stats.map50 : stats.validTop1;
    if (!(score && *score > bestScore_)) // (a NaN is no best)
        return;
    backend_->syncToHost();
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.2f %%", *score * 100);
    // A full disk: the run goes on (as for a checkpoint), and a later best is written.
    if (auto problem = net_.saveWeights(base_ + "_best.weights")) {
        observer_.message("warning: iteration " + std::to_string(iteration) + ": the best weights so far (" +
                          figure + ") could not be written: " + *problem + "; training goes on");
    } else {
        bestScore_ = *score;
        observer_.message(std::string("best ") + (stats.map50 ? "mAP@0.5" : "top-1") + " so far, " + figure +
                          ": weights in " + base_ + "_best.weights");
    }
}

void TrainingRun::keepClassResults(int iteration, const IterationStats& stats)
{
    if (!leader_ || (!stats.confusion && !stats.classAps))
        return;
    if (!classNames_) { // (a names file that cannot be read: the figures are kept with class numbers)
        std::string error;
        const auto data = options_.data.empty() ? std::nullopt : loadDataFile(options_.data, error);
        const auto names = data ? classNamesOf(*data, stats.classAps != nullptr, error) : std::nullopt;
        classNames_ = names.value_or(std::vector<std::string>{});
    }
    ClassResults results;
    results.iteration = iteration;
    results.names = *classNames_;
    results.confusion = stats.confusion;
    results.classAps = stats.classAps;
    // A full disk: the run goes on, and the next validation writes them again.
    if (auto problem = saveClassResults(classResultsPath(options_.outDir, options_.name), results))
        observer_.message("warning: iteration " + std::to_string(iteration) +
                          ": the figures per class could not be written: " + *problem + "; training goes on");
}

// Each iteration, before it writes anything: a second run let in by a deleted folder or lock file would
// mix its rows and checkpoints with this one's.
TrainingRun::Result TrainingRun::keepFolder(int iteration)
{
    if (!lock_)
        return std::nullopt;
    std::string note;
    if (auto lost = lock_->keep(note))
        return "iteration " + std::to_string(iteration) + ": " + *lost;
    if (note.empty())
        return std::nullopt;
    observer_.message("warning: " + note);
    // A folder made again gets the run's own small files back (metrics.csv's header first: the rows that
    // follow are appended to it).
    std::error_code ec;
    if (!std::filesystem::exists(metricsPath_, ec))
        if (auto problem = writeFileAtomically(metricsPath_, kMetricsHeader))
            observer_.message("warning: " + *problem);
    if (auto problem = writeRunNotes())
        observer_.message("warning: " + *problem);
    return std::nullopt;
}

TrainingRun::Result TrainingRun::writeDueFiles(int iteration)
{
    const bool last = iteration == maxBatches_;
    if (iteration % std::max(1, options_.checkpointEvery) == 0 || last)
        if (auto problem = checkpoint()) {
            if (last) { // (the final weights are smaller than a checkpoint: on a full disk they may still
                        // fit)
                if (!leader_ || net_.saveWeights(base_ + "_final.weights"))
                    return problem;
                return *problem + "; the final weights are in " + base_ + "_final.weights";
            }
            // A full disk or a folder that refuses writes for a while: what is learnt is still in memory,
            // so the run goes on and the next checkpoint tries again.
            observer_.message(
                "warning: the checkpoint at iteration " + std::to_string(iteration) +
                " could not be written: " + *problem + "; training goes on and tries again at iteration " +
                std::to_string(std::min(iteration + std::max(1, options_.checkpointEvery), maxBatches_)));
        }
    if (leader_ && snapshotEvery_ > 0 && iteration % snapshotEvery_ == 0) {
        backend_->syncToHost();
        if (auto problem = net_.saveWeights(base_ + "_" + std::to_string(iteration) + ".weights"))
            observer_.message("warning: iteration " + std::to_string(iteration) +
                              ": the backup weights could not be written: " + *problem +
                              "; training goes on");
    }
    return std::nullopt;
}

std::optional<std::string> TrainingRun::run()
{
    Result problem;
    try {
        problem = runStages();
    } catch (...) {
        std::string said;
        bringBackAfterFailure(&said);
        if (!said.empty())
            observer_.message(said.substr(2)); // (the exception's own words come after)
        throw;
    }
    if (problem)
        bringBackAfterFailure(&*problem);
    return problem;
}

// A fresh run that fails before it trained an iteration (a full disk, a multi-scale cfg error,
// unreadable images, an exception) brings the run it set aside back, as a stop there does: it stayed
// hidden in previous-…, and a resume then found nothing. (Once an iteration is done, its checkpoint is
// what the failure's message names, kept.)
void TrainingRun::bringBackAfterFailure(std::string* problem)
{
    if (!leader_ || options_.resume || previous_.folder.empty() || state_.iteration > 0)
        return;
    std::string note;
    if (!lock_ || lock_->keep(note)) // (the folder another run's now: its files would go)
        return;
    const SetAside aside = std::exchange(previous_, {});
    const auto notBack = bringPreviousRunBack(aside, options_.outDir, options_.name);
    if (problem)
        *problem += notBack ? "; " + *notBack : "; the previous run's files are back in " + options_.outDir;
}

TrainingRun::Result TrainingRun::runStages()
{
    if (auto problem = checkSettings())
        return problem;
    if (auto problem = checkData())
        return problem;
    if (auto problem = net_.setTraining(true))
        return *problem;
    // Rank 0 tells the others when it could not start, so no rank waits for it forever.
    const Result leaderProblem = leader_ ? takeFolder() : std::nullopt;
    state_.learningRate = rateOverride_; // (rank 0's, a resumed run's own included, for every rank)
    state_.maxBatches = lengthOverride_;
    if (auto problem = shareStart(team_, net_, state_, seed_, leaderProblem.has_value()))
        return leaderProblem ? leaderProblem : problem;
    if (state_.learningRate > 0)
        cfg_.learningRate = rateOverride_ = state_.learningRate;
    if (state_.maxBatches > 0)
        maxBatches_ = cfg_.maxBatches = lengthOverride_ = state_.maxBatches;
    if (leaderProblem)
        return leaderProblem;
    if (options_.resume && state_.iteration >= maxBatches_) // said by resumeFromCheckpoint
        return std::nullopt;
    if (team_.size() > 1)
        leaderSays("data-parallel training over " + team_.describe() + ": " + std::to_string(rankBatch_) +
                   " images per rank, " + std::to_string(fullBatch_) + " per update");
    if (auto problem = startBackend())
        return problem;
    if (leader_ && !options_.resume)
        if (auto problem = setAsideEarlierRun())
            return problem;
    metrics_.emplace(metricsPath_);
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
    } waitingRowsNote{*metrics_, observer_, metricsPath_};
    parameters_ = net_.trainableParameters();
    // This rank's passes of every iteration: rank r takes passes r·S … r·S + S − 1 of the N·S passes one
    // process with N times the batch would run.
    const int loaderThreads =
        options_.loaderThreads > 0
            ? options_.loaderThreads
            : (options_.gpu >= 0 ? std::max(1, int(std::thread::hardware_concurrency()) /
                                                   std::max(1, team_.ranksOnThisHost()))
                                 : 1);
    loader_ = std::make_unique<BatchLoader>(train_, net_.batch(), seed_, state_.seen,
                                            Shard{team_.rank(), team_.size(), subdivisions_}, loaderThreads,
                                            backend_->batchMemory());
    // The caller gets the net back at its own size however the run ends.
    multiScale_ = train_.resizable() ? MultiScale::of(net_.spec()) : MultiScale{};
    if (auto problem = multiScaleProblem())
        return problem;
    ownSize_ = current_ = InputSize{net_.inputShape().w, net_.inputShape().h};
    struct RestoreSize {
        std::function<void()> restore;
        ~RestoreSize()
        {
            try {
                restore();
            } catch (...) { // out of memory while the run already ends in an error: that error stands
            }
        }
    } restoreSize{[this] { net_.resizeInput(ownSize_.width, ownSize_.height); }};

    checkpointed_ = options_.resume ? state_.iteration : -1;
    running_ = state_.iteration + 1;
    snapshotEvery_ = options_.snapshotEvery >= 0 ? options_.snapshotEvery
                     : maxBatches_ < 10000       ? 1000
                                                 : 10000;
    // (the metrics trimmed above; without the file itself, the next validation writes it again)
    std::error_code noBest;
    bestScore_ = leader_ && options_.resume && std::filesystem::exists(base_ + "_best.weights", noBest)
                     ? bestScoreIn(metricsPath_)
                     : -1;
    started_ = std::chrono::steady_clock::now();
    elapsedBefore_ = state_.elapsedSeconds;
    // A failure inside an iteration (the GPU out of memory, a driver fault) ends the run in words; the
    // files on disk are the last checkpoint's, whole (written atomically).
    try {
        while (state_.iteration < maxBatches_) {
            running_ = state_.iteration + 1;
            if (auto ending = stopIfAsked())
                return *ending;
            const int iteration = state_.iteration + 1;
            IterationStats stats;
            if (auto problem = trainIteration(iteration, stats))
                return problem;
            if (auto problem = evaluate(iteration, stats))
                return problem;
            if (auto problem = keepFolder(iteration))
                return problem;
            state_.elapsedSeconds = elapsedBefore_ + secondsSince(started_) - pausedSeconds_;
            stats.elapsedSeconds = state_.elapsedSeconds;
            keepBest(iteration, stats);
            keepClassResults(iteration, stats);
            if (leader_)
                if (auto note = metrics_->append(metricsRow(stats)))
                    observer_.message(*note);
            observer_.iteration(stats);
            if (auto problem = writeDueFiles(iteration))
                return problem;
        }
    } catch (const std::bad_alloc&) {
        return "training stopped in iteration " + std::to_string(running_) +
               ": out of memory on the host (lower batch or raise subdivisions in [net]); " +
               lastCheckpoint();
    } catch (const std::exception& e) {
        return "training stopped in iteration " + std::to_string(running_) + ": " + e.what() + "; " +
               lastCheckpoint();
    }
    reportSkipped();
    backend_->syncToHost();
    if (!leader_)
        return std::nullopt;
    if (auto problem = net_.saveWeights(base_ + "_final.weights"))
        return problem;
    // Where the result is (the run ended on its progress line, naming no file).
    observer_.message("finished at iteration " + std::to_string(state_.iteration) + ": " + base_ +
                      "_final.weights");
    return std::nullopt;
}

} // namespace nw
