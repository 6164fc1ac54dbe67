#pragma once
// Box geometry shared by the detection losses (layers/*_loss.cpp) and by decoding and NMS (detect/):
// it lives with the layers so the layers need nothing from detect/.
namespace nw {

struct Box {
    float x = 0, y = 0, w = 0, h = 0; // centre and size
};

// The overlap of two 1-D segments given by centre and width (negative: a gap).
float overlap(float x1, float w1, float x2, float w2);
float boxIou(const Box& a, const Box& b);

} // namespace nw
