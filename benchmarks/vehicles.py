"""Vehicles of seed 001: the measured class table (docs/fidelity.md, "Seed 001: vehicle classes"),
then agent-steps/s of every preset, plain Python vs scalar ``step`` vs ``step_batch``.

For each preset (two wheeled kinds of mass, the tank, the hovercraft: every kind): plain Python
runs ``step_batch`` on 500 vehicles with every kernel uncompiled (``steerlab._jit.uncompiled``:
the same formula, no second copy), the scalar figure loops the public ``step`` over 2,000
vehicles, the batch figure is ``step_batch`` over 1e5 vehicles on one numba thread (per core) and
on every thread. Each vehicle keeps its own random steer and throttle for the whole run, from a
random state (position, heading, speed -5 to 20 m/s); frames of 0.02 s.

Run: ``.venv/bin/python benchmarks/vehicles.py [--quick]`` from the repository's root
(``--quick`` leaves the class table out).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import harness
from steerlab.experiments.fidelity.vehicle_classes import measure_vehicle_classes
from steerlab.experiments.fidelity.vehicle_classes import render_markdown as render_classes
from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch

SIZES = (100_000,)
DT = 0.02  # [s] a 50 Hz game frame
VEHICLE_MODULES = (
    "steerlab.vehicles.vehicle",
    "steerlab.vehicles.dynamics",
    "steerlab.vehicles.bicycle",
    "steerlab.vehicles.tracked",
    "steerlab.vehicles.hover",
    "steerlab.vehicles._common",
    "steerlab.geometry.kernels",
)


def fleet(size: int, seed: int = 0) -> tuple[VehicleBatch, np.ndarray, np.ndarray]:
    """``size`` vehicles at random and their steer and throttle."""
    rng = np.random.default_rng(seed)
    batch = VehicleBatch(
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-np.pi, np.pi, size),
        rng.uniform(-5.0, 20.0, size),
    )
    return batch, rng.uniform(-1.0, 1.0, size), rng.uniform(-1.0, 1.0, size)


def comparison(label: str, vehicle: Vehicle) -> harness.Comparison:
    def batch(size):
        vehicles, steer, throttle = fleet(size)
        return lambda: vehicle.step_batch(vehicles, steer, throttle, DT)

    def scalar(count):
        vehicles, steer, throttle = fleet(count)
        states = [vehicles.state(i) for i in range(count)]
        commands = [DriveCommand(float(s), float(t)) for s, t in zip(steer, throttle, strict=True)]

        def run():
            for index, state in enumerate(states):
                states[index] = vehicle.step(state, commands[index], DT)

        return run

    return harness.Comparison(label, batch, python=batch, scalar=scalar, modules=VEHICLE_MODULES)


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    if not quick:
        print(render_classes(measure_vehicle_classes()))
    rows = []
    for name, params in PRESETS.items():
        rows += harness.compare(
            comparison(f"{name} ({params.kind_name})", Vehicle(params)),
            sizes=(300,) if quick else SIZES,
            python_count=50 if quick else 500,
            scalar_count=50 if quick else 2_000,
            budget=0.01 if quick else 0.3,
            progress=harness.progress_printer,
        )
    print(harness.render_speed(rows, "Vehicle dynamics speed"))
    return rows


if __name__ == "__main__":
    main()
