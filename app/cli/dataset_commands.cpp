// map, anchors and make-shapes: the detection data set tools.
#include "cfg/document.h"
#include "commands.h"
#include "data/data_file.h"
#if NETWRIGHT_WITH_OPENCV
#include "data/make_shapes.h"
#endif
#include "data/training_data.h"
#include "detect/anchors.h"
#include "detect/detector.h"
#include "detect/map.h"
#include "graph/network_spec.h"
#include "layers/detection_heads.h"
#include "net_loading.h"
#include "util/counted.h"
#include "util/json_text.h"
#include "util/text_columns.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

namespace nw::cli {

int map(const MapArgs& args)
{
    auto data = loadDataFileOrReport(args.data);
    if (!data)
        return 1;
    std::string error;
    // A classifier's cfg is said to be one before its weights are read (a classifier's weights with a
    // detector's cfg, or the reverse, was answered by their sizes).
    if (const NetworkSpec spec = buildNetworkSpec(cfg::Document::load(args.cfg), {});
        spec.ok() && maxTruthBoxes(spec.layers) == 0) {
        std::cerr << "error: " << args.cfg
                  << " has no detection head ([yolo] or [region]): map scores detectors (a classifier's "
                     "top-1: netwright-cli valid)\n";
        return 1;
    }
    auto net = loadNet(args.cfg, args.weights, 1, {}, Net::Use::InferenceOnly);
    if (!net)
        return 1;
    const auto runner = DeviceRunner::create(*net, args.device);
    if (!runner)
        return 1;
    std::vector<std::string> warnings;
    auto set = openDetectionSet(*data, "valid", *net, error, warnings);
    for (const std::string& warning : warnings)
        std::cerr << "warning: " << warning << "\n";
    if (!set) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    MapOptions options;
    options.iouThreshold = args.iou;
    options.confidenceThreshold = args.threshold;
    options.points = args.points;
    const MapResult r = evaluateMap(*net, *set, args.letterbox || net->spec().net.letterBox, options, {},
                                    [&](const float* input) { runner->forward(input); });
    if (r.notNumbers > 0) { // (mAP 0.00 % and exit status 0 before)
        std::cerr << "error: " << r.notNumbers << " of " << set->size()
                  << " images gave outputs that are not numbers, so no mAP can be measured; the first: "
                  << r.notNumbersProblem << "\n";
        return 1;
    }
    if (!reportUnreadable(r.warnings, r.unreadable, r.images, set->size(), data->get("valid"), "; left out"))
        return 1;
    std::vector<std::string> names(r.classes.size());
    std::string namesPath;
    if (auto loaded = classNamesOf(*data, true, error, &namesPath)) {
        if (!loaded->empty()) {
            warnAboutNames(namesPath, *loaded, int(r.classes.size()));
            names = *loaded;
        } else if (!namesPath.empty()) { // (a names file without a name was taken in silence)
            warnNameCount(namesPath, 0, int(r.classes.size()));
        }
    } else {
        std::cerr << "warning: " << error << "; classes are shown as numbers\n";
    }
    auto nameOf = [&](std::size_t c) {
        return c < names.size() && !names[c].empty() ? names[c] : "class " + std::to_string(c);
    };
    if (args.json) {
        // Sums of many products end a hair off round values (an AP of 1 was 0.9999999999999999):
        // nine decimals are far below what a valid set can tell apart.
        const auto shown = [](double v) { return std::round(v * 1e9) / 1e9; };
        nlohmann::json out;
        out["map50"] = shown(r.map50);
        out["map50_95"] = shown(r.map50to95);
        out["iou_threshold"] = args.iou;
        out["points"] = args.points; // 0: all-point
        out["precision"] = shown(r.precision);
        out["recall"] = shown(r.recall);
        out["f1"] = shown(r.f1);
        out["average_iou"] = shown(r.averageIou);
        out["images"] = r.images;
        out["unreadable"] = r.unreadable;
        out["classes"] = nlohmann::json::array();
        for (std::size_t c = 0; c < r.classes.size(); ++c) {
            const ClassAp& a = r.classes[c];
            out["classes"].push_back({{"id", c},
                                      {"name", nameOf(c)},
                                      {"ap", shown(a.ap50)},
                                      {"ap50_95", shown(a.ap50to95)},
                                      {"truths", a.truths},
                                      {"tp", a.truePositives},
                                      {"fp", a.falsePositives}});
        }
        std::cout << jsonText(out, 2) << "\n";
        return 0;
    }
    for (std::size_t c = 0; c < r.classes.size(); ++c) {
        const ClassAp& a = r.classes[c];
        std::printf("class %2zu %s AP %6.2f%%  AP50:95 %6.2f%%  (truths %d, TP %d, FP %d)%s\n", c,
                    paddedToColumns(nameOf(c), 16).c_str(), a.ap50 * 100, a.ap50to95 * 100, a.truths,
                    a.truePositives, a.falsePositives,
                    a.truths == 0 ? "  no ground truth: left out of the mean (AlexeyAB's counts it as 0)"
                                  : "");
    }
    std::printf("for conf_thresh = %.2f: precision = %.3f, recall = %.3f, F1 = %.3f, average IoU = %.2f%%\n",
                args.threshold, r.precision, r.recall, r.f1, r.averageIou * 100);
    std::printf("mAP@%.2f%s = %.4f (%.2f%%), mAP@0.5:0.95 = %.4f, %zu images%s\n", args.iou,
                args.points ? (" (" + std::to_string(args.points) + "-point)").c_str() : "", r.map50,
                r.map50 * 100, r.map50to95, r.images,
                r.unreadable ? (" (" + std::to_string(r.unreadable) + " unreadable left out)").c_str() : "");
    return 0;
}

int anchors(const AnchorsArgs& args)
{
    auto data = loadDataFileOrReport(args.data);
    if (!data)
        return 1;
    std::string error;
    const std::string list = data->get("train");
    const auto listPath = data->existingFile("train", error);
    if (!listPath) {
        std::cerr << "error: " << error << " (the list of training images)\n";
        return 1;
    }
    std::vector<std::string> warnings;
    auto set = loadDetectionDataset(*listPath, data->classes(), args.width, args.height, 3, 0, {}, error,
                                    warnings, false); // the labels only, as Darknet's calc_anchors
    for (const std::string& warning : warnings)
        std::cerr << "warning: " << warning << "\n";
    if (!set) {
        std::cerr << "error: " << error << "\n";
        return 1;
    }
    // The boxes training learns from: one it drops (thinner than kSmallestBoxSide) would take an anchor.
    std::vector<std::pair<float, float>> sizes;
    std::size_t thin = 0;
    std::string thinExample;
    for (std::size_t i = 0; i < set->size(); ++i)
        for (const TruthBox& box : set->item(i).boxes) {
            if (box.w < kSmallestBoxSide || box.h < kSmallestBoxSide) {
                if (thin++ == 0)
                    thinExample = labelPathFor(set->item(i).image);
                continue;
            }
            sizes.emplace_back(box.w * float(args.width), box.h * float(args.height));
        }
    if (thin > 0)
        std::cerr << "warning: " << thin << (thin == 1 ? " box is" : " boxes are")
                  << " narrower or lower than 0.001 of the image (first in " << thinExample
                  << "): training drops such boxes, so they are left out of the anchors too\n";
    if (sizes.empty()) {
        std::cerr << "error: " << list << ": no boxes in the label files\n";
        return 1;
    }
    if (sizes.size() < std::size_t(args.count)) { // k-means would repeat boxes as anchors
        std::cerr << "error: " << list << ": " << sizes.size() << (sizes.size() == 1 ? " box" : " boxes")
                  << " cannot make " << args.count << " anchors: use --num " << sizes.size()
                  << " or fewer, or label more images\n";
        return 1;
    }
    // Sizes k-means cannot tell apart, in the unit the anchors are written in: whole pixels, or grid cells
    // to 4 decimals at 32 or less (see below).
    const bool wholePixels = args.width > 32;
    const double unit = wholePixels ? 1 : 1e4;
    std::set<std::pair<long long, long long>> distinct;
    for (const auto& [w, h] : sizes)
        distinct.emplace(std::llround(w * unit), std::llround(h * unit));
    if (distinct.size() < std::size_t(args.count))
        std::cerr << "warning: " << list << ": the boxes have only " << distinct.size()
                  << (distinct.size() == 1 ? " size" : " different sizes")
                  << (wholePixels ? " (in whole pixels at " : " (in grid cells to 4 decimals at ")
                  << args.width << "x" << args.height << "), so " << args.count
                  << " anchors repeat some: --num " << distinct.size() << " says as much\n";
    const AnchorResult result = computeAnchors(sizes, args.count, args.seed, args.restarts);
    // As AlexeyAB's calc_anchors writes them: whole pixels (at least 1: an anchor of 0 would be refused by
    // the cfg) for a network wider than 32, else 4 decimals — a [region] head's anchors are in grid
    // cells (yolov2's 0.57273,0.677385), which whole numbers rounded to 1, 2, 3. The IoU is the written
    // anchors' (it was the unrounded ones': 82 % said for 75 %).
    const auto written = [wholePixels](float v) {
        return wholePixels ? std::max(1.0, std::round(double(v))) : std::round(double(v) * 1e4) / 1e4;
    };
    const auto text = [wholePixels](double v) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, wholePixels ? "%.0f" : "%.4f", v);
        return std::string(buffer);
    };
    std::string line; // the cfg's anchors= value
    nlohmann::json pairs = nlohmann::json::array();
    std::vector<std::pair<float, float>> anchors;
    for (const auto& [w, h] : result.anchors) {
        anchors.emplace_back(float(written(w)), float(written(h)));
        line += (line.empty() ? "" : ", ") + text(written(w)) + "," + text(written(h));
        if (wholePixels) // (integers in the JSON, as before)
            pairs.push_back({std::llround(written(w)), std::llround(written(h))});
        else
            pairs.push_back({written(w), written(h)});
    }
    const double averageIou = averageAnchorIou(sizes, anchors);
    if (args.json) {
        const nlohmann::json out = {{"anchors", pairs},          {"cfg_value", line},
                                    {"average_iou", averageIou}, {"boxes", sizes.size()},
                                    {"width", args.width},       {"height", args.height}};
        std::printf("%s\n", jsonText(out, 2).c_str());
        return 0;
    }
    std::printf("anchors = %s\naverage IoU = %.2f%% over %zu boxes\n", line.c_str(), averageIou * 100,
                sizes.size());
    return 0;
}

int makeShapes(const std::string& outDir, int count, unsigned seed, const std::string& size)
{
#if NETWRIGHT_WITH_OPENCV
    ShapesOptions options;
    options.count = count;
    options.seed = seed;
    if (!size.empty() && std::sscanf(size.c_str(), "%dx%d", &options.width, &options.height) != 2) {
        std::cerr << "error: --size " << size << ": expected WIDTHxHEIGHT, e.g. 256x256\n";
        return 1;
    }
    if (auto problem = makeShapes(outDir, options)) {
        std::cerr << "error: " << *problem << "\n";
        return 1;
    }
    std::printf("wrote %d images (%d for validation) and %s/shapes.data\n", count, std::max(1, count / 10),
                outDir.c_str());
    return 0;
#else
    (void)count, (void)seed, (void)size;
    std::cerr << "error: make-shapes draws with OpenCV, which this build (a headless one) does not have; "
                 "write the set with a full build and copy the folder ("
              << outDir << ")\n";
    return 1;
#endif
}

} // namespace nw::cli
