#include "bundled_files.h"

#include <filesystem>

namespace nw::cli {

namespace {

// share/netwright beside the folder of the running binary (/usr/bin → /usr/share/netwright).
std::filesystem::path bundledRoot()
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : self.parent_path().parent_path() / "share" / "netwright";
}

} // namespace

std::vector<std::string> bundledFileNotes(int argc, char** argv)
{
    std::vector<std::string> notes;
    const std::filesystem::path root = bundledRoot();
    if (root.empty())
        return notes;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path name = argv[i];
        std::error_code ec;
        if (name.empty() || name.has_parent_path() || argv[i][0] == '-' || std::filesystem::exists(name, ec))
            continue;
        for (const char* folder : {"cfg", "weights"}) {
            const std::filesystem::path bundled = root / folder / name;
            if (std::filesystem::is_regular_file(bundled, ec)) {
                notes.push_back("note: " + name.string() +
                                " is not in this folder; Netwright's bundled one is " +
                                std::filesystem::weakly_canonical(bundled, ec).string());
                break;
            }
        }
    }
    return notes;
}

} // namespace nw::cli
