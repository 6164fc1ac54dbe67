#include "data/make_shapes.h"

#include "image/image_opencv.h"
#include "util/atomic_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <opencv2/imgcodecs.hpp> // (IMWRITE_ constants; writing goes through image_opencv.h)
#include <opencv2/imgproc.hpp>
#include <random>
#include <set>
#include <sstream>

namespace nw {

namespace {

using std::numbers::pi; // (two sources of one unity batch may both say it; two constants would clash)

enum ShapeClass { Circle, Square, Triangle, Star, Cross };

struct Placed {
    cv::Rect2f box; // pixels, tight around the drawn shape
};

class Generator {
public:
    Generator(const ShapesOptions& options, unsigned imageIndex)
        : random_(options.seed * 2246822519u + imageIndex * 3266489917u + 374761393u), w_(options.width),
          h_(options.height)
    {
    }

    // One image and its labels ("class x y w h" lines, relative centre/size).
    std::pair<cv::Mat, std::string> image()
    {
        cv::Mat canvas = background();
        std::vector<Placed> placed;
        std::ostringstream labels;
        const int objects = 1 + int(uniform(0, 6));
        for (int o = 0; o < objects; ++o)
            for (int attempt = 0; attempt < 30; ++attempt) {
                const auto shape = ShapeClass(int(uniform(0, 5)));
                const std::vector<cv::Point2f> outline = shapeOutline(shape);
                const cv::Rect2f box = bounds(outline);
                if (!fits(box, placed))
                    continue;
                draw(canvas, outline, box);
                placed.push_back({box});
                labels << int(shape) << ' ' << (box.x + box.width / 2) / float(w_) << ' '
                       << (box.y + box.height / 2) / float(h_) << ' ' << box.width / float(w_) << ' '
                       << box.height / float(h_) << '\n';
                break;
            }
        addNoise(canvas);
        return {canvas, labels.str()};
    }

private:
    double uniform(double low, double high)
    {
        return std::uniform_real_distribution<double>(low, high)(random_);
    }

    cv::Scalar randomColour(double minValue = 0, double maxValue = 255)
    {
        return {uniform(minValue, maxValue), uniform(minValue, maxValue), uniform(minValue, maxValue)};
    }

    // A smooth two-colour gradient, a mottled texture, soft blobs and clutter strokes (lines, arcs,
    // open zig-zags, dots) that never close into one of the classes' outlines.
    cv::Mat background()
    {
        cv::Mat canvas(h_, w_, CV_8UC3);
        const cv::Scalar a = randomColour(), b = randomColour();
        const double angle = uniform(0, 2 * pi), ca = std::cos(angle), sa = std::sin(angle);
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                const double t =
                    std::clamp(0.5 + ((x - w_ / 2.0) * ca + (y - h_ / 2.0) * sa) / (w_ + h_), 0.0, 1.0);
                canvas.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<uchar>(a[0] * (1 - t) + b[0] * t),
                                                       cv::saturate_cast<uchar>(a[1] * (1 - t) + b[1] * t),
                                                       cv::saturate_cast<uchar>(a[2] * (1 - t) + b[2] * t));
            }
        const int cells = 4 + int(uniform(0, 12));
        cv::Mat texture(cells, cells, CV_32FC3);
        for (int y = 0; y < cells; ++y)
            for (int x = 0; x < cells; ++x)
                texture.at<cv::Vec3f>(y, x) = {float(uniform(-1, 1)), float(uniform(-1, 1)),
                                               float(uniform(-1, 1))};
        cv::resize(texture, texture, canvas.size(), 0, 0, cv::INTER_CUBIC);
        cv::Mat base;
        canvas.convertTo(base, CV_32FC3);
        base += texture * uniform(10, 45);
        base.convertTo(canvas, CV_8UC3);

        cv::Mat blobs = canvas.clone();
        for (int i = int(uniform(0, 6)); i > 0; --i)
            cv::ellipse(blobs, {int(uniform(0, w_)), int(uniform(0, h_))},
                        {int(uniform(0.05, 0.3) * w_), int(uniform(0.05, 0.3) * h_)}, uniform(0, 180), 0, 360,
                        randomColour(), cv::FILLED, cv::LINE_AA);
        cv::GaussianBlur(blobs, blobs, {0, 0}, 0.06 * std::min(w_, h_));
        cv::addWeighted(canvas, 0.5, blobs, 0.5, 0, canvas);

        for (int i = int(uniform(8, 40)); i > 0; --i) {
            const cv::Scalar colour = randomColour();
            const int thickness = 1 + int(uniform(0, 3));
            const cv::Point start(int(uniform(0, w_)), int(uniform(0, h_)));
            switch (int(uniform(0, 4))) {
            case 0:
                cv::line(canvas, start, {int(uniform(0, w_)), int(uniform(0, h_))}, colour, thickness,
                         cv::LINE_AA);
                break;
            case 1: {
                const int r = int(uniform(0.03, 0.25) * std::min(w_, h_));
                const double from = uniform(0, 360);
                cv::ellipse(canvas, start, {r, r}, 0, from, from + uniform(40, 200), colour, thickness,
                            cv::LINE_AA);
                break;
            }
            case 2: {
                std::vector<cv::Point> zigzag{start};
                for (int k = int(uniform(2, 5)); k > 0; --k)
                    zigzag.push_back(zigzag.back() + cv::Point(int(uniform(-0.15, 0.15) * w_),
                                                               int(uniform(-0.15, 0.15) * h_)));
                cv::polylines(canvas, zigzag, false, colour, thickness, cv::LINE_AA);
                break;
            }
            default:
                cv::circle(canvas, start, 1 + int(uniform(0, 3)), colour, cv::FILLED, cv::LINE_AA);
            }
        }
        return canvas;
    }

    std::vector<cv::Point2f> shapeOutline(ShapeClass shape)
    {
        const double side = std::min(w_, h_);
        const double size = side * std::exp(uniform(std::log(0.08), std::log(0.42))); // log-uniform
        const double stretch = std::exp(uniform(-0.25, 0.25));                        // mild aspect change
        const double turn = uniform(0, 2 * pi);
        std::vector<cv::Point2d> unit; // points with radius ≈ 1 around the origin
        switch (shape) {
        case Circle:
            for (int k = 0; k < 48; ++k)
                unit.emplace_back(std::cos(2 * pi * k / 48), std::sin(2 * pi * k / 48));
            break;
        case Square:
            for (int k = 0; k < 4; ++k)
                unit.emplace_back(std::cos(pi / 4 + pi / 2 * k) * std::sqrt(2.0) * 0.8,
                                  std::sin(pi / 4 + pi / 2 * k) * std::sqrt(2.0) * 0.8);
            break;
        case Triangle:
            for (int k = 0; k < 3; ++k)
                unit.emplace_back(std::cos(-pi / 2 + 2 * pi / 3 * k), std::sin(-pi / 2 + 2 * pi / 3 * k));
            break;
        case Star:
            for (int k = 0; k < 10; ++k) {
                const double r = k % 2 ? 0.42 : 1.0;
                unit.emplace_back(r * std::cos(-pi / 2 + pi / 5 * k), r * std::sin(-pi / 2 + pi / 5 * k));
            }
            break;
        case Cross: {
            const double a = 0.3, b = 1.0; // arm half-width and half-length
            const double xs[] = {a, a, b, b, a, a, -a, -a, -b, -b, -a, -a};
            const double ys[] = {-b, -a, -a, a, a, b, b, a, a, -a, -a, -b};
            for (int k = 0; k < 12; ++k)
                unit.emplace_back(xs[k], ys[k]);
            break;
        }
        }
        const double cx = uniform(0, w_), cy = uniform(0, h_), radius = size / 2;
        std::vector<cv::Point2f> outline;
        for (const cv::Point2d& p : unit) {
            const double x = p.x * radius * stretch, y = p.y * radius / stretch;
            outline.emplace_back(float(cx + x * std::cos(turn) - y * std::sin(turn)),
                                 float(cy + x * std::sin(turn) + y * std::cos(turn)));
        }
        return outline;
    }

    static cv::Rect2f bounds(const std::vector<cv::Point2f>& outline)
    {
        float left = outline[0].x, right = left, top = outline[0].y, bottom = top;
        for (const cv::Point2f& p : outline) {
            left = std::min(left, p.x);
            right = std::max(right, p.x);
            top = std::min(top, p.y);
            bottom = std::max(bottom, p.y);
        }
        return {left, top, right - left, bottom - top};
    }

    // Inside the image, and hiding at most a third of any earlier shape's box.
    bool fits(const cv::Rect2f& box, const std::vector<Placed>& placed) const
    {
        if (box.x < 1 || box.y < 1 || box.x + box.width > float(w_ - 1) || box.y + box.height > float(h_ - 1))
            return false;
        return std::none_of(placed.begin(), placed.end(), [&](const Placed& p) {
            const float hidden = (p.box & box).area();
            return hidden > p.box.area() / 3 || hidden > box.area() / 2;
        });
    }

    // A solid or outlined shape in a colour that stands out from what lies under it.
    void draw(cv::Mat& canvas, const std::vector<cv::Point2f>& outline, const cv::Rect2f& box)
    {
        const cv::Rect area = cv::Rect(box) & cv::Rect(0, 0, w_, h_);
        const cv::Scalar under = area.area() > 0 ? cv::mean(canvas(area)) : cv::Scalar();
        cv::Scalar colour;
        for (int attempt = 0; attempt < 20; ++attempt) {
            colour = randomColour();
            if (std::abs(colour[0] - under[0]) + std::abs(colour[1] - under[1]) +
                    std::abs(colour[2] - under[2]) >
                150)
                break;
        }
        std::vector<cv::Point> points;
        for (const cv::Point2f& p : outline)
            points.emplace_back(int(std::lround(p.x * 16)), int(std::lround(p.y * 16)));
        const std::vector<std::vector<cv::Point>> polygons{points};
        if (uniform(0, 1) < 0.8) {
            cv::fillPoly(canvas, polygons, colour, cv::LINE_AA, 4);
        } else {
            const int thickness = std::max(2, int(std::min(box.width, box.height) / 10));
            cv::polylines(canvas, polygons, true, colour, thickness, cv::LINE_AA, 4);
        }
    }

    void addNoise(cv::Mat& canvas)
    {
        cv::Mat noise(canvas.size(), CV_16SC3);
        cv::theRNG().state = random_() | 1;
        cv::randn(noise, 0, uniform(2, 12));
        cv::Mat wide;
        canvas.convertTo(wide, CV_16SC3);
        wide += noise;
        wide.convertTo(canvas, CV_8UC3);
        if (uniform(0, 1) < 0.3)
            cv::GaussianBlur(canvas, canvas, {3, 3}, 0);
    }

    std::mt19937 random_;
    int w_, h_;
};

std::string joinLines(const std::vector<std::string>& lines)
{
    std::string text;
    for (const std::string& line : lines)
        text += line + "\n";
    return text;
}

// A set made again in the folder of a larger one: the earlier images this one did not write (and their
// labels) go, so the folders hold the set the lists name (detect on valid/ showed images of both).
// Only names make-shapes writes (six digits, .jpg or .txt) in its own train/ and valid/ are touched.
void removeEarlierImages(const std::filesystem::path& root, const std::vector<std::string>& trainList,
                         const std::vector<std::string>& validList)
{
    namespace fs = std::filesystem;
    std::set<std::string> written;
    for (const std::vector<std::string>* list : {&trainList, &validList})
        for (const std::string& image : *list) {
            written.insert(image);
            written.insert(fs::path(image).replace_extension(".txt").string());
        }
    const auto madeByUs = [](const fs::path& file) {
        const std::string stem = file.stem().string(), extension = file.extension().string();
        return stem.size() == 6 &&
               std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
               (extension == ".jpg" || extension == ".txt");
    };
    for (const char* folder : {"train", "valid"}) {
        std::error_code ec;
        std::vector<fs::path> stale;
        for (const fs::directory_entry& entry : fs::directory_iterator(root / folder, ec))
            if (entry.is_regular_file(ec) && madeByUs(entry.path()) && !written.count(entry.path().string()))
                stale.push_back(entry.path());
        for (const fs::path& file : stale)
            fs::remove(file, ec); // (one that cannot go stays, as before: the lists do not name it)
    }
}

} // namespace

const std::vector<std::string>& shapeClassNames()
{
    static const std::vector<std::string> names{"circle", "square", "triangle", "star", "cross"};
    return names;
}

std::optional<std::string> makeShapes(const std::string& outDir, const ShapesOptions& options)
{
    if (options.count < 2)
        return "--count must be at least 2 (one training and one validation image)";
    if (options.width < 32 || options.height < 32)
        return "--size must be at least 32x32";
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path root = fs::absolute(outDir, ec);
    // A set being made says so in its folder until its shapes.data is written: one cut short (Ctrl+C, a
    // full disk, the studio closed) is make-shapes' own to make again, not "another data set's files"
    // that blocked every later try.
    const fs::path unfinished = root / ".make-shapes-unfinished";
    const bool earlierSet = fs::exists(root / "shapes.data", ec) || fs::exists(unfinished, ec);
    // Another data set's folder (AlexeyAB's layout has data/train.txt too) is not written over: its
    // lists and images were replaced without a word. An earlier set (its shapes.data) is renewed.
    if (!earlierSet) {
        std::vector<std::string> held;
        for (const char* name : {"train.txt", "valid.txt", "shapes.names"})
            if (fs::exists(root / name, ec))
                held.push_back(name);
        for (const char* folder : {"train", "valid"})
            if (fs::is_directory(root / folder, ec) && !fs::is_empty(root / folder, ec))
                held.push_back(std::string(folder) + "/");
        if (!held.empty()) {
            std::string names;
            for (const std::string& name : held)
                names += (names.empty() ? "" : ", ") + name;
            return root.string() + " already holds " + names +
                   " without a shapes.data: another data set's files, which make-shapes would write over; "
                   "give a new or empty folder";
        }
    }
    for (const char* folder : {"train", "valid"}) {
        fs::create_directories(root / folder, ec);
        if (ec)
            return "cannot create " + (root / folder).string() + ": " + ec.message();
    }
    if (auto problem = writeFileInPlace(unfinished.string(), "make-shapes is writing this data set\n"))
        return problem;
    const int validCount = std::max(1, options.count / 10);
    std::vector<std::string> trainList, validList;
    for (int i = 0; i < options.count; ++i) {
        const bool valid = i >= options.count - validCount;
        char name[32];
        std::snprintf(name, sizeof name, "%06d", i + 1);
        const fs::path image = root / (valid ? "valid" : "train") / (std::string(name) + ".jpg");
        Generator generator(options, unsigned(i));
        auto [canvas, labels] = generator.image();
        if (auto problem = writeImageFile(image.string(), canvas, {cv::IMWRITE_JPEG_QUALITY, 92}))
            return problem;
        fs::path labelPath = image;
        labelPath.replace_extension(".txt");
        if (auto problem = writeFileInPlace(labelPath.string(), labels))
            return problem;
        (valid ? validList : trainList).push_back(image.string());
        if (options.progress && ((i + 1) % 50 == 0 || i + 1 == options.count))
            options.progress(i + 1, options.count);
    }
    if (earlierSet)
        removeEarlierImages(root, trainList, validList);
    // Absolute paths, so Darknet (which reads them from its working folder) takes the set too — unless
    // the folder's path has a space: Darknet's reader drops every space in a value, so then the names
    // are written relative, as Netwright resolves them beside the .data file.
    fs::create_directories(root / "backup", ec); // (found beside the .data only once it exists)
    const std::string rootText = root.string();
    const bool spaced = rootText.find_first_of(" \t") != std::string::npos;
    const auto where = [&](const char* name) { return spaced ? std::string(name) : (root / name).string(); };
    const std::string data = "classes = " + std::to_string(shapeClassNames().size()) + "\n" +
                             "train = " + where("train.txt") + "\nvalid = " + where("valid.txt") +
                             "\nnames = " + where("shapes.names") + "\nbackup = " + where("backup") + "\n";
    for (const auto& [file, text] : {std::pair{root / "train.txt", joinLines(trainList)},
                                     std::pair{root / "valid.txt", joinLines(validList)},
                                     std::pair{root / "shapes.names", joinLines(shapeClassNames())},
                                     std::pair{root / "shapes.data", data}})
        if (auto problem = writeFileAtomically(file.string(), text))
            return problem;
    fs::remove(unfinished, ec);
    return std::nullopt;
}

} // namespace nw
