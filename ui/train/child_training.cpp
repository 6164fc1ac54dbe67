#include "train/child_training.h"
#include "train/class_results_file.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <algorithm>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace nw::ui {

ProgressLine parseProgressLine(const QByteArray& line)
{
    ProgressLine parsed;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return parsed;
    const QJsonObject o = document.object();
    if (o.contains("message")) {
        parsed.message = o["message"].toString().toStdString();
        return parsed;
    }
    if (!o.contains("iteration"))
        return parsed;
    IterationStats s;
    // A NaN loss arrives as null (JSON has no NaN): it stays NaN here, as the trainer saw it.
    const auto number = [&](const char* key) { return o[key].isDouble() ? o[key].toDouble() : std::nan(""); };
    s.iteration = o["iteration"].toInt();
    s.maxBatches = o["max_batches"].toInt();
    s.loss = number("loss");
    s.averageLoss = number("avg_loss");
    s.learningRate = float(number("lr"));
    s.imagesPerSecond = o["images_per_s"].toDouble();
    s.elapsedSeconds = o["elapsed_s"].toDouble();
    s.epoch = o["epoch"].toDouble();
    if (o.contains("valid_top1"))
        s.validTop1 = o["valid_top1"].toDouble();
    if (o.contains("map50"))
        s.map50 = o["map50"].toDouble();
    for (const QJsonValue& value : o["heads"].toArray()) {
        const QJsonObject h = value.toObject();
        HeadStats head;
        head.layer = h["layer"].toInt();
        head.averageIou = h["avg_iou"].toDouble();
        head.classScore = h["class"].toDouble();
        head.objectness = h["obj"].toDouble();
        head.noObject = h["no_obj"].toDouble();
        head.recall50 = h["recall50"].toDouble();
        head.recall75 = h["recall75"].toDouble();
        head.count = h["count"].toInt();
        s.heads.push_back(head);
    }
    if (o.contains("confusion") || o.contains("class_aps")) { // a validation's figures per class
        std::string malformed;                                // (such a line's other figures still count)
        if (auto results = parseClassResults(line.toStdString(), malformed)) {
            s.confusion = results->confusion;
            s.classAps = results->classAps;
        }
    }
    parsed.iteration = s;
    return parsed;
}

namespace {

// The child's process group (it leads one of its own: see runChildTraining), so the ranks it starts
// are suspended and resumed with it.
void signalGroup(qint64 pid, int signal)
{
    if (pid > 0)
        ::kill(-pid_t(pid), signal);
}

} // namespace

std::optional<std::string> runChildTraining(const QString& program, const QStringList& arguments,
                                            TrainObserver& observer, ChildControl& control,
                                            const std::function<void(int)>& paused)
{
    QProcess child;
    child.setProgram(program);
    child.setArguments(arguments);
    child.setChildProcessModifier([] {
        ::setpgid(0, 0);                    // a group of its own: its ranks join it
        ::prctl(PR_SET_PDEATHSIG, SIGTERM); // the studio gone, the run stops (with a checkpoint)
    });
    child.start();
    if (!child.waitForStarted(30000))
        return "cannot start " + program.toStdString() + ": " + child.errorString().toStdString() +
               (QFileInfo::exists(program) ? "" : " (it is installed next to the studio)");
    const qint64 pid = child.processId();
    // Of the child's stderr its first and last "error…" lines are kept, its first warnings shown (a long
    // run's would otherwise pile up), and the unfinished line.
    QByteArray partialError, firstError, lastError;
    constexpr int kWarningsShown = 50;
    int warnings = 0;
    const auto readErrors = [&] {
        partialError += child.readAllStandardError();
        qsizetype end;
        while ((end = partialError.indexOf('\n')) >= 0) {
            const QByteArray line = partialError.left(end).trimmed();
            partialError.remove(0, end + 1);
            if (line.startsWith("error")) {
                if (firstError.isEmpty())
                    firstError = line;
                lastError = line;
            } else if (line.startsWith("warning") && ++warnings <= kWarningsShown) {
                // The data set's warnings (images left out, list lines skipped), as an in-process run
                // shows them in the log; a long run's later ones are counted, not shown.
                observer.message(line.toStdString());
                if (warnings == kWarningsShown)
                    observer.message("(further warnings of this run are not shown here)");
            }
        }
        if (partialError.size() > 65536)
            partialError.clear();
    };
    bool stopSent = false, suspended = false, killed = false;
    QElapsedTimer sinceStop;
    int lastIteration = 0;
    const auto readLines = [&] {
        while (child.canReadLine()) {
            const ProgressLine line = parseProgressLine(child.readLine().trimmed());
            if (line.iteration) {
                lastIteration = line.iteration->iteration;
                observer.iteration(*line.iteration);
            } else if (line.message) {
                observer.message(*line.message);
            }
        }
        readErrors();
    };
    while (child.state() != QProcess::NotRunning) {
        child.waitForReadyRead(100);
        readLines();
        if (control.stopWanted() && !stopSent) {
            if (suspended)
                signalGroup(pid, SIGCONT);
            suspended = false;
            ::kill(pid_t(pid), SIGINT); // the CLI (or the launcher, which passes it on) checkpoints and ends
            stopSent = true;
            sinceStop.start();
        } else if (stopSent && !killed && sinceStop.elapsed() > control.stopGraceMs()) {
            signalGroup(pid, SIGKILL); // every process of the run, the launcher's ranks included
            killed = true;
        } else if (!stopSent && control.pauseWanted() != suspended) {
            suspended = !suspended;
            signalGroup(pid, suspended ? SIGSTOP : SIGCONT);
            if (suspended && paused)
                paused(lastIteration);
        }
    }
    child.waitForFinished(-1);
    readLines();
    if (killed)
        return "the training processes did not stop within " + std::to_string(control.stopGraceMs() / 1000) +
               " s of Stop and were ended; the last checkpoint is kept";
    if (child.exitStatus() == QProcess::CrashExit)
        return program.toStdString() + " ended abnormally (" + child.errorString().toStdString() +
               "); the last checkpoint is kept";
    // A stop ends the run with 128 + its signal, after the checkpoint: Stop's SIGINT is no failure.
    if (child.exitCode() == 0 || (stopSent && child.exitCode() == 128 + SIGINT))
        return std::nullopt;
    for (const auto& [signal, name] : {std::pair{SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}, {SIGINT, "SIGINT"}})
        if (child.exitCode() == 128 + signal)
            return program.toStdString() + " was stopped by " + name +
                   " (not by Stop here); it wrote its checkpoint: Resume goes on from it";
    // The child's own words: its first error (a rank's), and the last when another follows (the
    // launcher's, naming the rank); else its status.
    const auto words = [](const QByteArray& line) {
        return line.mid(line.indexOf(':') + 1).trimmed().toStdString();
    };
    if (!firstError.isEmpty())
        return lastError == firstError ? words(firstError) : words(firstError) + " — " + words(lastError);
    return program.toStdString() + " exited with status " + std::to_string(child.exitCode());
}

} // namespace nw::ui
