# Driver for the consumer tests (see tests/CMakeLists.txt): cmake -DSTEP=<step> ... -P run.cmake
#
#   install           cmake --install DRYDB_BINARY_DIR into WORK_DIR/prefix
#   find_package      configure, build and run find_package/ against WORK_DIR/prefix
#   pkg_config        compile main.cpp with `pkg-config --cflags --libs drydb` from WORK_DIR/prefix
#   add_subdirectory  configure, build and run add_subdirectory/ on DRYDB_SOURCE_DIR
#
# Each step builds main.cpp against drydb::drydb (pkg-config drydb) and capi_main.c, a C program,
# against drydb::c (pkg-config drydb_c).
#
# Common inputs: CONSUMER_DIR (this folder), WORK_DIR, CONFIG, GENERATOR, CXX_COMPILER,
# C_COMPILER.
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
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
      "-DCMAKE_BUILD_TYPE=${CONFIG}" ${ARGN})
  run("${CMAKE_COMMAND}" --build "${build}" --config "${CONFIG}" --parallel 2)
  foreach(program consumer consumer_c)
    # Multi-config generators put the program in a per-config folder.
    set(found OFF)
    foreach(exe "${build}/${program}" "${build}/${CONFIG}/${program}")
      if(EXISTS "${exe}" AND NOT found)
        run("${exe}")
        set(found ON)
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "${STEP}: the program ${program} was not built")
    endif()
  endforeach()
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
  # The C API as a C program: pkg-config drydb_c (the shared library, found at run time through
  # the prefix's lib folder).
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs drydb_c OUTPUT_VARIABLE c_flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  separate_arguments(c_flags UNIX_COMMAND "${c_flags}")
  run("${C_COMPILER}" -std=c11 "${CONSUMER_DIR}/capi_main.c" -o "${build}/consumer_c" ${c_flags}
      "-Wl,-rpath,${prefix}/${LIBDIR}")
  run("${build}/consumer_c")
else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
