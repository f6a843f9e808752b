"""Funnelling control (seed 003): table build time and update cost, plain Python vs scalar vs batch.

Measures

- the T_eta table build (43,200 seek runs, numba ``prange``): the first build in the process
  (with numba's compilation unless cached on disk) and the best of three later ones;
- the funnelling update (``Funnel.step_batch``, every entity with its own oriented target) in
  entity-updates per second: plain Python (the same kernels uncompiled,
  ``steerlab._jit.uncompiled``) and the scalar ``Funnel.step`` from Python on 300 entities, and
  the batch on one thread (per core) and on every thread, at 1e3, 1e5 and 1e6 entities; targets
  at mixed distances (0.5-30 u) and distant ones (30 u, the paper's 9.5 us case); best over
  0.5 s each;
- a whole frame: funnelling then ``Unicycle.step_batch`` (``Funnel + Unicycle`` rows).

Entities start at the origin with random headings and speeds; frames of 1/60 s. Targets: build
<= 10 s on a 2-core machine; batch >= 2 M entity-updates/s per core at 1e5 entities; scalar
``step`` <= 20 us. The paper: about 5 minutes, 12.5 us (9.5 us distant).

Run: ``.venv/bin/python benchmarks/funnel.py [--quick]`` from the repository's root (``--quick``
builds a coarse table: 3 x 4 x 2 x 2 x 2 entries).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numba
import numpy as np

import harness
from steerlab.engines import Unicycle, UnicycleState
from steerlab.engines.unicycle import UnicycleBatch
from steerlab.funnel import EtaTable, Funnel, TableGrid

DT = 1.0 / 60.0
SIZES = (1_000, 100_000, 1_000_000)
QUICK_GRID = TableGrid(
    distance_count=3, alpha_count=4, angular_count=2, speed_count=2, desired_count=2
)
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
TARGETS = {"mixed 0.5-30 u": (0.5, 30.0), "distant 30 u": (30.0, 30.0)}


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


def comparisons(table: EtaTable, label: str, low: float, high: float):
    """The funnelling update alone (plain Python, scalar, batch) and the whole frame (batch)."""
    plant = Unicycle(table.unicycle)

    def update(size):
        batch, targets, courses = entities(table, size, low, high)
        law = Funnel(table, targets, courses)
        out = law.step_batch(batch, DT)
        return lambda: law.step_batch(batch, DT, out)

    def scalar(count):
        batch, targets, courses = entities(table, count, low, high)
        singles = [Funnel(table, targets[i], courses[i]) for i in range(count)]
        states = [
            UnicycleState(0.0, 0.0, float(batch.yaw[i]), float(batch.v[i])) for i in range(count)
        ]

        def run():
            for single, state in zip(singles, states, strict=True):
                single.step(state, DT)

        return run

    def frame(size):
        batch, targets, courses = entities(table, size, low, high)
        law = Funnel(table, targets, courses)
        out = law.step_batch(batch, DT)

        def run():
            law.step_batch(batch, DT, out)
            plant.step_batch(batch, out.accel, out.angular_accel, DT)

        return run

    return (
        harness.Comparison(f"Funnel [{label}]", update, update, scalar, MODULES),
        harness.Comparison(f"Funnel + Unicycle [{label}]", frame),
    )


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    grid = QUICK_GRID if quick else None
    built = []

    def build():
        built.append(EtaTable.build(grid=grid))

    first = harness.seconds(build)
    best = harness.best_seconds(build, budget=0.0, warm_up=False)
    table = built[-1]
    builds = harness.markdown_table(
        ("T_eta table", "entries", "first build in process", "best of 3 later builds", "threads"),
        [("seek runs", f"{table.size:,}", f"{first:.2f} s", f"{best:.2f} s",
          numba.config.NUMBA_NUM_THREADS)],
    )  # fmt: skip
    rows = []
    for label, (low, high) in TARGETS.items():
        for comparison in comparisons(table, label, low, high):
            rows += harness.compare(
                comparison,
                sizes=(300,) if quick else SIZES,
                python_count=20 if quick else 300,
                scalar_count=20 if quick else 300,
                budget=0.01 if quick else 0.5,
                progress=harness.progress_printer,
            )
    print(harness.render_speed(rows, "Funnelling speed, seed 003", "entity-updates"))
    print(builds)
    return rows


if __name__ == "__main__":
    main()
