#pragma once
// Class names files: a .names file, or a classifier's labels= (Darknet's: one name per line, the line
// number is the class). One reader for every command, so train, valid, classify and detect agree.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nw {

// One class name per line; a trailing CR, spaces and tabs are dropped, and so are blank lines at the
// end. A blank line among the names is an error naming its line: Darknet counts it as a class without
// a name, so every class after it would move by one. An error names the file.
// `what` names the file in messages ("a labels file").
std::optional<std::vector<std::string>> loadNames(const std::string& path, std::string& error,
                                                  const char* what = "a names file");

// "PATH:N: line N is not UTF-8 text (…): its letters show as �; save the file as UTF-8" for the first
// name that is not UTF-8 (a Latin-1 file from an old Windows editor: "caf\xe9"), with how many are;
// nullopt when all are. Darknet passes the bytes on; JSON output and drawn labels need UTF-8.
std::optional<std::string> namesEncodingWarning(const std::vector<std::string>& names,
                                                const std::string& path);

// Whether `names` names fit a network of `classes`: the same count, or Darknet's ImageNet lists
// (data/imagenet.shortnames.list and imagenet.labels.list, 21842 names, the 1000 ImageNet-1k classes
// first), which its own imagenet1k.data gives its 1000-class networks.
constexpr bool namesFitClasses(std::size_t names, int classes)
{
    return names == std::size_t(classes) || (names == 21842 && classes == 1000);
}

// The cfg's own names file beside it (yolov4.cfg → yolov4.names), when it exists: what detect, classify
// and the studio's Detect panel take when no names were chosen (the bundled networks ship that way).
std::optional<std::string> namesBesideCfg(const std::string& cfgPath);

} // namespace nw
