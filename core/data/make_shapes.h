#pragma once
// A synthetic detection data set: shapes of several classes in many sizes, colours and rotations,
// overlapping, on cluttered textured backgrounds with noise — images plus YOLO labels, image lists,
// .names and .data, the same bytes for the same seed.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct ShapesOptions {
    int count = 2000; // images in all; a tenth (at least one) go to the validation list
    unsigned seed = 1;
    int width = 256, height = 256;
    // Called as images are made (every 50, and the last): images made, of `count`.
    std::function<void(int made, int count)> progress;
};

// The class names, in label order.
const std::vector<std::string>& shapeClassNames();

// Writes OUTDIR/{train,valid}/NNNNNN.{jpg,txt}, train.txt, valid.txt, shapes.names, shapes.data.
// Returns an error message, or nullopt.
std::optional<std::string> makeShapes(const std::string& outDir, const ShapesOptions& options);

} // namespace nw
