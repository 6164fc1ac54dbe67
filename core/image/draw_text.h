#pragma once
// Text on OpenCV BGR images (annotated detections, chart.png). ASCII is drawn with OpenCV's Hershey
// simplex font (Darknet's look); any other text — class names in Chinese, "Stern ä" — with FreeType and
// a system font that has its characters (fontconfig's choice): Hershey knows only ASCII and drew "?"
// for every byte of a UTF-8 character. Without such a font the Hershey drawing is kept.
#include <opencv2/core.hpp>
#include <string>

namespace nw {

// The size of `text` at Hershey simplex `scale` (the height above the baseline) and the depth below it.
// `fontOf`: another text whose font `text` takes (a label's score beside its Chinese name is in the
// name's font, not in Hershey's).
cv::Size textSize(const std::string& text, double scale, int* baseline = nullptr,
                  const std::string& fontOf = {});
// Draws `text` with its baseline's left end at `origin`, at the size textSize gives.
void drawText(cv::Mat& image, const std::string& text, cv::Point origin, double scale, cv::Scalar ink,
              const std::string& fontOf = {});

} // namespace nw
