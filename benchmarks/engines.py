"""Engine speed: agent-steps/s of BaseEngine and Half-Life, plain Python vs scalar vs batch.

For each engine the same kernel runs as (1) plain Python: ``step_batch`` on 2,000 agents inside
``steerlab._jit.uncompiled``, every kernel run from its own Python source, (2) the scalar public
``step`` (validation + one compiled call) looped over 2,000 agents, and (3) ``step_batch`` over
struct-of-arrays at 1e3, 1e5 and 1e6 agents, on one numba thread (the per-core figure) and on
every thread. Each agent has a random state and its own random yaw and speed commands, the same
every frame; frames of 0.014 s (the seed 004 engine tests).

Run: ``.venv/bin/python benchmarks/engines.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import harness
from steerlab.engines import (
    AgentBatch,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeEngine,
    HalfLifeParams,
)

SIZES = (1_000, 100_000, 1_000_000)
QUICK_SIZES = (300,)  # under steerlab._jit.SERIAL_LIMIT: only the serial builds compile
DT = 0.014  # [s] the frame time of the seed 004 engine tests
ENGINE_MODULES = ("steerlab.engines.base", "steerlab.engines.halflife", "steerlab.engines._batch")


def random_agents(size: int, seed: int = 0) -> tuple[AgentBatch, np.ndarray, np.ndarray]:
    """``size`` agents at random (positions in a 20 km square, velocities, headings) and their
    yaw and speed commands."""
    rng = np.random.default_rng(seed)
    batch = AgentBatch(
        rng.uniform(-1e4, 1e4, size),
        rng.uniform(-1e4, 1e4, size),
        rng.normal(0.0, 150.0, size),
        rng.normal(0.0, 150.0, size),
        rng.uniform(-math.pi, math.pi, size),
    )
    return batch, rng.uniform(-math.pi, math.pi, size), rng.uniform(0.0, 320.0, size)


def engines() -> dict[str, object]:
    """The engines benchmarked, by name."""
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
    cases = {"BaseEngine": base}
    for model in ("engine", "simplified"):
        cases[f"HalfLife[{model}]"] = HalfLifeEngine(HalfLifeParams(model=model))
    return cases


def comparison(name: str, engine) -> harness.Comparison:
    def batch(size):
        agents, yaw, speed = random_agents(size)
        return lambda: engine.step_batch(agents, yaw, speed, DT)

    def scalar(count):
        agents, yaw, speed = random_agents(count)
        states = [agents.state(i) for i in range(count)]
        commands = [Command(yaw[i], speed[i]) for i in range(count)]

        def run():
            for state, command in zip(states, commands, strict=True):
                engine.step(state, command, DT)

        return run

    return harness.Comparison(name, batch, python=batch, scalar=scalar, modules=ENGINE_MODULES)


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    rows = []
    for name, engine in engines().items():
        rows += harness.compare(
            comparison(name, engine),
            sizes=QUICK_SIZES if quick else SIZES,
            python_count=50 if quick else 2_000,
            scalar_count=50 if quick else 2_000,
            budget=0.01 if quick else 0.3,
            progress=harness.progress_printer,
        )
    print(harness.render_speed(rows, "Engine speed"))
    return rows


if __name__ == "__main__":
    main()
