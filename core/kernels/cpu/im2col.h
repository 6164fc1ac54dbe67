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
// The same with a row stride: row r starts at columns + r·rowStride (several images side by side).
void im2colStrided(const float* image, const ConvGeometry& g, float* columns, long rowStride);
// The transpose of im2col: adds each column entry back into the pixel it was read from.
void col2imAdd(const float* columns, const ConvGeometry& g, float* image);
void col2imAddStrided(const float* columns, const ConvGeometry& g, float* image, long rowStride);

} // namespace nw
