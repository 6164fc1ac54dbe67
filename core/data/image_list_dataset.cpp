#include "data/dataset.h"

#include "data/class_names.h"
#include "data/image_list_file.h"

#include "image/image.h"
#include "image/portable_pixel_ops.h"
#include "util/uniform_float.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

namespace nw {

namespace {

// Darknet's classification data: a list of image paths, the class of each found by which label
// string its path contains (exactly one must match; with one class, a path without it is a negative,
// label −1, truth all zero, as Darknet's fill_truth). Training images get Darknet's augmentation.
class ImageListDataset final : public ClassificationDataset {
public:
    ImageListDataset(std::vector<std::string> paths, std::vector<int> labels, int classes, int w, int h,
                     int c, const Augmentation& augmentation, unsigned seed)
        : paths_(std::move(paths)), labels_(std::move(labels)), classes_(classes), w_(w), h_(h), c_(c),
          augmentation_(augmentation), seed_(seed)
    {
    }
    std::size_t size() const override { return paths_.size(); }
    int width() const override { return w_; }
    int height() const override { return h_; }
    int channels() const override { return c_; }
    int classes() const override { return classes_; }
    int label(std::size_t index) const override { return labels_[index]; }

    bool image(std::size_t index, float* out, std::string& warning) const override
    {
        if (!augmentation_.enabled)
            return read(index, nullptr, out, warning);
        // Outside training's loader: a stream of its own per call.
        std::mt19937 random(seed_ * 2654435761u + unsigned(index) * 40503u + calls_++);
        return read(index, &random, out, warning);
    }
    // Training: augmented with the loader's stream for this sample (repeatable on resume, and
    // whichever of the loader's workers prepares it).
    bool sample(std::size_t index, std::mt19937& random, int, int, float* image, float* truth,
                std::string& warning) const override
    {
        if (!read(index, augmentation_.enabled ? &random : nullptr, image, warning))
            return false;
        if (label(index) >= 0) // (a one-class set's negatives: all zero)
            truth[label(index)] = 1.0f;
        return true;
    }

private:
    bool read(std::size_t index, std::mt19937* random, float* out, std::string& warning) const
    {
        std::string error;
        auto loaded = loadImage(paths_[index], c_, error);
        if (!loaded) {
            warning = error + "; skipped";
            return false;
        }
        Image image = std::move(*loaded);
        image = random ? augment(image, *random) : centerCropResize(image, w_, h_);
        std::copy(image.data.begin(), image.data.end(), out);
        return true;
    }

    // Random scale (shorter side in [min_crop, max_crop]) and aspect, a random crop, a flip, and
    // hue/saturation/exposure jitter in HSV, as Darknet's classifier training does.
    Image augment(const Image& in, std::mt19937& random) const
    {
        const int low = std::max(1, augmentation_.minCrop > 0 ? augmentation_.minCrop : w_);
        const int high = std::max(low, augmentation_.maxCrop > 0 ? augmentation_.maxCrop : w_);
        const int side = low + int(uniformFloat(random, 0, 1) * float(high - low + 1));
        // Darknet's rand_scale(aspect) on the width alone: the width-to-height ratio moves by a factor
        // in [1/a, a] (aspect=.75, as pjreddie's classifier cfgs set it, as much as 1.333).
        const float aspect = randomScale(augmentation_.aspect, random);
        int sw = in.width, sh = in.height;
        if (sw < sh) {
            sh = int(float(sh) * float(side) / float(sw));
            sw = side;
        } else {
            sw = int(float(sw) * float(side) / float(sh));
            sh = side;
        }
        sw = std::max(w_, int(float(sw) * aspect));
        sh = std::max(h_, sh);
        const int dx = int(uniformFloat(random, 0, 1) * float(sw - w_ + 1)),
                  dy = int(uniformFloat(random, 0, 1) * float(sh - h_ + 1));
        const bool flip = augmentation_.flip && uniformFloat(random, 0, 1) < 0.5f;
        Image out{w_, h_, c_, std::vector<float>(std::size_t(w_) * std::size_t(h_) * std::size_t(c_))};
        // Only the part of the scaled image the crop reads is made (the whole of a 1×100,000 image
        // scaled to a short side of 28 held 3.8 GB).
        if (augmentation_.angle > 0) {
            // Darknet's rotate_crop_image: the crop turned about its centre by ±angle degrees, sampled
            // bilinearly from the scaled image (black outside it): the window within reach of the
            // crop's centre, half its diagonal and a pixel for the bilinear neighbours.
            const float radians =
                (uniformFloat(random, 0, 1) * 2 - 1) * augmentation_.angle * 3.14159265f / 180;
            const float cx = float(dx) + float(w_) / 2, cy = float(dy) + float(h_) / 2;
            const float reach = std::hypot(float(w_), float(h_)) / 2 + 2;
            const int left = std::max(0, int(std::floor(cx - reach))),
                      top = std::max(0, int(std::floor(cy - reach)));
            const int right = std::min(sw, int(std::ceil(cx + reach))),
                      bottom = std::min(sh, int(std::ceil(cy + reach)));
            const Image near = resizeDarknetWindow(in, sw, sh, left, top, right - left, bottom - top);
            rotateCrop(near, left, top, cx, cy, radians, flip, out);
        } else {
            const Image crop = resizeDarknetWindow(in, sw, sh, dx, dy, w_, h_); // (inside: dx <= sw - w_)
            for (int ch = 0; ch < c_; ++ch)
                for (int y = 0; y < h_; ++y)
                    for (int x = 0; x < w_; ++x)
                        out.at(x, y, ch) = crop.at(flip ? w_ - 1 - x : x, y, ch);
        }
        if (c_ == 3 &&
            (augmentation_.hue != 0 || augmentation_.saturation != 1 || augmentation_.exposure != 1))
            distort(out, random);
        return out;
    }

    // out(x, y) = the scaled image at the point (x, y) of a w_ × h_ window centred on (cx, cy), turned by
    // `radians` (and mirrored first with `flip`); bilinear, 0 outside the scaled image.
    // `source` is the window at (left, top) of the scaled image that holds every point the crop reads
    // (coordinates stay the whole image's, so the values are those of the whole image).
    void rotateCrop(const Image& source, int left, int top, float cx, float cy, float radians, bool flip,
                    Image& out) const
    {
        const float c = std::cos(radians), s = std::sin(radians);
        auto pixel = [&](int x, int y, int ch) {
            x -= left;
            y -= top;
            return x < 0 || y < 0 || x >= source.width || y >= source.height ? 0.0f : source.at(x, y, ch);
        };
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                const float u = float(flip ? w_ - 1 - x : x) - float(w_) / 2 + 0.5f,
                            v = float(y) - float(h_) / 2 + 0.5f;
                const float sx = c * u - s * v + cx - 0.5f, sy = s * u + c * v + cy - 0.5f;
                const int x0 = int(std::floor(sx)), y0 = int(std::floor(sy));
                const float fx = sx - float(x0), fy = sy - float(y0);
                for (int ch = 0; ch < c_; ++ch)
                    out.at(x, y, ch) =
                        (1 - fy) * ((1 - fx) * pixel(x0, y0, ch) + fx * pixel(x0 + 1, y0, ch)) +
                        fy * ((1 - fx) * pixel(x0, y0 + 1, ch) + fx * pixel(x0 + 1, y0 + 1, ch));
            }
    }

    // rand_scale(s): uniform between 1 and s (either way round, as pj's rand_uniform), inverted with
    // probability ½ (Darknet's).
    static float randomScale(float s, std::mt19937& random)
    {
        const float scale =
            1 + uniformFloat(random, 0, 1) * (s > 0 ? s - 1 : 0); // (0 or less: its inverse is unbounded)
        return uniformFloat(random, 0, 1) < 0.5f ? scale : 1 / scale;
    }

    void distort(Image& image, std::mt19937& random) const
    {
        const float hue = (uniformFloat(random, 0, 1) * 2 - 1) * augmentation_.hue;
        const float saturation = randomScale(augmentation_.saturation, random);
        const float exposure = randomScale(augmentation_.exposure, random);
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                float h, s, v;
                portable::rgbToHsv(image.at(x, y, 0), image.at(x, y, 1), image.at(x, y, 2), h, s, v);
                // (s and v unclamped, as Darknet's distort_image: a bright pixel made brighter lifts
                // its other channels too; only the RGB result is clamped)
                h = std::fmod(h + hue * 360.0f + 360.0f, 360.0f);
                s *= saturation;
                v *= exposure;
                float r, g, b;
                portable::hsvToRgb(h, s, v, r, g, b);
                image.at(x, y, 0) = std::clamp(r, 0.0f, 1.0f);
                image.at(x, y, 1) = std::clamp(g, 0.0f, 1.0f);
                image.at(x, y, 2) = std::clamp(b, 0.0f, 1.0f);
            }
    }

    std::vector<std::string> paths_;
    std::vector<int> labels_;
    int classes_, w_, h_, c_;
    Augmentation augmentation_;
    unsigned seed_;
    mutable std::atomic<unsigned> calls_{0};
};

} // namespace

std::unique_ptr<ClassificationDataset>
loadImageListDataset(const std::string& listPath, const std::string& labelsPath, int classes, int width,
                     int height, int channels, const Augmentation& augmentation, unsigned seed,
                     std::string& error, std::vector<std::string>& warnings, const std::string& classesFrom)
{
    if (channels != 1 && channels != 3) {
        error = "image lists need channels=1 (grey) or 3 (colour) in [net], not " + std::to_string(channels);
        return nullptr;
    }
    const ImageListFile listed = readImageListFile(listPath, true); // missing images left out, counted
    if (!listed.opened) {
        error = listed.error;
        return nullptr;
    }
    if (listed.images.empty()) {
        error = listed.missing > 0 ? listed.missingText + ": no image of the list exists"
                                   : listPath + ": the image list is empty";
        return nullptr;
    }
    if (listed.missing > 0)
        warnings.push_back(listed.missingText + ": left out");
    if (!listed.workingFolderNote.empty())
        warnings.push_back(listed.workingFolderNote);
    const std::size_t lineWarnings = warnings.size(); // (a class without an image goes before them)
    const auto loaded = loadNames(labelsPath, error, "a labels file"); // classify reads it alike
    if (!loaded)
        return nullptr;
    const std::vector<std::string>& labels = *loaded;
    if (labels.empty()) {
        error = labelsPath + ": no labels in the file (one class name per line; an image's class is the "
                             "label its path contains)";
        return nullptr;
    }
    if (int(labels.size()) != classes) {
        error = labelsPath + ": " + std::to_string(labels.size()) +
                " labels but classes=" + std::to_string(classes) +
                (classesFrom.empty() ? std::string()
                                     : " in " + classesFrom +
                                           ": one label per line for each class, or classes= set to the "
                                           "labels' count");
        return nullptr;
    }
    if (auto warning = namesEncodingWarning(labels, labelsPath)) // (paths still match byte for byte)
        warnings.push_back(*warning);
    // (every path with it then matched two labels, and was called "a label that is part of another")
    for (std::size_t c = 1; c < labels.size(); ++c)
        if (const auto same = std::find(labels.begin(), labels.begin() + std::ptrdiff_t(c), labels[c]);
            same != labels.begin() + std::ptrdiff_t(c)) {
            error = labelsPath + ":" + std::to_string(c + 1) + ": the label '" + labels[c] + "' is line " +
                    std::to_string(same - labels.begin() + 1) +
                    "'s too: each class needs a name of its own (an image's class is the label its path "
                    "contains)";
            return nullptr;
        }
    std::vector<std::string> kept;
    std::vector<int> classOf;
    std::vector<std::size_t> perClass(labels.size(), 0);
    const auto lower = [](std::string text) {
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        return text;
    };
    // Each skipped line is named up to a point; a label inside another (t-shirt and shirt) skips every
    // line of a class, and hundreds of warnings hid the rest.
    constexpr std::size_t kLinesNamed = 10;
    std::size_t skipped = 0;
    for (const ListedImage& image : listed.images) {
        std::vector<std::size_t> matched;
        for (std::size_t c = 0; c < labels.size(); ++c)
            if (image.written.find(labels[c]) != std::string::npos)
                matched.push_back(c);
        if (matched.empty() && classes == 1) { // a binary classifier's negative
            kept.push_back(image.path);
            classOf.push_back(-1);
            continue;
        }
        if (matched.size() != 1) {
            if (++skipped > kLinesNamed)
                continue;
            std::string why = "contains " + std::to_string(matched.size()) + " of the labels";
            if (matched.size() > 1)
                why += " ('" + labels[matched[0]] + "' and '" + labels[matched[1]] +
                       "'; a label that is part of another, or of a folder name, matches both)";
            for (std::size_t c = 0; c < labels.size() && matched.empty(); ++c)
                if (const auto text = labels[c].find_first_not_of(" \t");
                    text > 0 && text != std::string::npos &&
                    image.written.find(labels[c].substr(text)) != std::string::npos) {
                    why += " ('" + labels[c].substr(text) + "' only without the space before it on line " +
                           std::to_string(c + 1) + " of " + labelsPath +
                           ": labels match as written, spaces too, as Darknet's do)";
                    break;
                } else if (lower(image.written).find(lower(labels[c])) != std::string::npos) {
                    why += " ('" + labels[c] +
                           "' only when case is ignored: labels match as written, as Darknet's do)";
                    break;
                }
            warnings.push_back(listPath + ":" + std::to_string(image.line) + ": " + image.written + " " +
                               why + " (exactly one is needed); skipped");
            continue;
        }
        kept.push_back(image.path);
        classOf.push_back(int(matched[0]));
        ++perClass[matched[0]];
    }
    if (skipped > kLinesNamed)
        warnings.push_back(listPath + ": and " + std::to_string(skipped - kLinesNamed) +
                           " more lines skipped alike (none or several of the labels in their paths); " +
                           std::to_string(skipped) + " of " + std::to_string(listed.images.size()) +
                           " in all");
    if (kept.empty() || std::count(classOf.begin(), classOf.end(), -1) == std::ptrdiff_t(classOf.size())) {
        // (one class: every path a negative is as wrong as none matching: a mistyped label, say)
        error = listPath + ": no image path contains " +
                (classes == 1 ? "the label '" + labels[0] + "'" : std::string("exactly one of the labels")) +
                " in " + labelsPath;
        return nullptr;
    }
    // A class without an image cannot be learnt: said once, naming the labels' line, and first: a set that
    // lost a class (every path of it skipped) trains and scores as if it were whole.
    std::string empty;
    std::size_t emptyCount = 0;
    for (std::size_t c = 0; c < labels.size(); ++c)
        if (perClass[c] == 0 && emptyCount++ < 5)
            empty +=
                (empty.empty() ? "" : ", ") +
                ("'" + labels[c] + "' (line " + std::to_string(c + 1) +
                 (labels[c].starts_with(' ') || labels[c].starts_with('\t') ? ", a space before it)" : ")"));
    if (emptyCount > 0)
        warnings.insert(warnings.begin() + std::ptrdiff_t(lineWarnings),
                        labelsPath + ": " + std::to_string(emptyCount) + " of " +
                            std::to_string(labels.size()) +
                            (emptyCount == 1 ? " classes has no image in " : " classes have no image in ") +
                            listPath + ": " + empty + (emptyCount > 5 ? ", …" : "") +
                            "; nothing of them is learnt (train=) or scored (valid=) from this list");
    return std::make_unique<ImageListDataset>(std::move(kept), std::move(classOf), classes, width, height,
                                              channels, augmentation, seed);
}

} // namespace nw
