"""Adapter overhead of ``CommonRoadPlant`` (target: the adapter adds < 20 % to the
simulator's own step time).

``commonroad-vehicle-models`` ships a right-hand side ``f(x, u, p)`` and no stepper, so "the
simulator's own step" is the least any user of the package runs per frame: the package's
``vehicle_dynamics_ks`` / ``vehicle_dynamics_st`` integrated over ``dt`` by RK4.

What each side of the ratio includes, per frame:

- *simulator*: ``x = _rk4(vehicle_dynamics_xx, x, u, p, dt / n, n)`` on the package's state
  list, with the held input ``u = (steering velocity, acceleration)`` and the substep count ``n``
  the adapter used for that frame (recorded beforehand from the adapter's public ``inputs`` and
  ``substeps``, so both sides integrate exactly the same ODE with the same integrator, the
  adapter's own ``_rk4``: ``4 n`` calls of the package's right-hand side, each applying the
  package's steering and acceleration constraints, plus the RK4 stage sums), and the loop
  around it.
- *adapter*: ``state = plant.step(state, command, dt)``: the same ``_rk4`` call plus what the
  adapter adds: the resync check on ``state``, validating the command and ``dt``, mapping
  steer / throttle to ``u`` (rate-limited steering), choosing ``n``, the divergence check, and
  mapping the package's state to a ``VehicleState`` (reference point, body-frame velocities,
  wrapped yaw).

Both runs must end in the same package state, bit for bit (checked), which also checks that
``step`` integrates with the ``inputs`` / ``substeps`` it reports.

Workload: 15 m/s road speed, a steer sine (+-0.3, period 4 s) and a throttle holding the speed,
``--frames`` frames of 0.02 s (two RK4 substeps of 0.01 s each, the default ``max_substep``).
The machine is shared and its speed swings by tens of percent: the two sides are timed in
alternation, one short sample (``--frames`` frames) each, ``--repeat`` pairs; the minimum of
each side counts (the run least disturbed), and the median of the per-pair ratios is printed
as a check (it should agree within a few percent).

Run: ``.venv/bin/python benchmarks/plants_commonroad.py [--quick] [--frames F] [--repeat R]``
from the repository's root.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import NamedTuple

import harness
from steerlab.plants.commonroad import CommonRoadPlant, _rk4
from steerlab.vehicles import DriveCommand, VehicleState

DT = 0.02  # [s]
MODELS = ("ks", "st")
START = VehicleState(v=15.0)


class Overhead(NamedTuple):
    """One plant's overhead measurement (``benchmarks/plants.py`` prints these)."""

    plant: str  # e.g. "CommonRoad KS"
    simulator_us: float  # [us] the simulator's own step (minimum over samples)
    adapter_us: float  # [us] the adapter's step (minimum over samples)
    median_ratio: float  # [-] median over the alternating pairs of adapter / simulator
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.adapter_us / self.simulator_us


def commands(frames: int) -> list[DriveCommand]:
    return [DriveCommand(0.3 * math.sin(2.0 * math.pi * i * DT / 4.0), 0.05) for i in range(frames)]


def adapter_run(model: str, frames: int):
    """The adapter's run, and per frame the ``(u, substeps)`` it reports before stepping."""
    plant = CommonRoadPlant(model, vehicle=2)
    state = plant.reset(START)
    record = []
    for command in commands(frames):
        u = plant.inputs(command, DT)
        record.append((u, plant.substeps(DT, u[1])))
        state = plant.step(state, command, DT)
    return plant.model_state, record


def time_adapter(plant: CommonRoadPlant, sequence: list[DriveCommand]) -> float:
    """Seconds of ``plant.step`` over ``sequence`` from ``START``."""
    start = plant.reset(START)
    step = plant.step

    def run():
        state = start
        for command in sequence:
            state = step(state, command, DT)

    return harness.seconds(run)


def time_bare(plant: CommonRoadPlant, record) -> tuple[float, tuple[float, ...]]:
    """Seconds of the simulator's own steps with the recorded inputs, and the final state."""
    plant.reset(START)
    start, dynamics, p = list(plant.model_state), plant._dynamics, plant.p
    final = []

    def run():
        x = start
        for u, count in record:
            x = _rk4(dynamics, x, u, p, DT / count, count)
        final.append(tuple(x))

    return harness.seconds(run), final[0]


def measure(model: str, frames: int = 200, repeat: int = 300) -> Overhead:
    """Time the simulator's own step and the adapter's step of ``model`` ("ks" or "st")."""
    final, record = adapter_run(model, frames)
    plant, sequence = CommonRoadPlant(model, vehicle=2), commands(frames)

    def bare() -> float:
        elapsed, bare_final = time_bare(plant, record)
        if bare_final != final:
            raise SystemExit(f"{model}: the bare loop did not reproduce the adapter's run")
        return elapsed

    # alternating (order swapped every pair): the same machine load on both
    bare_times, adapter_times = harness.alternate(
        [bare, lambda: time_adapter(plant, sequence)], repeat, swap=True
    )
    substeps = sum(count for _, count in record) / len(record)
    return Overhead(
        plant=f"CommonRoad {model.upper()}",
        simulator_us=1e6 * min(bare_times) / frames,
        adapter_us=1e6 * min(adapter_times) / frames,
        median_ratio=statistics.median(
            a / b for a, b in zip(adapter_times, bare_times, strict=True)
        ),
        note=f"BMW 320i at 15 m/s, dt {DT} s, {substeps:.0f} RK4 substeps/frame",
    )


def main(argv: Sequence[str] | None = None) -> list[Overhead]:
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0],
        argv,
        frames=(int, (200, 20), "frames per sample"),
        repeat=(int, (300, 4), "samples of each side"),
    )
    results = [measure(model, arguments.frames, arguments.repeat) for model in MODELS]
    print(harness.machine_line() + "\n")
    print(
        harness.markdown_table(
            ("plant", "simulator's own step", "adapter step", "overhead", "median of pairs",
             "workload"),
            ((result.plant, f"{result.simulator_us:.2f} us", f"{result.adapter_us:.2f} us",
              f"{result.ratio - 1.0:+.1%}", f"{result.median_ratio - 1.0:+.1%}", result.note)
             for result in results),
        )
    )  # fmt: skip
    return results


if __name__ == "__main__":
    main()
