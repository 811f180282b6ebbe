# drydb_find_library(<Package> <Target> HEADERS <header>... NAMES <name>...): the body of a find
# module for a library that Debian ships with only a pkg-config file, no CMake package. Finds the
# headers and the library in the default search paths and defines the imported target <Target>,
# the name the library's own CMake package uses, so that either source works. Sets <Package>_FOUND,
# <Package>_INCLUDE_DIR and <Package>_LIBRARY in the find module's scope (a macro, for that).
# Installed with the find modules that include it.

macro(drydb_find_library package target)
  cmake_parse_arguments(_drydb_find "" "" "HEADERS;NAMES" ${ARGN})
  if(TARGET ${target})  # already provided (a parent project, an earlier find)
    set(${package}_FOUND TRUE)
  else()
    find_path(${package}_INCLUDE_DIR NAMES ${_drydb_find_HEADERS})
    find_library(${package}_LIBRARY NAMES ${_drydb_find_NAMES})
    mark_as_advanced(${package}_INCLUDE_DIR ${package}_LIBRARY)

    include(FindPackageHandleStandardArgs)
    find_package_handle_standard_args(${package}
                                      REQUIRED_VARS ${package}_LIBRARY ${package}_INCLUDE_DIR)

    if(${package}_FOUND)
      add_library(${target} UNKNOWN IMPORTED)
      set_target_properties(${target} PROPERTIES
                            IMPORTED_LOCATION "${${package}_LIBRARY}"
                            INTERFACE_INCLUDE_DIRECTORIES "${${package}_INCLUDE_DIR}")
    endif()
  endif()
endmacro()
