"""A pytest plugin: which numba builds each test compiles, and the seconds it spends compiling.

numba fires a ``numba:compile`` event when it compiles a function for a signature it did not
find in the on-disk cache (a load from the cache fires none). Run after ``steerlab warmup`` into
the same cache, the suite's compiles are the builds the warm-up does not make::

    NUMBA_CACHE_DIR=/tmp/cache steerlab warmup
    NUMBA_CACHE_DIR=/tmp/cache SUITE_COMPILES=/tmp/compiles.jsonl \
        python -m pytest -p benchmarks.suite_compiles -n 2 --dist loadfile

Each process (each xdist worker) appends one JSON line per test that compiled: the test's id,
the seconds between the start and end of its outermost compiles, and each compile (outermost or
not) as ``[module.function, build, argument types]``. ``python benchmarks/suite_compiles.py
/tmp/compiles.jsonl`` prints them, the costliest tests first, then the builds by function.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter

_state = {"depth": 0, "start": 0.0, "seconds": 0.0, "builds": []}


def _build_name(dispatcher) -> str:
    """steerlab's name of the build (``steerlab._jit``): serial, parallel, called, linked, or the
    kernel by itself (a scalar step, a quick build)."""
    build = getattr(dispatcher, "_steerlab_build", None)
    if build:
        return build
    if type(dispatcher).__name__ == "_LinkedDispatcher":
        return "linked"
    return "own"


def _listener():
    from numba.core import event

    class Record(event.Listener):
        def on_start(self, happening):
            data = happening.data
            function = data["dispatcher"].py_func
            name = f"{function.__module__}.{function.__qualname__}"
            arguments = ", ".join(str(argument) for argument in data.get("args", ()))
            _state["builds"].append([name, _build_name(data["dispatcher"]), arguments])
            if _state["depth"] == 0:
                _state["start"] = time.perf_counter()
            _state["depth"] += 1

        def on_end(self, happening):
            _state["depth"] -= 1
            if _state["depth"] == 0:
                _state["seconds"] += time.perf_counter() - _state["start"]

    return Record()


def pytest_configure(config):
    from numba.core import event

    event.register("numba:compile", _listener())


def _write(nodeid: str) -> None:
    if _state["builds"]:
        line = {"test": nodeid, "seconds": round(_state["seconds"], 2), "builds": _state["builds"]}
        with open(os.environ.get("SUITE_COMPILES", "suite_compiles.jsonl"), "a") as out:
            out.write(json.dumps(line) + "\n")
    _state.update(seconds=0.0, builds=[])


def pytest_collection_finish(session):
    _write("(collection: module-level code)")


def pytest_runtest_logfinish(nodeid, location):
    _write(nodeid)


def summary(path: str) -> None:
    """The tests that compiled, the costliest first, then the builds by function and build."""
    with open(path) as lines:
        tests = [json.loads(line) for line in lines]
    tests.sort(key=lambda test: -test["seconds"])
    total = sum(test["seconds"] for test in tests)
    print(f"{len(tests)} tests compiled, {total:.0f} s of compiling in all")
    for test in tests:
        print(f"{test['seconds']:7.1f} s  {len(test['builds']):3d} builds  {test['test']}")
    counts = Counter((name, build) for test in tests for name, build, _ in test["builds"])
    print("\nbuilds by function (outermost and inner compiles)")
    for (name, build), count in counts.most_common():
        print(f"{count:4d}  {build:8s} {name}")


if __name__ == "__main__":
    summary(sys.argv[1])
