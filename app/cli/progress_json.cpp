#include "progress_json.h"
#include "train/class_results_file.h"
#include "util/json_text.h"

#include <nlohmann/json.hpp>

namespace nw::cli {

std::string progressJson(const IterationStats& s)
{
    nlohmann::json out = {{"iteration", s.iteration},
                          {"max_batches", s.maxBatches},
                          {"loss", s.loss},
                          {"avg_loss", s.averageLoss},
                          {"lr", s.learningRate},
                          {"images_per_s", s.imagesPerSecond},
                          {"elapsed_s", s.elapsedSeconds},
                          {"epoch", s.epoch}};
    if (s.validTop1)
        out["valid_top1"] = *s.validTop1;
    if (s.map50)
        out["map50"] = *s.map50;
    nlohmann::json heads = nlohmann::json::array();
    for (const HeadStats& h : s.heads)
        heads.push_back({{"layer", h.layer},
                         {"avg_iou", h.averageIou},
                         {"class", h.classScore},
                         {"obj", h.objectness},
                         {"no_obj", h.noObject},
                         {"recall50", h.recall50},
                         {"recall75", h.recall75},
                         {"count", h.count}});
    out["heads"] = heads;
    addClassResults(out, s.confusion.get(), s.classAps.get()); // at a validation
    // A NaN loss is not JSON: dump writes null for it, which a reader sees as "not a number".
    return jsonText(out);
}

std::string messageJson(const std::string& text)
{
    return jsonText(nlohmann::json{{"message", text}});
}

} // namespace nw::cli
