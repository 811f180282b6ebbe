# python.install: `cmake --install --component python` of the build tree into a fresh prefix,
# then the interpreter imports the installed package (and not the build tree's) from where the
# install put it, and builds and reads a database with it.
#   cmake -DBINARY_DIR=... -DWORK_DIR=... -DPYTHON=... -DINSTALL_DIR=... -P install.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --component python
                        --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${status}")
endif()
cmake_path(ABSOLUTE_PATH INSTALL_DIR BASE_DIRECTORY "${WORK_DIR}/prefix" OUTPUT_VARIABLE site)
set(check [=[
import sys, drydb
assert drydb.__file__.startswith(sys.argv[1]), drydb.__file__
b = drydb.Builder()
b.create_table("t", "int64").append(7, b"seven")
assert drydb.open_bytes(b.build_bytes()).table("t")[7] == b"seven"
print("installed drydb works:", drydb.__file__)
]=])
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${site}" PYTHONNOUSERSITE=1
                        "${PYTHON}" -c "${check}" "${site}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the installed package does not import from ${site}")
endif()
