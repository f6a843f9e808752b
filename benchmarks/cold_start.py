"""Cold start: seconds from a fresh process with an empty numba cache to the end of a first step.

Two cases, each run in its own fresh Python process with ``NUMBA_CACHE_DIR`` set to a new empty
folder (nothing compiled before, nothing shared between runs):

- ``scalar``: a ``PathFollower`` and a ``Vehicle`` (storm) on a 5-waypoint path, the follower's
  first ``step`` then the vehicle's first ``step``: what a game loop waits for on its first frame;
- ``batch``: 1,000 vehicles on that path in a walled world (``World(walls=walls_along(...))``),
  the follower's first ``step_batch`` then the vehicle's first ``step_batch(..., world=)``.

Wall and CPU seconds of the whole child process are reported (CPU, the child's user + system
time, is the figure to compare on a shared machine). This measures whole processes, so it does
not use the in-process timing loop of ``harness.py``; it prints the same machine line and a
markdown table.

``--compare SRC`` also runs every case with another checkout's ``src`` folder first on the
child's ``PYTHONPATH`` (e.g. a ``git worktree`` of an earlier commit), interleaved with this
checkout's runs, so that both are measured in one run under the same load.

Run: ``.venv/bin/python benchmarks/cold_start.py [--runs N] [--compare SRC]`` from the
repository's root.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

from harness import machine_line, markdown_table, parse_arguments

CHILD = r"""
import sys
import numpy as np
from steerlab.follower import PathFollower
from steerlab.geometry import Polyline
from steerlab.vehicles import PRESETS, Vehicle, VehicleBatch, VehicleState
from steerlab.world import World, walls_along

points = np.array([[0.0, 0.0], [40.0, 0.0], [60.0, 20.0], [60.0, 60.0], [20.0, 80.0]])
vehicle = Vehicle(PRESETS["storm"])
if sys.argv[1] == "scalar":
    follower = PathFollower(PRESETS["storm"], path=points)
    state = VehicleState(0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0)
    vehicle.step(state, follower.step(state, 0.02), 0.02)
else:
    count = int(sys.argv[2])
    world = World(walls=walls_along(Polyline(points, widths=10.0), margin=1.0))
    follower = PathFollower(PRESETS["storm"])
    follower.set_paths([points] * count)
    starts = [VehicleState(0.0, 0.5 * (i % 5), 0.0, 0.0, 0.0, 0.0, 0.0) for i in range(count)]
    batch = VehicleBatch.from_states(starts)
    out = follower.step_batch(batch, 0.02)
    vehicle.step_batch(batch, out.steer, out.throttle, 0.02, world=world)
"""


def cold_run(case: str, count: int, source: str | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process with an empty numba cache; ``source``, a
    ``src`` folder imported before the installed steerlab."""
    with tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache}
        if source is not None:
            environment["PYTHONPATH"] = os.pathsep.join(
                filter(None, (os.path.abspath(source), environment.get("PYTHONPATH")))
            )
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", CHILD, case, str(count)],
            env=environment,
            check=True,
            stderr=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv=None) -> list[tuple[str, float, float]]:
    arguments = parse_arguments(
        __doc__.splitlines()[0],
        argv,
        runs=(int, (2, 1), "fresh processes per case"),
        vehicles=(int, (1000, 20), "vehicles of the batch case"),
        compare=(str, (None, None), "another checkout's src folder, measured in the same run"),
    )
    sources = [None] if arguments.compare is None else [arguments.compare, None]
    rows = []
    for case in ("scalar", "batch"):
        for _ in range(arguments.runs):
            for source in sources:
                wall, cpu = cold_run(case, arguments.vehicles, source)
                rows.append((case, source or "this checkout", wall, cpu))
    print(machine_line())
    table = [(case, source, f"{wall:.1f}", f"{cpu:.1f}") for case, source, wall, cpu in rows]
    print(markdown_table(("first step, empty cache", "code", "wall [s]", "CPU [s]"), table))
    return [(case, wall, cpu) for case, _, wall, cpu in rows]


if __name__ == "__main__":
    main()
