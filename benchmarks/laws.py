"""Guidance laws + BaseEngine: agent-steps/s per frame (law then engine), plain Python vs scalar
vs batch, every law of seed 000.

Each agent has a random state (``engines.random_agents``) and its own random target in a 20 km
square. A frame is the law's ``step_batch`` then the engine's; plain Python runs the same
kernels uncompiled (``steerlab._jit.uncompiled``) on 2,000 agents, the scalar figure loops
``law.step`` then ``engine.step`` over 2,000 single-target laws (the agents where the
plain-Python frames left them, not moved between frames), the batch runs at 1e3, 1e5 and
1e6 agents on one numba thread (per core) and on every thread.

Run: ``.venv/bin/python benchmarks/laws.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import harness
from engines import DT, ENGINE_MODULES, QUICK_SIZES, SIZES, random_agents
from steerlab.engines import BaseEngine, BaseEngineParams
from steerlab.laws import AroundPoint, SeekPoint, StopAt
from steerlab.laws.line import FollowLine
from steerlab.laws.oriented import ReachOriented

LawBuilder = Callable[[np.ndarray], Any]  # targets (n, 2) or one target -> law


def laws(engine: BaseEngine) -> dict[str, tuple[LawBuilder, tuple[str, ...]]]:
    """Every guidance law of seed 000 by name: its builder and the modules its kernels are in."""
    point = ("steerlab.laws.point",)
    return {
        "SeekPoint": (lambda t: SeekPoint(t, k_d=2.0, speed_bound=250.0), point),
        "AroundPoint": (lambda t: AroundPoint(t, 40.0, side=1, k_d=2.0, speed_bound=250.0), point),
        "FollowLine": (
            lambda t: FollowLine(t, t + np.array([100.0, 30.0]), speed=250.0),
            ("steerlab.laws.line",),
        ),
        "ReachOriented[F2]": (
            lambda t: ReachOriented(t, 0.5, family="F2", k=2.0, speed=250.0),
            ("steerlab.laws.oriented",),
        ),
        "StopAt[distance]": (
            lambda t: StopAt(t, k_d=0.5, speed=250.0),
            ("steerlab.laws.stop", *point),
        ),
        "StopAt[predict]": (
            lambda t: StopAt(t, method="predict", engine=engine, speed=250.0),
            ("steerlab.laws.stop", *point),
        ),
    }


def targets(count: int) -> np.ndarray:
    return np.random.default_rng(1).uniform(-1e4, 1e4, (count, 2))


def comparison(name: str, build: LawBuilder, modules, engine) -> harness.Comparison:
    shared = {}

    def python(count):
        agents, _, _ = random_agents(count)
        law = build(targets(count))
        shared["agents"] = agents

        def run():
            out = law.step_batch(agents, DT)
            engine.step_batch(agents, out.yaw, out.speed, DT)

        return run

    def scalar(count):
        agents = shared["agents"]  # where the plain-Python frames left them
        where = targets(count)
        singles = [build(where[i]) for i in range(count)]
        states = [agents.state(i) for i in range(count)]

        def run():
            for single, state in zip(singles, states, strict=True):
                engine.step(state, single.step(state, DT), DT)

        return run

    def batch(size):
        agents, _, _ = random_agents(size)
        law = build(targets(size))
        out = law.step_batch(agents, DT)

        def run():
            law.step_batch(agents, DT, out)
            engine.step_batch(agents, out.yaw, out.speed, DT)

        return run

    return harness.Comparison(
        name,
        batch,
        python=python,
        scalar=scalar,
        modules=(*modules, *ENGINE_MODULES, "steerlab.laws._common"),
    )


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    engine = BaseEngine(BaseEngineParams(k_yaw=8.0, k_speed=4.0))
    rows = []
    for name, (build, modules) in laws(engine).items():
        rows += harness.compare(
            comparison(name, build, modules, engine),
            sizes=QUICK_SIZES if quick else SIZES,
            python_count=50 if quick else 2_000,
            scalar_count=50 if quick else 2_000,
            budget=0.01 if quick else 0.3,
            progress=harness.progress_printer,
        )
    print(harness.render_speed(rows, "Law + BaseEngine speed"))
    return rows


if __name__ == "__main__":
    main()
