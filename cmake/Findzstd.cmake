# Findzstd: locate libzstd (Debian: libzstd-dev) and define the imported target zstd::libzstd,
# the name upstream zstd's own CMake package uses. Debian ships only a pkg-config file, so this
# module searches directly; it is installed beside drydbConfig.cmake for consumers of the static
# drydb. zdict.h (dictionary training) comes with the same package.
#
# Result variables: zstd_FOUND, zstd_INCLUDE_DIR, zstd_LIBRARY.

include("${CMAKE_CURRENT_LIST_DIR}/drydbFindLibrary.cmake")
drydb_find_library(zstd zstd::libzstd HEADERS zstd.h zdict.h NAMES zstd)
