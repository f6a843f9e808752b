"""Speed of seed 001's path follower: Algorithm 1 alone, and the whole follower, per second.

Each vehicle has its own path (ragged paths, packed), drawn from a pool of random paths like a
game level's (``path_pool``: 4 to 15 waypoints, legs of 5 to 40 m turning by up to 120 degrees),
and stands somewhere along it, up to 3 m off, heading roughly along it. The states do not move
between frames (the follower alone is timed; plant and world are measured elsewhere), so every
frame does the same work: the windowed projection, Algorithm 1, PI, target point, pure pursuit,
the stuck check. As for the engines (``steerlab.experiments.speed``): plain Python runs the same
kernels uncompiled (``steerlab._jit.uncompiled``), the scalar figure loops ``step``, the batch
figure is ``step_batch`` on one thread (per core: the serial build, ``steerlab._jit.BatchKernel``)
and on every thread (the parallel build).

Rows:

- ``Algorithm 1 [projection given]``: ``target_speed``'s kernel with the projection of ``r``
  known (as in the follower, which shares it with the target point and the stuck manager);
- ``Algorithm 1 [+ projection]``: the same, projecting ``r`` on the whole path first (what the
  public ``target_speed`` does);
- ``Algorithm 1 [projection given, moving]``: as the first row at the smallest size, but each
  call is the next of ``MOVING_FRAMES`` frames in which every vehicle has advanced
  ``MOVING_STEP`` along its path (10 m/s at 50 Hz), as in a game loop, instead of the same frame
  replayed (whose branches the processor learns);
- ``PathFollower``, ``BaselineFollower``: ``step_batch`` (and ``step``);
- ``PathFollower + Vehicle[storm]``: the follower then ``steerlab.vehicles`` on flat ground,
  without world (walls, terrain);
- ``PathFollower + Vehicle[storm] + World[walls]``: the full loop of the issue's target, each
  path walled (``walled_pool``: 10 m corridors, walls 1 m beyond) in one world, the vehicle
  stepped through ``World.step_vehicle_batch`` (terrain sample, dynamics, swept box collision,
  skipped while a vehicle's free disc proves its move free: ``steerlab.world.collide``).
"""

from __future__ import annotations

import importlib
import itertools
import math
from collections.abc import Callable

import numba
import numpy as np

from steerlab._jit import uncompiled
from steerlab.experiments.speed import SpeedRow, _modules, measure_rate, measure_with_threads
from steerlab.follower import BaselineFollower, PathFollower
from steerlab.follower.follower import _PathPack
from steerlab.geometry import planar_polyline
from steerlab.geometry.kernels import project
from steerlab.vehicles import PRESETS, Vehicle, VehicleBatch

# the module (``steerlab.follower.target_speed`` the attribute is the function of that name)
target_speed_module = importlib.import_module("steerlab.follower.target_speed")

__all__ = [
    "FOLLOWER_MODULES",
    "FOLLOWER_SIZES",
    "path_pool",
    "render_follower_markdown",
    "run_follower_benchmark",
]

FOLLOWER_SIZES = (1_000, 100_000)
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
    from steerlab.geometry import Polyline
    from steerlab.world import Walls, World, walls_along

    side = math.ceil(math.sqrt(len(pool)))
    spread = []
    walls = Walls.empty()
    for index, points in enumerate(pool):
        cell = np.array([index % side, index // side], dtype=float) * 1_000.0
        shifted = points - points.mean(axis=0) + cell
        spread.append(shifted)
        walls = walls + walls_along(Polyline(shifted, width), margin)
    return spread, World(walls=walls)


def _vehicles(paths: list[np.ndarray], rng: np.random.Generator) -> VehicleBatch:
    """One vehicle per path, at a random arc length, up to 3 m off, heading along +- 0.3 rad."""
    return _vehicle_frames(paths, rng, 1, 0.0)[0]


def _vehicle_frames(
    paths: list[np.ndarray], rng: np.random.Generator, frames: int, step: float
) -> list[VehicleBatch]:
    """``frames`` batches of the vehicles of ``_vehicles``, advanced ``step`` [m] along their
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


def _algorithm1_rows(pool, sizes, python_agents, budget, progress, rng) -> list[SpeedRow]:
    rows: list[SpeedRow] = []
    all_threads = numba.config.NUMBA_NUM_THREADS

    def prepare(size, given, frames=1):
        paths = [pool[i] for i in rng.integers(len(pool), size=size)]
        pack = _PathPack([planar_polyline(points) for points in paths])
        z = np.zeros(size)
        out = np.empty(size), np.empty(size)
        calls = []
        for batch in _vehicle_frames(paths, rng, frames, MOVING_STEP):
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
            arguments = (batch.x, batch.y, z, s, segment, *start, pack.points, pack.cum)
            calls.append((*arguments, pack.first, pack.count, 0.4, 6.0, 5, 1.0, 10.0, *out))

        frame = itertools.cycle(calls)  # one frame replayed, or the frames in turn

        def run(frame=frame):
            # through the module, so that ``uncompiled`` swaps the kernel
            target_speed_module._target_speed_batch(*next(frame))

        return run

    modules = _modules(FOLLOWER_MODULES)
    for given in (True, False):
        name = "Algorithm 1 [projection given]" if given else "Algorithm 1 [+ projection]"
        if progress:
            progress(f"{name}: plain Python")
        run = prepare(python_agents, given)
        with uncompiled(*modules):
            rows.append(
                SpeedRow(name, "python", python_agents, 1, measure_rate(run, python_agents, budget))
            )
        for size in sizes:
            run = prepare(size, given)
            for threads in sorted({1, all_threads}):
                if progress:
                    progress(f"{name}: batch {size} vehicles, {threads} thread(s)")
                rate = measure_with_threads(run, size, threads, budget)
                rows.append(SpeedRow(name, "step_batch", size, threads, rate))
    name = "Algorithm 1 [projection given, moving]"
    run = prepare(sizes[0], True, MOVING_FRAMES)
    for threads in sorted({1, all_threads}):
        if progress:
            progress(f"{name}: batch {sizes[0]} vehicles, {threads} thread(s)")
        rate = measure_with_threads(run, sizes[0], threads, budget)
        rows.append(SpeedRow(name, "step_batch", sizes[0], threads, rate))
    return rows


def run_follower_benchmark(
    sizes: tuple[int, ...] = FOLLOWER_SIZES,
    python_agents: int = 300,
    scalar_agents: int = 1_000,
    budget: float = 0.3,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedRow]:
    """Algorithm 1 alone and the followers: plain Python, scalar, batch; one row each."""
    rng = np.random.default_rng(0)
    pool = path_pool()
    rows = _algorithm1_rows(pool, sizes, python_agents, budget, progress, rng)
    all_threads = numba.config.NUMBA_NUM_THREADS
    storm = PRESETS["storm"]
    vehicle = Vehicle(storm)
    modules = _modules(FOLLOWER_MODULES)
    walled, world = walled_pool(pool)
    for name, follower_class, with_vehicle in (
        ("PathFollower", PathFollower, False),
        ("BaselineFollower", BaselineFollower, False),
        ("PathFollower + Vehicle[storm]", PathFollower, True),
        ("PathFollower + Vehicle[storm] + World[walls]", PathFollower, world),
    ):
        source = walled if with_vehicle is world else pool
        if not with_vehicle:
            if progress:
                progress(f"{name}: plain Python")
            paths = [pool[i] for i in rng.integers(len(pool), size=python_agents)]
            follower = follower_class(storm)
            follower.set_paths(paths)
            batch = _vehicles(paths, rng)

            def python_frame(follower=follower, batch=batch):
                follower.step_batch(batch, DT)

            with uncompiled(*modules):
                rate = measure_rate(python_frame, python_agents, budget)
            rows.append(SpeedRow(name, "python", python_agents, 1, rate))

            if progress:
                progress(f"{name}: scalar step")
            paths = [pool[i] for i in rng.integers(len(pool), size=scalar_agents)]
            singles = [follower_class(storm, path=points) for points in paths]
            batch = _vehicles(paths, rng)
            states = [batch.state(i) for i in range(scalar_agents)]

            def scalar_frame(singles=singles, states=states):
                for single, state in zip(singles, states, strict=True):
                    single.step(state, DT)

            rate = measure_rate(scalar_frame, scalar_agents, budget)
            rows.append(SpeedRow(name, "step", scalar_agents, 1, rate))
        for size in sizes:
            paths = [source[i] for i in rng.integers(len(source), size=size)]
            follower = follower_class(storm)
            follower.set_paths(paths)
            batch = _vehicles(paths, rng)
            out = follower.step_batch(batch, DT)
            if with_vehicle is world:

                def batch_frame(follower=follower, batch=batch, out=out):
                    follower.step_batch(batch, DT, out)
                    vehicle.step_batch(batch, out.steer, out.throttle, DT, world=world)

            elif with_vehicle:

                def batch_frame(follower=follower, batch=batch, out=out):
                    follower.step_batch(batch, DT, out)
                    vehicle.step_batch(batch, out.steer, out.throttle, DT)

            else:

                def batch_frame(follower=follower, batch=batch, out=out):
                    follower.step_batch(batch, DT, out)

            for threads in sorted({1, all_threads}):
                if progress:
                    progress(f"{name}: step_batch {size} vehicles, {threads} thread(s)")
                rate = measure_with_threads(batch_frame, size, threads, budget)
                rows.append(SpeedRow(name, "step_batch", size, threads, rate))
    return rows


def render_follower_markdown(rows: list[SpeedRow], info: dict | None = None) -> str:
    """The benchmark as markdown: a summary per case (missing measurements shown as n/a),
    then every measurement."""
    lines = ["# Path follower speed, seed 001 (agent-steps or calls per second)", ""]
    if info:
        lines += ["Measured on: " + ", ".join(f"{key} {value}" for key, value in info.items()), ""]
    lines += [
        "| case | plain Python | scalar `step` | batch per core | batch all cores "
        "| batch per core / Python |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for case in dict.fromkeys(row.engine for row in rows):
        mine = [row for row in rows if row.engine == case]
        python = next((r.steps_per_second for r in mine if r.method == "python"), math.nan)
        scalar = next((r.steps_per_second for r in mine if r.method == "step"), math.nan)
        largest = max(r.agents for r in mine if r.method == "step_batch")
        at_largest = [r for r in mine if r.method == "step_batch" and r.agents == largest]
        per_core = next(r.steps_per_second for r in at_largest if r.threads == 1)
        all_cores = max(r.steps_per_second for r in at_largest)

        def cell(value: float) -> str:
            return "n/a" if math.isnan(value) else f"{value:,.0f}"

        ratio = "n/a" if math.isnan(python) else f"{per_core / python:,.0f}x"
        lines.append(
            f"| {case} | {cell(python)} | {cell(scalar)} | {per_core:,.0f} ({largest:,}) "
            f"| {all_cores:,.0f} | {ratio} |"
        )
    lines += ["", "| case | method | agents | threads | per second |", "|---|---|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row.engine} | {row.method} | {row.agents:,} | {row.threads} "
            f"| {row.steps_per_second:,.0f} |"
        )
    return "\n".join(lines) + "\n"
