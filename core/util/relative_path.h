#pragma once
// Where a relative path in a Darknet file (.data, an image list) points. Darknet reads it from the
// working folder; people write it from their project's folder, which is the naming file's own folder
// or one above it (AlexeyAB's layout: data/obj.data names data/train.txt, which names data/obj/1.jpg,
// all from the folder holding data/). The studio and a server's cron job run from anywhere.
#include <filesystem>
#include <optional>
#include <string>

namespace nw {

// `written` found as a file or folder: beside the naming file (in `namingFolder`), in the working
// folder, then in up to three folders above `namingFolder`, in that order. An absolute path is
// returned when it exists. nullopt when it is nowhere.
std::optional<std::string> findRelativePath(const std::string& written,
                                            const std::filesystem::path& namingFolder);

} // namespace nw
