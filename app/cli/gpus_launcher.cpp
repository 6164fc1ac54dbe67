// train --gpus 0,1,…: Darknet's -gpus on one machine. This program runs again once per GPU (rank r on
// the r-th GPU listed), the ranks joined by NCCL through a clique id made here and handed down in the
// environment; rank 0 prints the progress and writes the files. A rank that fails ends the others
// (they would wait for it in their next sum), so the job never hangs; Ctrl+C reaches every rank (one
// process group), which all stop together at the next iteration with a checkpoint.
#include "backend/device_choice.h"
#include "commands.h"
#include "net_loading.h"
#include "train/communicator.h"

#ifdef NETWRIGHT_WITH_NCCL
#include "distributed/nccl_communicator.h"
#endif

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace nw::cli {

namespace {

// "0,1,3" → {0, 1, 3}; nullopt for anything else (empty items, signs, repeats).
std::optional<std::vector<int>> parseGpuList(const std::string& text)
{
    std::vector<int> gpus;
    std::set<int> seen;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        const int gpu = std::stoi(item);
        if (!seen.insert(gpu).second)
            return std::nullopt;
        gpus.push_back(gpu);
    }
    if (gpus.empty() || text.back() == ',')
        return std::nullopt;
    return gpus;
}

#ifdef NETWRIGHT_WITH_NCCL
// This command line again for one rank: the same options, its own GPU.
std::vector<std::string> rankCommand(const std::string& program, const TrainArgs& args, int gpu)
{
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.9g", double(args.learningRate));
    std::vector<std::string> argv{program};
    if (extraWeightsAllowed())
        argv.push_back("--allow-extra");
    argv.push_back("train");
    const auto option = [&](const char* name, const std::string& value) {
        argv.push_back(name);
        argv.push_back(value);
    };
    if (!args.outDir.empty())
        option("--out", args.outDir);
    if (args.maxBatches > 0)
        option("--max-batches", std::to_string(args.maxBatches));
    if (args.learningRate > 0)
        option("--learning-rate", rate);
    option("--seed", std::to_string(args.seed));
    if (args.validEvery > 0)
        option("--valid-every", std::to_string(args.validEvery));
    if (args.mapEvery > 0)
        option("--map-every", std::to_string(args.mapEvery));
    if (args.mapAsDarknet)
        argv.push_back("--map");
    option("--checkpoint-every", std::to_string(args.checkpointEvery));
    if (args.saveEvery >= 0)
        option("--save-every", std::to_string(args.saveEvery));
    if (args.validOptional)
        argv.push_back("--valid-optional");
    if (args.resume)
        argv.push_back("--resume");
    if (args.progressJson)
        option("--progress", "json");
    option("--device", "cuda:" + std::to_string(gpu));
    argv.push_back("--"); // the files last: a path starting with '-' stays a path
    argv.push_back(args.data);
    argv.push_back(args.cfg);
    if (!args.weights.empty())
        argv.push_back(args.weights);
    return argv;
}

// A stop asked of the launcher (Ctrl+C, `kill`, a scheduler's SIGTERM) is passed on to the ranks, which
// stop together with a checkpoint at the end of their iteration (validation, mAP and the checkpoint may
// take minutes); a second one ends them by force (a rank stuck in an exchange cannot stop by itself).
volatile std::sig_atomic_t stopAsked = 0, firstStopSignal = 0;
void askStop(int signal)
{
    if (!stopAsked)
        firstStopSignal = signal;
    stopAsked = stopAsked + 1;
}

std::string exitText(int status)
{
    if (WIFSIGNALED(status))
        return "was killed by signal " + std::to_string(WTERMSIG(status));
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}
#endif

} // namespace

int trainOnGpus(const TrainArgs& args)
{
#ifdef NETWRIGHT_WITH_NCCL
    // First thing: a stop asked at any time (Ctrl+C, the studio's Stop, a scheduler's SIGTERM) is seen,
    // and passed on to the ranks once they run (they stop together with a checkpoint). A reader that
    // went away (the studio closed) must not kill the launcher on its next message: SIGPIPE ignored,
    // which the ranks inherit too.
    struct sigaction stop = {};
    stop.sa_handler = askStop;
    sigaction(SIGINT, &stop, nullptr);
    sigaction(SIGTERM, &stop, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
#endif
    const auto gpus = parseGpuList(args.gpus);
    if (!gpus) {
        std::cerr
            << "error: --gpus " << args.gpus
            << ": expected GPU numbers separated by commas, each once (netwright-cli devices lists them)\n";
        return 1;
    }
    if (launchedByMpi()) {
        std::cerr << "error: --gpus starts one process per GPU itself: run it without mpirun\n";
        return 1;
    }
    if (args.device != "cpu") {
        std::cerr << "error: --gpus and --device choose the GPUs twice: give only --gpus\n";
        return 1;
    }
    for (int gpu : *gpus) { // every GPU exists before any process starts
        std::string error;
        if (!chooseDevice("cuda:" + std::to_string(gpu), error)) {
            std::cerr << "error: --gpus " << args.gpus << ": " << error << "\n";
            return 1;
        }
    }
    if (gpus->size() == 1) { // one GPU: no clique to join
        TrainArgs single = args;
        single.gpus.clear();
        single.device = "cuda:" + std::to_string(gpus->front());
        return train(single);
    }
#ifndef NETWRIGHT_WITH_NCCL
    std::cerr << "error: --gpus needs NCCL, and this netwright-cli was built without it (the CUDA backend "
                 "with NCCL from the CUDA install)\n";
    return 1;
#else
    std::string error;
    const std::string clique = newNcclCliqueId(error);
    if (clique.empty()) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    std::error_code ec;
    const std::string program = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) {
        std::cerr << "error: cannot find this program to start the GPUs' processes: " << ec.message() << "\n";
        return 1;
    }
    if (stopAsked) {
        std::printf("stopped before the GPUs' processes started\n");
        return 128 + firstStopSignal;
    }
    std::vector<pid_t> ranks;
    const auto size = std::to_string(gpus->size());
    for (std::size_t r = 0; r < gpus->size(); ++r) {
        std::vector<std::string> argv = rankCommand(program, args, (*gpus)[r]);
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e)
            env.emplace_back(*e);
        env.push_back(std::string(kNcclCliqueVariable) + "=" + clique);
        env.push_back(std::string(kNcclRankVariable) + "=" + std::to_string(r));
        env.push_back(std::string(kNcclSizeVariable) + "=" + size);
        std::vector<char*> argvPointers, envPointers;
        for (std::string& a : argv)
            argvPointers.push_back(a.data());
        argvPointers.push_back(nullptr);
        for (std::string& e : env)
            envPointers.push_back(e.data());
        envPointers.push_back(nullptr);
        // The ranks take the default signal actions back (SIG_IGN would be inherited).
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
        pid_t pid = 0;
        const int spawned =
            posix_spawn(&pid, program.c_str(), nullptr, &attributes, argvPointers.data(), envPointers.data());
        posix_spawnattr_destroy(&attributes);
        if (spawned != 0) {
            std::cerr << "error: cannot start rank " << r << ": " << std::strerror(spawned) << "\n";
            for (pid_t started : ranks)
                kill(started, SIGKILL);
            for (pid_t started : ranks)
                waitpid(started, nullptr, 0);
            return 1;
        }
        ranks.push_back(pid);
    }
    int worst = 0;
    bool passedOn = false, forced = false;
    for (std::size_t left = ranks.size(); left > 0;) {
        // Polled, not blocked in: a stop that arrives at any moment is passed on within 50 ms.
        if (stopAsked && !passedOn) {
            for (pid_t rank : ranks)
                if (rank > 0)
                    kill(rank, SIGTERM);
            passedOn = true;
        }
        if (stopAsked > 1 && !forced) {
            std::cerr
                << "stopping the GPUs' processes by force (a second stop); the last checkpoint is kept\n";
            for (pid_t rank : ranks)
                if (rank > 0)
                    kill(rank, SIGKILL);
            forced = true;
            worst = 1;
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno != EINTR)
            break;
        if (pid <= 0) {
            const timespec pause{0, 50'000'000};
            nanosleep(&pause, nullptr);
            continue;
        }
        const auto found = std::find(ranks.begin(), ranks.end(), pid);
        if (found == ranks.end())
            continue; // not a rank of ours
        const auto rank = std::size_t(found - ranks.begin());
        *found = -1; // reaped: its pid may be another process's from now on
        --left;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            continue;
        // A stop passed on that reached a rank before its handlers were in place ended it by the default
        // action: a stop, not a failure — but the others may already wait for it in an exchange, and
        // nothing was trained yet: they end too.
        if (passedOn && WIFSIGNALED(status) && (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGINT)) {
            for (pid_t other : ranks)
                if (other > 0)
                    kill(other, SIGKILL);
            continue;
        }
        if (forced)
            continue;     // (said above)
        if (worst == 0) { // the first failure: the others would wait for this rank forever
            std::cerr << "error: rank " << rank << " (cuda:" << (*gpus)[rank] << ") " << exitText(status)
                      << "; stopping the other GPUs' processes (the last checkpoint is kept)\n";
            for (pid_t other : ranks)
                if (other > 0)
                    kill(other, SIGKILL);
        }
        worst = 1;
    }
    // A stop that ended every rank with its checkpoint: 130/143 as a single process's (not a success).
    return worst == 0 && passedOn ? 128 + firstStopSignal : worst;
#endif
}

} // namespace nw::cli
