// train and valid: classification training from a .data file, and accuracy on its validation set.
#include "backend/device_choice.h"
#include "commands.h"
#include "data/training_data.h"
#include "kernels/cpu/gemm.h"
#include "net_loading.h"
#include "progress_json.h"
#if NETWRIGHT_WITH_OPENCV
#include "report/training_chart.h"
#endif
#include "train/run_folder_lock.h"
#include "train/trainer.h"
#include "util/counted.h"
#include "util/file_check.h"
#ifdef NETWRIGHT_WITH_MPI
#include "distributed/mpi_communicator.h"
#endif
#ifdef NETWRIGHT_WITH_NCCL
#include "distributed/nccl_communicator.h"
#endif

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <poll.h>
#include <sstream>
#include <stdio_ext.h>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>

namespace nw::cli {

namespace {

std::atomic<bool> interrupted{false};
std::atomic<bool> readerGone{false}; // stdout's reader went away (EPIPE): a stop, SIGPIPE's status
std::atomic<int> stopSignal{0}; // the first stop: SIGINT, SIGTERM, SIGHUP (or SIGPIPE: stdout's reader gone)
// A second stop quits at once only in a lone process: a rank gets Ctrl+C's SIGINT and its launcher's
// SIGTERM together, and must still write its checkpoint.
std::atomic<bool> quitOnSecondStop{false};
std::atomic<bool> sayStop{false};        // this process speaks for the run (a lone one, or rank 0)
std::atomic<bool> stderrTerminal{false}; // a progress bar may be on the line: start a new one first

// Whether `fd` takes more now, or within `milliseconds` (poll is async-signal-safe).
bool takesMore(int fd, int milliseconds = 0)
{
    pollfd out{fd, POLLOUT, 0};
    return ::poll(&out, 1, milliseconds) == 1 && (out.revents & POLLOUT) != 0;
}

// What a stop signal makes this process say, at once (a large network's iteration takes seconds, and a
// silent first Ctrl+C invites the second, which loses the iterations since the last checkpoint).
// write() is safe in a handler; the texts are fixed.
void sayInHandler(const char* text, std::size_t length)
{
    // Not into a stderr nobody reads (`train … 2>&1 | less`): the handler would wait there, the signal
    // masked, and no second Ctrl+C could end the run.
    if (!takesMore(STDERR_FILENO))
        return;
    [[maybe_unused]] auto written = ::write(STDERR_FILENO, "\n", stderrTerminal ? 1 : 0);
    written = ::write(STDERR_FILENO, text, length);
}

template <std::size_t N> void sayInHandler(const char (&text)[N])
{
    sayInHandler(text, N - 1);
}

// The sender and time (ms) of the first stop: `timeout` sends its signal twice at once (to the child,
// then to its process group), and the second, run on another thread, quit without the checkpoint.
constexpr long long kNoStopYet = -2; // (a sender is pid × 64 + signal, or -1 when the kernel sent it)
std::atomic<long long> firstStopSender{kNoStopYet}, firstStopMs{0};

long long monotonicMs() // (clock_gettime is async-signal-safe)
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

void onStop(int signal, siginfo_t* info, void*)
{
    // (errno as it was: the interrupted code reads its own, EINTR after a write it ended)
    struct KeepErrno {
        int saved = errno;
        ~KeepErrno() { errno = saved; }
    } keepErrno;
    // A sender is a process that sent this signal with kill() (`timeout`); a terminal's Ctrl+C comes from
    // the kernel, and two of them are two stops.
    const bool sentByAProcess = info && info->si_code == SI_USER;
    const long long sender = sentByAProcess ? (long long)info->si_pid * 64 + signal : -1, now = monotonicMs();
    long long first = kNoStopYet;
    if (firstStopSender.compare_exchange_strong(first, sender))
        firstStopMs = now;
    else if (sentByAProcess && first == sender &&
             (firstStopMs.load() == 0 || now - firstStopMs.load() < 1000))
        return; // the same stop sent twice (firstStopMs 0: the first's handler is on another thread now)
    int none = 0;
    stopSignal.compare_exchange_strong(none, signal);
    if (interrupted.exchange(true) && quitOnSecondStop) {
        sayInHandler("quit at once: this stop writes no checkpoint (one written before stays)\n");
        std::_Exit(128 + signal);
    }
    if (!sayStop)
        return;
    if (!quitOnSecondStop) // a rank: its launcher stops the job at a second one
        sayInHandler("stopping after this iteration, with a checkpoint\n");
    else if (signal == SIGINT)
        sayInHandler("stopping after this iteration, with a checkpoint (a second Ctrl+C quits at once, "
                     "without it)\n");
    else
        sayInHandler("stopping after this iteration, with a checkpoint (a second stop signal quits at "
                     "once, without it)\n");
}

// onStop for `signal`, without SA_RESTART: a write to a stdout nobody reads returns (EINTR) instead of
// holding the stop, and its checkpoint, for good (ConsoleObserver::flushOrStop).
void catchStop(int signal)
{
    struct sigaction action {};
    action.sa_sigaction = onStop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO;
    sigaction(signal, &action, nullptr);
}

// A rank other than 0 holds what it would say while the run starts: every rank reads the same files
// and fails the same way, and rank 0 says it (two ranks' unbuffered lines came out as "error: error:").
// Failing alone (a file only rank 0's machine has), it says its own after a grace period.
class HeldStartMessages {
public:
    explicit HeldStartMessages(bool hold) : old_(hold ? std::cerr.rdbuf(held_.rdbuf()) : nullptr) {}
    ~HeldStartMessages() { release(); }
    HeldStartMessages(const HeldStartMessages&) = delete;
    HeldStartMessages& operator=(const HeldStartMessages&) = delete;

    void release()
    {
        if (old_)
            std::cerr.rdbuf(old_);
        old_ = nullptr;
    }
    // Before this rank ends the job: rank 0's abort of the same failure comes first, as a rule.
    void sayAfterGrace(int rank)
    {
        if (!old_)
            return;
        release();
        std::this_thread::sleep_for(std::chrono::seconds(3));
        std::string line;
        for (std::istringstream text(held_.str()); std::getline(text, line);)
            std::cerr << "(rank " + std::to_string(rank) + ") " + line + "\n";
    }

private:
    std::ostringstream held_;
    std::streambuf* old_;
};

// Prints each iteration: a progress bar with ETA on a terminal, plain lines otherwise, or (--progress
// json) one JSON object per line for a program following the run (the studio's multi-GPU runs).
class ConsoleObserver final : public TrainObserver {
public:
    // `quiet`: a data-parallel rank other than 0 prints only its messages (warnings, errors).
    // `launched`: a rank of mpirun, whose stdout is a terminal of Open MPI's even when mpirun's own
    // output goes to a file (`mpirun … train > log` filled the log with progress bars): plain lines.
    explicit ConsoleObserver(bool quiet = false, bool json = false, bool launched = false)
        : terminal_(isatty(STDOUT_FILENO) && !json && !launched), launched_(launched), quiet_(quiet),
          json_(json)
    {
    }

    void iteration(const IterationStats& s) override
    {
        if (quiet_)
            return;
        maxBatches_ = s.maxBatches;
        iteration_ = s.iteration;
        if (s.validTop1 || s.map50 || s.iteration == s.maxBatches ||
            (s.iteration % 100 == 0 &&
             std::chrono::steady_clock::now() - lastChart_ >= std::chrono::seconds(10)))
            writeChart();
        if (json_) {
            std::printf("%s\n", progressJson(s).c_str());
            flushOrStop();
            return;
        }
        const double perIteration = s.elapsedSeconds / std::max(1, s.iteration - firstIteration(s));
        const double eta = perIteration * (s.maxBatches - s.iteration);
        char valid[64] = "";
        if (s.validTop1)
            std::snprintf(valid, sizeof valid, ", valid top-1 %.2f%%", *s.validTop1 * 100);
        if (s.map50)
            std::snprintf(valid, sizeof valid, ", mAP@0.5 %.2f%%", *s.map50 * 100);
        if (terminal_) {
            // At most ten redraws a second, never one the terminal cannot take now: a bar drawn every
            // iteration (a small network runs hundreds a second) filled mpirun's pseudo-terminal, and a
            // rank blocked writing it could not stop on Ctrl+C (mpirun stops reading when it aborts).
            const bool milestone = s.validTop1 || s.map50 || s.iteration == s.maxBatches;
            const auto now = std::chrono::steady_clock::now();
            if (!milestone && (now - lastBar_ < std::chrono::milliseconds(100) || !stdoutWritable()))
                return;
            lastBar_ = now;
            const int width = 30, done = int(width * double(s.iteration) / std::max(1, s.maxBatches));
            std::printf("\r[%-*s] %d/%d epoch %.2f loss %.4f avg %.4f lr %.4g %.0f img/s ETA %s%s   ", width,
                        std::string(std::size_t(done), '#').c_str(), s.iteration, s.maxBatches, s.epoch,
                        s.loss, s.averageLoss, s.learningRate, s.imagesPerSecond, duration(eta).c_str(),
                        valid);
            if (milestone)
                std::printf("\n");
            barOpen_ = !milestone;
        } else {
            // A rank's lines go through the same terminal: at most one a second, none it cannot take now.
            const bool milestone = s.validTop1 || s.map50 || s.iteration == s.maxBatches;
            const auto now = std::chrono::steady_clock::now();
            if (launched_ && !milestone && (now - lastBar_ < std::chrono::seconds(1) || !stdoutWritable()))
                return;
            lastBar_ = now;
            std::printf("iteration %d/%d: loss %.4f, avg %.4f, lr %.4g, %.0f images/s, %.1f s%s\n",
                        s.iteration, s.maxBatches, s.loss, s.averageLoss, s.learningRate, s.imagesPerSecond,
                        s.elapsedSeconds, valid);
            for (const HeadStats& h : s.heads) // the figures Darknet prints per head
                std::printf(
                    "  head %d: avg IoU %.3f, class %.3f, obj %.3f, no-obj %.4f, .5R %.3f, .75R %.3f, "
                    "count %d\n",
                    h.layer, h.averageIou, h.classScore, h.objectness, h.noObject, h.recall50, h.recall75,
                    h.count);
        }
        flushOrStop();
    }
    // A reader of stdout that went away (`| head`, a closed `tee`, a studio that crashed) stops the run
    // as Ctrl+C does, with a checkpoint, rather than train unseen or die by SIGPIPE and lose the
    // iterations done; another write error (a full disk) loses the progress lines, not the training.
    // While the run stops, a reader that is not reading (`train | less` left open, a stalled log
    // collector) must not hold the checkpoint back: what it does not take is dropped, from then on too.
    // (The stop's signal ends a write it blocks in: its handler is installed without SA_RESTART.)
    void flushOrStop()
    {
        // (a reader a moment behind, a busy `| tee`, gets two seconds)
        if (interrupted.load() && !stdoutFailed_ && !takesMore(STDOUT_FILENO, 2000))
            return dropStdout();
        if (std::fflush(stdout) == 0 || stdoutFailed_)
            return;
        if (errno == EINTR) { // (a signal ended the write; glibc drops what it held)
            std::clearerr(stdout);
            if (interrupted.load())
                dropStdout();
            return;
        }
        stdoutFailed_ = true;
        if (errno == EPIPE) {
            int none = 0;
            stopSignal.compare_exchange_strong(none, SIGPIPE);
            readerGone = true; // (not `interrupted`: a Ctrl+C now is a first stop, with its checkpoint)
            std::fprintf(stderr,
                         "\nthe standard output cannot be written (its reader went away): stopping\n");
        } else { // a full disk, an I/O error: the progress lines are lost, the training is not
            std::fprintf(stderr, "\nwarning: the standard output cannot be written (%s): training goes on\n",
                         std::strerror(errno));
        }
    }
    void dropStdout()
    {
        stdoutFailed_ = true;
        __fpurge(stdout); // (freopen would first flush into the pipe that does not drain)
        if (!std::freopen("/dev/null", "w", stdout))
            std::clearerr(stdout);
        if (takesMore(STDERR_FILENO))
            std::fprintf(stderr,
                         "\nthe standard output is not being read: its lines are dropped while the run "
                         "stops\n");
    }
    void message(const std::string& text) override
    {
        if (json_ && !quiet_) {
            std::printf("%s\n", messageJson(text).c_str());
            flushOrStop();
            return;
        }
        endBar();
        if (interrupted.load() && !takesMore(STDERR_FILENO, 2000))
            return; // (stopping, and stderr not read either: the checkpoint goes first)
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    // Ends the progress bar's line, when one is open, before another line is written.
    void endBar()
    {
        if (barOpen_) {
            std::printf("\n");
            flushOrStop();
            barOpen_ = false;
        }
    }
    bool stopRequested() override { return interrupted.load() || readerGone.load(); }
    bool stopPending() override { return stopRequested(); }
    // Draws chart.png (train_command's writer) every 100 iterations at most every 10 s, at each validation
    // and at the last iteration.
    void setChart(std::function<void(int maxBatches)> write) { chart_ = std::move(write); }
    // (after the run: once an iteration was seen, so a run stopped before its first writes nothing, and
    // not again for the iteration already drawn)
    void writeChart()
    {
        if (chart_ && maxBatches_ > 0 && chartedIteration_ != iteration_) {
            chart_(maxBatches_);
            lastChart_ = std::chrono::steady_clock::now();
            chartedIteration_ = iteration_;
        }
    }

private:
    int firstIteration(const IterationStats& s)
    {
        if (first_ < 0)
            first_ = s.iteration - 1;
        return first_;
    }
    // (an error or a hang-up counts as writable: the write then finds and reports it)
    static bool stdoutWritable()
    {
        pollfd out{STDOUT_FILENO, POLLOUT, 0};
        return ::poll(&out, 1, 0) != 0;
    }
    static std::string duration(double seconds)
    {
        char text[32];
        const int total = int(seconds);
        std::snprintf(text, sizeof text, "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60);
        return text;
    }
    bool terminal_, launched_;
    bool quiet_;
    bool json_;
    bool stdoutFailed_ = false;
    bool barOpen_ = false; // a bar drawn with no line end yet
    int first_ = -1;
    std::function<void(int)> chart_;
    int maxBatches_ = 0; // the run's, once an iteration is seen
    int iteration_ = 0, chartedIteration_ = -1;
    std::chrono::steady_clock::time_point lastChart_{};
    std::chrono::steady_clock::time_point lastBar_{};
};

// Under mpirun: this rank's Communicator (MPI), and the cores of the host shared by its ranks. Started by
// train --gpus: the NCCL clique of the GPUs' processes (gpus_launcher.cpp), on `args.device`.
std::unique_ptr<Communicator> joinRanks(const TrainArgs& args, std::string& error)
{
    if (const char* clique = std::getenv(kNcclCliqueVariable)) {
#ifdef NETWRIGHT_WITH_NCCL
        const auto device = chooseDevice(args.device, error);
        if (!device)
            return nullptr;
        prctl(PR_SET_PDEATHSIG, SIGTERM); // the launcher gone (killed), this rank stops too
        const char* rank = std::getenv(kNcclRankVariable);
        const char* size = std::getenv(kNcclSizeVariable);
        auto team =
            joinNccl(rank ? std::atoi(rank) : -1, size ? std::atoi(size) : 0, clique, device->index, error);
        if (team) // the ranks share the machine's cores (host losses, the loader)
            setComputeThreads(std::max(1, int(std::thread::hardware_concurrency()) / team->size()));
        return team;
#else
        (void)args, (void)clique;
        error = "started by train --gpus but built without NCCL";
        return nullptr;
#endif
    }
    if (!launchedByMpi())
        return nullptr;
#ifdef NETWRIGHT_WITH_MPI
    auto team = startMpi(error);
    if (team)
        setComputeThreads(std::max(1, int(std::thread::hardware_concurrency()) / team->ranksOnThisHost()));
    return team;
#else
    error = "this netwright-cli was started by an MPI launcher but built without MPI: install "
            "libopenmpi-dev (scripts/setup.sh does) and rebuild";
    return nullptr;
#endif
}

} // namespace

int train(const TrainArgs& args)
{
    if (!args.gpus.empty() && !std::getenv(kNcclCliqueVariable))
        return trainOnGpus(args); // the launcher: one process per GPU, each back here
    // First thing: a stop asked while the data loads (Ctrl+C, the launcher's SIGTERM, the studio's
    // Stop) ends the run at its first iteration with a checkpoint, not by the default action.
    // A second one quits a lone process at once (the checkpoint files are written atomically: the last
    // whole one stays). (onStop)
    stderrTerminal = isatty(STDERR_FILENO);
    sayStop = !launchedByMpi() && !std::getenv(kNcclCliqueVariable);
    catchStop(SIGINT);
    catchStop(SIGTERM);
    // The terminal closed (a dropped ssh session): the same stop, unless started to ignore it (nohup).
    if (struct sigaction hangup{}; sigaction(SIGHUP, nullptr, &hangup) == 0 && hangup.sa_handler != SIG_IGN)
        catchStop(SIGHUP);
    // A reader that went away must not kill the run: writes fail instead, and the run then stops with a
    // checkpoint (ConsoleObserver).
    std::signal(SIGPIPE, SIG_IGN);
    std::string mpiError;
    const std::unique_ptr<Communicator> team = joinRanks(args, mpiError);
    if (!team && !mpiError.empty()) {
        std::cerr << "error: " << mpiError << "\n";
        return 1;
    }
    quitOnSecondStop = !team && !std::getenv(kNcclCliqueVariable);
    const bool leader = !team || team->rank() == 0;
    sayStop = leader;
    setCfgWarningsPrinted(leader);
    HeldStartMessages held(!leader);
    // Any rank's early failure ends the job: the others would wait for it in their first exchange.
    const auto fail = [&] {
        if (team && team->size() > 1) {
            held.sayAfterGrace(team->rank());
            team->abort(1);
        }
        return 1;
    };
    // An exception in one rank must end the job too: unwinding would run MPI_Finalize, which waits for
    // ranks that wait in their next exchange for this one.
    try {
        // The device first: a typo or a missing GPU ends in words before any data is read.
        std::string deviceError;
        const auto device = chooseDevice(args.device, deviceError);
        if (!device) {
            std::cerr << "error: " << deviceError << "\n";
            return fail();
        }
        auto data = loadDataFileOrReport(args.data);
        if (!data)
            return fail();
        std::string error;
        // Only rank 0 reads the starting weights: it sends them to the others (machines that may not
        // have the file). A resumed run starts from its checkpoint, which replaces them anyway.
        if (args.resume && !args.weights.empty() && leader)
            std::cerr << "note: --resume continues from the checkpoint in the output folder; " << args.weights
                      << " is not read\n";
        auto net = loadNetAtCfgBatch(args.cfg, leader && !args.resume ? args.weights : std::string());
        if (!net)
            return fail();
        // The network as built (read now, not after the data set: an edit meanwhile would be kept as the
        // trained one); the cfg is a regular file by now, never a pipe that would wait.
        std::string cfgText;
        if (std::ifstream cfgFile(args.cfg, std::ios::binary); cfgFile)
            cfgText.assign(std::istreambuf_iterator<char>(cfgFile), {});
        if (auto problem = batchProblem(net->spec().net)) { // before the data set is read
            std::cerr << "error: " << netKeyPlace(args.cfg, cfgText, "batch") << ": " << *problem << "\n";
            return fail();
        }
        if (args.maxBatches <= 0 && net->spec().net.maxBatches <= 0) {
            std::cerr
                << "error: " << netKeyPlace(args.cfg, cfgText, "max_batches")
                << ": max_batches is 0 or missing in [net], so there is nothing to train: set max_batches "
                   "(the number of iterations) or pass --max-batches N\n";
            return fail();
        }
        if (leader && net->maxTruthBoxes() > 0 && args.validEvery > 0)
            std::cerr << "note: --valid-every is for classifiers (top-1); this detector is scored by mAP: "
                         "--map-every N (or --map)\n";
        if (leader && net->maxTruthBoxes() == 0 && (args.mapEvery > 0 || args.mapAsDarknet))
            std::cerr << "note: --map-every and --map are for detectors; this classifier is scored by top-1: "
                         "--valid-every N\n";
        // An output folder that cannot be written is said before the data set is read (minutes for a
        // large set, then "cannot create").
        const std::string outDir = args.outDir.empty() ? data->outputFolder("backup", "backup") : args.outDir;
        if (auto problem = leader ? unwritableFolderReason(outDir) : std::nullopt) {
            std::cerr << "error: " << *problem << (args.outDir.empty() ? " (the .data's backup=)" : "")
                      << ": choose another output folder (--out DIR)\n";
            return fail();
        }
        std::vector<std::string> warnings;
        // --map-every / --valid-every ask for the measure: a valid= list that cannot give it is an error
        // (unless --valid-optional: the studio validates every run and trains on when the list is unusable).
        const bool measureAskedFor =
            !args.validOptional &&
            (net->maxTruthBoxes() > 0 ? args.mapEvery > 0 || args.mapAsDarknet : args.validEvery > 0);
        auto sets = openTrainingData(*data, *net, args.seed, error, warnings,
                                     measureAskedFor ? Validation::Required : Validation::IfUsable);
        if (leader) // (every rank reads the same lists: their warnings once, not once per rank)
            for (const std::string& warning : warnings)
                std::cerr << "warning: " << warning << "\n";
        if (!sets) {
            std::cerr << "error: " << error << "\n";
            return fail();
        }
        // (the run ended without a word; a valid= list that could not be used has had its warning)
        if (leader && net->maxTruthBoxes() > 0 && !sets->detectionValid && data->get("valid").empty())
            std::cerr << "note: " << args.data
                      << " has no valid= list: this detector's mAP is not measured (add valid=, or --map to "
                         "score it on the training list)\n";
        // Darknet's -map: every 4 epochs, never more often than every 100 iterations, the first not
        // before burn_in ends (its figures at the same places).
        int mapEvery = args.mapEvery, mapFrom = 0;
        if (args.mapAsDarknet && mapEvery == 0 && net->maxTruthBoxes() > 0) {
            const int fullBatch = std::max(1, net->spec().net.batch);
            mapEvery =
                std::max<int>(100, int(std::min<std::size_t>(4 * sets->train->size() / std::size_t(fullBatch),
                                                             std::size_t(1) << 30)));
            mapFrom = std::max(mapEvery, net->spec().net.burnIn);
            if (leader)
                std::cerr << "note: --map: mAP@0.5 every " << mapEvery << " iterations (4 epochs of "
                          << sets->train->size() << " images at batch " << fullBatch
                          << ", never more often than every 100: Darknet's -map)"
                          << (mapFrom > mapEvery
                                  ? ", the first at " + std::to_string(mapFrom) + ", when burn_in ends"
                                  : std::string())
                          << "\n";
        }
        TrainOptions options;
        options.outDir = outDir;
        options.name = std::filesystem::path(args.cfg).stem().string();
        options.data = std::filesystem::absolute(args.data).lexically_normal().string();
        options.cfgText = std::move(cfgText);
        options.maxBatches = args.maxBatches;
        options.learningRate = args.learningRate;
        options.seed = args.seed;
        options.validEvery = args.validEvery;
        options.mapEvery = mapEvery;
        options.mapFrom = mapFrom;
        options.letterbox = net->spec().net.letterBox;
        options.checkpointEvery = args.checkpointEvery;
        options.snapshotEvery = args.saveEvery;
        options.resume = args.resume;
        options.communicator = team.get();
        options.gpu = device->cuda ? device->index : -1;
        ConsoleObserver observer(!leader, args.progressJson, team != nullptr);
        // (a folder another run holds is refused by the trainer, naming it: no "training" line before)
        if (leader && !folderInUse(options.outDir)) {
            char line[1024];
            std::snprintf(line, sizeof line, "training %s on %s; batch %d = %d × %d%s, output in %s",
                          args.cfg.c_str(), sets->describe().c_str(), net->spec().net.batch,
                          net->spec().net.subdivisions, net->batch(),
                          team ? (" on each of " + std::to_string(team->size()) + " ranks").c_str() : "",
                          options.outDir.c_str());
            if (args.progressJson)
                observer.message(line);
            else
                std::printf("%s\n", line);
        }
        std::fflush(stdout); // before the trainer's messages, which may go to the unbuffered stderr
#if NETWRIGHT_WITH_OPENCV
        // chart.png beside metrics.csv, as Darknet's (drawn from metrics.csv: a resumed run's whole curve).
        if (leader)
            observer.setChart([&, warned = false](int maxBatches) mutable {
                const std::string png = options.outDir + "/chart.png";
                if (auto problem = writeTrainingChart(options.outDir + "/metrics.csv", png, options.name,
                                                      maxBatches, net->spec().net.maxChartLoss);
                    problem && !warned) {
                    observer.endBar();
                    std::cerr << "warning: " << *problem << "; training goes on without it\n";
                    warned = true;
                }
            });
#endif
        held.release(); // (from here on a rank's messages are its own: said at once)
        Trainer trainer(*net, *sets->train, sets->valid.get(), options, sets->detectionValid.get());
        const auto problem = trainer.run(observer);
        quitOnSecondStop = sayStop = false; // (its checkpoint is written: a later signal changes nothing)
        if (!folderInUse(options.outDir))   // (another run's now: its folder was deleted under this one)
            observer.writeChart(); // where the run ended (stopped, or at its last iteration once more)
        if (problem) {
            observer.endBar();
            std::cerr << "error" << (team ? " (rank " + std::to_string(team->rank()) + ")" : std::string())
                      << ": " << *problem << "\n";
            return fail();
        }
        // Stopped before max_batches: not a success for `train … && next-step` (Darknet dies with 130),
        // with --progress json too (a program following the run told a stop from a finish only by the
        // last message). Ranks under a launcher report a stop as 0: the launcher tells stops from failures.
        return (interrupted || readerGone) && !team ? 128 + stopSignal.load() : 0;
    } catch (const std::exception& e) {
        if (!team || team->size() == 1)
            throw; // main's last net (with its out-of-memory advice)
        held.sayAfterGrace(team->rank());
        std::cerr << "\nerror (rank " << team->rank() << "): " << e.what() << "\n";
        return fail();
    } catch (...) {
        if (!team || team->size() == 1)
            throw;
        held.sayAfterGrace(team->rank());
        std::cerr << "\nerror (rank " << team->rank() << "): an unknown exception\n";
        return fail();
    }
}

} // namespace nw::cli
