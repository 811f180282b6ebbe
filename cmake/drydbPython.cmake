# Which Python interpreter can run tests/python, checked at configure time.
#
# The `python3` first on PATH is often not the one that has pytest (a pyenv or virtualenv shim
# before Debian's /usr/bin/python3), and the package is built for one interpreter, which its
# tests must then run with. So, when the caller names none (-DPython_EXECUTABLE), the top-level
# CMakeLists.txt picks the first python3 on PATH, then /usr/bin/python3, that has Python's
# headers and imports every module the tests need (drydb_choose_python_for_tests); and
# tests/python registers the pytest suite only when the package's interpreter imports them
# (drydb_python_missing_test_modules).

# What tests/python imports: pytest and the modules its suites need (test_dask.py fails, rather
# than skips, without Dask).
set(DRYDB_PYTHON_TEST_MODULES pytest msgpack dask dask.dataframe distributed pandas)

# Sets `out` to what `interpreter` lacks to run tests/python: the modules of
# DRYDB_PYTHON_TEST_MODULES it cannot import, then "Python.h" when its headers are missing (a
# list; empty when it has everything), or to "a working interpreter" when it does not run.
# Importing Dask takes seconds: an interpreter is asked once per configure.
function(drydb_python_missing_test_modules interpreter out)
  string(MD5 key "${interpreter}")
  get_property(known GLOBAL PROPERTY drydb_python_probe_${key} SET)
  if(known)
    get_property(missing GLOBAL PROPERTY drydb_python_probe_${key})
    set(${out} "${missing}" PARENT_SCOPE)
    return()
  endif()
  set(probe [=[
import importlib, os, sys, sysconfig
missing = []
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception:
        missing.append(name)
if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
    missing.append("Python.h")
print(";".join(missing))
]=])
  execute_process(COMMAND "${interpreter}" -c "${probe}" ${DRYDB_PYTHON_TEST_MODULES}
                  RESULT_VARIABLE status OUTPUT_VARIABLE missing ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 120)
  if(NOT status EQUAL 0)
    set(missing "a working interpreter")
  endif()
  set_property(GLOBAL PROPERTY drydb_python_probe_${key} "${missing}")
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()

# Unless the caller named an interpreter (Python_EXECUTABLE), sets Python_EXECUTABLE in the cache
# to the first python3 on PATH, then /usr/bin/python3, that can build the package and run its
# tests; when none can, leaves the choice to FindPython (and tests/python leaves its suite out).
function(drydb_choose_python_for_tests)
  if(Python_EXECUTABLE)
    return()
  endif()
  set(candidates "")
  set(seen "")
  set(path "$ENV{PATH}")
  string(REPLACE ":" ";" dirs "${path}")
  foreach(dir IN LISTS dirs ITEMS /usr/bin)
    if(dir STREQUAL "" OR NOT EXISTS "${dir}/python3" OR IS_DIRECTORY "${dir}/python3")
      continue()
    endif()
    file(REAL_PATH "${dir}/python3" real)
    if(NOT real IN_LIST seen)
      list(APPEND seen "${real}")
      list(APPEND candidates "${dir}/python3")
    endif()
  endforeach()
  foreach(candidate IN LISTS candidates)
    drydb_python_missing_test_modules("${candidate}" missing)
    if(NOT missing)
      message(STATUS "drydb: Python ${candidate} (it can run the Python tests)")
      set(Python_EXECUTABLE "${candidate}" CACHE FILEPATH
          "The Python interpreter the package is built for and its tests run with")
      return()
    endif()
    list(JOIN missing ", " shown)
    message(STATUS "drydb: Python ${candidate} passed over: it lacks ${shown}")
  endforeach()
endfunction()
