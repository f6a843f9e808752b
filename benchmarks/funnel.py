"""Funnelling control (seed 003): table build time and update cost, three ways.

Run: ``.venv/bin/python benchmarks/funnel.py``. One process. Measures

- the T_eta table build (43,200 seek runs, numba ``prange``): the first build in the process
  (with numba's compilation unless cached on disk) and the best of three later ones;
- the funnelling update (``Funnel.step_batch``, every entity with its own oriented target) in
  entity-updates per second: plain Python (the same kernels uncompiled,
  ``steerlab._jit.uncompiled``), the scalar ``Funnel.step`` from Python, and the batch on one
  thread (per core) and on every thread, at 1e3, 1e5 and 1e6 entities; targets at mixed
  distances (0.5-30 u) and distant ones (30 u, the paper's 9.5 us case);
- a whole frame: funnelling then ``Unicycle.step_batch``.

Targets (issue 8): build <= 10 s on a 2-core machine; batch >= 2 M entity-updates/s per core at
1e5 entities; scalar ``step`` <= 20 us. The paper: about 5 minutes, 12.5 us (9.5 us distant).
"""

from __future__ import annotations

import importlib
import math
import time

import numba
import numpy as np

from steerlab._jit import uncompiled
from steerlab.engines import Unicycle, UnicycleState
from steerlab.engines.unicycle import UnicycleBatch
from steerlab.experiments.speed import machine, measure_rate
from steerlab.funnel import EtaTable, Funnel

DT = 1.0 / 60.0
SIZES = (1_000, 100_000, 1_000_000)
MODULES = (
    "steerlab.funnel.funnel",
    "steerlab.funnel.funnelling",
    "steerlab.funnel.interpolate",
    "steerlab.funnel.modes",
    "steerlab.funnel.seek",
    "steerlab.engines.unicycle",
    "steerlab.geometry.kernels",
    "steerlab.laws._common",
)


def entities(table: EtaTable, size: int, low: float, high: float, seed: int = 0):
    """Entities at the origin with random headings and speeds; targets at distance in [low,
    high], any bearing and orientation."""
    rng = np.random.default_rng(seed)
    batch = UnicycleBatch(
        np.zeros(size),
        np.zeros(size),
        rng.uniform(-math.pi, math.pi, size),
        rng.uniform(0.0, table.unicycle.speed_max, size),
        np.zeros(size),
    )
    distance = rng.uniform(low, high, size)
    bearing = rng.uniform(-math.pi, math.pi, size)
    targets = np.column_stack([distance * np.cos(bearing), distance * np.sin(bearing)])
    return batch, targets, rng.uniform(-math.pi, math.pi, size)


def with_threads(threads: int, run):
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return run()
    finally:
        numba.set_num_threads(previous)


def main() -> None:
    print("machine:", ", ".join(f"{key} {value}" for key, value in machine().items()), flush=True)
    start = time.perf_counter()
    table = EtaTable.build()
    first = time.perf_counter() - start
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        table = EtaTable.build()
        best = min(best, time.perf_counter() - start)
    print(
        f"\ntable build: {table.size:,} entries, first in process {first:.2f} s, best "
        f"{best:.2f} s ({numba.config.NUMBA_NUM_THREADS} threads)",
        flush=True,
    )
    plant = Unicycle(table.unicycle)
    all_threads = numba.config.NUMBA_NUM_THREADS
    rows = []
    for label, low, high in (("mixed 0.5-30 u", 0.5, 30.0), ("distant 30 u", 30.0, 30.0)):
        # plain Python: the same kernels, uncompiled
        batch, targets, courses = entities(table, 300, low, high)
        law = Funnel(table, targets, courses)
        out = law.step_batch(batch, DT)

        def python_frame(law=law, batch=batch, out=out):
            law.step_batch(batch, DT, out)

        with uncompiled(*(importlib.import_module(name) for name in MODULES)):
            rows.append((label, "plain Python", 300, 1, measure_rate(python_frame, 300, 0.5)))
        # scalar step from Python
        singles = [Funnel(table, targets[i], courses[i]) for i in range(300)]
        states = [
            UnicycleState(0.0, 0.0, float(batch.yaw[i]), float(batch.v[i])) for i in range(300)
        ]

        def scalar_frame(singles=singles, states=states):
            for single, state in zip(singles, states, strict=True):
                single.step(state, DT)

        rows.append((label, "scalar step", 300, 1, measure_rate(scalar_frame, 300, 0.5)))
        for size in SIZES:
            batch, targets, courses = entities(table, size, low, high)
            law = Funnel(table, targets, courses)
            out = law.step_batch(batch, DT)

            def batch_update(law=law, batch=batch, out=out):
                law.step_batch(batch, DT, out)

            def whole_frame(law=law, batch=batch, out=out):
                law.step_batch(batch, DT, out)
                plant.step_batch(batch, out.accel, out.angular_accel, DT)

            for threads in sorted({1, all_threads}):
                rate = with_threads(threads, lambda f=batch_update, s=size: measure_rate(f, s, 0.5))
                rows.append((label, "step_batch", size, threads, rate))
                rate = with_threads(threads, lambda f=whole_frame, s=size: measure_rate(f, s, 0.5))
                rows.append((label, "step_batch + plant", size, threads, rate))
            print(f"  {label}: {size:,} entities done", flush=True)
    print("\n| targets | method | entities | threads | entity-updates/s | per update |")
    print("|---|---|---:|---:|---:|---:|")
    for label, method, size, threads, rate in rows:
        cost = 1e6 / rate
        unit = f"{cost:.2f} us" if cost >= 1.0 else f"{cost * 1e3:.0f} ns"
        print(f"| {label} | {method} | {size:,} | {threads} | {rate:,.0f} | {unit} |")
    python = {label: rate for label, method, _, _, rate in rows if method == "plain Python"}
    for label, method, size, threads, rate in rows:
        if method == "step_batch" and size == 100_000 and threads == 1:
            print(f"\n{label}: batch per core / plain Python = {rate / python[label]:,.0f}x")


if __name__ == "__main__":
    main()
