#pragma once
// The networks, data files and weights installed with Netwright (share/netwright/{cfg,weights} beside
// the binary's folder): a command naming one that is not in the working folder gets told where it is.
#include <string>
#include <vector>

namespace nw::cli {

// For each argument that names no existing file, has no folder part and is a file Netwright bundles:
// "note: NAME is not in this folder; Netwright's bundled one is PATH".
std::vector<std::string> bundledFileNotes(int argc, char** argv);

} // namespace nw::cli
