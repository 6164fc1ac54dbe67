# Every target of ours compiles with the same strict warnings; the build stays at zero warnings.
add_library(netwright_warnings INTERFACE)
target_compile_options(netwright_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
if(NETWRIGHT_WARNINGS_AS_ERRORS)
  target_compile_options(netwright_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()
# GCC 12 at -O3 (Release) reports -Wrestrict for "literal" + std::string&& inside libstdc++ itself
# (GCC bug 105651, fixed in GCC 13): a false positive in every such expression, so off for GCC 12.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(netwright_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
