"""A batch loop's parallel build: numba's own (``prange`` over the agents, the loop body inlined
and run through numba's parfor passes) against steerlab's (``_jit._ranged``: the serial build's
loop body over a range of agents, run in ``prange`` over chunks), agent-steps per second on every
thread, and the first compile of each for a navigator's per-agent parameter pattern.

Cases: the Half-Life and BaseEngine engines on 1e6 agents (formulas LLVM vectorises), seed 002's
AlongSegments v2 and TowardsPoints on 1e5 agents on different routes (``navigation.route_pool``).
The two builds of each loop are made in this process from the same function (numba's own is
``_jit._build(loop.py_func, "parallel", parallel=True)``) and timed in turn, the order swapped
every round (``harness.alternate``); each figure is the best of the rounds. The serial build on
one thread is the per-core reference. ``--compile``: each build's first call for
``AlongSegments`` with every ``AlongParams`` field one value per agent, in a fresh process with an
empty numba cache (the loop's serial build and the scalar kernels compiled first, untimed).

Run: ``.venv/bin/python benchmarks/parallel_builds.py [--quick] [--compile]`` from the
repository's root.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numba
import numpy as np

import harness
from steerlab import _jit
from steerlab.engines import AgentBatch, HalfLifeParams, base, halflife

DT = 0.01
ROUNDS = 15


def own_parallel(loop: _jit.BatchKernel):
    """numba's own parallel build of ``loop``'s function (the loop body inlined into parfor)."""
    return _jit._build(loop.py_func, "parallel", parallel=True, **_jit._OPTIONS, _nrt=False)


def engine_case(params, size: int):
    """``run``: ``run(build)`` is a step of an engine loop's ``build`` on ``size`` agents with
    ``params`` (any engine of ``state, commands, params, dt``)."""
    rng = np.random.default_rng(0)
    state = [rng.uniform(-100.0, 100.0, size) for _ in range(5)]
    commands = [rng.uniform(-3.0, 3.0, size), rng.uniform(0.0, 300.0, size)]

    def run(build):
        return lambda: build(*state, *commands, params, DT)

    return run


def navigator_case(name: str, size: int):
    """A navigator of ``navigation.navigators`` on ``size`` agents on different routes: its batch
    loop and a run of one build of it (the navigator's ``step_batch`` forced to the build)."""
    import navigation

    pool = navigation.route_pool(200)
    rng = np.random.default_rng(0)
    routes = [pool[k] for k in rng.integers(0, len(pool), size)]
    build_navigator, module = navigation.navigators(HalfLifeParams())[name]
    navigator = build_navigator(routes)
    batch = AgentBatch.zeros(size)
    batch.x[:] = [route.positions[0, 0] for route in routes]
    batch.y[:] = [route.positions[0, 1] for route in routes]
    loop = next(
        value
        for value in vars(sys.modules[module]).values()
        if isinstance(value, _jit.BatchKernel) and value.range is not None
    )
    out = navigator.step_batch(batch, DT)

    def run(build):
        def step():
            navigator._batch_entry = None
            loop.build_for = lambda _size: build
            try:
                navigator.step_batch(batch, DT, out)
            finally:
                del loop.build_for

        return step

    return loop, run


def measure(case: str, loop: _jit.BatchKernel, run: Callable, size: int) -> list[list]:
    """Rows ``[case, build, threads, agent-steps/s]``: numba's own parallel build and steerlab's
    on every thread (alternated), the serial build on one."""
    builds = {"numba's own parallel": own_parallel(loop), "ranged parallel": loop.parallel}
    threads = numba.config.NUMBA_NUM_THREADS
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        for build in builds.values():
            run(build)()  # compiled or loaded, untimed
        steps = [run(build) for build in builds.values()]
        sides = [lambda step=step: harness.seconds(step) for step in steps]
        best = [min(samples) for samples in harness.alternate(sides, ROUNDS, swap=True)]
        numba.set_num_threads(1)
        serial = harness.best_seconds(run(loop.serial))
    finally:
        numba.set_num_threads(previous)
    rows = [
        [case, name, threads, size / seconds] for name, seconds in zip(builds, best, strict=True)
    ]
    return [*rows, [case, "serial", 1, size / serial]]


COMPILE_SCRIPT = """
import sys, time
import numpy as np
sys.path[:0] = [{benchmarks!r}]
from steerlab import _jit
from steerlab.engines import AgentBatch
from steerlab.navigation import AlongParams, AlongSegments, along
import parallel_builds
import navigation
routes = navigation.route_pool(8)
size = len(routes)
fields = AlongParams()._asdict().items()
params = AlongParams(**{{
    name: (value,) * size if isinstance(value, str) else np.full(size, value)
    for name, value in fields
}})
navigator = AlongSegments.from_params(routes, params)
batch = AgentBatch.zeros(size)
navigator.step_batch(batch, 0.01)  # the serial build and the scalar kernels
loop = along._along_batch
build = loop.parallel if {ranged} else parallel_builds.own_parallel(loop)
navigator._batch_entry = None
loop.build_for = lambda _size: build
start = time.perf_counter()
navigator.step_batch(batch, 0.01)
print(time.perf_counter() - start)
"""


def compile_seconds(ranged: bool) -> float:
    """The first call of AlongSegments' parallel build for an every-field-per-agent record, in a
    fresh process with an empty numba cache [s]."""
    benchmarks = str(Path(__file__).resolve().parent)
    script = COMPILE_SCRIPT.format(benchmarks=benchmarks, ranged=ranged)
    with tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
    return float(done.stdout.split()[-1])


def main(argv: Sequence[str] | None = None) -> list[list]:
    argv = list(sys.argv[1:] if argv is None else argv)
    timed_compile = "--compile" in argv  # a flag beside the harness's own arguments
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0], [word for word in argv if word != "--compile"]
    )
    engines = 20_000 if arguments.quick else 1_000_000
    rows = measure(
        "HalfLife",
        halflife._half_life_batch,
        engine_case(HalfLifeParams().validated(), engines),
        engines,
    )
    if not arguments.quick:
        loop = base._base_engine_batch
        params = base.BaseEngineParams().validated()
        rows += measure("BaseEngine", loop, engine_case(params, engines), engines)
        for name in ("AlongSegments[v2]", "TowardsPoints"):
            rows += measure(name, *navigator_case(name, 100_000), 100_000)
    print(f"# Parallel builds (agent-steps per second)\n\n{harness.machine_line()}\n")
    table = [[case, build, threads, f"{rate:,.0f}"] for case, build, threads, rate in rows]
    print(harness.markdown_table(("case", "build", "threads", "agent-steps/s"), table))
    if timed_compile:
        timed = [(name, compile_seconds(ranged)) for name, ranged in (("own", 0), ("ranged", 1))]
        shown = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timed)
        print(f"\nfirst compile, AlongSegments every field per agent: {shown}")
    return rows


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"\n({time.perf_counter() - start:.0f} s)")
