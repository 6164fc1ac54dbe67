#include "data/detection_dataset.h"

#include "data/image_list_file.h"

#include "image/image.h"
#include "image/pixel_ops.h"
#include "util/counted.h"
#include "util/file_check.h"
#include "util/uniform_float.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace nw {

namespace {

std::string replaceFirst(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    if (at != std::string::npos)
        text.replace(at, from.size(), to);
    return text;
}

// The image extension (any case) replaced by .txt; unchanged when there is none.
std::string withTxtExtension(const std::string& path)
{
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return path + ".txt";
    return path.substr(0, dot) + ".txt";
}

// rand_scale(s): uniform between 1 and s (either way round: pj's rand_uniform swaps its bounds),
// inverted with probability ½ (Darknet's).
float randomScale(float s, std::mt19937& random)
{
    s = s > 0 ? s : 1; // (0 or less: its inverse is unbounded)
    const float scale = uniformFloat(random, std::min(1.0f, s), std::max(1.0f, s) + 1e-6f);
    return uniformFloat(random, 0, 1) < 0.5f ? scale : 1 / scale;
}

} // namespace

std::string labelPathFor(const std::string& imagePath)
{
    std::string pj = imagePath;
    for (const char* folder : {"images", "JPEGImages", "raw"})
        pj = replaceFirst(pj, folder, "labels");
    pj = withTxtExtension(pj);
    if (isRegularFile(pj))
        return pj;
    // pj's rule without its raw→labels step, which also hits "raw" inside a name ("drawn" → "dlabelsn").
    std::string plain = imagePath;
    for (const char* folder : {"images", "JPEGImages"})
        plain = replaceFirst(plain, folder, "labels");
    plain = withTxtExtension(plain);
    if (isRegularFile(plain))
        return plain;
    // Ultralytics' layout (YOLOv5/v8 exports, Label Studio): the last /images/ folder becomes /labels/
    // (pj's first "images" hit a parent folder's name: data/my_images/ds/images/val/a.jpg).
    if (const auto at = imagePath.rfind("/images/"); at != std::string::npos) {
        std::string last = imagePath;
        last.replace(at, 8, "/labels/");
        last = withTxtExtension(last);
        if (isRegularFile(last))
            return last;
    }
    const std::string ab = newLabelPathFor(imagePath);
    if (isRegularFile(ab))
        return ab;
    // None exists: pj's path where its steps replaced whole folder names (images/ → labels/), else
    // AlexeyAB's (a warning named "dlabelsings/a.txt" for drawings/a.jpg, where nobody would put one).
    std::string wholeFolders = "/" + imagePath;
    for (const char* folder : {"images", "JPEGImages", "raw"})
        wholeFolders = replaceFirst(wholeFolders, std::string("/") + folder + "/", "/labels/");
    return withTxtExtension(wholeFolders.substr(1)) == pj ? pj : ab;
}

std::string newLabelPathFor(const std::string& imagePath)
{
    std::string ab = imagePath;
    for (const char* year : {"train2017", "val2017", "train2014", "val2014"})
        ab = replaceFirst(ab, std::string("/images/") + year + "/", std::string("/labels/") + year + "/");
    return withTxtExtension(replaceFirst(ab, "/JPEGImages/", "/labels/"));
}

namespace {

// A label line as a message can show it: shortened, control bytes (a lone CR, a NUL) as '?'.
std::string printableExcerpt(const std::string& line)
{
    std::string shown = shortened(line, 60);
    for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20)
            c = '?';
    return shown;
}

// Bad label lines: the first kShown and the first of each other kind, then how many more — a set with a
// thousand bad lines printed a thousand warnings, and the studio's log kept only the last of them. Each
// comes with its kind: its reason without digits or the line quoted.
void keepSomeLabelWarnings(std::vector<std::pair<std::string, std::string>>& all,
                           std::vector<std::string>& warnings)
{
    constexpr std::size_t kShown = 10;
    std::set<std::string> kinds;
    std::size_t shown = 0, more = 0;
    for (auto& [warning, kind] : all) {
        if (kinds.insert(kind).second || shown < kShown) {
            warnings.push_back(std::move(warning));
            ++shown;
        } else {
            ++more;
        }
    }
    if (more > 0)
        warnings.push_back("and " + std::to_string(more) + " more bad label lines like those above");
}

// The kind of a warning readLabelFile gave for `labels`: what follows "LABELS:LINE: ", digits and the
// quoted line left out.
std::string labelWarningKind(const std::string& warning, const std::string& labels)
{
    std::size_t i = labels.size() + 1; // past "LABELS:"
    while (i < warning.size() && std::isdigit(static_cast<unsigned char>(warning[i])))
        ++i;
    std::string kind;
    for (i += 2; i < warning.size() && warning[i] != '\''; ++i)
        if (!std::isdigit(static_cast<unsigned char>(warning[i])))
            kind += warning[i];
    // With what follows the quoted line: its hint (decimal commas, a polygon) makes a kind of its own,
    // shown once rather than folded into "67 more bad label lines like those above".
    if (const auto last = warning.rfind('\''); last != std::string::npos && last > i)
        for (std::size_t k = last; k < warning.size(); ++k)
            if (!std::isdigit(static_cast<unsigned char>(warning[k])))
                kind += warning[k];
    return kind;
}

// The bounding box of a polygon line "class x1 y1 x2 y2 x3 y3 x4 y4 …" (YOLOv8 segmentation labels: four
// points or more, relative coordinates), cut to the image; nullopt for any other line.
std::optional<TruthBox> polygonBox(const std::string& line)
{
    std::istringstream words(line);
    std::string word;
    words >> word; // the class, read by the caller
    std::vector<float> xy;
    for (; words >> word;) {
        char* end = nullptr;
        const float value = std::strtof(word.c_str(), &end);
        if (*end != '\0' || !std::isfinite(value))
            return std::nullopt;
        xy.push_back(value);
    }
    // (four points at least: "class x y w h confidence track_id", a tracker's results, has six numbers)
    if (xy.size() < 8 || xy.size() % 2 != 0)
        return std::nullopt;
    float left = 1, top = 1, right = 0, bottom = 0;
    for (std::size_t i = 0; i < xy.size(); i += 2) {
        left = std::min(left, std::clamp(xy[i], 0.0f, 1.0f));
        right = std::max(right, std::clamp(xy[i], 0.0f, 1.0f));
        top = std::min(top, std::clamp(xy[i + 1], 0.0f, 1.0f));
        bottom = std::max(bottom, std::clamp(xy[i + 1], 0.0f, 1.0f));
    }
    return TruthBox{(left + right) / 2, (top + bottom) / 2, right - left, bottom - top};
}

// Why a label line is not 'class x y w h', in words, for what labelling tools write: "" when unknown.
std::string labelLineHint(const std::string& line)
{
    if (line.find('\r') != std::string::npos)
        return " (lines end in a lone CR, as old Mac files: convert them to LF)";
    if (line.find(',') != std::string::npos && line.find('.') == std::string::npos)
        return " (decimal commas, as a spreadsheet in a German or French locale writes them: numbers take a "
               "dot, 0.5 not 0,5)";
    std::istringstream words(line);
    std::vector<double> numbers;
    std::string first;
    for (std::string word; words >> word;) {
        char* end = nullptr;
        const double value = std::strtod(word.c_str(), &end);
        if (*end != '\0')
            return {};
        numbers.push_back(value);
        if (first.empty())
            first = word;
    }
    if (numbers.size() == 6)
        return " (a sixth column: a confidence, as detectors write their results? a label line has five)";
    if (numbers.size() == 7)
        return " (seven columns: a confidence and a track id, as trackers write their results? a label line "
               "has five, a polygon four points or more)";
    if (numbers.size() >= 8 && numbers.size() % 2 == 0)
        return " (a polygon, as YOLOv8 segmentation labels are, but its coordinates do not come in x y "
               "pairs)";
    if (numbers.size() == 5 && std::fabs(numbers[0]) < 1e9 && numbers[0] == std::floor(numbers[0]) &&
        first != std::to_string(long(numbers[0])))
        return " (the class is a whole number: " + std::to_string(long(numbers[0])) + ", not " + first + ")";
    return {};
}

} // namespace

std::vector<TruthBox> readLabelFile(const std::string& path, int classes, std::vector<std::string>& warnings,
                                    bool& missing, LabelLineCounts* counts)
{
    LabelLineCounts none;
    LabelLineCounts& tally = counts ? *counts : none;
    std::vector<TruthBox> boxes;
    // (a directory opens, and reads as no lines; a named pipe opened waits for a writer for ever)
    missing = !isRegularFile(path);
    if (missing)
        return boxes;
    std::ifstream in(path);
    missing = !in;
    int number = 0;
    std::size_t skippedLines = 0;
    // The line of each box kept, by class and place to a ten-thousandth: an object labelled twice (a
    // double click in a labelling tool, a converter run twice into the same file) is one object.
    std::map<std::array<long, 5>, int> lineOfBox;
    for (std::string line; std::getline(in, line);) {
        if (++number == 1 && line.starts_with(kUtf8ByteOrderMark))
            line.erase(0, kUtf8ByteOrderMark.size());
        if (line.find('\0') != std::string::npos) { // UTF-16 (PowerShell's `>`) or no text at all
            warnings.push_back(path + ": " + binaryKindOf(line).value_or("a binary file") +
                               ", not a label file of text lines 'class x_center y_center width height': "
                               "its boxes are not read");
            ++skippedLines;
            boxes.clear(); // (lines before a run of zero bytes: a file padded after a crash)
            break;
        }
        if (line.ends_with('\r')) // a Windows line end (CRLF): the CR belongs to it, not to the line
            line.pop_back();
        std::istringstream fields(line);
        std::string first;
        if (!(fields >> first))
            continue; // blank line
        const std::string where = path + ":" + std::to_string(number) + ": ";
        TruthBox box;
        char* end = nullptr;
        const long id = std::strtol(first.c_str(), &end, 10);
        std::string extra;
        // (Ultralytics trains a detector on segmentation labels so too)
        const auto outline = *end == '\0' ? polygonBox(line) : std::nullopt;
        if (outline) {
            box = *outline;
        } else if (*end != '\0' || !(fields >> box.x >> box.y >> box.w >> box.h) || (fields >> extra)) {
            warnings.push_back(where + "expected 'class x_center y_center width height', found '" +
                               printableExcerpt(line) + "'" + labelLineHint(line) + "; line skipped");
            ++skippedLines;
            continue;
        }
        if (id < 0 || id >= classes) { // (the class as written: a huge one is not LONG_MAX)
            warnings.push_back(where + "class " + printableExcerpt(first) + " is outside 0.." +
                               std::to_string(classes - 1) + " (classes=" + std::to_string(classes) +
                               " in the .data file); line skipped");
            ++skippedLines;
            ++tally.classOutside;
            continue;
        }
        // A width or height over 1 (a converter's rounding on a full-image object): the part inside the
        // image is the box, as Darknet's correct_boxes clips it (cutting the side to 1 about the same
        // centre shrank an off-centre box: x 0.3, width 1.5 became 0.4, 0.8 where Darknet has 0.5, 1).
        for (auto [centre, side, name] :
             {std::tuple{&box.x, &box.w, "width"}, std::tuple{&box.y, &box.h, "height"}})
            if (*side > 1 && std::isfinite(*side)) {
                if (*side > 1.001f) // (rounding within a thousandth passes quietly, as before)
                    warnings.push_back(where + name + " " + std::to_string(*side) +
                                       " is over 1 (relative sizes are 0..1); the part inside the image "
                                       "is kept");
                const float low = std::max(0.0f, *centre - *side / 2),
                            high = std::min(1.0f, *centre + *side / 2);
                *centre = (low + high) / 2;
                *side = high - low;
            }
        const float eps = 1e-3f;
        if (!(box.w > 0 && box.h > 0 && box.x >= -eps && box.x <= 1 + eps && box.y >= -eps &&
              box.y <= 1 + eps)) {
            warnings.push_back(where +
                               "the box is not inside the image (x, y, width and height are relative: "
                               "0..1, width and height > 0); line skipped");
            ++skippedLines;
            continue;
        }
        box.classId = int(id);
        const auto at = [](float v) { return std::lround(double(v) * 1e4); };
        const auto [kept, added] =
            lineOfBox.try_emplace({id, at(box.x), at(box.y), at(box.w), at(box.h)}, number);
        if (!added) { // (mAP matches each detection to one truth: a copy would count as a missed object)
            warnings.push_back(where + "repeats the box of line " + std::to_string(kept->second) +
                               " (same class, same place); line skipped: a second copy of an object "
                               "is never matched by a detection and would lower recall and mAP");
            ++skippedLines;
            continue;
        }
        boxes.push_back(box);
        tally.polygons += outline.has_value(); // (counted as kept: a refused one is a bad line)
    }
    tally.skipped += skippedLines;
    return boxes;
}

// An image cropped and scaled to the network size (8-bit RGB or grey), with its boxes moved along.
struct DetectionDataset::Placed {
    Pixels pixels;
    std::vector<TruthBox> boxes;
};

const Pixels* DetectionDataset::cached(std::size_t index, std::optional<Pixels>& decoded) const
{
    std::lock_guard lock(cacheMutex_);
    if (cache_.size() != items_.size())
        cache_.resize(items_.size()); // once, before any entry is handed out
    if (cache_[index].empty() && decoded && cachedBytes_ + decoded->data.size() <= kCacheBytes) {
        cachedBytes_ += decoded->data.size();
        cache_[index] = std::move(*decoded);
        decoded.reset();
    }
    return cache_[index].empty() ? nullptr : &cache_[index];
}

bool DetectionDataset::load(std::size_t index, std::mt19937& random, int width, int height, Placed& placed,
                            std::string& warning) const
{
    const Item& item = items_[index];
    std::optional<Pixels> decoded;
    const Pixels* inCache = cached(index, decoded);
    if (!inCache) {
        std::string error;
        decoded = readPixels(item.image, c_, error);
        if (!decoded) {
            warning = error + "; skipped";
            return false;
        }
        inCache = cached(index, decoded); // kept there when it fits (then `decoded` is empty)
    }
    const Pixels& source = inCache ? *inCache : *decoded;
    const auto ow = float(source.width), oh = float(source.height);
    const DetectionAugmentation& a = augmentation_;
    // Darknet's jitter: each side moves in or out by up to jitter × the image size.
    float left = 0, right = 0, top = 0, bottom = 0;
    if (a.enabled && a.jitter > 0) {
        const float dw = a.jitter * ow, dh = a.jitter * oh;
        left = uniformFloat(random, -dw, dw);
        right = uniformFloat(random, -dw, dw);
        top = uniformFloat(random, -dh, dh);
        bottom = uniformFloat(random, -dh, dh);
    }
    if (a.letterbox) {
        // Grey bars that bring the image (before jitter) to the network's aspect ratio, added to both
        // sides as AlexeyAB's load_data_detection does, so the jitter's own aspect change survives.
        const float netAspect = float(width) / float(height);
        if (ow / oh > netAspect) {
            const float delta = (ow / netAspect - oh) / 2;
            top -= delta;
            bottom -= delta;
        } else {
            const float delta = (oh * netAspect - ow) / 2;
            left -= delta;
            right -= delta;
        }
    }
    const float cropW = std::max(1.0f, ow - left - right),
                cropH = std::max(1.0f, oh - top - bottom); // jitter ≥ 0.5
    const bool flip = a.enabled && a.flip && uniformFloat(random, 0, 1) < 0.5f;
    const double sx = double(width) / cropW, sy = double(height) / cropH;
    // The crop's edges onto the network's (x' = s·x + o on pixel edges); a pixel's index is its left edge
    // minus ½, so indices map with o + (s − 1)/2 (without it, a 2× zoom put the image half a pixel off
    // its boxes).
    const auto centred = [](double scale, double offset) { return offset + (scale - 1) / 2; };
    const Placement placement =
        flip ? Placement{-sx, centred(-sx, width + left * sx), sy, centred(sy, -top * sy)}
             : Placement{sx, centred(sx, -left * sx), sy, centred(sy, -top * sy)};
    placed.pixels = placePixels(source, width, height, placement);
    placed.boxes.clear();
    for (const TruthBox& box : item.boxes) {
        float l = std::clamp(((box.x - box.w / 2) * ow - left) / cropW, 0.0f, 1.0f);
        float r = std::clamp(((box.x + box.w / 2) * ow - left) / cropW, 0.0f, 1.0f);
        const float t = std::clamp(((box.y - box.h / 2) * oh - top) / cropH, 0.0f, 1.0f);
        const float b = std::clamp(((box.y + box.h / 2) * oh - top) / cropH, 0.0f, 1.0f);
        if (flip) {
            const float mirroredLeft = 1 - r;
            r = 1 - l;
            l = mirroredLeft;
        }
        if (r - l < kSmallestBoxSide || b - t < kSmallestBoxSide) // Darknet drops boxes this thin
            continue;
        placed.boxes.push_back({(l + r) / 2, (t + b) / 2, r - l, b - t, box.classId});
    }
    if (a.enabled && c_ == 3 && (a.hue != 0 || a.saturation != 1 || a.exposure != 1)) {
        const int hueShift = int(std::lround(uniformFloat(random, -a.hue, a.hue) * 256));
        const float saturation = randomScale(a.saturation, random),
                    exposure = randomScale(a.exposure, random);
        jitterHsv(placed.pixels, hueShift, saturation, exposure);
    }
    return true;
}

bool DetectionDataset::sample(std::size_t index, std::mt19937& random, int width, int height, float* image,
                              float* truth, std::string& warning) const
{
    Placed placed;
    if (!load(index, random, width, height, placed, warning))
        return false;
    if (augmentation_.enabled && augmentation_.mosaic && items_.size() > 1 &&
        uniformFloat(random, 0, 1) < 0.5f) {
        // Mosaic: the network-sized versions of four images, each showing one quadrant around a random
        // centre. Boxes are clipped to their quadrant; those left with under a quarter of their area go.
        const float cx = uniformFloat(random, 0.3f, 0.7f), cy = uniformFloat(random, 0.3f, 0.7f);
        const float quadrants[4][4] = {{0, 0, cx, cy}, {cx, 0, 1, cy}, {0, cy, cx, 1}, {cx, cy, 1, 1}};
        Pixels mosaic = placed.pixels;
        std::vector<TruthBox> boxes;
        for (int q = 0; q < 4; ++q) {
            Placed part;
            if (q == 0)
                part = placed;
            else if (!load(std::uniform_int_distribution<std::size_t>(0, items_.size() - 1)(random), random,
                           width, height, part, warning))
                return false;
            const auto* r = quadrants[q];
            const int x0 = int(r[0] * float(width)), y0 = int(r[1] * float(height));
            copyArea(part.pixels, mosaic, x0, y0, int(r[2] * float(width)) - x0,
                     int(r[3] * float(height)) - y0);
            for (const TruthBox& box : part.boxes) {
                const float l = std::max(box.x - box.w / 2, r[0]), rr = std::min(box.x + box.w / 2, r[2]);
                const float t = std::max(box.y - box.h / 2, r[1]), b = std::min(box.y + box.h / 2, r[3]);
                if (rr - l < kSmallestBoxSide || b - t < kSmallestBoxSide ||
                    (rr - l) * (b - t) < 0.25f * box.w * box.h)
                    continue;
                boxes.push_back({(l + rr) / 2, (t + b) / 2, rr - l, b - t, box.classId});
            }
        }
        placed.pixels = std::move(mosaic);
        placed.boxes = std::move(boxes);
    }
    const std::size_t plane = std::size_t(width) * std::size_t(height);
    for (int y = 0; y < height; ++y) {
        const std::uint8_t* row = placed.pixels.row(y);
        for (int x = 0; x < width; ++x)
            for (int ch = 0; ch < c_; ++ch)
                image[std::size_t(ch) * plane + std::size_t(y) * std::size_t(width) + std::size_t(x)] =
                    float(row[x * c_ + ch]) / 255.0f;
    }
    // Darknet shuffles the boxes so that, beyond `max`, a random subset is kept.
    std::shuffle(placed.boxes.begin(), placed.boxes.end(), random);
    for (std::size_t i = 0; i < placed.boxes.size() && i < std::size_t(maxBoxes_); ++i) {
        const TruthBox& box = placed.boxes[i];
        float* t = truth + 5 * i;
        t[0] = box.x;
        t[1] = box.y;
        t[2] = box.w;
        t[3] = box.h;
        t[4] = float(box.classId);
    }
    return true;
}

std::unique_ptr<DetectionDataset> loadDetectionDataset(const std::string& list, int classes, int width,
                                                       int height, int channels, int maxBoxes,
                                                       const DetectionAugmentation& augmentation,
                                                       std::string& error, std::vector<std::string>& warnings,
                                                       bool imagesNeeded, const std::atomic<bool>* cancelled)
{
    if (channels != 1 && channels != 3) {
        error =
            "detection data needs channels=1 (grey) or 3 (colour) in [net], not " + std::to_string(channels);
        return nullptr;
    }
    ImageListFile listed = readImageListFile(list, imagesNeeded); // missing images left out, counted
    if (!listed.opened) {
        const bool idxSet = listed.binaryKind.starts_with("IDX") || listed.binaryKind.starts_with("a gzip");
        error = listed.error + (idxSet ? "; a detector trains on a list of images with YOLO label files (IDX "
                                         "sets such as MNIST's are for classifiers)"
                                       : "");
        return nullptr;
    }
    if (!listed.workingFolderNote.empty())
        warnings.push_back(listed.workingFolderNote);
    // A list of the label files themselves (a `find -name '*.txt'` gone wrong): each would be read as an
    // image and fail, one sample after another, with the run already started.
    const auto isText = [](const ListedImage& image) { return lowerExtension(image.path) == ".txt"; };
    if (!listed.images.empty() && std::all_of(listed.images.begin(), listed.images.end(), isText)) {
        error = list + ":" + std::to_string(listed.images.front().line) + ": " +
                listed.images.front().written +
                ": the list names label files, not images: list the images (each label file is found beside "
                "its image, as Darknet finds it)";
        return nullptr;
    }
    // Label files among the images (`find train -type f`, a Roboflow export's folder): each was read as
    // an image that failed, and its boxes, as its own label file, counted twice in the summary.
    if (const auto labelFiles =
            std::size_t(std::count_if(listed.images.begin(), listed.images.end(), isText));
        labelFiles > 0) {
        const ListedImage& first = *std::find_if(listed.images.begin(), listed.images.end(), isText);
        warnings.push_back(list + ":" + std::to_string(first.line) + ": " + first.written +
                           " is a label file" +
                           (labelFiles > 1 ? " (and " + std::to_string(labelFiles - 1) + " more)" : "") +
                           ", not an image: left out (a list names images; each label file is found beside "
                           "its image)");
        std::erase_if(listed.images, isText);
    }
    std::vector<DetectionDataset::Item> items;
    DetectionDataset::Summary summary;
    std::string missingExample; // the first missing label file, for the messages
    std::vector<std::pair<std::string, std::string>> labelWarnings; // (warning, its kind)
    std::vector<std::string> fileWarnings;
    for (const ListedImage& image : listed.images) {
        if (cancelled && cancelled->load(std::memory_order_relaxed)) {
            error = "cancelled";
            return nullptr;
        }
        bool missing = false;
        const std::string labels = labelPathFor(image.path);
        DetectionDataset::Item item{image.path,
                                    readLabelFile(labels, classes, fileWarnings, missing, &summary.lines)};
        for (std::string& warning : fileWarnings) {
            std::string kind = labelWarningKind(warning, labels);
            labelWarnings.emplace_back(std::move(warning), std::move(kind));
        }
        fileWarnings.clear();
        summary.missingLabels += missing;
        if (missing && missingExample.empty())
            missingExample = labels + " for " + image.path;
        summary.emptyImages += item.boxes.empty();
        summary.boxes += item.boxes.size();
        items.push_back(std::move(item));
    }
    keepSomeLabelWarnings(labelWarnings, warnings);
    if (summary.lines.polygons > 0)
        warnings.push_back(
            list + ": " +
            counted(summary.lines.polygons, "label line is a polygon", "label lines are polygons") +
            " (YOLOv8 segmentation labels): taken as " +
            (summary.lines.polygons == 1 ? "its bounding box" : "their bounding boxes"));
    const std::string& missingText = listed.missingText;
    const std::size_t missingImages = listed.missing;
    if (items.empty()) {
        error = missingImages > 0 ? missingText + ": no image of the list exists"
                                  : list + ": the image list is empty";
        return nullptr;
    }
    if (missingImages > 0)
        warnings.push_back(missingText + ": left out");
    summary.images = items.size();
    const std::string where = "(looked for " + missingExample +
                              "; labels go in a labels/ folder beside images/, as Darknet looks for them, or "
                              "next to each image)";
    if (summary.boxes == 0) { // a detector would learn that there is never anything to find
        error = list + ": no image has a box: " +
                (summary.missingLabels > 0
                     ? std::to_string(summary.missingLabels) + " of " + std::to_string(summary.images) +
                           " images have no label file " + where
                 : summary.lines.skipped > 0
                     ? "every label line was skipped (" + std::to_string(summary.lines.skipped) +
                           " bad lines, each named above)"
                     : std::string("every label file is empty"));
        return nullptr;
    }
    // A class without a single box: the network cannot learn it. Most often the ids were numbered from
    // 1 (then class 0 is empty and the last class's lines are out of range; other bad lines, a repeated
    // box say, are no sign of it).
    std::vector<std::size_t> perClass(std::size_t(std::max(classes, 0)));
    for (const DetectionDataset::Item& item : items)
        for (const TruthBox& box : item.boxes)
            ++perClass[std::size_t(box.classId)];
    std::string unseen;
    for (std::size_t c = 0; c < perClass.size(); ++c)
        if (perClass[c] == 0)
            unseen += (unseen.empty() ? "" : ", ") + std::to_string(c);
    if (!unseen.empty())
        warnings.push_back(list + ": no box of class " + unseen + " (of classes 0.." +
                           std::to_string(classes - 1) + "): nothing to learn or measure " +
                           (unseen.find(',') == std::string::npos ? "it" : "them") + " by" +
                           (perClass.front() == 0 && summary.lines.classOutside > 0
                                ? "; class ids count from 0: were they numbered from 1?"
                                : ""));
    if (summary.missingLabels > 0)
        warnings.push_back(list + ": " + std::to_string(summary.missingLabels) + " of " +
                           std::to_string(summary.images) +
                           " images have no label file and count as background " + where);
    // More boxes than the heads read (max=: pjreddie's default 90, AlexeyAB's 200): Darknet keeps a random
    // subset each time, without a word; crowded images then teach less than they hold.
    std::size_t crowded = 0;
    const DetectionDataset::Item* mostBoxes = nullptr;
    for (const DetectionDataset::Item& item : items)
        if (maxBoxes > 0 && item.boxes.size() > std::size_t(maxBoxes)) {
            ++crowded;
            if (!mostBoxes || item.boxes.size() > mostBoxes->boxes.size())
                mostBoxes = &item;
        }
    if (mostBoxes)
        warnings.push_back(list + ": " + std::to_string(crowded) +
                           (crowded == 1 ? " image has" : " images have") +
                           " more boxes than the detection heads read (max=" + std::to_string(maxBoxes) +
                           "): each iteration learns a random " + std::to_string(maxBoxes) + " of them; " +
                           mostBoxes->image + " has " + std::to_string(mostBoxes->boxes.size()) +
                           ": set max=" + std::to_string(mostBoxes->boxes.size()) +
                           " or more in each head (AlexeyAB's default is 200, pjreddie's 90)");
    return std::make_unique<DetectionDataset>(std::move(items), classes, width, height, channels, maxBoxes,
                                              augmentation, summary);
}

} // namespace nw
