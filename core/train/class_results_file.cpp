#include "train/class_results_file.h"
#include "util/atomic_file.h"
#include "util/file_check.h"
#include "util/json_text.h"

#include <limits>
#include <nlohmann/json.hpp>

namespace nw {

namespace {

// A count as JSON holds it: a whole number from 0 up (a double that is whole, as other writers may
// give, passes too).
std::optional<std::size_t> countOf(const nlohmann::json& value)
{
    if (value.is_number_unsigned())
        return value.get<std::size_t>();
    if (value.is_number_integer())
        return value.get<long long>() >= 0 ? std::optional<std::size_t>(value.get<long long>())
                                           : std::nullopt;
    if (value.is_number_float()) {
        const double d = value.get<double>();
        if (d >= 0 && d <= 1e15 && d == double(static_cast<long long>(d)))
            return std::size_t(d);
    }
    return std::nullopt;
}

std::optional<std::string> readConfusion(const nlohmann::json& in, ClassResults& out)
{
    const nlohmann::json& rows = in["confusion"];
    if (!rows.is_array())
        return std::string("\"confusion\" is not an array of rows");
    const std::size_t n = rows.size();
    if (n > std::size_t(ConfusionMatrix::kLargestWithCells))
        return "\"confusion\" has " + std::to_string(n) + " rows: at most " +
               std::to_string(ConfusionMatrix::kLargestWithCells) + " classes keep their cells";
    const auto undecided = in.find("undecided");
    if (undecided != in.end() && !(undecided->is_array() && undecided->size() == n))
        return "\"undecided\" is not an array of " + std::to_string(n) +
               " counts, one per row of \"confusion\"";
    auto matrix = std::make_shared<ConfusionMatrix>(int(n));
    for (std::size_t t = 0; t < n; ++t) {
        const nlohmann::json& row = rows[t];
        if (!row.is_array() || row.size() != n)
            return "row " + std::to_string(t + 1) + " of \"confusion\" has " +
                   (row.is_array() ? std::to_string(row.size()) + " cells" : std::string("no cells")) +
                   ", not " + std::to_string(n);
        for (std::size_t c = 0; c < n; ++c) {
            const auto count = countOf(row[c]);
            if (!count)
                return "row " + std::to_string(t + 1) + " of \"confusion\": cell " + std::to_string(c + 1) +
                       " is not a count (" + shortened(jsonText(row[c])) + ")";
            matrix->add(int(t), int(c), *count);
        }
        if (undecided != in.end()) {
            const auto count = countOf((*undecided)[t]);
            if (!count)
                return "\"undecided\": entry " + std::to_string(t + 1) + " is not a count";
            matrix->addUndecided(int(t), *count);
        }
    }
    out.confusion = std::move(matrix);
    return std::nullopt;
}

std::optional<std::string> readClassAps(const nlohmann::json& in, ClassResults& out)
{
    const nlohmann::json& list = in["class_aps"];
    if (!list.is_array())
        return std::string("\"class_aps\" is not an array of classes");
    auto aps = std::make_shared<std::vector<ClassAp>>();
    for (std::size_t k = 0; k < list.size(); ++k) {
        const nlohmann::json& a = list[k];
        const std::string where = "class " + std::to_string(k + 1) + " of \"class_aps\"";
        if (!a.is_object())
            return where + " is not an object";
        ClassAp ap;
        for (const auto& [key, value] : {std::pair{"ap50", &ap.ap50}, {"ap50_95", &ap.ap50to95}}) {
            if (!a.contains(key) || !a[key].is_number() || !(a[key].get<double>() >= 0) ||
                a[key].get<double>() > 1)
                return where + ": \"" + key + "\" is not a number from 0 to 1";
            *value = a[key].get<double>();
        }
        for (const auto& [key, value] : {std::pair{"truths", &ap.truths},
                                         {"detections", &ap.detections},
                                         {"tp", &ap.truePositives},
                                         {"fp", &ap.falsePositives}}) {
            const auto count = a.contains(key) ? countOf(a[key]) : std::nullopt;
            if (!count || *count > std::size_t(std::numeric_limits<int>::max()))
                return where + ": \"" + key + "\" is not a count";
            *value = int(*count);
        }
        aps->push_back(ap);
    }
    out.classAps = std::move(aps);
    return std::nullopt;
}

// "confusion"/"undecided" and "class_aps" of an object into `out` (keys left out: nothing); a key that is
// there but malformed is an error in words ("row 3 of \"confusion\" has 9 cells, not 10").
std::optional<std::string> readClassResults(const nlohmann::json& in, ClassResults& out)
{
    if (!in.is_object())
        return std::string("not a JSON object");
    if (in.contains("confusion"))
        if (auto problem = readConfusion(in, out))
            return problem;
    if (in.contains("class_aps"))
        if (auto problem = readClassAps(in, out))
            return problem;
    return std::nullopt;
}

} // namespace

void addClassResults(nlohmann::json& out, const ConfusionMatrix* confusion,
                     const std::vector<ClassAp>* classAps)
{
    if (confusion && confusion->hasCells()) { // rows by true class, and each row's NaN answers
        nlohmann::json rows = nlohmann::json::array(), undecided = nlohmann::json::array();
        for (int t = 0; t < confusion->classes(); ++t) {
            nlohmann::json row = nlohmann::json::array();
            for (int c = 0; c < confusion->classes(); ++c)
                row.push_back(confusion->count(t, c));
            rows.push_back(std::move(row));
            undecided.push_back(confusion->undecidedOf(t));
        }
        out["confusion"] = std::move(rows);
        out["undecided"] = std::move(undecided);
    }
    if (classAps) {
        nlohmann::json classes = nlohmann::json::array();
        for (const ClassAp& a : *classAps)
            classes.push_back({{"ap50", a.ap50},
                               {"ap50_95", a.ap50to95},
                               {"truths", a.truths},
                               {"detections", a.detections},
                               {"tp", a.truePositives},
                               {"fp", a.falsePositives}});
        out["class_aps"] = std::move(classes);
    }
}

std::optional<ClassResults> parseClassResults(std::string_view text, std::string& error)
{
    const nlohmann::json in = nlohmann::json::parse(text, nullptr, false);
    if (in.is_discarded() || !in.is_object()) {
        error = "not a JSON object";
        return std::nullopt;
    }
    ClassResults results;
    if (!in.contains("iteration") || !in["iteration"].is_number_integer() ||
        in["iteration"].get<long long>() < 0 ||
        in["iteration"].get<long long>() > std::numeric_limits<int>::max()) {
        error = "no \"iteration\" (a whole number from 0 up)";
        return std::nullopt;
    }
    results.iteration = in["iteration"].get<int>();
    if (in.contains("names")) {
        if (!in["names"].is_array()) {
            error = "\"names\" is not an array of names";
            return std::nullopt;
        }
        for (const nlohmann::json& name : in["names"])
            results.names.push_back(name.is_string() ? name.get<std::string>() : std::string());
    }
    if (auto problem = readClassResults(in, results)) {
        error = *problem;
        return std::nullopt;
    }
    if (results.empty()) {
        error = "neither \"confusion\" nor \"class_aps\" is in it";
        return std::nullopt;
    }
    return results;
}

std::string classResultsPath(const std::string& outDir, const std::string& name)
{
    return outDir + "/" + name + "_classes.json";
}

std::optional<std::string> saveClassResults(const std::string& path, const ClassResults& results)
{
    nlohmann::json out = {{"iteration", results.iteration}, {"names", results.names}};
    addClassResults(out, results.confusion.get(), results.classAps.get());
    // (replaced at every validation: atomic, so a reader never sees half a file, but not worth a flush)
    return writeFileAtomically(path, jsonText(out) + "\n", false);
}

std::optional<ClassResults> loadClassResults(const std::string& path, std::string& error)
{
    // 1024 classes' cells are about 8 MB of text.
    const auto text = readSmallTextFile(path, std::size_t(32) << 20, "a per-class results file", error);
    if (!text)
        return std::nullopt;
    auto results = parseClassResults(*text, error);
    if (!results)
        error = path + ": " + error + " (not a per-class results file as training writes it)";
    return results;
}

} // namespace nw
