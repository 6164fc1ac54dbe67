#pragma once
// For one source of a reference helper, after <darknet.h>: libdarknet's two initial-weight draws,
// replaced. The library calls them through its PLT, so these definitions take the place of its own and
// its layers are built with zero weights. Nothing the helpers report depends on those: shapes and
// BFLOPs do not, and darknet_ref_forward writes its own weights over them (and saves what it runs).
// Drawing them was most of a helper's time: vgg-16's 138 M rand() calls, 2 s of darknet_ref_shapes' 4.
extern "C" {
float rand_normal()
{
    return 0.0f;
}
float rand_uniform(float, float)
{
    return 0.0f;
}
}
