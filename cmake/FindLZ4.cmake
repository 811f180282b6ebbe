# FindLZ4: locate liblz4 (Debian: liblz4-dev) and define the imported target LZ4::lz4, the name
# upstream lz4's own CMake package uses. Debian ships only a pkg-config file, so this module
# searches directly; it is installed beside drydbConfig.cmake for consumers of the static drydb.
#
# Result variables: LZ4_FOUND, LZ4_INCLUDE_DIR, LZ4_LIBRARY.

include("${CMAKE_CURRENT_LIST_DIR}/drydbFindLibrary.cmake")
drydb_find_library(LZ4 LZ4::lz4 HEADERS lz4.h NAMES lz4)
