#include "progress_json.h"
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
    // At a classifier's validation: rows by true class, and each row's NaN answers (up to the classes
    // whose cells are kept).
    if (s.confusion && s.confusion->hasCells()) {
        nlohmann::json rows = nlohmann::json::array(), undecided = nlohmann::json::array();
        for (int t = 0; t < s.confusion->classes(); ++t) {
            nlohmann::json row = nlohmann::json::array();
            for (int c = 0; c < s.confusion->classes(); ++c)
                row.push_back(s.confusion->count(t, c));
            rows.push_back(std::move(row));
            undecided.push_back(s.confusion->undecidedOf(t));
        }
        out["confusion"] = std::move(rows);
        out["undecided"] = std::move(undecided);
    }
    if (s.classAps) { // at a detector's mAP pass
        nlohmann::json classes = nlohmann::json::array();
        for (const ClassAp& a : *s.classAps)
            classes.push_back({{"ap50", a.ap50},
                               {"ap50_95", a.ap50to95},
                               {"truths", a.truths},
                               {"detections", a.detections},
                               {"tp", a.truePositives},
                               {"fp", a.falsePositives}});
        out["class_aps"] = std::move(classes);
    }
    // A NaN loss is not JSON: dump writes null for it, which a reader sees as "not a number".
    return jsonText(out);
}

std::string messageJson(const std::string& text)
{
    return jsonText(nlohmann::json{{"message", text}});
}

} // namespace nw::cli
