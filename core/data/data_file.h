#pragma once
// Darknet's .data files: key=value lines (classes, train, valid, names, backup, ...). Relative
// paths are resolved against the .data file's folder first, then the working folder (Darknet's).
#include "data/dataset.h"
#include "graph/net_config.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nw {

struct DataFile {
    std::string path;
    std::map<std::string, std::string> values;
    std::map<std::string, int> lines;           // each key's line (the first, the one read)
    std::map<std::string, std::string> written; // each value as written, before Darknet removed spaces

    std::string get(const std::string& key, const std::string& fallback = {}) const;
    int classes() const;
    std::string resolve(const std::string& relative) const;
    // Why `key` gives nothing: "PATH: no train= entry", or "PATH:3: train= is empty" when it is written.
    std::string missingEntry(const std::string& key) const;
    // The file `key` names, resolved; or nullopt, with `error` naming the line, the two places looked
    // in and, when the value had spaces, that Darknet's format removed them.
    std::optional<std::string> existingFile(const std::string& key, std::string& error) const;
    // A note when the relative path `key` names is found beside the .data file while the working folder
    // (where Darknet reads it) holds another file of that name; nullopt otherwise.
    std::optional<std::string> workingFolderNote(const std::string& key) const;
    // The output folder `key` names (backup=, else `fallback`): as written when absolute; beside the .data
    // file, or in the working folder, when that folder exists there; in the project folder above the
    // .data that its train= list was found from, when it exists there; else in the working folder, as
    // Darknet writes it. Not any folder above: one that happened to exist there got another's run.
    std::string outputFolder(const std::string& key, const std::string& fallback) const;
};

std::optional<DataFile> loadDataFile(const std::string& path, std::string& error);

// The class names a .data file gives, in class order: a classifier's labels= (the names its image
// paths are matched against), else names=; a detector's names=. Empty when it names none; nullopt with
// `error` (naming the file) when the file it names cannot be read. `path` (optional) gets the file read.
std::optional<std::vector<std::string>> classNamesOf(const DataFile& data, bool detector, std::string& error,
                                                     std::string* path = nullptr);

// The training or validation set a .data file names: IDX files ("train"/"valid" with "train_labels"/
// "valid_labels"), or Darknet's image lists ("train"/"valid" list files with "labels" — or "names" —
// naming the classes), scaled to the network's input and, for "train", augmented per its [net].
std::unique_ptr<ClassificationDataset> openClassificationSet(const DataFile& data, const std::string& which,
                                                             const NetConfig& net, unsigned seed,
                                                             std::string& error,
                                                             std::vector<std::string>* warnings = nullptr);

} // namespace nw
