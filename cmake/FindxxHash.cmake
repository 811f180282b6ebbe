# FindxxHash: locate the xxHash library (Debian: libxxhash-dev) and define the imported target
# xxHash::xxhash, the name upstream xxHash's own CMake package uses, so either source works.
#
# Debian ships only a pkg-config file, not a CMake package, so this module searches directly.
# drydb's build uses it from cmake/, and the installed drydbConfig.cmake uses the copy installed
# beside it: the exported static drydb links xxHash::xxhash, so consumers must resolve it too.
#
# Result variables: xxHash_FOUND, xxHash_INCLUDE_DIR, xxHash_LIBRARY, xxHash_VERSION.

if(TARGET xxHash::xxhash)  # already provided (a parent project, an earlier find)
  set(xxHash_FOUND TRUE)
  return()
endif()

# Prefer an upstream xxHashConfig.cmake when one is installed (vcpkg, conda, source builds).
find_package(xxHash CONFIG QUIET)
if(TARGET xxHash::xxhash)
  include(FindPackageHandleStandardArgs)
  find_package_handle_standard_args(xxHash CONFIG_MODE)
  return()
endif()

find_path(xxHash_INCLUDE_DIR NAMES xxhash.h)
find_library(xxHash_LIBRARY NAMES xxhash xxHash)
mark_as_advanced(xxHash_INCLUDE_DIR xxHash_LIBRARY)

if(xxHash_INCLUDE_DIR AND EXISTS "${xxHash_INCLUDE_DIR}/xxhash.h")
  file(STRINGS "${xxHash_INCLUDE_DIR}/xxhash.h" _xxhash_version_lines
       REGEX "^#define XXH_VERSION_(MAJOR|MINOR|RELEASE) +[0-9]+")
  foreach(part MAJOR MINOR RELEASE)
    string(REGEX REPLACE ".*#define XXH_VERSION_${part} +([0-9]+).*" "\\1" _xxhash_${part}
                         "${_xxhash_version_lines}")
  endforeach()
  set(xxHash_VERSION "${_xxhash_MAJOR}.${_xxhash_MINOR}.${_xxhash_RELEASE}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(xxHash REQUIRED_VARS xxHash_LIBRARY xxHash_INCLUDE_DIR
                                         VERSION_VAR xxHash_VERSION)

if(xxHash_FOUND)
  add_library(xxHash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxHash::xxhash PROPERTIES IMPORTED_LOCATION "${xxHash_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${xxHash_INCLUDE_DIR}")
endif()
