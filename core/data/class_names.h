#pragma once
// Class names files: a .names file, or a classifier's labels= (Darknet's: one name per line, the line
// number is the class). One reader for every command, so train, valid, classify and detect agree.
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

} // namespace nw
