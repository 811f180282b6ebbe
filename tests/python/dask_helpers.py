"""Index functions the Dask tests ship to their worker processes (which import this module)."""

import functools
import os


def _fail_once(marker, column, key, row):
    # The first call anywhere creates the marker and fails; every later one (the retried task
    # included) finds it and goes on.
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return None
    os.close(fd)
    raise RuntimeError("a shard task that fails once")


def fail_once(marker, column):
    """An index key function (key, row) -> None that raises the first time it is called."""
    return functools.partial(_fail_once, marker, column)
