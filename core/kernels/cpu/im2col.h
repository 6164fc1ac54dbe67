#pragma once
// im2col: unrolls a c×h×w image into a (c·size·size) × (outH·outW) matrix so a convolution becomes
// one GEMM. Zero padding, strides per axis and dilation (AlexeyAB) supported.
namespace nw {

struct ConvGeometry {
    int channels, height, width;
    int size, strideX, strideY, pad, dilation;
    int outHeight, outWidth;
};

void im2col(const float* image, const ConvGeometry& g, float* columns);

} // namespace nw
