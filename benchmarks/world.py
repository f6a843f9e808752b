"""Swept moves among walls: ``World.move_batch`` calls per second, plain Python vs scalar vs batch.

A walled corridor world (``walls_along`` a meander of 40 legs of 25 m with 90-degree turns,
width 6 m, margin 0.5 m: 158 walls, grid of 4.5 m cells), 1e5 footprints placed at random across
the corridor, each moved by a random frame displacement (speed 0-40 m/s over 1/30 s, heading the
corridor's +- 1.2 rad); about 5 % of the moves touch a wall and slide, as vehicles in a corridor
do. Circles of radius 1 m and boxes of 2.4 x 1 m half sizes (a car) are measured separately.
Each repetition restarts from the same positions.

Run: ``.venv/bin/python benchmarks/world.py``. One process; per-core figures with one numba
thread; the plain-Python figure runs the same kernels uncompiled (``steerlab._jit.uncompiled``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

import steerlab.world.collide
import steerlab.world.grid
import steerlab.world.world
from steerlab._jit import uncompiled
from steerlab.experiments.speed import SpeedRow, machine, measure_rate, render_markdown
from steerlab.geometry import Polyline
from steerlab.world import Footprint, World, walls_along

FOOTPRINTS = 100_000
PYTHON_FOOTPRINTS = 2_000
SCALAR_FOOTPRINTS = 2_000
DT = 1.0 / 30.0  # [s]
SHAPES = {"circle r=1": Footprint.circle(1.0), "box 2.4x1": Footprint.box(2.4, 1.0)}


def meander(legs: int = 40, leg: float = 25.0) -> Polyline:
    """Legs of ``leg`` metres turning left, then right, ...: a square wave of 90-degree turns."""
    points = [(0.0, 0.0)]
    heading = 0.0
    for index in range(legs):
        x, y = points[-1]
        points.append((x + leg * math.cos(heading), y + leg * math.sin(heading)))
        heading += math.pi / 2 if index % 4 in (0, 3) else -math.pi / 2
    return Polyline(points, widths=6.0)


def scenario(world: World, path: Polyline, footprint: Footprint, size: int, seed: int = 0):
    """Positions, yaws and displacements of ``size`` footprints in the corridor.

    Footprints are placed across the corridor's width, then settled (a zero move pushes the few
    that overlap a wall at a turn out of it).
    """
    rng = np.random.default_rng(seed)
    x = np.empty(size)
    y = np.empty(size)
    yaw = np.empty(size)
    for i in range(size):
        s = rng.uniform(0.0, path.length)
        point = path.point_at(s)
        heading = path.heading_at(s)
        offset = rng.uniform(-2.4, 2.4)  # [m] inside the 3.5 m half corridor
        x[i] = point[0] - offset * math.sin(heading)
        y[i] = point[1] + offset * math.cos(heading)
        yaw[i] = heading
    world.move_batch(x, y, 0.0, 0.0, yaw, footprint)
    direction = yaw + rng.uniform(-1.2, 1.2, size)
    distance = rng.uniform(0.0, 40.0, size) * DT
    return x, y, yaw, distance * np.cos(direction), distance * np.sin(direction)


def measure_case(world: World, path: Polyline, name: str, footprint: Footprint, progress):
    """Plain Python, scalar ``move`` and ``move_batch`` (one thread, all threads) for one shape."""
    x0, y0, yaw, dx, dy = scenario(world, path, footprint, FOOTPRINTS)
    out = world.move_batch(x0.copy(), y0.copy(), dx, dy, yaw, footprint)  # compile
    progress(f"{name}: {out.hit.mean():.0%} of the moves touch a wall")
    rows = []
    small = PYTHON_FOOTPRINTS
    x_small, y_small = x0[:small].copy(), y0[:small].copy()

    def python_loop():
        x_small[:] = x0[:small]
        y_small[:] = y0[:small]
        world.move_batch(x_small, y_small, dx[:small], dy[:small], yaw[:small], footprint)

    progress(f"{name}: plain Python")
    with uncompiled(steerlab.world.world, steerlab.world.collide, steerlab.world.grid):
        rate = measure_rate(python_loop, small, budget=0.5)
    rows.append(SpeedRow(name, "python", small, 1, rate))

    progress(f"{name}: scalar move")

    def scalar_loop():
        for i in range(SCALAR_FOOTPRINTS):
            world.move((x0[i], y0[i]), (dx[i], dy[i]), yaw[i], footprint)

    rate = measure_rate(scalar_loop, SCALAR_FOOTPRINTS)
    rows.append(SpeedRow(name, "step", SCALAR_FOOTPRINTS, 1, rate))
    x_work = np.empty(FOOTPRINTS)
    y_work = np.empty(FOOTPRINTS)

    def batch_run():
        x_work[:] = x0
        y_work[:] = y0
        world.move_batch(x_work, y_work, dx, dy, yaw, footprint, out)

    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        progress(f"{name}: move_batch {FOOTPRINTS} footprints, {threads} thread(s)")
        previous = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            rate = measure_rate(batch_run, FOOTPRINTS, budget=1.0)
        finally:
            numba.set_num_threads(previous)
        rows.append(SpeedRow(name, "step_batch", FOOTPRINTS, threads, rate))
    return rows


def run(progress=print) -> list[SpeedRow]:
    path = meander()
    world = World(walls=walls_along(path, margin=0.5))
    progress(f"{world!r}")
    rows = []
    for name, footprint in SHAPES.items():
        rows += measure_case(world, path, name, footprint, progress)
    return rows


if __name__ == "__main__":
    rows = run(progress=lambda message: print(message, flush=True))
    print(
        render_markdown(rows, machine(), title="Swept moves among walls").replace(
            "agent-steps per second", "moves per second"
        )
    )
