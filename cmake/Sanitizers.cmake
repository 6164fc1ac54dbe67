# NETWRIGHT_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer on every target of ours (core, ui,
# app, tests, fuzz; not the reference helpers around libdarknet, see tests/CMakeLists.txt). Included by
# the root CMakeLists.txt before any target is made, so add_compile_options/add_link_options reach them
# all; with the option OFF (the default) nothing here changes the build. scripts/sanitize.sh configures
# build-sanitize with it (clang).
option(NETWRIGHT_SANITIZE "Build every target with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)

if(NETWRIGHT_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang|GNU")
    message(FATAL_ERROR "NETWRIGHT_SANITIZE=ON needs clang or g++ (got ${CMAKE_CXX_COMPILER_ID})")
  endif()
  # -fno-sanitize-recover=undefined: UBSan stops at the first report (the test fails) instead of
  # printing and going on.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # The tests skip their largest networks' rows here (tests/test_support.h: tooLargeForSanitizers).
  add_compile_definitions(NETWRIGHT_SANITIZE=1)
  # The instrumentation keeps clang from vectorising a few `#pragma omp simd` loops, which it reports
  # as -Wpass-failed ("loop not vectorized"); the same files build without warnings when not sanitized.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-Wno-pass-failed)
  endif()
endif()

# NETWRIGHT_FUZZ: the libFuzzer harnesses in fuzz/ (clang only). netwright_core is then compiled with
# libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link), which everything linking it
# inherits at link time; the harnesses link with -fsanitize=fuzzer (libFuzzer's main).
option(NETWRIGHT_FUZZ "Build the libFuzzer harnesses in fuzz/ (clang only)" OFF)
if(NETWRIGHT_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR
    "NETWRIGHT_FUZZ=ON needs clang: libFuzzer (-fsanitize=fuzzer) is part of clang, g++ has none. "
    "Configure a separate build folder with -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "
    "(Debian: apt-get install clang-14 libclang-rt-14-dev libomp-14-dev), or use scripts/sanitize.sh.")
endif()
