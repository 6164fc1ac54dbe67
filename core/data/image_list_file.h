#pragma once
// Reading a Darknet image list (train=, valid= of a .data file): one image path per line, blank lines
// and trailing spaces or CRs ignored. Shared by the classification and the detection data sets, so
// both resolve relative paths and report missing images the same way.
#include <cstddef>
#include <string>
#include <vector>

namespace nw {

struct ListedImage {
    std::string path;     // as it can be opened: a relative path found beside the list is made so
    std::string written;  // as the list has it (what a classifier's labels are matched against)
    std::size_t line = 0; // 1-based line in the list
};

struct ImageListFile {
    bool opened = false;    // false: `error` says why (cannot be opened, or a binary file)
    std::string binaryKind; // what the file is when it is no text (binaryKindOf's words; in `error` too)
    std::string error;
    std::vector<ListedImage> images; // those that exist (all of them when not checked)
    std::size_t missing = 0;         // listed images that do not exist, left out of `images`
    // With `describeMissing`, each of them: the path as written, and "list:line: path does not exist" (or
    // "… is a directory, not an image", …).
    std::vector<std::pair<std::string, std::string>> missingImages;
    // "list:line: path does not exist (and N more listed paths that are no image files)…" for the first
    // missing image (or "... is a directory, not an image ..."); empty when none is missing.
    std::string missingText;
    // "list:line: a.jpg is read beside the list (…); the working folder holds another a.jpg, which Darknet
    // would read…" for the first relative path that names two files; empty when none does.
    std::string workingFolderNote;
};

bool isRegularFile(const std::string& path);
// Whether a text file reads as a YOLO label file: empty (an image without objects), or its first line
// a class number and a coordinate ("0 0.5 0.5 0.2 0.2"). A list of image paths does not.
bool looksLikeYoloLabels(const std::string& path);

// Reads `list`. A binary file (an IDX set given where a list was expected) is refused by name rather than
// read as lines of garbage paths. A relative path is taken from the list's folder when the image is there,
// otherwise as written (from the working folder), as Darknet's users write them either way. With
// `checkImages`, images that do not exist are left out and counted.
ImageListFile readImageListFile(const std::string& list, bool checkImages, bool describeMissing = false);

} // namespace nw
