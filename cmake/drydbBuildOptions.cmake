# Developer build options for drydb, applied per target by drydb_apply_build_options(); nothing
# here touches the global CMAKE_CXX_FLAGS, so a parent project's flags and targets are left alone.
# Flags are GCC/Clang spellings: the supported compilers are g++ >= 12 and clang >= 14.

option(DRYDB_WARNINGS "Compile drydb's own targets with -Wall -Wextra -Wpedantic" ${PROJECT_IS_TOP_LEVEL})
option(DRYDB_WERROR "Turn warnings into errors (never on by default: new compilers add warnings)" OFF)
set(DRYDB_SANITIZE "" CACHE STRING
    "Sanitizers for drydb and its tests, as given to -fsanitize=: \"address,undefined\" or \"thread\"")
set_property(CACHE DRYDB_SANITIZE PROPERTY STRINGS "" "address,undefined" "thread")
option(DRYDB_NO_EXCEPTIONS "Compile drydb and its tests with -fno-exceptions" OFF)
# For the binaries drydb ships (libdrydb_c, the Python extension): the C++ runtime linked in, so
# that they need nothing of the system but the C library. Their other dependencies are linked in
# when the build finds them as static libraries first (scripts/deps.sh, -DCMAKE_PREFIX_PATH).
option(DRYDB_STATIC_RUNTIME
       "Link libstdc++ and libgcc into the shared libraries drydb ships (libdrydb_c, the Python extension)"
       OFF)

# A shipped shared library TARGET: with DRYDB_STATIC_RUNTIME, the C++ runtime linked in; always,
# the symbols of the static libraries it links kept out of its dynamic symbol table (they are
# its own copies: exported, they would interpose on, or be interposed by, the process's).
function(drydb_ship_shared_library target)
  target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL")
  if(DRYDB_STATIC_RUNTIME)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    # The glibc functions newer than 2.34 that the static runtime calls, on older ones (C: the
    # project enables the language where this option is on).
    if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
      target_sources(${target} PRIVATE "${PROJECT_SOURCE_DIR}/src/platform/glibc_floor.c")
    endif()
  endif()
endfunction()

# Apply the options above to TARGET (the library, each test, example, tool). Compile flags are
# PRIVATE: consumers of the library choose their own warnings and exception mode.
function(drydb_apply_build_options target)
  if(DRYDB_WARNINGS)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    # g++ 12 reports -Wrestrict inside libstdc++'s std::string operator+ at -O2 (GCC bug
    # 105329, a false positive fixed in g++ 13); it would bury real warnings in error-message code.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE -Wno-restrict)
    endif()
  endif()
  if(DRYDB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(DRYDB_NO_EXCEPTIONS)
    target_compile_options(${target} PRIVATE -fno-exceptions)
  endif()
  if(DRYDB_SANITIZE)
    # No recovery: a UBSan finding must fail the test, not scroll past in its log.
    target_compile_options(${target} PRIVATE -fsanitize=${DRYDB_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      # A static library is never linked itself, but whatever links the instrumented objects needs
      # the sanitizer runtime: pass the flag on to every in-tree user (tools, benches, parents).
      target_link_options(${target} INTERFACE $<BUILD_INTERFACE:-fsanitize=${DRYDB_SANITIZE}>)
    else()
      target_link_options(${target} PRIVATE -fsanitize=${DRYDB_SANITIZE})
    endif()
  endif()
endfunction()
