# cmake.python_interpreter: a plain configure of drydb with tests (no -DPython_EXECUTABLE), with a
# python3 first on PATH that cannot import pytest (the way a pyenv or virtualenv shim comes before
# Debian's /usr/bin/python3), registers no Python test that cannot run: the configure passes over
# that python3, and python.pytest, when registered, runs with an interpreter that imports every
# module the suite needs; when none can, the configure says the Python tests are left out.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=... -DGENERATOR=... -P python_interpreter.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/bin" "${WORK_DIR}/hidden")

# The python3 put first on PATH: a real interpreter (so FindPython would take it), from which
# pytest is hidden by a module of that name that fails to import.
find_program(real_python NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH NO_CACHE)
if(NOT real_python)
  find_program(real_python NAMES python3 NO_CACHE)
endif()
if(NOT real_python)
  message(STATUS "no python3 to run: nothing to check")
  return()
endif()
file(WRITE "${WORK_DIR}/hidden/pytest.py"
     "raise ImportError('pytest is hidden from this interpreter by cmake.python_interpreter')\n")
file(WRITE "${WORK_DIR}/bin/python3"
     "#!/bin/sh\nPYTHONPATH='${WORK_DIR}/hidden' exec '${real_python}' \"$@\"\n")
file(CHMOD "${WORK_DIR}/bin/python3" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
     GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PATH=${WORK_DIR}/bin:$ENV{PATH}"
          "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
          -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DDRYDB_BUILD_TESTS=ON -DDRYDB_BUILD_EXAMPLES=OFF
          -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=OFF -DDRYDB_BUILD_FUZZ=OFF
          -DDRYDB_CONSUMER_TESTS=OFF
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the configure failed: ${status}")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PATH=${WORK_DIR}/bin:$ENV{PATH}"
                        ctest --test-dir "${WORK_DIR}/build" --show-only=json-v1
                RESULT_VARIABLE status OUTPUT_VARIABLE json)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ctest --show-only failed: ${status}")
endif()
string(JSON count LENGTH "${json}" tests)
set(pytest_registered FALSE)
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" tests ${i} name)
    if(NOT name STREQUAL "python.pytest")
      continue()
    endif()
    set(pytest_registered TRUE)
    string(JSON interpreter GET "${json}" tests ${i} command 0)
    message(STATUS "python.pytest runs ${interpreter}")
    if(interpreter STREQUAL "${WORK_DIR}/bin/python3")
      message(FATAL_ERROR "python.pytest runs the python3 that cannot import pytest")
    endif()
    execute_process(
      COMMAND "${CMAKE_COMMAND}" -E env "PATH=${WORK_DIR}/bin:$ENV{PATH}" "${interpreter}" -c
              "import pytest, msgpack, dask, dask.dataframe, distributed, pandas"
      RESULT_VARIABLE status ERROR_VARIABLE err)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "python.pytest is registered, but ${interpreter} cannot run it: ${err}")
    endif()
  endforeach()
endif()
string(FIND "${out}" "the Python tests (python.pytest) are left out" tests_left_out)
string(FIND "${out}" "the Python package is left out" package_left_out)
if(NOT pytest_registered AND tests_left_out EQUAL -1 AND package_left_out EQUAL -1)
  message(FATAL_ERROR "python.pytest is not registered, and the configure does not say why")
endif()
string(FIND "${out}" "Python ${WORK_DIR}/bin/python3 passed over: it lacks pytest" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the configure did not pass over the python3 without pytest")
endif()
message(STATUS "ok: no Python test that cannot run is registered")
