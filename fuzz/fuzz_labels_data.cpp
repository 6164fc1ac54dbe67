// fuzz_labels_data: Darknet's .data files and YOLO label files. The input is split at its first NUL
// byte: the part before is a label file ("class x y w h" lines) read with readLabelFile, the part after
// is a .data file read with loadDataFile (its classes= then bounds the label classes, and its paths are
// resolved as the trainer does). Both go through scratch files, the only way these readers take them.
// Every box readLabelFile keeps must satisfy what it promises (class in range, box inside the image).
#include "data/data_file.h"
#include "data/detection_dataset.h"
#include "temp_file.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const nw_fuzz::TempFile labelFile("labels", ".txt");
    static const nw_fuzz::TempFile dataFile("data", ".data");

    const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
    const std::size_t labelBytes = nul ? std::size_t(nul - data) : size;
    labelFile.write(data, labelBytes);
    dataFile.write(data + std::min(size, labelBytes + 1), size - std::min(size, labelBytes + 1));

    int classes = 80;
    std::string error;
    if (const auto dataFileRead = nw::loadDataFile(dataFile.path(), error)) {
        classes = dataFileRead->classes();
        for (const char* key :
             {"train", "valid", "names", "labels", "backup", "train_labels", "valid_labels"})
            (void)dataFileRead->resolve(dataFileRead->get(key));
    }

    std::vector<std::string> warnings;
    bool missing = false;
    const auto boxes = nw::readLabelFile(labelFile.path(), classes, warnings, missing);
    for (const nw::TruthBox& box : boxes)
        if (box.classId < 0 || box.classId >= classes || !(box.w > 0) || !(box.h > 0)) {
            std::fprintf(stderr,
                         "fuzz_labels_data: readLabelFile kept class %d box %g %g %g %g (classes=%d)\n",
                         box.classId, double(box.x), double(box.y), double(box.w), double(box.h), classes);
            std::abort();
        }

    // The label path of an "image" named by the label text's first line (pure path rewriting).
    const std::string firstLine(reinterpret_cast<const char*>(data),
                                std::find(data, data + labelBytes, std::uint8_t('\n')) - data);
    (void)nw::labelPathFor(firstLine);
    return 0;
}
