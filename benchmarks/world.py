"""Swept moves among walls: ``World.move_batch`` moves per second, plain Python vs scalar vs batch.

A walled corridor world (``walls_along`` a meander of 40 legs of 25 m with 90-degree turns,
width 6 m, margin 0.5 m: 158 walls, grid of 4.5 m cells), 1e5 footprints placed at random across
the corridor, each moved by a random frame displacement (speed 0-40 m/s over 1/30 s, heading the
corridor's +- 1.2 rad); about 5 % of the moves touch a wall and slide, as vehicles in a corridor
do. Circles of radius 1 m and boxes of 2.4 x 1 m half sizes (a car) are measured separately.
Each repetition restarts from the same positions. Plain Python (the same kernels uncompiled,
``steerlab._jit.uncompiled``) moves the first 2,000 footprints (best over 0.5 s), the scalar
figure loops ``World.move`` over 2,000, the batch moves all 1e5 (best over 1 s) on one numba
thread (per core) and on every thread.

Run: ``.venv/bin/python benchmarks/world.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import harness
from steerlab.geometry import Polyline
from steerlab.world import Footprint, World, walls_along

FOOTPRINTS = 100_000
PYTHON_FOOTPRINTS = 2_000
SCALAR_FOOTPRINTS = 2_000
DT = 1.0 / 30.0  # [s]
SHAPES = {"circle r=1": Footprint.circle(1.0), "box 2.4x1": Footprint.box(2.4, 1.0)}
MODULES = ("steerlab.world.world", "steerlab.world.collide", "steerlab.world.grid")


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


def comparison(world, path, name, footprint, footprints, progress) -> harness.Comparison:
    """The moves of the first ``count`` of ``footprints`` footprints, from their start each run."""
    x0, y0, yaw, dx, dy = scenario(world, path, footprint, footprints)
    out = world.move_batch(x0.copy(), y0.copy(), dx, dy, yaw, footprint)  # compile
    progress(f"{name}: {out.hit.mean():.0%} of the moves touch a wall")

    def batch(count):
        x, y = np.empty(count), np.empty(count)
        moves = (dx[:count], dy[:count], yaw[:count], footprint)
        result = out if count == footprints else None

        def run():
            x[:] = x0[:count]
            y[:] = y0[:count]
            world.move_batch(x, y, *moves, result)

        return run

    def scalar(count):
        def run():
            for i in range(count):
                world.move((x0[i], y0[i]), (dx[i], dy[i]), yaw[i], footprint)

        return run

    return harness.Comparison(name, batch, python=batch, scalar=scalar, modules=MODULES)


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    footprints = 300 if quick else FOOTPRINTS
    path = meander()
    world = World(walls=walls_along(path, margin=0.5))
    harness.progress_printer(f"{world!r}")
    rows = []
    for name, footprint in SHAPES.items():
        rows += harness.compare(
            comparison(world, path, name, footprint, footprints, harness.progress_printer),
            sizes=(footprints,),
            python_count=50 if quick else PYTHON_FOOTPRINTS,
            scalar_count=50 if quick else SCALAR_FOOTPRINTS,
            budget=0.01 if quick else 0.3,
            python_budget=0.01 if quick else 0.5,
            batch_budget=0.01 if quick else 1.0,
            progress=harness.progress_printer,
        )
    print(harness.render_speed(rows, "Swept moves among walls", "moves"))
    return rows


if __name__ == "__main__":
    main()
