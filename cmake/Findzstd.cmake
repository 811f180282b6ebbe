# Findzstd: locate libzstd (Debian: libzstd-dev) and define the imported target zstd::libzstd,
# the name upstream zstd's own CMake package uses. Debian ships only a pkg-config file, so this
# module searches directly; it is installed beside drydbConfig.cmake for consumers of the static
# drydb. zdict.h (dictionary training) comes with the same package.
#
# Result variables: zstd_FOUND, zstd_INCLUDE_DIR, zstd_LIBRARY.

if(TARGET zstd::libzstd)
  set(zstd_FOUND TRUE)
  return()
endif()

find_path(zstd_INCLUDE_DIR NAMES zstd.h zdict.h)
find_library(zstd_LIBRARY NAMES zstd)
mark_as_advanced(zstd_INCLUDE_DIR zstd_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(zstd REQUIRED_VARS zstd_LIBRARY zstd_INCLUDE_DIR)

if(zstd_FOUND)
  add_library(zstd::libzstd UNKNOWN IMPORTED)
  set_target_properties(zstd::libzstd PROPERTIES IMPORTED_LOCATION "${zstd_LIBRARY}"
                                                 INTERFACE_INCLUDE_DIRECTORIES "${zstd_INCLUDE_DIR}")
endif()
