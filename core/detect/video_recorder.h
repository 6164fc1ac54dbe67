#pragma once
// Writes annotated frames to a video file (Motion-JPEG in AVI, which every OpenCV build can write).
#include "image/media_codecs.h"

#include <memory>
#include <optional>
#include <string>

namespace nw {

// Nothing when the video file at `path` holds `written` frames, else what it holds and the disk's room:
// a video cut short by a full disk was left as if whole.
std::optional<std::string> writtenVideoProblem(const std::string& path, int written);

// Where a video is written until it is finished: beside `path` under a hidden name of its own
// (partialVideoPath), so an earlier file of that name is replaced only by a whole one (a full disk or a
// Ctrl+C rewrote it in place, leaving a cut-off file where a finished one had been). A link, a device or
// a file this user may not write is written in place, as before. Partial videos of processes that are
// gone, untouched for an hour, are removed first.
std::string videoWritingPath(const std::string& path);
// Why no video can be written at `path` before trying ("cannot write out/a.avi: it is a folder; …"),
// else nullopt: OpenCV's writer answered a folder there with its backends' exception dumps, and the
// advice was about the folder's rights.
std::optional<std::string> videoPathProblem(const std::string& path);
std::string partialVideoPath(const std::string& path); // this process's
// The video written to `writtenTo` (videoWritingPath(path)), finished (its writer released): moved into
// place when it holds the `written` frames; else removed, the file at `path` left as it was, and what
// went wrong said.
std::optional<std::string> placeFinishedVideo(const std::string& path, const std::string& writtenTo,
                                              int written);

class VideoRecorder {
public:
    VideoRecorder();
    ~VideoRecorder();
    // Opens `path` for frames of width × height at `fps` (written beside it until close: partialVideoPath);
    // an error names the file.
    std::optional<std::string> open(const std::string& path, int width, int height, double fps);
    // One RGB888 frame, rows `stride` bytes apart; frames of another size are scaled to the first's.
    void write(const unsigned char* rgb, int width, int height, std::size_t stride);
    // Finishes the file; then, when it holds fewer frames than were written (OpenCV's writer says
    // nothing of a full disk), what went wrong.
    std::optional<std::string> close();
    bool isOpen() const;
    int frames() const { return frames_; }

private:
    std::unique_ptr<media::VideoWriter> writer_;
    std::string path_, writingPath_;
    int width_ = 0, height_ = 0, frames_ = 0;
};

} // namespace nw
