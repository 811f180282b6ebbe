"""The wheel of the Python package: setuptools drives the project's CMake build (pyproject.toml).

    /usr/bin/python3 -m pip wheel --no-build-isolation --no-deps -w dist .

The extension is built by CMake, not by setuptools' compiler: build_ext configures the project
with only the package on (no tests, benches, tool, examples, fuzz targets or install rules),
builds its target, drydb_python, and copies the importable package CMake assembles
(python/CMakeLists.txt: the extension, __init__.py, dask.py, _drydb.pyi, py.typed) into the
wheel. The version is CMakeLists.txt's project() version.

Everything setuptools and CMake write goes under build/wheel/ (ignored by git): CMake's build in
build/wheel/temp.<platform>-<python>/ is kept, so a second wheel compiles only what changed.
Environment: CMAKE_BUILD_PARALLEL_LEVEL (jobs, default 2), DRYDB_CMAKE_ARGS (more cache
arguments, split on spaces: -DCMAKE_CXX_COMPILER=clang++, say).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
BUILD_BASE = "build/wheel"


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"^project\(drydb\s+VERSION\s+([0-9][0-9.]*)", text, re.MULTILINE)
    if not match:
        sys.exit("setup.py: no project(drydb VERSION ...) in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds drydb._drydb with CMake and puts the whole package beside it."""

    def build_extension(self, ext):
        build = Path(self.build_temp).resolve()
        jobs = str(self.parallel or os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or 2)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DDRYDB_BUILD_PYTHON=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DDRYDB_BUILD_TESTS=OFF", "-DDRYDB_BUILD_BENCH=OFF", "-DDRYDB_BUILD_CLI=OFF",
            "-DDRYDB_BUILD_EXAMPLES=OFF", "-DDRYDB_BUILD_FUZZ=OFF", "-DDRYDB_INSTALL=OFF",
        ] + os.environ.get("DRYDB_CMAKE_ARGS", "").split()
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "drydb_python", "-j", jobs],
                       check=True)

        # The package as CMake assembles it, in place of whatever an earlier build left.
        package = build / "python" / "package" / "drydb"
        target = Path(self.get_ext_fullpath(ext.name)).parent
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
        if not Path(self.get_ext_fullpath(ext.name)).is_file():
            sys.exit(f"setup.py: CMake built no {Path(self.get_ext_fullpath(ext.name)).name} "
                     f"in {package}")


os.makedirs(ROOT / BUILD_BASE, exist_ok=True)
setup(
    version=project_version(),
    # No Python packages of setuptools' own: build_ext copies the whole package from CMake's build.
    packages=[],
    py_modules=[],
    ext_modules=[Extension("drydb._drydb", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
