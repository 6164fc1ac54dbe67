// Darknet's own image preprocessing (Debian's libdarknet): load an image, then write its
// letterbox_image and resize_image to W×H as raw float32 CHW.
//   darknet_ref_image IMAGE W H LETTERBOX.f32 RESIZE.f32
#include <cstdio>
#include <cstdlib>

extern "C" {
#include <darknet.h>
}

static bool write(const char* path, const image& im)
{
    FILE* file = std::fopen(path, "wb");
    if (!file)
        return false;
    const size_t count = size_t(im.w) * size_t(im.h) * size_t(im.c);
    const bool ok = std::fwrite(im.data, sizeof(float), count, file) == count;
    return std::fclose(file) == 0 && ok;
}

int main(int argc, char** argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s IMAGE W H LETTERBOX.f32 RESIZE.f32\n", argv[0]);
        return 2;
    }
    const image im = load_image_color(argv[1], 0, 0);
    const int w = std::atoi(argv[2]), h = std::atoi(argv[3]);
    return write(argv[4], letterbox_image(im, w, h)) && write(argv[5], resize_image(im, w, h)) ? 0 : 1;
}
