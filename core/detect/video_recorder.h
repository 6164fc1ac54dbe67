#pragma once
// Writes annotated frames to a video file (Motion-JPEG in AVI, which every OpenCV build can write).
#include <memory>
#include <optional>
#include <string>

namespace cv {
class VideoWriter;
}

namespace nw {

class VideoRecorder {
public:
    VideoRecorder();
    ~VideoRecorder();
    // Opens `path` for frames of width × height at `fps`; an error names the file.
    std::optional<std::string> open(const std::string& path, int width, int height, double fps);
    // One RGB888 frame, rows `stride` bytes apart; frames of another size are scaled to the first's.
    void write(const unsigned char* rgb, int width, int height, std::size_t stride);
    void close();
    bool isOpen() const;
    int frames() const { return frames_; }

private:
    std::unique_ptr<cv::VideoWriter> writer_;
    int width_ = 0, height_ = 0, frames_ = 0;
};

} // namespace nw
