// netwright-cli: the headless tool. Wiring only: options → one command in commands.h.
#include "commands.h"
#include "net_loading.h"
#include "util/closest_name.h"
#include "util/file_check.h"
#include "util/memory_info.h"
#include "util/thread_settings.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <new>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace {

// CLI::Range for a number: it lets NaN through (every comparison with NaN is false).
CLI::Validator finiteRange(double low, double high)
{
    const std::string range = "[" + CLI::detail::to_string(low) + " - " + CLI::detail::to_string(high) + "]";
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || value < low ||
                value > high)
                return "Value " + text + " not a number in " + range;
            return {};
        },
        "FLOAT in " + range);
}

// A weights path that is empty ("$WEIGHTS" of an unset shell variable) ran the network on random
// weights, with results and exit status 0: refused, saying how to ask for random weights when they can be.
CLI::Validator weightsPath(bool optional)
{
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            if (!text.empty())
                return {};
            return std::string(
                       "an empty path where a .weights file was expected (an unset shell variable?)") +
                   (optional ? ": leave it out to start from random weights" : "");
        },
        "");
}

// An output folder given empty ("$OUT" of an unset shell variable): train wrote into the .data's backup=
// and detect wrote nothing, both with exit status 0.
CLI::Validator outputFolder(const char* ifLeftOut)
{
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            return text.empty() ? std::string("an empty output folder (an unset shell variable?): give a "
                                              "folder, or leave --out out (") +
                                      ifLeftOut + ")"
                                : std::string();
        },
        "");
}

// An output path given empty ("$OUT" of an unset shell variable): init and export-onnx said "cannot
// replace : No such file or directory", forward wrote nothing with exit status 0.
CLI::Validator outputPath()
{
    return CLI::Validator(
        [](std::string& text) -> std::string {
            return text.empty() ? "an empty path where the output was expected (an unset shell variable?)"
                                : std::string();
        },
        "");
}

// The first word that is no option must be a command: CLI11 alone says "A subcommand is required" for
// `netwright-cli summry x.cfg`, naming neither the word nor the commands.
// What to write instead of a single-dash flag (Darknet's habit): the two-dash option, or for Darknet's
// flags that have no counterpart here, why none is needed or what does it.
std::string singleDashAdvice(const CLI::App& app, int argc, char** argv, std::string_view arg)
{
    const std::string name(arg.substr(1));
    static const std::map<std::string, std::string> darknetOnly = {
        {"dont_show", "not needed: netwright-cli opens no window"},
        {"clear", "not needed: a run without --resume starts from iteration 0, as with Darknet's -clear"},
        {"ext_output",
         "not needed: detect prints each box's class, confidence and place (--json: all of it)"},
        {"show_imgs", "not available: detect --out DIR writes the annotated images"},
        {"mjpeg_port",
         "not available: no stream server here (the studio's Detect panel shows video and cameras)"},
        {"json_port", "not available: no stream server here (detect --json prints the detections)"},
        {"http_port", "not available: no stream server here"},
        {"letter_box", "here it is --letterbox"},
        {"save_labels", "here it is --save-labels"},
        {"num_of_clusters", "here it is --num"},
        {"out", "it writes the detections as JSON to a file: here detect --json > FILE (detect --out DIR "
                "writes annotated images)"},
        {"iou_thresh", "here it is map --iou"},
        {"i", "the GPU's number: here --device cuda:N (netwright-cli devices lists them)"},
    };
    if (const auto found = darknetOnly.find(name); found != darknetOnly.end())
        return std::string(arg) + " is Darknet's: " + found->second;
    const CLI::App* command = nullptr;
    for (int i = 1; i < argc && !command; ++i)
        for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
            if (sub->get_name() == argv[i])
                command = sub;
    if (command && !command->get_option_no_throw("--" + name))
        return std::string(arg) + ": " + command->get_name() + " has no option --" + name +
               " (options have two dashes here: see netwright-cli " + command->get_name() + " --help)";
    return std::string(arg) + ": options have two dashes here (--" + name +
           "; Darknet's single-dash flags are not read: see --help)";
}

// A command's results went to stdout: one that could not be written (a full disk behind `> out.json`, a
// closed stdout) is a failure, not exit 0 with an empty file. (train says so itself and goes on: its
// results are files.)
int withStdoutChecked(int code)
{
    std::cout.flush();
    errno = 0;
    const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail();
    if (!failed || code != 0)
        return code;
    int why = errno;
    if (why == 0) { // (an earlier write failed: its reason is learnt by trying once more)
        std::clearerr(stdout);
        std::fputc('\n', stdout);
        why = std::fflush(stdout) != 0 ? errno : 0;
    }
    std::fprintf(stderr, "error: cannot write the standard output (%s): the results are incomplete\n",
                 why ? std::strerror(why) : "a full disk, or a closed output");
    return 1;
}

bool commandIsKnown(const CLI::App& app, int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view word = argv[i];
        if (word.starts_with("-")) // the top level's options are flags: no value follows them
            continue;
        // Darknet's two-word commands (darknet detector train ...): name the command that does it here.
        static const std::pair<std::string_view, std::string_view> darknet[] = {
            {"detector train", "train"},   {"detector test", "detect"},
            {"detector demo", "detect"},   {"detector map", "map"},
            {"detector valid", "map"},     {"detector calc_anchors", "anchors"},
            {"classifier train", "train"}, {"classifier predict", "classify"},
            {"classifier valid", "valid"}, {"detect", "detect"},
            {"partial", "partial"}};
        const std::string pair = i + 1 < argc ? std::string(word) + " " + argv[i + 1] : std::string();
        for (const auto& [theirs, ours] : darknet)
            if (pair == theirs) {
                std::cerr << "error: " << theirs << " is Darknet's command; here it is " << ours
                          << " (see netwright-cli " << ours << " --help)\n";
                return false;
            }
        std::string names;
        std::vector<std::string> commands;
        for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
            if (command->get_name() == word)
                return true;
            names += (names.empty() ? "" : ", ") + command->get_name();
            commands.push_back(command->get_name());
        }
        std::cerr << "error: " << word << ": no such command" << nw::didYouMean(word, commands)
                  << "; the commands: " << names << " (see --help)\n";
        return false;
    }
    // No command word: a mistyped top-level option (--verison) or nothing at all. CLI11 alone says only
    // "A subcommand is required" for both.
    std::vector<std::string> topOptions;
    for (const CLI::Option* option : app.get_options())
        for (const std::string& longName : option->get_lnames())
            topOptions.push_back("--" + longName);
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const std::string_view name = arg.substr(0, arg.find('='));
        if (!name.starts_with("--") || app.get_option_no_throw(std::string(name)))
            continue;
        std::cerr << "error: " << name << ": no such option" << nw::didYouMean(name, topOptions)
                  << "; a command comes first (netwright-cli COMMAND --help lists its options)\n";
        return false;
    }
    if (std::none_of(argv + 1, argv + argc, [](const char* arg) {
            return std::string_view(arg) == "--help" || std::string_view(arg) == "-h" ||
                   std::string_view(arg) == "--version";
        })) {
        std::string names;
        for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; }))
            names += (names.empty() ? "" : ", ") + command->get_name();
        std::cerr << "error: no command given; the commands: " << names << " (see --help)\n";
        return false;
    }
    return true; // --help or --version alone
}

// WxH, each side a whole number from `smallest` to `largest` (sscanf alone took 0x0, -32x32 and 32x32x3).
CLI::Validator imageSize(int largest, int smallest = 1)
{
    const std::string range = "WxH, sides " + std::to_string(smallest) + " to " + std::to_string(largest);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            const auto x = text.find('x');
            int width = 0, height = 0;
            const auto whole = [&](const std::string& digits, int& value) {
                return !digits.empty() && digits.size() <= 6 &&
                       digits.find_first_not_of("0123456789") == std::string::npos &&
                       (value = std::stoi(digits)) >= smallest && value <= largest;
            };
            if (x == std::string::npos || !whole(text.substr(0, x), width) ||
                !whole(text.substr(x + 1), height))
                return "Value " + text + " is not a size " + range;
            return {};
        },
        range);
}

// Whether the command runs networks, and so wants the thread settings it re-executes for
// (util/thread_settings.h). The others (summary, init, export-onnx, devices, ...) and usage errors start
// at once: re-executing loads CUDA's, OpenCV's and their dependencies' 260 libraries a second time,
// half of a 1.2 s start. The command is the first argument that is not an option.
bool runsNetworks(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view argument = argv[i];
        if (argument.starts_with('-'))
            continue;
        for (const std::string_view command :
             {"forward", "detect", "classify", "bench", "train", "map", "valid", "check-device"})
            if (argument == command)
                return true;
        return false;
    }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    if (runsNetworks(argc, argv))
        nw::restartWithThreadSettings(argv);
    if (const auto problem = nw::memoryLimitProblem())
        std::cerr << "warning: " << *problem << "\n";
    CLI::App app{"netwright-cli: inspect and run Darknet networks without a GUI"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(NETWRIGHT_VERSION));

    bool allowExtra = false;
    app.add_flag("--allow-extra", allowExtra,
                 "Load the first part of a .weights file longer than the network needs (refused otherwise)");
    app.fallthrough(); // the flag may follow the command, like every other option

    std::string cfg, weights, in, out, allLayers, names;
    bool half = false, tf32 = false; // --half and --tf32, on every command that runs a network on a GPU
    const auto addPrecisionFlags = [&](CLI::App* command, const char* halfHelp) {
        CLI::Option* fp16 = command->add_flag("--half", half, halfHelp);
        command
            ->add_flag("--tf32", tf32,
                       "--device cuda: FP32 convolutions on tensor cores with TF32 rounding, as Darknet and "
                       "PyTorch compute FP32 on Ampere and later (inference only; see docs/gpu.md)")
            ->excludes(fp16);
    };
    const char* halfHelp =
        "--device cuda: convolutions in FP16 on tensor cores (inference only; see docs/gpu.md)";
    int batch = 1;
    bool json = false;

    auto* summary = app.add_subcommand("summary", "Print every layer's shapes, BFLOPs, params and workspace");
    summary->add_option("cfg", cfg, "Darknet .cfg file")->required();
    summary->add_option("--batch", batch, "Images per batch, for activation memory")
        ->check(CLI::Range(1, 1 << 20));
    summary->add_flag("--json", json, "Print one JSON object instead of a table");

    auto* roundtrip = app.add_subcommand("roundtrip", "Load a .cfg and write it back (byte-identical)");
    roundtrip->add_option("in", in, "Input .cfg")->required();
    roundtrip->add_option("out", out, "Output .cfg")->required()->check(outputPath());

    std::string classesOrData;
    bool classesSchedule = false;
    auto* setClasses =
        app.add_subcommand("set-classes", "Write a cfg for another number of classes (every head and the "
                                          "filters= before it, or a classifier's outputs)");
    setClasses->add_option("in", in, "Input .cfg")->required();
    setClasses->add_option("classes", classesOrData, "The number of classes, or a .data file (its classes=)")
        ->required();
    setClasses->add_option("out", out, "Output .cfg (not the input)")->required()->check(outputPath());
    setClasses->add_flag("--schedule", classesSchedule,
                         "Also set max_batches = 2000 x classes (at least 6000) and steps at 80 % and 90 % "
                         "(AlexeyAB's rule for a detector)");

    auto* forward = app.add_subcommand("forward", "Run the network once and write outputs as raw float32");
    forward->add_option("cfg", cfg, "Darknet .cfg file")->required();
    forward->add_option("weights", weights, "Darknet .weights file")->required()->check(weightsPath(false));
    forward->add_option("--input", in, "An image, or a raw float32 CHW tensor (.f32, exactly w·h·c floats)")
        ->required();
    forward->add_option("--out", out, "Write the network's output here")->check(outputPath());
    forward->add_option("--all-layers", allLayers, "Write every layer's output as DIR/layer_000.f32, ...")
        ->check(outputPath());
    std::string forwardDevice = "cpu";
    forward->add_option("--device", forwardDevice, "cpu (default), cuda or cuda:N (see devices)");
    addPrecisionFlags(forward, halfHelp);

    nw::cli::DetectArgs detectArgs;
    unsigned initSeed = 1;
    auto* init = app.add_subcommand("init", "Write Darknet-style random initial weights for a cfg");
    init->add_option("cfg", cfg, "Darknet .cfg file")->required();
    init->add_option("out", out, "The .weights file to write")->required()->check(outputPath());
    init->add_option("--seed", initSeed, "Random seed (the same seed gives the same file)");
    int partialLayers = 0;
    auto* partial = app.add_subcommand(
        "partial", "Write the first N layers' weights: a backbone to train from (Darknet's partial)");
    partial->add_option("cfg", cfg, "Darknet .cfg file")->required();
    partial->add_option("weights", weights, "Trained .weights for that cfg")
        ->required()
        ->check(weightsPath(false));
    partial->add_option("out", out, "The .weights file to write (seen 0)")->required()->check(outputPath());
    partial->add_option("layers", partialLayers, "How many layers, from layer 0 (74 for darknet53.conv.74)")
        ->required()
        ->check(CLI::Range(1, 1000000));

    auto* detect = app.add_subcommand("detect", "Detect objects in images and videos");
    detect->add_option("cfg", detectArgs.cfg, "Darknet .cfg file")->required();
    detect->add_option("weights", detectArgs.weights, "Darknet .weights file")
        ->required()
        ->check(weightsPath(false));
    detect->add_option("inputs", detectArgs.inputs,
                       "Images, video files, folders of them, or .txt image lists (none: paths on stdin, one "
                       "per line)");
    detect->add_option("--names", detectArgs.names,
                       "Class names, one per line (default: the .names file beside the cfg, if any)");
    detect->add_option("--thresh", detectArgs.threshold, "Confidence threshold (default 0.25)")
        ->check(finiteRange(0.0, 1.0));
    detect->add_option("--nms", detectArgs.nms, "NMS IoU threshold (default 0.45; 0 disables)")
        ->check(finiteRange(0.0, 1.0));
    detect->add_flag("--letterbox", detectArgs.letterbox,
                     "Keep the aspect ratio (pad) instead of stretching (default: the cfg's letter_box)");
    detect->add_option("--out", detectArgs.outDir, "Write annotated images (.jpg) and videos (.avi) here")
        ->check(outputFolder("nothing is written"));
    detect->add_option("--device", detectArgs.device, "cpu (default), cuda or cuda:N (see devices)");
    addPrecisionFlags(detect, halfHelp);
    detect->add_flag("--json", detectArgs.json, "Print detections as JSON (boxes in pixels: x, y, w, h)");
    detect->add_flag("--save-labels", detectArgs.saveLabels,
                     "Write each image's boxes as its YOLO label file where training reads it (beside the "
                     "image, /JPEGImages/ -> /labels/); one that exists is kept");

    std::vector<std::string> images;
    auto* classify = app.add_subcommand("classify", "Top classes of a classifier for each image");
    classify
        ->add_option("cfg", cfg, "Darknet .cfg file (or first its .data, as Darknet's classifier predict)")
        ->required();
    classify->add_option("weights", weights, "Darknet .weights file")->required()->check(weightsPath(false));
    classify->add_option("images", images, "Images, folders of images, .txt/.list image lists")->required();
    classify->add_option("--names", names,
                         "Class names, one per line (default: the .data's names=, else its labels=)");
    int classifyTop = 0; // the .data's top=, else 5
    classify->add_option("--top", classifyTop, "How many classes to show (default: the .data's top=, else 5)")
        ->check(CLI::Range(1, 100000));
    std::string evaluationDevice = "cpu"; // classify's and valid's
    classify->add_option("--device", evaluationDevice, "cpu (default), cuda or cuda:N (see devices)");
    bool classifyJson = false;
    classify->add_flag("--json", classifyJson,
                       "Print the top classes as JSON: [{file, probabilities, top: [{class, name, score}]}]");
    addPrecisionFlags(classify, halfHelp);

    nw::cli::BenchArgs benchArgs;
    auto* bench = app.add_subcommand("bench", "Measure forward latency and peak memory");
    bench->add_option("cfg", benchArgs.cfg, "Darknet .cfg file")->required();
    bench->add_option("--weights", benchArgs.weights, "Darknet .weights (default: random weights)")
        ->check(weightsPath(true));
    bench->add_option("--size", benchArgs.size, "Input size WxH instead of the cfg's (e.g. 416x416)")
        ->check(imageSize(16384));
    bench->add_option("--runs", benchArgs.runs, "Timed runs after 2 warm-up runs (default 20)")
        ->check(CLI::Range(1, 100000));
    bench->add_option("--threads", benchArgs.threads, "Threads (default: all cores)")
        ->check(CLI::Range(0, 1024));
    bench->add_flag("--per-layer", benchArgs.perLayer, "Also print each layer's median time and GFLOP/s");
    bench->add_flag("--train", benchArgs.training,
                    "Time training passes (forward + loss + backward) at the cfg's batch instead");
    bench->add_flag(
        "--no-winograd", benchArgs.noWinograd,
        "Turn the Winograd kernel off: its 3x3 layers go through im2col + GEMM (to compare kernels)");
    bench->add_option("--device", benchArgs.device, "cpu (default), cuda or cuda:N (see devices)");
    addPrecisionFlags(bench, halfHelp);
    bench->add_flag("--no-graph", benchArgs.noGraph,
                    "--device cuda: launch layer by layer instead of replaying one CUDA graph");
    bench->add_flag("--json", benchArgs.json, "Print {\"median_ms\":..,\"min_ms\":..,\"peak_rss_mb\":..}");

    nw::cli::TrainArgs trainArgs;
    auto* train =
        app.add_subcommand("train", "Train a classifier or detector (metrics.csv, checkpoints, resume)");
    train->add_option("data", trainArgs.data, "Darknet .data file (classes, train, valid, ...)")->required();
    train->add_option("cfg", trainArgs.cfg, "Darknet .cfg file")->required();
    train->add_option("weights", trainArgs.weights, "Starting .weights (default: random initialisation)")
        ->check(weightsPath(true));
    train->add_option("--out", trainArgs.outDir, "Output folder (default: the .data file's backup=)")
        ->check(outputFolder("the .data file's backup= folder is used"));
    train->add_option("--max-batches", trainArgs.maxBatches, "Stop after N iterations (default: max_batches)")
        ->check(CLI::Range(1, 1 << 30));
    train->add_option("--learning-rate", trainArgs.learningRate, "Override [net] learning_rate")
        ->check(finiteRange(0.0, 100.0))
        ->check([](const std::string& text) -> std::string { // (0 was taken as "the cfg's", unsaid)
            double value = 0;
            return CLI::detail::lexical_cast(text, value) && value == 0
                       ? "a rate of 0 learns nothing: leave --learning-rate out for the cfg's learning_rate"
                       : "";
        });
    train->add_flag("--resume", trainArgs.resume, "Continue from the output folder's last checkpoint");
    std::string progress = "text";
    train
        ->add_option("--progress", progress,
                     "text (default: a bar on a terminal, lines otherwise) or json (one object per line on "
                     "stdout: iterations, messages; for programs following the run)")
        ->check(CLI::IsMember({"text", "json"}));
    train->add_option("--seed", trainArgs.seed, "Seed for shuffling and dropout (default 1)");
    train->add_option("--device", trainArgs.device,
                      "cpu (default), cuda or cuda:N: where the passes and updates run");
    train
        ->add_option("--gpus", trainArgs.gpus,
                     "0,1,...: data-parallel on these GPUs, one process each, gradients summed by NCCL")
        ->check(
            [](const std::string& list) { return list.empty() ? std::string("an empty list of GPUs") : ""; });
    train
        ->add_option("--valid-every", trainArgs.validEvery,
                     "Validate every N iterations (default 0: only at the end)")
        ->check(CLI::Range(0, 1 << 30));
    train
        ->add_option("--map-every", trainArgs.mapEvery,
                     "Detectors: mAP@0.5 on the valid set every N iterations (default 0: only at the end)")
        ->check(CLI::Range(0, 1 << 30));
    train->add_flag(
        "--valid-optional", trainArgs.validOptional,
        "A valid= list that cannot be scored is a warning and the run trains without validation "
        "(the studio's choice); by default --valid-every, --map-every and --map make it an error");
    train->add_flag(
        "--map", trainArgs.mapAsDarknet,
        "Detectors: mAP@0.5 every 4 epochs, never more often than every 100 iterations (AlexeyAB's -map)");
    train
        ->add_option("--checkpoint-every", trainArgs.checkpointEvery,
                     "Checkpoint every N iterations (default 100)")
        ->check(CLI::Range(1, 1 << 30));
    train
        ->add_option("--save-every", trainArgs.saveEvery,
                     "Keep <cfg>_<N>.weights every N iterations (default Darknet's: every 1000 under 10000 "
                     "iterations, else every 10000; 0: none)")
        ->check(CLI::Range(0, 1 << 30));

    nw::cli::ValidArgs validArgs;
    auto* valid = app.add_subcommand("valid", "A classifier on the .data file's valid set: top-1 and top-k "
                                              "(top= of the .data file, else 5), each class's recall and "
                                              "precision, the classes it mixes up");
    valid->add_option("data", validArgs.data, "Darknet .data file")->required();
    valid->add_option("cfg", validArgs.cfg, "Darknet .cfg file")->required();
    valid->add_option("weights", validArgs.weights, "Darknet .weights file")
        ->required()
        ->check(weightsPath(false));
    valid->add_flag("--confusion", validArgs.confusion,
                    "Also the confusion matrix: a row per true class, a column per class chosen");
    valid->add_flag("--json", validArgs.json,
                    "Print {\"top1\":..,\"top5\":..,\"images\":..,\"classes\":[{\"id\",\"name\",\"images\","
                    "\"recall\",\"precision\"}]} (with --confusion, \"confusion\": its rows): the second key "
                    "names k (top2 for top=2), left out when k is 1 or at least the class count");
    valid->add_option("--device", evaluationDevice, "cpu (default), cuda or cuda:N (see devices)");
    addPrecisionFlags(valid, halfHelp);

    nw::cli::MapArgs mapArgs;
    auto* map =
        app.add_subcommand("map", "Detector accuracy on the .data file's valid set: AP per class, mAP");
    map->add_option("data", mapArgs.data, "Darknet .data file")->required();
    map->add_option("cfg", mapArgs.cfg, "Darknet .cfg file")->required();
    map->add_option("weights", mapArgs.weights, "Darknet .weights file")
        ->required()
        ->check(weightsPath(false));
    map->add_option("--iou", mapArgs.iou, "IoU threshold of a true positive (default 0.5)")
        ->check(finiteRange(0.0, 1.0));
    map->add_option("--thresh", mapArgs.threshold,
                    "Confidence threshold for precision/recall/F1 (default 0.25)")
        ->check(finiteRange(0.0, 1.0));
    map->add_flag("--letterbox", mapArgs.letterbox, "Letterbox the images (default: the cfg's letter_box)");
    map->add_option("--points", mapArgs.points,
                    "AP@IoU by N-point interpolation (11: VOC2007, as Darknet's -points 11; default 0: "
                    "all-point, as AlexeyAB's)")
        ->check(CLI::Validator(
            [](std::string& text) {
                const bool digits = !text.empty() && text.size() <= 4 &&
                                    text.find_first_not_of("0123456789") == std::string::npos;
                const int n = digits ? std::stoi(text) : -1;
                return n == 0 || (n >= 2 && n <= 1000) ? std::string()
                                                       : std::string("0 (all-point) or 2 to 1000 points");
            },
            "0|2..1000"));
    map->add_flag("--json", mapArgs.json, "Print {\"map50\":..,\"map50_95\":..,\"classes\":[...]}");
    map->add_option("--device", mapArgs.device, "cpu (default), cuda or cuda:N (see devices)");
    addPrecisionFlags(map, halfHelp);

    nw::cli::AnchorsArgs anchorsArgs;
    auto* anchors =
        app.add_subcommand("anchors", "YOLO anchors by k-means (IoU distance) over the train set");
    anchors->add_option("data", anchorsArgs.data, "Darknet .data file")->required();
    anchors->add_option("--num", anchorsArgs.count, "Number of anchors (default 6)")
        ->check(CLI::Range(1, 100));
    anchors->add_option("--width", anchorsArgs.width, "Network width (default 416)")
        ->check(CLI::Range(1, 65536));
    anchors->add_option("--height", anchorsArgs.height, "Network height (default 416)")
        ->check(CLI::Range(1, 65536));
    anchors->add_option("--seed", anchorsArgs.seed, "Seed of the first k-means++ start (default 1)");
    anchors
        ->add_option("--restarts", anchorsArgs.restarts,
                     "k-means runs from different starts, the best average IoU kept (default 10; AlexeyAB's "
                     "calc_anchors runs 1)")
        ->check(CLI::Range(1, 1000));
    anchors->add_flag(
        "--json", anchorsArgs.json,
        "Print {\"anchors\":[[w,h],...],\"cfg_value\",\"average_iou\",\"boxes\",\"width\",\"height\"}");

    nw::cli::ExportOnnxArgs exportArgs;
    auto* exportOnnx =
        app.add_subcommand("export-onnx", "Write the network and its weights as an ONNX model");
    exportOnnx->add_option("cfg", exportArgs.cfg, "Darknet .cfg file")->required();
    exportOnnx->add_option("weights", exportArgs.weights, "Darknet .weights file")
        ->required()
        ->check(weightsPath(false));
    exportOnnx->add_option("out", exportArgs.out, "The .onnx file to write")->required()->check(outputPath());
    // (no CLI11 range: its help read "INT in [1 - 1000]"; the exporter names the opsets it writes)
    exportOnnx->add_option("--opset", exportArgs.opset, "ONNX opset, 11 to 17 (default 11)");
    exportOnnx->add_option("--batch", exportArgs.batch, "Batch size of the graph, or dynamic (default 1)");
    exportOnnx->add_flag(
        "--every-layer", exportArgs.everyLayer,
        "Also output every layer's tensor as layer_<index> (to compare runtimes layer by layer)");
    exportOnnx->add_flag(
        "--with-decode", exportArgs.withDecode,
        "Decode [yolo]/[region] boxes in the graph: one output detections [batch, boxes, 5 + "
        "classes]");

    int shapesCount = 2000;
    unsigned shapesSeed = 1;
    std::string shapesSize;
    auto* makeShapes =
        app.add_subcommand("make-shapes", "Write a synthetic detection data set (images + YOLO labels)");
    makeShapes->add_option("outdir", out, "Output folder")->required()->check(outputPath());
    makeShapes->add_option("--count", shapesCount, "Images in all; a tenth are for validation (default 2000)")
        ->check(CLI::Range(2, 10000000));
    makeShapes->add_option("--seed", shapesSeed, "Seed: the same seed gives the same files (default 1)");
    makeShapes->add_option("--size", shapesSize, "Image size WxH (default 256x256)")
        ->check(imageSize(4096, 32));

    nw::cli::CheckDeviceArgs checkArgs;
    auto* checkDevice = app.add_subcommand(
        "check-device", "Compare every layer's GPU forward with the CPU's (exit 77: no GPU, skipped)");
    checkDevice->add_option("cfgs", checkArgs.cfgs, "Darknet .cfg files")->required();
    checkDevice->add_option("--device", checkArgs.device, "cuda (default) or cuda:N");
    addPrecisionFlags(checkDevice, "Compare the FP16 forward with the CPU's FP32 (tolerance in docs/gpu.md)");
    checkDevice
        ->add_option("--batch", checkArgs.batch,
                     "Images (sequences of time_steps for recurrent networks) per pass (default 1)")
        ->check(CLI::Range(1, 256));
    checkDevice->add_flag("--train", checkArgs.train,
                          "Also compare one training step: loss, gradients, SGD and Adam updates");

    std::string runsFolder;
    bool runsJson = false;
    auto* runs =
        app.add_subcommand("runs", "Compare the runs a training folder holds (its own and the earlier ones)");
    runs->add_option("folder", runsFolder,
                     "A training output folder (train --out, or the .data file's backup=)")
        ->required();
    runs->add_flag("--json", runsJson, "Print one JSON array (name, iterations, avg_loss, best, ...)");

    bool devicesJson = false;
    auto* devices = app.add_subcommand("devices", "List the GPUs the CUDA backend can use (exit 1: none)");
    devices->add_flag("--json", devicesJson, "Print one JSON object (devices, versions, problem)");

    // First the command (Darknet's two-word ones come with single-dash flags: named as commands first).
    if (!commandIsKnown(app, argc, argv))
        return 2;
    // Darknet's single-dash habits (-thresh, -map, -width 320): CLI11 reads "-height" as -h plus letters
    // and prints the help with exit 0, computing nothing. A word after one dash is no option here.
    // Each one is said (the first alone made `-map -dont_show` take two tries).
    bool singleDash = false;
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) { // after "--": file names
        const std::string_view arg = argv[i];
        if (arg.size() > 2 && arg[0] == '-' && std::isalpha(static_cast<unsigned char>(arg[1])) &&
            arg.find('=') == std::string_view::npos) {
            std::cerr << "error: " << singleDashAdvice(app, argc, argv, arg) << "\n";
            singleDash = true;
        }
    }
    if (singleDash)
        return 2;
    // "--save_labels", "--max_batches": Darknet's underscores with two dashes; CLI11 only says the
    // argument "was not expected".
    const CLI::App* command = nullptr; // the subcommand named (commandIsKnown checked there is one)
    for (int i = 1; i < argc && !command; ++i)
        for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
            if (sub->get_name() == argv[i])
                command = sub;
    for (int i = 1; command && i < argc && std::string_view(argv[i]) != "--"; ++i) {
        const std::string_view arg = argv[i];
        const std::string_view name = arg.substr(0, arg.find('=')); // (a value may hold '_': --out=my_dir)
        if (!name.starts_with("--") || name.size() < 3)
            continue;
        std::string dashed(name);
        std::replace(dashed.begin(), dashed.end(), '_', '-');
        if (name.find('_') != std::string_view::npos && command->get_option_no_throw(dashed)) {
            std::cerr << "error: " << name << ": here it is " << dashed << "\n";
            return 2;
        }
        // A mistyped option (--thres): CLI11 says only that it "was not expected".
        if (command->get_option_no_throw(std::string(name)) || app.get_option_no_throw(std::string(name)))
            continue;
        std::vector<std::string> options;
        for (const CLI::App* owner : {command, static_cast<const CLI::App*>(&app)})
            for (const CLI::Option* option : owner->get_options())
                for (const std::string& longName : option->get_lnames())
                    options.push_back("--" + longName);
        if (const std::string closest = nw::closestName(name, options); !closest.empty()) {
            std::cerr << "error: " << name << ": " << command->get_name()
                      << " has no such option (did you mean " << closest << "?; see netwright-cli "
                      << command->get_name() << " --help)\n";
            return 2;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = withStdoutChecked(app.exit(e) == 0 ? 0 : 2); // (--help > /dev/full)
        // "--thresh 0,25" from a German or French keyboard habit: CLI11 says only "not a number". (Only
        // for a value refused as a number: "--gpus 0,1" is a list.)
        const bool numberRefused =
            dynamic_cast<const CLI::ConversionError*>(&e) || dynamic_cast<const CLI::ValidationError*>(&e);
        for (int i = 1; numberRefused && i < argc; ++i)
            if (const std::string_view arg = argv[i];
                std::regex_match(arg.begin(), arg.end(), std::regex(R"(-?\d*,\d+)"))) {
                std::string dotted(arg);
                std::replace(dotted.begin(), dotted.end(), ',', '.');
                std::cerr << "note: numbers take a decimal dot: " << dotted << ", not " << arg << "\n";
                break;
            }
        return code;
    }
    // Every command reports its own input problems; this is the last net for what libraries throw
    // (OpenCV, the standard library), so no input ever ends in an abort.
    nw::cli::setAllowExtraWeights(allowExtra);
    nw::cli::setHalfPrecision(half);
    nw::cli::setTensorFloat32(tf32);
    const auto run = [&]() -> int {
        if (*summary)
            return nw::cli::summary(cfg, batch, json);
        if (*roundtrip)
            return nw::cli::roundtrip(in, out);
        if (*setClasses)
            return nw::cli::setClasses(in, classesOrData, out, classesSchedule);
        if (*forward)
            return nw::cli::forward(cfg, weights, in, out, allLayers, forwardDevice);
        if (*init)
            return nw::cli::initWeights(cfg, out, initSeed);
        if (*partial)
            return nw::cli::partialWeights(cfg, weights, out, partialLayers);
        if (*detect)
            return nw::cli::detect(detectArgs);
        if (*classify)
            return nw::cli::classify(cfg, weights, images, names, classifyTop, evaluationDevice,
                                     classifyJson);
        if (*bench)
            return nw::cli::bench(benchArgs);
        if (*train) {
            trainArgs.progressJson = progress == "json";
            try {
                return nw::cli::train(trainArgs);
            } catch (const std::bad_alloc&) {
                std::fprintf(stderr,
                             "\nerror: out of memory: lower batch (or raise subdivisions) in [net]; the last "
                             "checkpoint is kept\n");
                return 1;
            }
        }
        if (*exportOnnx)
            return nw::cli::exportOnnx(exportArgs);
        if (*valid) {
            validArgs.device = evaluationDevice;
            return nw::cli::valid(validArgs);
        }
        if (*map)
            return nw::cli::map(mapArgs);
        if (*anchors)
            return nw::cli::anchors(anchorsArgs);
        if (*makeShapes)
            return nw::cli::makeShapes(out, shapesCount, shapesSeed, shapesSize);
        if (*runs)
            return nw::cli::runs(runsFolder, runsJson);
        if (*devices)
            return nw::cli::devices(devicesJson);
        if (*checkDevice)
            return nw::cli::checkDevice(checkArgs);
        return 2;
    };
    try {
        const int code = run();
        return *train ? code : withStdoutChecked(code);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "error: out of memory: the network or its input is too large for this machine "
                             "(lower width/height/batch in [net])\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", nw::shortened(e.what(), 300).c_str());
    }
    return 1;
}
