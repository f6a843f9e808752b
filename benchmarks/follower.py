"""Seed 001's path follower: Algorithm 1 alone, and the whole follower, per second; plain Python
vs scalar vs batch, each vehicle on its own path.

Each vehicle has its own path (ragged paths, packed), drawn from a pool of random paths like a
game level's (``path_pool``: 4 to 15 waypoints, legs of 5 to 40 m turning by up to 120 degrees),
and stands somewhere along it, up to 3 m off, heading roughly along it. The states do not move
between frames (the follower alone is timed; plant and world are measured elsewhere), so every
frame does the same work: the windowed projection, Algorithm 1, PI, target point, pure pursuit,
the stuck check. Plain Python runs the same kernels uncompiled (``steerlab._jit.uncompiled``) on
300 vehicles, the scalar figure loops ``step`` over 1,000, the batch figure is ``step_batch`` at
1e3 and 1e5 vehicles on one thread (per core: the serial build, ``steerlab._jit.BatchKernel``)
and on every thread (the parallel build). Frames of 0.02 s.

Rows:

- ``Algorithm 1 [projection given]``: ``target_speed``'s kernel with the projection of ``r``
  known (as in the follower, which shares it with the target point and the stuck manager);
  calls per second;
- ``Algorithm 1 [+ projection]``: the same, projecting ``r`` on the whole path first (what the
  public ``target_speed`` does);
- ``Algorithm 1 [projection given, moving]``: as the first row at the smallest size, but each
  call is the next of ``MOVING_FRAMES`` frames in which every vehicle has advanced
  ``MOVING_STEP`` along its path (10 m/s at 50 Hz), as in a game loop, instead of the same frame
  replayed (whose branches the processor learns);
- ``PathFollower``, ``BaselineFollower``: ``step_batch`` (and ``step``);
- ``PathFollower + Vehicle[storm]``: the follower then ``steerlab.vehicles`` on flat ground,
  without world (walls, terrain);
- ``PathFollower + Vehicle[storm] + World[walls]``: the full loop, each path walled
  (``walled_pool``: 10 m corridors, walls 1 m beyond) in one world, the vehicle stepped through
  ``steerlab.sim.step_vehicles`` (terrain sample, dynamics, swept box collision, skipped while a
  vehicle's free disc proves its move free: ``steerlab.world.collide``).

Targets: Algorithm 1 alone (N = 5) >= 10 M calls/s per core batched; the full loop, 1e5 vehicles
on different paths, >= 2 M agent-steps/s per core.

Run: ``.venv/bin/python benchmarks/follower.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

import importlib
import itertools
import math
from collections.abc import Sequence

import numpy as np

import harness
from steerlab.follower import BaselineFollower, PathFollower
from steerlab.follower.paths import _PackedPaths, _PathPack
from steerlab.follower.target_speed import Algorithm1Params
from steerlab.geometry import Polyline, planar_polyline
from steerlab.geometry.kernels import project
from steerlab.vehicles import PRESETS, Vehicle, VehicleBatch
from steerlab.world import Walls, World, walls_along

# the module (``steerlab.follower.target_speed`` the attribute is the function of that name)
target_speed_module = importlib.import_module("steerlab.follower.target_speed")

SIZES = (1_000, 100_000)
DT = 0.02  # [s] a 50 Hz game frame
MOVING_FRAMES = 60  # frames of the moving Algorithm 1 row, cycled
MOVING_STEP = 0.2  # [m] each vehicle's advance along its path per frame
FOLLOWER_MODULES = (
    "steerlab.follower.follower",
    "steerlab.follower.target_speed",
    "steerlab.follower.target_point",
    "steerlab.follower.speed_control",
    "steerlab.follower.steering",
    "steerlab.follower.stuck",
    "steerlab.follower.baseline",
    "steerlab.geometry.kernels",
)


def path_pool(count: int = 1_000, seed: int = 1) -> list[np.ndarray]:
    """``count`` random paths [m]: 4 to 15 waypoints, legs of 5 to 40 m turning by up to 120
    degrees, somewhere in a 2 km square."""
    rng = np.random.default_rng(seed)
    paths = []
    for _ in range(count):
        k = int(rng.integers(4, 16))
        headings = np.cumsum(rng.uniform(-2.0 * np.pi / 3.0, 2.0 * np.pi / 3.0, k - 1))
        legs = rng.uniform(5.0, 40.0, k - 1)
        steps = np.column_stack((legs * np.cos(headings), legs * np.sin(headings)))
        points = np.vstack((np.zeros(2), np.cumsum(steps, axis=0)))
        paths.append(points + rng.uniform(-1_000.0, 1_000.0, 2))
    return paths


def walled_pool(pool: list[np.ndarray], width: float = 10.0, margin: float = 1.0):
    """The pool's paths spread over a grid of 1 km cells (no two overlap) and one ``World`` with
    the walls of every path's corridor (``walls_along``, full width ``width``, ``margin``) [m]."""
    side = math.ceil(math.sqrt(len(pool)))
    spread = []
    walls = Walls.empty()
    for index, points in enumerate(pool):
        cell = np.array([index % side, index // side], dtype=float) * 1_000.0
        shifted = points - points.mean(axis=0) + cell
        spread.append(shifted)
        walls = walls + walls_along(Polyline(shifted, width), margin)
    return spread, World(walls=walls)


def vehicles_on(paths: list[np.ndarray], rng: np.random.Generator) -> VehicleBatch:
    """One vehicle per path, at a random arc length, up to 3 m off, heading along +- 0.3 rad."""
    return vehicle_frames(paths, rng, 1, 0.0)[0]


def vehicle_frames(
    paths: list[np.ndarray], rng: np.random.Generator, frames: int, step: float
) -> list[VehicleBatch]:
    """``frames`` batches of the vehicles of ``vehicles_on``, advanced ``step`` [m] along their
    paths (same offset and heading error, stopping at the path's end) from one to the next."""
    size = len(paths)
    x = np.empty((frames, size))
    y = np.empty((frames, size))
    yaw = np.empty((frames, size))
    for i, points in enumerate(paths):
        path = planar_polyline(points)
        s = rng.uniform(0.0, path.length)
        offset = rng.uniform(-3.0, 3.0)
        turn = rng.uniform(-0.3, 0.3)
        for frame in range(frames):
            at = min(s + frame * step, path.length)
            point = path.point_at(at)
            heading = path.heading_at(at)
            x[frame, i] = point[0] - offset * math.sin(heading)
            y[frame, i] = point[1] + offset * math.cos(heading)
            yaw[frame, i] = heading + turn
    v = rng.uniform(0.0, 10.0, size)
    return [VehicleBatch(x[k], y[k], yaw[k], v.copy()) for k in range(frames)]


def algorithm1(pool, rng, given: bool, frames: int = 1):
    """A builder (count -> run) of Algorithm 1's batch kernel on ``count`` vehicles, the
    projection of ``r`` given or not, over ``frames`` frames taken in turn."""

    def build(size):
        paths = [pool[i] for i in rng.integers(len(pool), size=size)]
        pack = _PathPack([planar_polyline(points) for points in paths])
        z = np.zeros(size)
        out = np.empty(size), np.empty(size)
        calls = []
        for batch in vehicle_frames(paths, rng, frames, MOVING_STEP):
            s = np.full(size, np.nan)
            segment = np.zeros(size, dtype=np.int64)
            start = np.zeros((3, size))
            if given:
                for i in range(size):
                    first, count = pack.first[i], pack.count[i]
                    result = project(
                        pack.points[first : first + count],
                        pack.cum[first : first + count],
                        batch.x[i],
                        batch.y[i],
                        0.0,
                    )
                    s[i], start[0, i], start[1, i], start[2, i], segment[i] = result[:5]
            paths_arrays = _PackedPaths(pack.points, pack.cum, pack.first, pack.count)
            settings = Algorithm1Params(0.4, 6.0, 5, 1.0, 10.0)
            calls.append(((batch.x, batch.y, z), (s, *start, segment), paths_arrays, settings, out))

        frame = itertools.cycle(calls)  # one frame replayed, or the frames in turn

        def run():
            # through the module, so that ``uncompiled`` swaps the kernel
            target_speed_module._target_speed_batch(*next(frame))

        return run

    return build


def follower_comparison(name, follower_class, plant, pool, rng) -> harness.Comparison:
    """``follower_class`` on the storm alone (``plant`` None), followed by ``Vehicle[storm]``
    (``plant`` the vehicle), or by the vehicle in a world (``plant`` a ``(vehicle, world)``)."""
    storm = PRESETS["storm"]

    def python(count):
        paths = [pool[i] for i in rng.integers(len(pool), size=count)]
        follower = follower_class(storm)
        follower.set_paths(paths)
        batch = vehicles_on(paths, rng)
        return lambda: follower.step_batch(batch, DT)

    def scalar(count):
        paths = [pool[i] for i in rng.integers(len(pool), size=count)]
        singles = [follower_class(storm, path=points) for points in paths]
        batch = vehicles_on(paths, rng)
        states = [batch.state(i) for i in range(count)]

        def run():
            for single, state in zip(singles, states, strict=True):
                single.step(state, DT)

        return run

    def batch(size):
        paths = [pool[i] for i in rng.integers(len(pool), size=size)]
        follower = follower_class(storm)
        follower.set_paths(paths)
        vehicles = vehicles_on(paths, rng)
        out = follower.step_batch(vehicles, DT)
        if plant is None:
            return lambda: follower.step_batch(vehicles, DT, out)
        vehicle, world = plant if isinstance(plant, tuple) else (plant, None)

        def run():
            follower.step_batch(vehicles, DT, out)
            vehicle.step_batch(vehicles, out.steer, out.throttle, DT, world=world)

        return run

    alone = plant is None
    return harness.Comparison(
        name,
        batch,
        python=python if alone else None,
        scalar=scalar if alone else None,
        modules=FOLLOWER_MODULES,
    )


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    sizes = (200,) if quick else SIZES
    settings = {
        "python_count": 20 if quick else 300,
        "scalar_count": 20 if quick else 1_000,
        "budget": 0.01 if quick else 0.3,
        "progress": harness.progress_printer,
    }
    rng = np.random.default_rng(0)
    pool = path_pool(50 if quick else 1_000)
    rows = []
    for given in (True, False):
        name = "Algorithm 1 [projection given]" if given else "Algorithm 1 [+ projection]"
        build = algorithm1(pool, rng, given)
        comparison = harness.Comparison(name, build, python=build, modules=FOLLOWER_MODULES)
        rows += harness.compare(comparison, sizes, **settings)
    moving = algorithm1(pool, rng, True, MOVING_FRAMES)
    name = "Algorithm 1 [projection given, moving]"
    rows += harness.compare(harness.Comparison(name, moving), sizes[:1], **settings)
    vehicle = Vehicle(PRESETS["storm"])
    walled, world = walled_pool(pool)
    for name, follower_class, plant, paths in (
        ("PathFollower", PathFollower, None, pool),
        ("BaselineFollower", BaselineFollower, None, pool),
        ("PathFollower + Vehicle[storm]", PathFollower, vehicle, pool),
        ("PathFollower + Vehicle[storm] + World[walls]", PathFollower, (vehicle, world), walled),
    ):
        comparison = follower_comparison(name, follower_class, plant, paths, rng)
        rows += harness.compare(comparison, sizes, **settings)
    print(harness.render_speed(rows, "Path follower speed, seed 001", "agent-steps or calls"))
    return rows


if __name__ == "__main__":
    main()
