"""Speed of the vehicle dynamics (seed 001 presets): agent-steps per second, three ways.

For each preset (two wheeled kinds of mass, the tank, the hovercraft: every kind), as for the
engines (``steerlab.experiments.speed``): plain Python runs ``step_batch`` with every kernel
uncompiled
(``steerlab._jit.uncompiled``: the same formula, no second copy), the scalar figure loops the public
``step``, the batch figure is ``step_batch`` over 1e5 vehicles on one thread (per core) and on
every thread. Each vehicle keeps its own random steer and throttle for the whole run, from a
random state (position, heading, speed -5 to 20 m/s).
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from steerlab._jit import uncompiled
from steerlab.experiments.speed import SpeedRow, _modules, measure_rate, measure_with_threads
from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch

__all__ = ["VEHICLE_MODULES", "VEHICLE_SIZES", "run_vehicle_benchmark"]

VEHICLE_SIZES = (100_000,)
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


def _fleet(size: int, seed: int = 0) -> tuple[VehicleBatch, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    batch = VehicleBatch(
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-np.pi, np.pi, size),
        rng.uniform(-5.0, 20.0, size),
    )
    return batch, rng.uniform(-1.0, 1.0, size), rng.uniform(-1.0, 1.0, size)


def run_vehicle_benchmark(
    sizes: tuple[int, ...] = VEHICLE_SIZES,
    python_agents: int = 500,
    scalar_agents: int = 2_000,
    budget: float = 0.3,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedRow]:
    """Every preset three ways; one ``SpeedRow`` per measurement (``engine`` = preset (kind))."""
    rows: list[SpeedRow] = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    modules = _modules(VEHICLE_MODULES)
    for name, params in PRESETS.items():
        label = f"{name} ({params.kind_name})"
        vehicle = Vehicle(params)
        if progress:
            progress(f"{label}: plain Python")
        batch, steer, throttle = _fleet(python_agents)

        def python_frame(vehicle=vehicle, batch=batch, steer=steer, throttle=throttle):
            vehicle.step_batch(batch, steer, throttle, DT)

        with uncompiled(*modules):
            rate = measure_rate(python_frame, python_agents, budget)
        rows.append(SpeedRow(label, "python", python_agents, 1, rate))

        if progress:
            progress(f"{label}: scalar step")
        batch, steer, throttle = _fleet(scalar_agents)
        states = [batch.state(i) for i in range(scalar_agents)]
        commands = [DriveCommand(float(s), float(t)) for s, t in zip(steer, throttle, strict=True)]

        def scalar_frame(vehicle=vehicle, states=states, commands=commands):
            for index, state in enumerate(states):
                states[index] = vehicle.step(state, commands[index], DT)

        rows.append(
            SpeedRow(label, "step", scalar_agents, 1, measure_rate(scalar_frame, scalar_agents))
        )
        for size in sizes:
            batch, steer, throttle = _fleet(size)

            def batch_frame(vehicle=vehicle, batch=batch, steer=steer, throttle=throttle):
                vehicle.step_batch(batch, steer, throttle, DT)

            for threads in sorted({1, all_threads}):
                if progress:
                    progress(f"{label}: step_batch {size} vehicles, {threads} thread(s)")
                rate = measure_with_threads(batch_frame, size, threads, budget)
                rows.append(SpeedRow(label, "step_batch", size, threads, rate))
    return rows
