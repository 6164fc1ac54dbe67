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

class VideoRecorder {
public:
    VideoRecorder();
    ~VideoRecorder();
    // Opens `path` for frames of width × height at `fps`; an error names the file.
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
    std::string path_;
    int width_ = 0, height_ = 0, frames_ = 0;
};

} // namespace nw
