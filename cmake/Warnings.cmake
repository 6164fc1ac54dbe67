# Every target of ours compiles with the same strict warnings; the build stays at zero warnings.
add_library(netwright_warnings INTERFACE)
target_compile_options(netwright_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
if(NETWRIGHT_WARNINGS_AS_ERRORS)
  target_compile_options(netwright_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
