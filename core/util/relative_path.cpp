#include "util/relative_path.h"

namespace nw {

std::optional<std::string> findRelativePath(const std::string& written,
                                            const std::filesystem::path& namingFolder)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path path(written);
    if (written.empty())
        return std::nullopt;
    if (path.is_absolute())
        return fs::exists(path, ec) ? std::optional(written) : std::nullopt;
    if (const fs::path beside = namingFolder / path; fs::exists(beside, ec))
        return beside.string();
    if (fs::exists(path, ec))
        return written;
    fs::path above =
        namingFolder.empty() ? fs::current_path(ec) : fs::absolute(namingFolder, ec).lexically_normal();
    if (!above.has_filename()) // "a/b/" after normalising "a/b/."
        above = above.parent_path();
    for (int level = 0; level < 3 && above.has_relative_path(); ++level) {
        above = above.parent_path();
        if (const fs::path candidate = above / path; fs::exists(candidate, ec))
            return candidate.lexically_normal().string();
    }
    return std::nullopt;
}

} // namespace nw
