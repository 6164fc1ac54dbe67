#pragma once
// A training run in child processes: `netwright-cli train … --progress json`, for what the studio's
// own process cannot do alone — data-parallel training on several GPUs (`--gpus 0,1`: one process per
// GPU joined by NCCL, app/cli/gpus_launcher.cpp). The child's JSON lines (app/cli/progress_json.h)
// become the same observer calls an in-process Trainer makes; Pause suspends the child's process group
// (SIGSTOP/SIGCONT), Stop sends SIGINT, on which the CLI writes a checkpoint and ends.
#include "train/trainer.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <string>

namespace nw::ui {

// What the GUI asks of a running child, polled every 100 ms (without blocking).
class ChildControl {
public:
    virtual ~ChildControl() = default;
    virtual bool stopWanted() = 0;
    virtual bool pauseWanted() = 0;
    // How long a Stop may take (the iteration under way, the checkpoint) before the child's whole
    // process group is killed: a rank stuck in a collective never answers.
    virtual int stopGraceMs() const { return 120000; }
};

// The parsed form of one `--progress json` line: an iteration, a message, or neither (not JSON).
struct ProgressLine {
    std::optional<IterationStats> iteration;
    std::optional<std::string> message;
};
ProgressLine parseProgressLine(const QByteArray& line);

// Runs `program arguments` to its end (the child leads a process group of its own, and gets SIGTERM
// should the thread that started it end first). Iterations and messages go to `observer` (its iteration() and
// message(); its stopRequested() is not called: `control` is polled instead; `paused` is called with
// the last iteration when the child is suspended). Returns nullopt when the child exits with 0 (finished,
// or stopped with its checkpoint), else what went wrong in words: the child's first "error…" line (a
// rank's own words) and, when another follows, the last (the launcher's), a crash, a Stop that was not
// honoured in time, or a program that cannot be started.
std::optional<std::string> runChildTraining(const QString& program, const QStringList& arguments,
                                            TrainObserver& observer, ChildControl& control,
                                            const std::function<void(int)>& paused);

} // namespace nw::ui
