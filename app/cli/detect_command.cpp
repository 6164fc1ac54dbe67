// detect and classify: images and videos through a network, with annotated outputs and JSON.
#include "commands.h"
#include "data/data_file.h"
#include "data/detection_dataset.h"
#include "data/image_list_file.h"
#include "detect/annotate.h"
#include "detect/class_scores.h"
#include "detect/decode.h"
#include "detect/detector.h"
#include "detect/video_ending.h"
#if NETWRIGHT_WITH_OPENCV
#include "detect/video_recorder.h"
#endif
#include "detect/yolo_labels.h"
#include "net_loading.h"
#include "util/atomic_file.h"
#include "util/file_check.h"
#include "util/float_file.h"
#include "util/json_text.h"
#include "util/text_columns.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#if NETWRIGHT_WITH_OPENCV
#include <opencv2/core/mat.hpp>
#endif
#include <set>
#include <unistd.h>
#include <utility>
#if NETWRIGHT_WITH_OPENCV
#include "image/image_opencv.h"

#endif

namespace nw::cli {

namespace {

bool isVideo(const std::string& path)
{
    return hasVideoExtension(path);
}

bool isImage(const std::string& path)
{
    return hasImageExtension(path);
}

// Whether a folder holds an image itself (its subfolders are not looked into).
bool hasImages(const std::filesystem::path& folder)
{
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
        if (isImage(entry.path().string()))
            return true;
    return false;
}

// The image whose YOLO label file `txt` is (a.jpg beside a.txt), or "" when none is beside it.
std::string imageBeside(const std::string& txt)
{
    std::error_code ec;
    for (const char* extension : {".jpg", ".jpeg", ".png", ".bmp", ".JPG", ".JPEG", ".PNG"}) {
        const std::string image = std::filesystem::path(txt).replace_extension(extension).string();
        if (std::filesystem::is_regular_file(image, ec))
            return image;
    }
    return {};
}

// An input that could not be read, and why: --json lists it as {"file","error"} (a folder without
// images or a list's missing image was said on stderr only, the exit status 1 unexplained there), in its
// place among the files (`before`: the index of the file it comes before).
struct UnreadInput {
    std::size_t before = 0;
    std::string file, error;
};
using Unread = std::vector<UnreadInput>;

// The unread inputs that come before file `index` (all that are left, for the end), as --json's entries.
void addUnread(const Unread& unread, std::size_t index, std::size_t& next, nlohmann::json& results)
{
    for (; next < unread.size() && unread[next].before <= index; ++next)
        results.push_back({{"file", unread[next].file}, {"error", unread[next].error}});
}

// The inputs as files: a folder gives its images and videos (by name), a .txt list its lines (Darknet's
// train.txt and valid.txt; relative paths as the data sets read them). What cannot be expanded is
// said, counted in `failures` and put in `unread`.
std::vector<std::string> expandInputs(const std::vector<std::string>& inputs, int& failures, Unread& unread,
                                      bool videos = true)
{
    std::vector<std::string> files;
    // (a glob over a data set's folder, train/*, named every label file "a list" whose lines were missing)
    std::size_t labelFiles = 0;
    std::string firstLabelFile, itsImage;
    for (const std::string& input : inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(input, ec)) {
            std::vector<std::string> found, subfolders;
            std::size_t gifs = 0; // (left out in silence: OpenCV reads none)
            for (const auto& entry : std::filesystem::directory_iterator(input, ec)) {
                // (a link to a file that is gone is taken too, so its reader names it: it was skipped
                // without a word)
                std::error_code entryError;
                const bool gone = entry.is_symlink(entryError) && !entry.exists(entryError);
                if ((entry.is_regular_file(entryError) || gone) &&
                    (isImage(entry.path().string()) || (videos && isVideo(entry.path().string()))))
                    found.push_back(entry.path().string());
                else if (entry.is_directory(entryError) && hasImages(entry.path()))
                    subfolders.push_back(entry.path().filename().string());
                else
                    gifs +=
                        entry.is_regular_file(entryError) && lowerExtension(entry.path().string()) == ".gif";
            }
            std::sort(found.begin(), found.end());
            if (gifs > 0)
                std::cerr << "note: " << input << ": " << gifs
                          << (gifs == 1 ? " GIF image is" : " GIF images are")
                          << " not read (OpenCV has no GIF decoder): convert " << (gifs == 1 ? "it" : "them")
                          << " to PNG (ImageMagick: mogrify -format png *.gif)\n";
            if (!subfolders.empty()) { // (Darknet's lists name every image; a folder here is one level)
                std::sort(subfolders.begin(), subfolders.end());
                std::cerr << "note: " << input << ": the images in its subfolders (" << subfolders.front()
                          << (subfolders.size() > 1 ? ", …" : "")
                          << ") are not read: a folder is read one level deep (name the subfolders too)\n";
            }
            if (found.empty()) {
                const std::string why =
                    std::string("a folder without images") + (videos ? " or videos" : "") + " (" +
                    (ec ? ec.message()
                     : videos
                         ? std::string("by their names' endings: .jpg, .png, .mp4, …")
                         : std::string("by their names' endings: .jpg, .png, …; classify reads no videos")) +
                    ")";
                std::cerr << "error: " << input << ": " << why << "; skipped\n";
                unread.push_back({files.size(), input, why});
                ++failures;
            }
            files.insert(files.end(), found.begin(), found.end());
            continue;
        }
        if (const std::string ext = lowerExtension(input); ext != ".txt" && ext != ".list") {
            files.push_back(input);
            continue;
        }
        // (a list of paths beside an image of its name, test.txt by test.jpg, is still a list)
        if (std::string image = imageBeside(input); !image.empty() && looksLikeYoloLabels(input)) {
            if (labelFiles++ == 0)
                firstLabelFile = input, itsImage = std::move(image);
            continue;
        }
        const ImageListFile list = readImageListFile(input, true, true);
        if (!list.opened) {
            std::cerr << "error: " << list.error << "; skipped\n";
            unread.push_back({files.size(), input, list.error});
            ++failures;
            continue;
        }
        if (!list.missingText.empty()) {
            std::cerr << "error: " << list.missingText << "; skipped\n";
            for (const auto& [path, why] : list.missingImages)
                unread.push_back({files.size(), path, why});
            failures += int(list.missing);
        }
        if (!list.workingFolderNote.empty())
            std::cerr << "note: " << list.workingFolderNote << "\n";
        if (list.images.empty() && list.missing == 0) {
            std::cerr << "error: " << input
                      << ": a list without image paths (one per line, as train.txt); skipped\n";
            unread.push_back(
                {files.size(), input, "a list without image paths (one per line, as train.txt)"});
            ++failures;
        }
        for (const ListedImage& image : list.images)
            files.push_back(image.path);
    }
    if (labelFiles > 0)
        std::cerr << "note: " << labelFiles << (labelFiles == 1 ? " label file" : " label files")
                  << " left out (" << firstLabelFile << " holds the boxes of " << itsImage
                  << " beside it, not a list of images)\n";
    return files;
}

nlohmann::json boxesJson(const std::vector<LabeledBox>& boxes)
{
    auto list = nlohmann::json::array();
    for (const LabeledBox& b : boxes)
        list.push_back({{"class", b.classId},
                        {"name", b.name},
                        {"confidence", b.confidence},
                        {"box", {b.left, b.top, b.width, b.height}}});
    return list;
}

// --save-labels: an image's boxes as its YOLO label file, where training reads it. One that exists is
// kept: hand-made labels are work a network's guesses must not replace.
class LabelSaver {
public:
    // False when the file could not be written (said on stderr).
    bool save(const std::string& image, const std::vector<LabeledBox>& boxes, int width, int height)
    {
        // The place from the whole path: "JPEGImages/a.jpg" typed from inside the data set's folder
        // must go to labels/ as "/data/voc/JPEGImages/a.jpg" does, where training looks.
        std::error_code ec;
        const std::filesystem::path whole = std::filesystem::absolute(image, ec).lexically_normal();
        const std::string imagePath = ec ? image : whole.string();
        const std::string path = newLabelPathFor(imagePath);
        const std::string existing = labelPathFor(imagePath);
        for (const std::string& taken : {path, existing})
            if (const auto earlier = writtenNow_.find(taken); earlier != writtenNow_.end()) {
                if (sameFile(earlier->second, imagePath))
                    return true; // the same image twice (a list naming it again)
                std::cerr << "error: " << image << " and " << earlier->second << " share the label file "
                          << taken << ": written for the first only (rename one of them)\n";
                return false;
            }
        if (isRegularFile(existing)) {
            if (kept_++ == 0)
                firstKept_ = existing;
            return true;
        }
        if (const auto folder = std::filesystem::path(path).parent_path(); !folder.empty()) {
            std::filesystem::create_directories(folder, ec);
            if (ec) {
                std::cerr << "error: cannot make " << folder.string() << " for the labels of " << image
                          << ": " << ec.message() << "\n";
                return false;
            }
        }
        if (auto problem = writeFileAtomically(path, yoloLabelText(boxes, width, height))) {
            std::cerr << "error: " << *problem << "\n";
            return false;
        }
        writtenNow_[path] = imagePath;
        empty_ += boxes.empty();
        return true;
    }
    void noteVideo(const std::string& video)
    {
        if (!videoNoted_)
            std::cerr << "note: --save-labels writes label files for images; " << video
                      << " is a video (--json gives its boxes frame by frame)\n";
        videoNoted_ = true;
    }
    void report() const
    {
        const std::size_t written = writtenNow_.size();
        std::cerr << "detect: " << written << (written == 1 ? " label file" : " label files") << " written";
        if (empty_ > 0)
            std::cerr << " ("
                      << (std::size_t(empty_) == written ? std::string(written == 1 ? "empty" : "all empty")
                                                         : std::to_string(empty_) + " of them empty")
                      << ": no box above the threshold, which trains as an image without objects)";
        if (kept_ > 0)
            std::cerr << "; " << kept_ << " image" << (kept_ == 1 ? " had" : "s had")
                      << " a label file already, kept as it was (" << firstKept_ << (kept_ > 1 ? ", …" : "")
                      << "): delete those to write new ones";
        std::cerr << "\n";
    }

private:
    static bool isRegularFile(const std::string& path)
    {
        std::error_code ec;
        return std::filesystem::is_regular_file(path, ec);
    }
    static bool sameFile(const std::string& a, const std::string& b)
    {
        std::error_code ec;
        return a == b || std::filesystem::equivalent(a, b, ec);
    }
    std::map<std::string, std::string> writtenNow_; // label file → the image it was written for
    int kept_ = 0, empty_ = 0;
    std::string firstKept_;
    bool videoNoted_ = false;
};

// Ctrl+C (or a TERM from a job system) during detect: the input under way ends at its current frame, its
// annotated video is closed whole and the results so far printed; a second one quits at once.
std::atomic<int> detectStop{0};

void onDetectStop(int signal)
{
    if (detectStop.exchange(signal) != 0)
        std::_Exit(128 + signal);
}

// What was printed goes out now. A reader of stdout that went away (`detect … | head`) is a stop as
// Ctrl+C is, with SIGPIPE's status: SIGPIPE itself (ignored) ended the process mid-video, its --out .avi
// without the index that holds the frame count.
void flushOrStop()
{
    static bool failed = false;
    if (std::fflush(stdout) == 0 || std::exchange(failed, true))
        return;
    if (errno == EPIPE) {
        int none = 0;
        detectStop.compare_exchange_strong(none, SIGPIPE);
        std::cerr << "the standard output cannot be written (its reader went away): stopping\n";
    } else {
        std::cerr << "warning: the standard output cannot be written (" << std::strerror(errno) << ")\n";
    }
}

const char* stopName(int signal)
{
    return signal == SIGINT ? "Ctrl+C" : signal == SIGPIPE ? "stdout's reader went away" : "SIGTERM";
}

void printBoxes(const std::string& file, int frame, const std::vector<LabeledBox>& boxes)
{
    std::cout << file;
    if (frame >= 0)
        std::cout << " frame " << frame;
    std::cout << ": " << boxes.size() << (boxes.size() == 1 ? " object\n" : " objects\n");
    for (const LabeledBox& b : boxes)
        std::printf("  %s %5.1f%%  x %.0f y %.0f w %.0f h %.0f\n", paddedToColumns(b.name, 16).c_str(),
                    b.confidence * 100, b.left, b.top, b.width, b.height);
    flushOrStop();
}

// `chosen`, or else the names file beside the cfg (yolov4.cfg → yolov4.names), said on stderr: detect
// and classify take them as the studio does.
std::string namesOrBesideCfg(const std::string& chosen, const std::string& cfg)
{
    if (!chosen.empty())
        return chosen;
    const auto beside = namesBesideCfg(cfg);
    if (!beside)
        return {};
    std::cerr << "note: class names from " << *beside << " (beside the cfg; --names chooses others)\n";
    return *beside;
}

std::optional<std::vector<std::string>> namesFor(const std::string& path, int classes)
{
    if (path.empty()) { // "class 0", "class 1", ... until the user gives a .names file
        std::vector<std::string> names;
        for (int c = 0; c < classes; ++c)
            names.push_back("class " + std::to_string(c));
        return names;
    }
    std::string error;
    auto names = loadNames(path, error);
    if (!names) {
        std::cerr << "error: " << error << "\n";
        return names;
    }
    warnAboutNames(path, *names, classes);
    return names;
}

// On a terminal, a video's progress on one stderr line, twice a second: "clip.mp4: frame 120 of 810,
// 31.2 frames/s" (a long or slow video looked like a hang).
class VideoProgress {
public:
    VideoProgress(std::string input, double frames)
        : input_(std::move(input)), frames_(long(frames + 0.5)), shown_(isatty(STDERR_FILENO))
    {
    }
    void show(int index)
    {
        const auto now = std::chrono::steady_clock::now();
        if (!shown_ || now - last_ < std::chrono::milliseconds(500))
            return;
        last_ = now;
        const double seconds = std::chrono::duration<double>(now - start_).count();
        std::fprintf(stderr, "\r%s: frame %d%s, %.1f frames/s\033[K", input_.c_str(), index,
                     frames_ > 0 ? (" of " + std::to_string(frames_)).c_str() : "",
                     seconds > 0 ? index / seconds : 0.0);
        printed_ = true;
    }
    void clear()
    {
        if (printed_)
            std::fprintf(stderr, "\r\033[K");
        printed_ = false;
    }

private:
    std::string input_;
    long frames_;
    bool shown_, printed_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

} // namespace

int detect(const DetectArgs& args)
{
    // Darknet's `detector test DATA CFG WEIGHTS IMAGE`: the command as it is here, the .data's names=
    // as --names (the class names were lost on the way: boxes printed as "class 1").
    if (std::filesystem::path(args.cfg).extension() == ".data" && !args.inputs.empty()) {
        std::string error;
        const auto data = loadDataFile(args.cfg, error);
        const std::string names = data ? data->get("names") : std::string();
        // (DATA WEIGHTS IMAGE, the cfg left out: the weights are not taken for the cfg)
        std::vector<std::string> words{args.weights};
        if (std::filesystem::path(args.weights).extension() == ".weights")
            words.insert(words.begin(), "CFG");
        words.insert(words.end(), args.inputs.begin(), args.inputs.end());
        if (words.size() < 3)
            words.push_back("IMAGE");
        std::string command;
        for (std::size_t i = 0; i < 3; ++i)
            command += " " + words[i];
        std::cerr << "error: " << args.cfg << " is a .data file: detect takes CFG WEIGHTS IMAGE… (Darknet's "
                  << "detector test took the .data first): netwright-cli detect" << command
                  << (words.size() > 3 ? " …" : "")
                  << (names.empty() ? std::string() : " --names " + data->resolve(names)) << "\n";
        return 2;
    }
    // No IMAGE: the paths come from stdin, one per line (AlexeyAB's `detector test … < valid.txt`); a
    // terminal there gets the usage instead of a wait.
    std::vector<std::string> given = args.inputs;
    if (given.empty()) {
        if (isatty(STDIN_FILENO)) {
            std::cerr << "error: detect needs IMAGE…: images, videos, folders or .txt lists, or their paths "
                         "on stdin, one per line (netwright-cli detect CFG WEIGHTS < valid.txt)\n";
            return 2;
        }
        char line[4096];
        while (std::fgets(line, sizeof line, stdin)) {
            std::string path(line);
            if (!path.ends_with('\n') && !std::feof(stdin)) { // (binary data, /dev/zero: no lines)
                std::cerr << "error: stdin holds a line over " << sizeof line - 1
                          << " bytes: give detect a list of paths, one per line\n";
                return 2;
            }
            while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back())))
                path.pop_back();
            if (!path.empty())
                given.push_back(path);
        }
        if (given.empty()) {
            std::cerr << "error: detect: no IMAGE given and no path on stdin\n";
            return 2;
        }
    }
    auto net = loadNet(args.cfg, args.weights, 1, {}, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    const int classes = detectionClasses(net->spec());
    if (classes == 0) {
        std::cerr << args.cfg
                  << ": error: the network has no [yolo], [region] or [detection] layer; use classify\n";
        return 1;
    }
    // Without --names, the names file beside the cfg (yolov4.cfg → yolov4.names), as the studio finds it.
    const std::string namesPath = namesOrBesideCfg(args.names, args.cfg);
    auto names = namesFor(namesPath, classes);
    if (!names)
        return 1;
#if !NETWRIGHT_WITH_OPENCV
    if (!args.outDir.empty()) {
        std::cerr << "error: --out draws with OpenCV, which this build (a headless one) does not have; "
                     "--json gives the boxes\n";
        return 1;
    }
#endif
    auto runner = DeviceRunner::create(*net, args.device); // (refused devices leave no --out folder)
    if (!runner)
        return 1;
    if (!args.outDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(args.outDir, ec);
        if (ec) {
            std::cerr << "error: cannot create " << args.outDir << ": " << ec.message() << "\n";
            return 1;
        }
    }
    Detector detector(*net, *names);
    detector.setForward([&runner](const float* input) { runner->forward(input); });
    // The cfg's letter_box=1 letterboxes as --letterbox does (AlexeyAB's test_detector and demo; map does
    // too).
    const DetectOptions options{args.threshold, args.nms, args.letterbox || net->spec().net.letterBox};
    const int channels = net->inputShape().c;
    nlohmann::json results = nlohmann::json::array();
    int failures = 0;
    std::signal(SIGINT, onDetectStop);
    std::signal(SIGTERM, onDetectStop);
    std::signal(SIGPIPE, SIG_IGN); // (flushOrStop)
    Unread unread;
    const std::vector<std::string> inputs = expandInputs(given, failures, unread);
    const int notExpanded = failures; // (a folder without images, a list's missing images)
    std::size_t nextUnread = 0;
#if NETWRIGHT_WITH_OPENCV
    // --out's file for an input: its name, made unique when two inputs share one (a/dog.jpg, b/dog.jpg)
    // and never an input itself (--out . beside the photos must not draw over them).
    const auto sameFile = [](const std::string& path) {
        std::error_code ec;
        const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
        return ec ? std::filesystem::path(path).lexically_normal() : canonical;
    };
    std::set<std::filesystem::path> taken;
    for (const std::string& input : inputs)
        taken.insert(sameFile(input));
    std::string outDir = args.outDir; // (out/ names out/dog.jpg, not out//dog.jpg)
    while (outDir.size() > 1 && outDir.back() == '/')
        outDir.pop_back();
    const auto outPath = [&](const std::string& input, const char* extension) {
        const std::string stem = std::filesystem::path(input).stem().string();
        std::string path = outDir + "/" + stem + extension;
        for (int n = 2; !taken.insert(sameFile(path)).second; ++n)
            path = outDir + "/" + stem + "-" + std::to_string(n) + extension;
        if (std::filesystem::path(path).stem() != stem)
            std::cerr << "note: " << input << " is drawn into " << path << " (" << stem << extension
                      << " is taken)\n";
        return path;
    };
#endif
    LabelSaver labels;
    std::size_t done = 0;
    // An input counts once among the failures, whatever failed with it (its --out file, its labels,
    // its reading): "12 of 10 inputs" was possible.
    struct CountedOnce {
        int& failures;
        const int before = failures;
        ~CountedOnce() { failures = std::min(failures, before + 1); }
    };
    for (const std::string& input : inputs) {
        if (detectStop)
            break;
        addUnread(unread, done, nextUnread, results);
        ++done;
        const CountedOnce once{failures};
        try { // one input's failure (a library exception included) never ends the run
#if NETWRIGHT_WITH_OPENCV
            if (!isVideo(input)) {
                cv::Mat frame;
                std::string error;
                if (!readImageFile(input, 3, frame, error)) {
                    std::cerr << "error: " << error << "; skipped\n";
                    results.push_back({{"file", input}, {"error", error}}); // (--json left it out)
                    ++failures;
                    continue;
                }
                const auto boxes = detector.detect(imageFromMat(frame, channels), options);
                if (auto problem = detector.outputProblem()) { // ("0 objects" and exit 0 before)
                    std::cerr << "error: " << input << ": " << *problem << "\n";
                    results.push_back({{"file", input}, {"error", *problem}});
                    ++failures;
                    continue;
                }
                results.push_back({{"file", input}, {"frame", 0}, {"detections", boxesJson(boxes)}});
                if (!args.json)
                    printBoxes(input, -1, boxes);
                if (args.saveLabels && !labels.save(input, boxes, frame.cols, frame.rows))
                    ++failures;
                if (!args.outDir.empty()) {
                    drawBoxes(frame, boxes);
                    const std::string path = outPath(input, ".jpg");
                    if (auto problem = writeImageFile(path, frame)) {
                        std::cerr << "error: " << *problem << "\n";
                        ++failures;
                    }
                }
                continue;
            }
            if (args.saveLabels)
                labels.noteVideo(input);
            std::string unopened;
            const auto capture = openVideoFile(input, unopened);
            if (!capture) {
                std::cerr << "error: " << unopened << "\n";
                results.push_back({{"file", input}, {"error", unopened}});
                ++failures;
                continue;
            }
            std::unique_ptr<media::VideoWriter> writer;
            // An exception mid-video (the GPU out of memory) leaves no hidden partial video behind.
            struct AbandonedPartial {
                std::string path;
                ~AbandonedPartial()
                {
                    std::error_code ignored;
                    if (!path.empty())
                        std::filesystem::remove(path, ignored);
                }
            } abandon;
            std::string videoPath, writingPath; // --out's annotated video, and where it is written
            int written = 0;
            bool writeFailed = false;
            cv::Mat frame;
            int index = 0;
            VideoProgress progress(input, capture->frameCount());
            bool notNumbers = false; // (said once per video, at the first such frame)
            while (!detectStop && capture->read(frame) && !frame.empty()) {
                progress.show(index);
                const auto boxes = detector.detect(imageFromMat(frame, channels), options);
                if (auto problem = detector.outputProblem(); problem && !std::exchange(notNumbers, true)) {
                    progress.clear();
                    std::cerr << "error: " << input << ": frame " << index << ": " << *problem << "\n";
                    results.push_back({{"file", input}, {"frame", index}, {"error", *problem}});
                    ++failures;
                }
                results.push_back({{"file", input}, {"frame", index}, {"detections", boxesJson(boxes)}});
                if (!args.json)
                    printBoxes(input, index, boxes);
                if (!args.outDir.empty() && !writeFailed) {
                    if (!writer) {
                        const double fps = capture->fps();
                        videoPath = outPath(input, ".avi");
                        const auto unwritable = videoPathProblem(videoPath);
                        if (!unwritable) {
                            writingPath = videoWritingPath(videoPath);
                            writer = media::codecsOrThrow().openMotionJpeg(writingPath, fps > 0 ? fps : 25,
                                                                           frame.cols, frame.rows);
                            if (writingPath != videoPath)
                                abandon.path = writingPath;
                        }
                        if (!writer) {
                            std::cerr << "error: "
                                      << unwritable.value_or("cannot write " + videoPath +
                                                             " (is the folder writable?)")
                                      << "\n";
                            ++failures;
                            writeFailed = true;
                        }
                    }
                    drawBoxes(frame, boxes);
                    if (writer) {
                        writer->write(frame);
                        ++written;
                    }
                }
                ++index;
            }
            progress.clear();
            if (writer) { // (OpenCV's writer says nothing of a full disk: the file is asked)
                writer->release();
                abandon.path.clear(); // (moved into place, or removed, here)
                if (auto problem = placeFinishedVideo(videoPath, writingPath, written)) {
                    std::cerr << "error: " << *problem << "\n";
                    ++failures;
                }
            }
            if (detectStop) {
                std::cerr << "detect: " << input << " stopped after " << index << " frames\n";
            } else if (index == 0) {
                std::cerr << "error: " << input << ": the video has no readable frames\n";
                results.push_back({{"file", input}, {"error", "the video has no readable frames"}});
                ++failures;
            } else if (auto early = videoEndedEarly(input, index, capture->frameCount())) {
                std::cerr << "error: " << *early << " (the frames read are kept)\n";
                results.push_back({{"file", input}, {"error", *early}});
                ++failures;
            }
#else
            if (isVideo(input)) {
                std::cerr << "error: " << input << ": video needs a build with OpenCV; skipped\n";
                results.push_back({{"file", input}, {"error", "video needs a build with OpenCV"}});
                ++failures;
                continue;
            }
            std::string error;
            const auto image = loadImage(input, channels, error);
            if (!image) {
                std::cerr << "error: " << error << "; skipped\n";
                results.push_back({{"file", input}, {"error", error}});
                ++failures;
                continue;
            }
            const auto boxes = detector.detect(*image, options);
            if (auto problem = detector.outputProblem()) {
                std::cerr << "error: " << input << ": " << *problem << "\n";
                results.push_back({{"file", input}, {"error", *problem}});
                ++failures;
                continue;
            }
            results.push_back({{"file", input}, {"frame", 0}, {"detections", boxesJson(boxes)}});
            if (!args.json)
                printBoxes(input, -1, boxes);
            if (args.saveLabels && !labels.save(input, boxes, image->width, image->height))
                ++failures;
#endif
        } catch (const std::exception& e) {
            std::cerr << "error: " << input << ": " << shortened(e.what(), 200) << "; skipped\n";
            results.push_back({{"file", input}, {"error", shortened(e.what(), 200)}});
            ++failures;
        }
    }
    if (!detectStop)
        addUnread(unread, inputs.size(), nextUnread, results);
    if (args.json) {
        std::cout << jsonText(results, 1) << "\n";
        flushOrStop();
    }
    if (args.saveLabels)
        labels.report();
    if (failures)
        std::cerr << "detect: " << failures << " of " << inputs.size() + std::size_t(notExpanded)
                  << (args.saveLabels
                          ? " inputs could not be read or scored, or their --out or label file written\n"
                          : " inputs could not be read or scored (or their --out file written)\n");
    if (const int signal = detectStop) {
        std::cerr << "detect: stopped (" << stopName(signal) << ") after " << done << " of " << inputs.size()
                  << " inputs; the results so far are written\n";
        return 128 + signal;
    }
    return failures ? 1 : 0;
}

int classify(std::string cfg, std::string weights, std::vector<std::string> images, std::string namesPath,
             int top, const std::string& device, bool json)
{
    int dataClasses = 0;                  // a .data file's classes=, checked against the network's outputs
    if (lowerExtension(cfg) == ".data") { // Darknet's order: DATA CFG WEIGHTS IMAGE...
        const std::string dataPath = std::exchange(cfg, std::exchange(weights, images.front()));
        images.erase(images.begin());
        if (images.empty()) {
            std::cerr << "error: classify " << dataPath << " " << cfg << " " << weights
                      << ": no image given (classify [DATA] CFG WEIGHTS IMAGE...)\n";
            return 2;
        }
        if (weights.empty()) { // (CLI11 checked the word in the weights' place: here, the cfg)
            std::cerr << "weights: an empty path where a .weights file was expected (an unset shell "
                         "variable?)\n";
            return 2;
        }
        auto data = loadDataFileOrReport(dataPath);
        if (!data)
            return 1;
        dataClasses = data->classes();
        std::string error;
        // Darknet's predict_classifier: names= (the names to show), else labels= (what training matched).
        const char* namesKey = data->get("names").empty() ? "labels" : "names";
        if (namesPath.empty() && !data->get(namesKey).empty()) {
            const auto found = data->existingFile(namesKey, error);
            if (!found) {
                std::cerr << "error: " << error << "\n";
                return 1;
            }
            namesPath = *found;
        }
        if (const std::string topText = data->get("top"); top < 1 && !topText.empty()) {
            const auto [end, parseError] =
                std::from_chars(topText.data(), topText.data() + topText.size(), top);
            if (parseError != std::errc() || end != topText.data() + topText.size() || top < 1) {
                std::cerr << "error: " << dataPath << ": top=" << topText
                          << " is not a whole number of classes of 1 or more\n";
                return 1;
            }
        }
    }
    if (top < 1)
        top = 5;
    int failures = 0;
    Unread unread;
    images = expandInputs(images, failures, unread, false);
    const int notExpanded = failures; // (a list's missing images: "2 of 2" for 2 read and 2 missing)
    auto net = loadNet(cfg, weights, 1, {}, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    if (net->maxTruthBoxes() > 0) {
        std::cerr << "error: " << cfg << " ends in a detection head: it finds boxes, run it with detect\n";
        return 1;
    }
    const auto runner = DeviceRunner::create(*net, device);
    if (!runner)
        return 1;
    const Shape input = net->inputShape();
    if (!input.isImage()) { // (each image was "could not be read": "the network wants 0 channels")
        std::cerr << "error: " << cfg << ": the network reads " << input.size
                  << " numbers ([net] inputs=), not an image: classify needs a network of width=, height= "
                     "and channels= (forward runs it on a .f32 file)\n";
        return 1;
    }
    const std::size_t classes = std::size_t(net->output().itemSize());
    if (dataClasses > 0 && std::size_t(dataClasses) != classes) // (valid refuses; the scores still show)
        std::cerr << "warning: the .data file has classes=" << dataClasses << " but " << cfg << " scores "
                  << classes << " classes: the network of another data set?\n";
    namesPath = namesOrBesideCfg(namesPath, cfg); // neither --names nor a .data file's: the cfg's own
    auto names = namesFor(namesPath, int(classes));
    if (!names)
        return 1;
    // Percentages for a network that ends in a softmax (or logistic); raw scores otherwise, said so.
    // (Guessed from the first image's scores, a linear layer's 1.53 was "153.18 %".)
    const bool probabilities = scoresAreProbabilities(net->spec());
    int unscored = 0; // images whose scores are NaN: said each, and the exit status 1
    // --json: [{"file","probabilities","top":[{"class","name","score"}]}], {"file","error"} for an
    // image that could not be read or scored (as detect --json)
    auto results = nlohmann::json::array();
    std::size_t nextUnread = 0, index = 0;
    for (const std::string& path : images) {
        addUnread(unread, index++, nextUnread, results);
        std::string error;
        // (a video was called "damaged, or not an image format OpenCV knows")
        std::optional<Image> image;
        if (isVideo(path))
            error = path + ": a video: classify reads images (detect reads a video frame by frame)";
        else
            image = loadImage(path, input.c, error);
        if (!image) {
            std::cerr << "error: " << error << "\n";
            results.push_back({{"file", path}, {"error", error}});
            ++failures;
            continue;
        }
        const Image prepared = centerCropResize(*image, input.w, input.h);
        runner->forward(prepared.data.data());
        const std::vector<float> scores = classScores(*net, 0);
        // (NaN scores were printed as "-nan" and called raw scores of a network without a softmax)
        if (countNonFinite(scores) > 0) {
            std::cerr << "error: " << path
                      << ": the network's scores are not numbers (NaN or infinite): the weights diverged in "
                         "training, or were trained for another cfg\n";
            results.push_back(
                {{"file", path}, {"error", "the network's scores are not numbers (NaN or infinite)"}});
            ++unscored;
            continue;
        }
        std::vector<std::size_t> order(classes);
        std::iota(order.begin(), order.end(), 0);
        const std::size_t k = std::min<std::size_t>(std::size_t(std::max(1, top)), classes);
        std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(k), order.end(),
                          [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
        if (json) {
            auto ranked = nlohmann::json::array();
            for (std::size_t i = 0; i < k; ++i) {
                const std::size_t c = order[i];
                ranked.push_back({{"class", c},
                                  {"name", c < names->size() ? (*names)[c] : "class " + std::to_string(c)},
                                  {"score", scores[c]}});
            }
            results.push_back({{"file", path}, {"probabilities", probabilities}, {"top", std::move(ranked)}});
            continue;
        }
        std::cout << path << (probabilities ? "" : "  (raw scores: the network does not end in a softmax)")
                  << "\n";
        for (std::size_t i = 0; i < k; ++i) {
            const std::size_t c = order[i];
            const std::string name = c < names->size() ? (*names)[c] : "class " + std::to_string(c);
            if (probabilities)
                std::printf("  %6.2f%%  %s\n", scores[c] * 100, name.c_str());
            else
                std::printf("  %8.4f  %s\n", scores[c], name.c_str());
        }
    }
    addUnread(unread, images.size(), nextUnread, results);
    if (json)
        std::cout << jsonText(results, 1) << "\n";
    if (failures)
        std::cerr << "classify: " << failures << " of " << images.size() + std::size_t(notExpanded)
                  << " images could not be read and were skipped\n";
    return failures || unscored ? 1 : 0;
}

} // namespace nw::cli
