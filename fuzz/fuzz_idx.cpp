// fuzz_idx: IDX data sets (MNIST's format, plain or gzip) read with loadIdxDataset. Input layout: two
// bytes (little-endian) giving the length L of the label file, L bytes of label file, then the image
// file; both go through scratch files. A data set that loads must be consistent with the bytes it came
// from (its images × rows × columns pixels fit in the image file), and every sample is read back.
#include "data/dataset.h"
#include "temp_file.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const nw_fuzz::TempFile labelFile("idx-labels", ".idx1");
    static const nw_fuzz::TempFile imageFile("idx-images", ".idx3");
    if (size < 2)
        return 0;
    const std::size_t labelBytes =
        std::min<std::size_t>(size - 2, std::size_t(data[0]) | std::size_t(data[1]) << 8);
    labelFile.write(data + 2, labelBytes);
    imageFile.write(data + 2 + labelBytes, size - 2 - labelBytes);

    std::string error;
    const auto set = nw::loadIdxDataset(imageFile.path(), labelFile.path(), 10, error);
    if (!set)
        return 0;

    // The loader's own check is images->size() == 16 + count·rows·columns in std::size_t: that product
    // can wrap around, and rows/columns are ints read from 32-bit fields. Recompute without wrapping.
    // (A gzip file may decompress to far more than its own size; the libFuzzer input caps that too.)
    const std::uint64_t limit = std::uint64_t(1) << 32;
    std::uint64_t pixels = 0, total = 0;
    if (set->width() < 0 || set->height() < 0 ||
        __builtin_mul_overflow(std::uint64_t(set->width()), std::uint64_t(set->height()), &pixels) ||
        __builtin_mul_overflow(pixels, std::uint64_t(set->size()), &total) || total > limit) {
        std::fprintf(stderr,
                     "fuzz_idx: loadIdxDataset accepted %zu images of %d x %d: those pixels cannot "
                     "be in the file\n",
                     set->size(), set->height(), set->width());
        std::abort();
    }
    if (set->channels() != 1 || set->classes() != 10) {
        std::fprintf(stderr, "fuzz_idx: channels %d, classes %d\n", set->channels(), set->classes());
        std::abort();
    }

    std::vector<float> image(pixels);
    std::string warning;
    for (std::size_t i = 0; i < std::min<std::size_t>(set->size(), 64); ++i) {
        const int label = set->label(i);
        if (label < 0 || label >= 10) {
            std::fprintf(stderr, "fuzz_idx: sample %zu has label %d (classes 10)\n", i, label);
            std::abort();
        }
        (void)set->image(i, image.data(), warning);
    }
    return 0;
}
