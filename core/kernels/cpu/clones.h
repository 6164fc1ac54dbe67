#pragma once
// Hot loops get AVX-512 and AVX2 versions chosen at run time (GCC function multiversioning), so the
// package still runs on any x86-64 while this machine uses its widest vectors.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NW_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NW_KERNEL_CLONES
#endif
