# The drydb tool and the Python bindings are built on the public API only: no file under tools/
# or python/ includes a drydb/detail/ header or names drydb::detail (detail::x, or a using of
# the namespace). Run as
#   cmake -DSOURCE_DIR=<checkout> -P public_api_only.cmake
cmake_policy(VERSION 3.20)
file(GLOB_RECURSE sources LIST_DIRECTORIES false
     "${SOURCE_DIR}/tools/*.h" "${SOURCE_DIR}/tools/*.cpp"
     "${SOURCE_DIR}/python/*.h" "${SOURCE_DIR}/python/*.cpp")
if(NOT sources)
  message(FATAL_ERROR "no source found under ${SOURCE_DIR}/tools or ${SOURCE_DIR}/python")
endif()
set(offenders "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "drydb/detail/|detail(::|;)")
  foreach(line IN LISTS lines)
    file(RELATIVE_PATH relative "${SOURCE_DIR}" "${source}")
    string(STRIP "${line}" line)
    string(REPLACE ";" "," line "${line}")  # a list separator otherwise
    list(APPEND offenders "${relative}: ${line}")
  endforeach()
endforeach()
if(offenders)
  list(JOIN offenders "\n  " shown)
  message(FATAL_ERROR "the tool and the Python bindings use drydb's detail namespace:\n  ${shown}")
endif()
list(LENGTH sources count)
message(STATUS "${count} files of tools/ and python/ on the public API only")
