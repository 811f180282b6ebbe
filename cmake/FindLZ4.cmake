# FindLZ4: locate liblz4 (Debian: liblz4-dev) and define the imported target LZ4::lz4, the name
# upstream lz4's own CMake package uses. Debian ships only a pkg-config file, so this module
# searches directly; it is installed beside drydbConfig.cmake for consumers of the static drydb.
#
# Result variables: LZ4_FOUND, LZ4_INCLUDE_DIR, LZ4_LIBRARY.

if(TARGET LZ4::lz4)
  set(LZ4_FOUND TRUE)
  return()
endif()

find_path(LZ4_INCLUDE_DIR NAMES lz4.h)
find_library(LZ4_LIBRARY NAMES lz4)
mark_as_advanced(LZ4_INCLUDE_DIR LZ4_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LZ4 REQUIRED_VARS LZ4_LIBRARY LZ4_INCLUDE_DIR)

if(LZ4_FOUND)
  add_library(LZ4::lz4 UNKNOWN IMPORTED)
  set_target_properties(LZ4::lz4 PROPERTIES IMPORTED_LOCATION "${LZ4_LIBRARY}"
                                            INTERFACE_INCLUDE_DIRECTORIES "${LZ4_INCLUDE_DIR}")
endif()
