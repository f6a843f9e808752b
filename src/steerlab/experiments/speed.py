"""Speed of the engine kernels: agent-steps per second, three ways, one process.

For each engine (and each law, with a BaseEngine) the same kernel runs as (1) a plain-Python
loop: ``step_batch`` inside ``steerlab._jit.uncompiled``, so that every kernel runs from its own
Python source, (2) the scalar public ``step`` (validation + one compiled call),
and (3) ``step_batch`` over struct-of-arrays at several sizes, on one thread (the per-core
figure) and on every thread. The ratio batch / plain Python is the gain of "one formula, two
speeds".
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numba
import numpy as np

from steerlab._jit import uncompiled
from steerlab.engines import (
    AgentBatch,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeEngine,
    HalfLifeParams,
)

__all__ = [
    "SpeedRow",
    "engine_cases",
    "law_cases",
    "machine",
    "measure_rate",
    "measure_with_threads",
    "render_markdown",
    "run_engine_benchmark",
    "run_law_benchmark",
    "summarize",
]

BATCH_SIZES = (1_000, 100_000, 1_000_000)
DT = 0.014  # [s] the frame time of the seed 004 engine tests


class SpeedRow(NamedTuple):
    engine: str
    method: str  # "python", "step", "step_batch"
    agents: int
    threads: int
    steps_per_second: float  # agent-steps per second


ENGINE_MODULES = ("steerlab.engines.base", "steerlab.engines.halflife", "steerlab.engines._batch")


class EngineCase(NamedTuple):
    name: str
    engine: Any


def engine_cases() -> list[EngineCase]:
    """The engines benchmarked."""
    base = BaseEngine(
        BaseEngineParams(
            k_yaw=4.0,
            k_speed=4.0,
            yaw_rate_max=math.radians(360.0),  # illustrative bounds: exercise every branch
            accel_trans_max=2000.0,
            accel_long_max=800.0,
            decel_long_max=-1600.0,
        )
    )
    cases = [EngineCase("BaseEngine", base)]
    for model in ("engine", "simplified"):
        cases.append(EngineCase(f"HalfLife[{model}]", HalfLifeEngine(HalfLifeParams(model=model))))
    return cases


def _modules(names: Sequence[str]) -> list[Any]:
    import importlib

    return [importlib.import_module(name) for name in names]


def measure_rate(run: Callable[[], None], steps_per_run: int, budget: float = 0.3) -> float:
    """Best agent-steps/s of ``run`` over repeats filling about ``budget`` seconds."""
    run()  # warm-up (compilation, caches)
    best = math.inf
    spent = 0.0
    repeats = 0
    while spent < budget or repeats < 3:
        start = time.perf_counter()
        run()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        spent += elapsed
        repeats += 1
    return steps_per_run / best


def measure_with_threads(
    run: Callable[[], None], steps_per_run: int, threads: int, budget: float = 0.3
) -> float:
    """``measure_rate`` with numba running ``threads`` threads (restored afterwards)."""
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return measure_rate(run, steps_per_run, budget)
    finally:
        numba.set_num_threads(previous)


def _random_agents(size: int, seed: int = 0) -> tuple[AgentBatch, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    batch = AgentBatch(
        rng.uniform(-1e4, 1e4, size),
        rng.uniform(-1e4, 1e4, size),
        rng.normal(0.0, 150.0, size),
        rng.normal(0.0, 150.0, size),
        rng.uniform(-math.pi, math.pi, size),
    )
    return batch, rng.uniform(-math.pi, math.pi, size), rng.uniform(0.0, 320.0, size)


def run_engine_benchmark(
    sizes: tuple[int, ...] = BATCH_SIZES,
    python_agents: int = 2_000,
    scalar_agents: int = 2_000,
    budget: float = 0.3,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedRow]:
    """Measure every engine three ways; return one row per measurement."""
    rows: list[SpeedRow] = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    for case in engine_cases():
        if progress:
            progress(f"{case.name}: plain Python")
        batch, yaw_command, speed_command = _random_agents(python_agents)
        states = [batch.state(i) for i in range(python_agents)]
        commands = [Command(yaw_command[i], speed_command[i]) for i in range(python_agents)]

        def python_loop(batch=batch, yaw=yaw_command, speed=speed_command, e=case.engine):
            e.step_batch(batch, yaw, speed, DT)

        with uncompiled(*_modules(ENGINE_MODULES)):  # the same kernels, run as plain Python
            rate = measure_rate(python_loop, python_agents, budget)
        rows.append(SpeedRow(case.name, "python", python_agents, 1, rate))
        if progress:
            progress(f"{case.name}: scalar step")
        states = states[:scalar_agents]

        def scalar_loop(states=states, commands=commands, engine=case.engine):
            for state, command in zip(states, commands, strict=False):
                engine.step(state, command, DT)

        rows.append(
            SpeedRow(
                case.name, "step", len(states), 1, measure_rate(scalar_loop, len(states), budget)
            )
        )
        for size in sizes:
            batch, yaw_command, speed_command = _random_agents(size)
            for threads in sorted({1, all_threads}):
                if progress:
                    progress(f"{case.name}: step_batch {size} agents, {threads} thread(s)")
                previous = numba.get_num_threads()
                numba.set_num_threads(threads)
                try:

                    def batch_step(
                        batch=batch, yaw=yaw_command, speed=speed_command, e=case.engine
                    ):
                        e.step_batch(batch, yaw, speed, DT)

                    rate = measure_rate(batch_step, size, budget)
                finally:
                    numba.set_num_threads(previous)
                rows.append(SpeedRow(case.name, "step_batch", size, threads, rate))
    return rows


def summarize(rows: list[SpeedRow]) -> list[dict[str, Any]]:
    """Per engine: plain Python, scalar step, batch per core at the largest size, ratios."""
    summary = []
    for engine in dict.fromkeys(row.engine for row in rows):
        mine = [row for row in rows if row.engine == engine]
        python = next(row.steps_per_second for row in mine if row.method == "python")
        scalar = next(row.steps_per_second for row in mine if row.method == "step")
        largest = max(row.agents for row in mine if row.method == "step_batch")
        per_core = next(
            row.steps_per_second
            for row in mine
            if row.method == "step_batch" and row.agents == largest and row.threads == 1
        )
        all_cores = max(
            row.steps_per_second
            for row in mine
            if row.method == "step_batch" and row.agents == largest
        )
        summary.append(
            {
                "engine": engine,
                "python_steps_per_s": python,
                "scalar_steps_per_s": scalar,
                "batch_agents": largest,
                "batch_per_core_steps_per_s": per_core,
                "batch_all_cores_steps_per_s": all_cores,
                "batch_per_core_over_python": per_core / python,
                "scalar_over_python": scalar / python,
            }
        )
    return summary


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def render_markdown(
    rows: list[SpeedRow], info: dict[str, Any] | None = None, title: str = "Engine speed"
) -> str:
    """The benchmark as a markdown report: summary first, then every measurement."""
    lines = [f"# {title} (agent-steps per second)", ""]
    if info:
        lines.append("Measured on: " + ", ".join(f"{key} {value}" for key, value in info.items()))
        lines.append("")
    lines += [
        "| engine | plain Python | scalar `step` | `step_batch` per core | `step_batch` all cores"
        " | batch per core / Python |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for entry in summarize(rows):
        lines.append(
            f"| {entry['engine']} | {entry['python_steps_per_s']:,.0f} "
            f"| {entry['scalar_steps_per_s']:,.0f} "
            f"| {entry['batch_per_core_steps_per_s']:,.0f} ({entry['batch_agents']:,} agents) "
            f"| {entry['batch_all_cores_steps_per_s']:,.0f} "
            f"| {entry['batch_per_core_over_python']:,.0f}x |"
        )
    lines += [
        "",
        "| engine | method | agents | threads | agent-steps/s |",
        "|---|---|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.engine} | {row.method} | {row.agents:,} | {row.threads} "
            f"| {row.steps_per_second:,.0f} |"
        )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# laws + engine
# ---------------------------------------------------------------------------------------------


class LawCase(NamedTuple):
    name: str
    build: Callable[[np.ndarray], Any]  # targets (n, 2) -> law
    modules: tuple[str, ...]  # modules whose kernels the law runs


def law_cases() -> list[LawCase]:
    """Every guidance law of seed 000, built for one target per agent."""
    from steerlab.laws import AroundPoint, SeekPoint, StopAt

    engine = BaseEngine(BaseEngineParams(k_yaw=8.0, k_speed=4.0))
    cases = [
        LawCase(
            "SeekPoint",
            lambda t: SeekPoint(t, k_d=2.0, speed_bound=250.0),
            ("steerlab.laws.point",),
        ),
        LawCase(
            "AroundPoint",
            lambda t: AroundPoint(t, 40.0, side=1, k_d=2.0, speed_bound=250.0),
            ("steerlab.laws.point",),
        ),
        LawCase(
            "StopAt[distance]",
            lambda t: StopAt(t, k_d=0.5, speed=250.0),
            ("steerlab.laws.stop", "steerlab.laws.point"),
        ),
        LawCase(
            "StopAt[predict]",
            lambda t: StopAt(t, method="predict", engine=engine, speed=250.0),
            ("steerlab.laws.stop", "steerlab.laws.point"),
        ),
    ]
    try:
        from steerlab.laws.line import FollowLine

        cases.insert(
            2,
            LawCase(
                "FollowLine",
                lambda t: FollowLine(t, t + np.array([100.0, 30.0]), speed=250.0),
                ("steerlab.laws.line",),
            ),
        )
    except ImportError:  # pragma: no cover - the law lands with its own change
        pass
    try:
        from steerlab.laws.oriented import ReachOriented

        cases.insert(
            3,
            LawCase(
                "ReachOriented[F2]",
                lambda t: ReachOriented(t, 0.5, family="F2", k=2.0, speed=250.0),
                ("steerlab.laws.oriented",),
            ),
        )
    except ImportError:  # pragma: no cover
        pass
    return cases


def run_law_benchmark(
    sizes: tuple[int, ...] = BATCH_SIZES,
    python_agents: int = 2_000,
    budget: float = 0.3,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedRow]:
    """Law + BaseEngine per frame: plain Python, scalar, batch; one row per measurement."""
    engine = BaseEngine(BaseEngineParams(k_yaw=8.0, k_speed=4.0))
    rows: list[SpeedRow] = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    for case in law_cases():
        modules = _modules((*case.modules, *ENGINE_MODULES, "steerlab.laws._common"))
        batch, _, _ = _random_agents(python_agents)
        targets = np.random.default_rng(1).uniform(-1e4, 1e4, (python_agents, 2))
        law = case.build(targets)

        def frame(law=law, batch=batch):
            out = law.step_batch(batch, DT)
            engine.step_batch(batch, out.yaw, out.speed, DT)

        if progress:
            progress(f"{case.name}: plain Python")
        with uncompiled(*modules):
            rows.append(
                SpeedRow(
                    case.name,
                    "python",
                    python_agents,
                    1,
                    measure_rate(frame, python_agents, budget),
                )
            )
        if progress:
            progress(f"{case.name}: scalar step")
        singles = [case.build(targets[i]) for i in range(python_agents)]
        states = [batch.state(i) for i in range(python_agents)]

        def scalar_frame(singles=singles, states=states):
            for single, state in zip(singles, states, strict=True):
                engine.step(state, single.step(state, DT), DT)

        rows.append(
            SpeedRow(
                case.name,
                "step",
                python_agents,
                1,
                measure_rate(scalar_frame, python_agents, budget),
            )
        )
        for size in sizes:
            batch, _, _ = _random_agents(size)
            law = case.build(np.random.default_rng(1).uniform(-1e4, 1e4, (size, 2)))
            out = law.step_batch(batch, DT)

            def batch_frame(law=law, batch=batch, out=out):
                law.step_batch(batch, DT, out)
                engine.step_batch(batch, out.yaw, out.speed, DT)

            for threads in sorted({1, all_threads}):
                if progress:
                    progress(f"{case.name}: step_batch {size} agents, {threads} thread(s)")
                rate = measure_with_threads(batch_frame, size, threads, budget)
                rows.append(SpeedRow(case.name, "step_batch", size, threads, rate))
    return rows
