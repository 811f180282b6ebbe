# Driver for the consumer tests (see tests/CMakeLists.txt): cmake -DSTEP=<step> ... -P run.cmake
#
#   install           cmake --install DRYDB_BINARY_DIR into WORK_DIR/prefix
#   find_package      configure, build and run find_package/ against WORK_DIR/prefix
#   pkg_config        compile main.cpp with `pkg-config --cflags --libs drydb` from WORK_DIR/prefix
#   add_subdirectory  configure, build and run add_subdirectory/ on DRYDB_SOURCE_DIR
#
# Common inputs: CONSUMER_DIR (this folder), WORK_DIR, CONFIG, GENERATOR, CXX_COMPILER.
cmake_minimum_required(VERSION 3.21)

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/${STEP}")

# Run a command, echoing it, and fail the test if it fails.
function(run)
  execute_process(COMMAND ${ARGN} COMMAND_ECHO STDOUT RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${STEP}: command failed (${rc})")
  endif()
endfunction()

# Configure and build the CMake project CONSUMER_DIR/STEP in a fresh folder, then run it.
function(build_and_run)
  file(REMOVE_RECURSE "${build}")
  run("${CMAKE_COMMAND}" -S "${CONSUMER_DIR}/${STEP}" -B "${build}" -G "${GENERATOR}"
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_BUILD_TYPE=${CONFIG}" ${ARGN})
  run("${CMAKE_COMMAND}" --build "${build}" --config "${CONFIG}" --parallel 2)
  # Multi-config generators put the program in a per-config folder.
  foreach(exe "${build}/consumer" "${build}/${CONFIG}/consumer")
    if(EXISTS "${exe}")
      run("${exe}")
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "${STEP}: the consumer program was not built")
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${prefix}")
  run("${CMAKE_COMMAND}" --install "${DRYDB_BINARY_DIR}" --prefix "${prefix}" --config "${CONFIG}")
elseif(STEP STREQUAL "find_package")
  build_and_run("-DCMAKE_PREFIX_PATH=${prefix}")
elseif(STEP STREQUAL "add_subdirectory")
  build_and_run("-DDRYDB_SOURCE_DIR=${DRYDB_SOURCE_DIR}")
elseif(STEP STREQUAL "pkg_config")
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs drydb OUTPUT_VARIABLE flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  file(MAKE_DIRECTORY "${build}")
  run("${CXX_COMPILER}" -std=c++20 "${CONSUMER_DIR}/main.cpp" -o "${build}/consumer" ${flags})
  run("${build}/consumer")
else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
