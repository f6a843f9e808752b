"""``steerlab warmup``: every public class's kernels compiled ahead into numba's on-disk cache.

Tasks. A task steps classes: each one's scalar step, then its batch step at a small size and at
one above ``SERIAL_LIMIT``, on one numba thread and on all, which is every build a use can pick
(``steerlab._jit``). The followers' large batches are tasks of their own, one per step (the
follower, the vehicle, the vehicle in a walled world) and thread count: their serial and
parallel builds inline whole composites and take most of the time.

Jobs. Tasks run in ``jobs`` worker processes at once, in list order, the costliest first (numba
compiles on one core per process and holds the interpreter while it does). Each process writes
what it compiles to the cache (a save is locked: ``steerlab._jit._IndexDataFile``). A kernel two
tasks both reach is typed and lowered by both, so jobs shorten the run without dividing it.
A whole warm-up holds a lock per cache location (``cache_lock``): a second one waits, then finds
the cache full.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import tempfile
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from importlib import resources

from filelock import FileLock

__all__ = ["MAX_DEFAULT_JOBS", "cache_lock", "default_jobs", "run_tasks", "warmup_tasks"]

MAX_DEFAULT_JOBS = 4  # a process compiling the followers' builds holds up to about 2 GB

Progress = Callable[[str], None]  # told what a task compiles now
Task = tuple[str, Callable[[Progress], None]]

_compiled: list = []  # numba's compile events in this process: a build not found in the cache
_counting: list = []  # not empty once counted (``_count_compiles``)


def default_jobs() -> int:
    """Worker processes when none are asked for: the cores, at most ``MAX_DEFAULT_JOBS``."""
    return max(1, min(os.cpu_count() or 1, MAX_DEFAULT_JOBS))


def cache_lock() -> FileLock:
    """An exclusive lock for one cache location (numba's cache is file based: two warm-ups at
    once would compile the same kernels twice)."""
    where = os.environ.get("NUMBA_CACHE_DIR", "") + "|" + str(resources.files("steerlab"))
    name = "steerlab-warmup-" + hashlib.sha256(where.encode()).hexdigest()[:16] + ".lock"
    return FileLock(os.path.join(tempfile.gettempdir(), name))


def _count_compiles() -> None:
    """Count numba's compile events in this process (``_compiled``), from the first call on;
    quiet steerlab's notices (the caller's progress says it instead)."""
    from numba.core import event

    class Count(event.Listener):
        def on_start(self, happening):
            _compiled.append(happening.data["dispatcher"])

        def on_end(self, happening):
            pass

    logging.getLogger("steerlab").setLevel(logging.ERROR)
    if not _counting:
        event.register("numba:compile", Count())
        _counting.append(True)


def _run_one(tasks_of: Callable[[], list[Task]], index: int) -> int:
    """Run task ``index`` of ``tasks_of()`` in a worker; the builds it compiled."""
    before = len(_compiled)
    tasks_of()[index][1](lambda message: None)
    return len(_compiled) - before


def run_tasks(
    tasks_of: Callable[[], list[Task]], jobs: int, show: Callable[[str, int, int], None]
) -> int:
    """Run every task of ``tasks_of()`` (``warmup_tasks`` with its arguments bound: a picklable
    callable, which each worker calls again), in this process (``jobs`` 1) or in ``jobs`` worker
    processes; ``show(what, done, total)`` as they go. Returns the number of builds compiled
    (the rest were in the cache). A task's error stops the run and is raised here."""
    tasks = tasks_of()
    total = len(tasks)
    jobs = min(jobs, total)
    if jobs <= 1:
        _count_compiles()
        before = len(_compiled)
        for done, (name, run) in enumerate(tasks):
            show(f"{name}: compiling", done, total)
            run(lambda message, name=name, done=done: show(f"{name}: {message}", done, total))
        show("compiled", total, total)
        return len(_compiled) - before
    compiled = 0
    context = multiprocessing.get_context("spawn")  # no thread of this process is forked
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_count_compiles) as pool:
        running = {
            pool.submit(_run_one, tasks_of, index): name for index, (name, _) in enumerate(tasks)
        }
        try:
            while running:
                names = [name for future, name in running.items() if future.running()]
                show("compiling: " + "; ".join(names), total - len(running), total)
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    compiled += future.result()
                    del running[future]
        finally:
            for future in running:
                future.cancel()
    show("compiled", total, total)
    return compiled


def warmup_tasks(sizes: tuple[int, ...], quick: bool) -> list[Task]:
    """``(name, run(progress))`` pairs, the costliest first: each class's scalar step, and its
    batch step at ``sizes`` on one numba thread and on all (a small batch: the quick or serial
    build; one above ``SERIAL_LIMIT``: the serial and parallel builds); the followers' batches
    at every size but the first are tasks of their own, one per step and thread count.
    ``quick``: the engines only."""
    import numba
    import numpy as np

    dt = 0.02
    rng = np.random.default_rng(0)

    def each_build(run_batch, progress, what, sizes=sizes):
        threads = numba.get_num_threads()
        try:
            for size in sizes:
                for count in sorted({1, threads}):
                    progress(f"{what}, {size} agents, {count} thread(s)")
                    numba.set_num_threads(count)
                    run_batch(size)
        finally:
            numba.set_num_threads(threads)

    def engines(progress):
        from steerlab.engines import AgentBatch, BaseEngine, Command, HalfLifeEngine, HalfLifeParams

        for engine in (
            BaseEngine(),
            HalfLifeEngine(HalfLifeParams(model="engine")),
            HalfLifeEngine(HalfLifeParams(model="simplified")),
        ):
            progress(type(engine).__name__)
            engine.step(AgentBatch(*np.ones((5, 1))).state(0), Command(0.5, 10.0), dt)

            def batch(size, engine=engine):
                agents = AgentBatch(*rng.uniform(-10.0, 10.0, (5, size)))
                engine.step_batch(agents, rng.uniform(-3.0, 3.0, size), np.full(size, 5.0), dt)

            each_build(batch, progress, type(engine).__name__)

    if quick:
        return [("engines", engines)]

    path = np.array([[0.0, 0.0], [40.0, 0.0], [70.0, 30.0], [70.0, 90.0]])
    presets = ("storm", "armata", "hovercraft")  # wheeled, tracked, hover

    def follower_classes():
        from steerlab.follower import (
            BaselineFollower,
            PathFollower,
            RegulatedPurePursuitFollower,
            StanleyFollower,
        )

        return (PathFollower, BaselineFollower, StanleyFollower, RegulatedPurePursuitFollower)

    def walled_world():
        from steerlab.geometry import Polyline
        from steerlab.world import World, walls_along

        return World(walls=walls_along(Polyline(path, 10.0), margin=0.5))

    def vehicles(size):
        from steerlab.vehicles import VehicleBatch

        return VehicleBatch(
            rng.uniform(0.0, 30.0, size),
            rng.uniform(-2.0, 2.0, size),
            rng.uniform(-0.3, 0.3, size),
            rng.uniform(0.0, 5.0, size),
        )

    def followers(progress):
        """Every follower with every vehicle kind: scalar steps, batches of the first size."""
        from steerlab.vehicles import PRESETS, Vehicle, VehicleState

        world = walled_world()
        for preset in presets:
            vehicle = Vehicle(PRESETS[preset])
            for follower_class in follower_classes():
                what = f"{follower_class.__name__} + Vehicle[{preset}]"
                progress(what)
                follower = follower_class(vehicle.params, path=path)
                state = VehicleState(1.0, 0.5, 0.1, 3.0)
                command = follower.step(state, dt)
                vehicle.step(state, command, dt)
                vehicle.step(state, command, dt, world=world)

                def batch(size, follower_class=follower_class, vehicle=vehicle):
                    agents = vehicles(size)
                    out = follower_class(vehicle.params, path=path).step_batch(agents, dt)
                    vehicle.step_batch(agents, out.steer, out.throttle, dt)
                    vehicle.step_batch(agents, out.steer, out.throttle, dt, world=world)

                each_build(batch, progress, what, sizes[:1])

    def large_batches(part, size, threads):
        """One step of the followers' loop at ``size`` on ``threads`` numba threads, for every
        follower and vehicle kind: ``part`` "follower", "vehicle" or "vehicle in a world"."""

        def run(progress):
            from steerlab.vehicles import PRESETS, Vehicle

            world = walled_world() if part == "vehicle in a world" else None
            previous = numba.get_num_threads()
            numba.set_num_threads(min(threads, previous))
            try:
                for preset in presets:
                    vehicle = Vehicle(PRESETS[preset])
                    agents = vehicles(size)
                    if part == "follower":
                        for follower_class in follower_classes():
                            progress(f"{follower_class.__name__} + Vehicle[{preset}]")
                            follower_class(vehicle.params, path=path).step_batch(agents, dt)
                    else:
                        progress(f"Vehicle[{preset}]")
                        steer = rng.uniform(-1.0, 1.0, size)
                        throttle = rng.uniform(0.0, 1.0, size)
                        vehicle.step_batch(agents, steer, throttle, dt, world=world)
            finally:
                numba.set_num_threads(previous)

        return run

    def agents(size):
        from steerlab.engines import AgentBatch

        batch = AgentBatch(*rng.uniform(-10.0, 10.0, (5, size)))
        batch.vx[:] = batch.vy[:] = 0.0
        return batch

    def laws(progress):
        from steerlab.engines import AgentState, BaseEngine
        from steerlab.laws import AroundPoint, FollowLine, ReachOriented, SeekPoint, StopAt

        state = AgentState(1.0, 2.0, 0.0, 0.0, 0.3)
        for law in (
            SeekPoint((50.0, 20.0)),
            AroundPoint((50.0, 20.0), 10.0),
            FollowLine((0.0, 0.0), (100.0, 30.0)),
            ReachOriented((50.0, 20.0), 0.5),
            StopAt((50.0, 20.0)),
            StopAt((50.0, 20.0), method="predict", engine=BaseEngine()),
        ):
            what = type(law).__name__
            progress(what)
            law.step(state, dt)
            each_build(lambda size, law=law: law.step_batch(agents(size), dt), progress, what)
        line = FollowLine((0.0, 0.0), (100.0, 30.0))
        progress("FollowLine.cross_track")
        line.cross_track(state)
        each_build(lambda size: line.cross_track_batch(agents(size)), progress, "cross_track")

    def navigators(progress):
        from steerlab.engines import AgentState
        from steerlab.navigation import AlongSegments, AroundPoints, TowardsPoints
        from steerlab.navigation.route import Route

        points = np.array([[0.0, 0.0, 0.0], [300.0, 5.0, 0.0], [600.0, 0.0, 0.0]])
        route = Route(
            waypoint_ids=("a", "b", "c"),
            positions=points,
            radii=np.full(3, 16.0),
            waypoint_flags=(frozenset(),) * 3,
            widths=np.full(2, 64.0),
            segment_flags=(frozenset(),) * 2,
            lengths=np.linalg.norm(np.diff(points, axis=0), axis=1),
        )
        state = AgentState(1.0, 2.0, 0.0, 0.0, 0.3)
        for build in (
            TowardsPoints,
            AlongSegments,
            lambda routes: AroundPoints.from_arrays(
                [(100.0, 0.0), (200.0, 0.0)], [1, -1], [20.0, 20.0]
            ),
        ):
            navigator = build(route)
            what = type(navigator).__name__
            progress(what)
            navigator.step(state, dt)

            def batch(size, build=build):
                build([route] * size).step_batch(agents(size), dt)

            each_build(batch, progress, what)

    def funnel(progress):
        from steerlab.engines.unicycle import (
            Unicycle,
            UnicycleBatch,
            UnicycleCommand,
            UnicycleState,
        )
        from steerlab.funnel import EtaTable, Funnel, SeekController, TableGrid

        progress("Unicycle")
        plant = Unicycle()
        state = UnicycleState(1.0, 2.0, 0.3, 1.0, 0.0)
        plant.step(state, UnicycleCommand(0.5, 0.1), dt)

        def unicycles(size):
            return UnicycleBatch(*rng.uniform(-5.0, 5.0, (3, size)))

        def unicycle_batch(size):
            plant.step_batch(unicycles(size), np.full(size, 0.5), np.full(size, 0.1), dt)

        each_build(unicycle_batch, progress, "Unicycle")
        progress("EtaTable (a small grid: the default table's kernels)")
        grid = TableGrid(
            distance_max=8.0, distance_count=4, alpha_count=8, angular_count=3, speed_count=3
        )
        table = EtaTable.build(grid=grid._replace(desired_count=3))
        for use_table in (False, True):
            what = "SeekController" + (" (table)" if use_table else "")
            progress(what)
            chosen = table if use_table else None
            SeekController((5.0, 3.0), table=chosen).step(state, dt)

            def seek_batch(size, chosen=chosen):
                SeekController((5.0, 3.0), table=chosen).step_batch(unicycles(size), dt)

            each_build(seek_batch, progress, what)
        progress("Funnel")
        controller = Funnel(table, (5.0, 3.0), 0.5)
        controller.step(state, dt)

        def funnel_batch(size):
            Funnel(table, (5.0, 3.0), 0.5).step_batch(unicycles(size), dt)

        each_build(funnel_batch, progress, "Funnel")

    def observer(progress):
        from steerlab.geometry import Polyline
        from steerlab.trials.observer import trial_metrics

        progress("trial_metrics")
        path = Polyline(np.array([[0.0, 0.0], [40.0, 0.0], [70.0, 30.0]]), 10.0)
        t = np.arange(50) * dt
        trial_metrics(path, t, t * 30.0, np.zeros(50), np.full(50, 30.0))

        def project_batch(size):  # the cross-track error of plot_cross_track
            path.project_batch(np.zeros((size, 2)))

        each_build(project_batch, progress, "Polyline.project_batch")

    def trial_batch(progress):
        from steerlab.trials.batch import run_batch
        from steerlab.trials.trial import TrialSpec

        specs = [
            TrialSpec("table1", "s_bends", "storm", "ours", 0),
            TrialSpec("table1", "s_bends", "armata", "stanley", 0),
        ]
        for count in threads:  # the serial build (one thread), the parallel one
            progress(f"run_batch, {count} thread(s)")
            run_batch(specs, threads=count)

    def environment(progress):
        try:
            from steerlab.envs import PathFollowingEnv, PathFollowingVectorEnv
        except ImportError:  # gymnasium not installed
            return
        progress("PathFollowingEnv")
        env = PathFollowingEnv()
        env.reset(seed=0)
        env.step(env.action_space.sample())

        def vector(size):
            # copies drawn over the suite's paths (one group per path, each below
            # HEAVY_SERIAL_LIMIT), then all on one path (one group of ``size``: the parallel
            # observation build of a large batch on more than one thread)
            envs = PathFollowingVectorEnv(size)
            for options in (None, {"path": envs.task.suite.path_names[0]}):
                envs.reset(seed=0, options=options)
                envs.step(np.zeros((size, 2), dtype=np.float32))

        each_build(vector, progress, "PathFollowingVectorEnv")

    threads = sorted({1, numba.get_num_threads()})
    large = [
        (f"{part}, {size} agents, {count} thread(s)", large_batches(part, size, count))
        for size in sizes[1:]
        for count in threads
        for part in ("follower", "vehicle in a world", "vehicle")
    ]
    return [
        *large,
        ("Table I trials as a batch", trial_batch),
        ("Gymnasium environment", environment),
        ("navigators", navigators),
        ("guidance laws", laws),
        ("unicycle, funnel", funnel),
        ("followers, vehicles, world", followers),
        ("engines", engines),
        ("Table I observer", observer),
    ]
