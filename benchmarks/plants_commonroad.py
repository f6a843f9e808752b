"""Adapter overhead of ``CommonRoadPlant`` (issue 9 target: the adapter adds < 20 % to the
simulator's own step time).

``commonroad-vehicle-models`` ships a right-hand side ``f(x, u, p)`` and no stepper, so "the
simulator's own step" is the least any user of the package runs per frame: the package's
``vehicle_dynamics_ks`` / ``vehicle_dynamics_st`` integrated over ``dt`` by RK4 with the same
substeps and the same held input ``u`` as the adapter (recorded from the adapter's run, so both
integrate exactly the same ODE; the integrator is the adapter's own ``_rk4``). The adapter's
``step`` adds: validating the command and ``dt``, the resync check, mapping steer / throttle to
``u`` (rate-limited steering), choosing the substeps, the divergence check, and mapping the state
to a ``VehicleState``.

Workload: 15 m/s road speed, a steer sine (+-0.3, period 4 s) and a throttle holding the speed,
``--frames`` frames of 0.02 s; each model timed ``--repeat`` times, the two loops interleaved,
the best run of each counts (shared machine). ``dt`` = 0.02 s with the default ``max_substep``
0.01 s: two substeps per frame.

Run: ``.venv/bin/python benchmarks/plants_commonroad.py [--frames F] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import math
import time

from steerlab.plants.commonroad import CommonRoadPlant, _rk4
from steerlab.vehicles import DriveCommand, VehicleState

DT = 0.02  # [s]


def commands(frames: int) -> list[DriveCommand]:
    return [DriveCommand(0.3 * math.sin(2.0 * math.pi * i * DT / 4.0), 0.05) for i in range(frames)]


def adapter_run(model: str, frames: int):
    plant = CommonRoadPlant(model, vehicle=2)
    start = plant.reset(VehicleState(v=15.0))
    sequence = commands(frames)
    record = []
    inputs, substeps = plant.inputs, plant.substeps

    def recording_substeps(dt, accel):
        count = substeps(dt, accel)
        record.append((inputs_now[0], count))
        return count

    inputs_now = [None]

    def recording_inputs(command, dt):
        inputs_now[0] = inputs(command, dt)
        return inputs_now[0]

    plant.inputs, plant.substeps = recording_inputs, recording_substeps
    state = start
    for command in sequence:
        state = plant.step(state, command, DT)
    return plant.model_state, record


def time_adapter(plant: CommonRoadPlant, sequence: list[DriveCommand]) -> float:
    state = plant.reset(VehicleState(v=15.0))
    step = plant.step
    begin = time.perf_counter()
    for command in sequence:
        state = step(state, command, DT)
    return time.perf_counter() - begin


def time_bare(plant: CommonRoadPlant, record) -> tuple[float, tuple[float, ...]]:
    plant.reset(VehicleState(v=15.0))
    x, dynamics, p = list(plant.model_state), plant._dynamics, plant.p
    begin = time.perf_counter()
    for u, count in record:
        x = _rk4(dynamics, x, u, p, DT / count, count)
    return time.perf_counter() - begin, tuple(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=300)
    arguments = parser.parse_args()
    frames = arguments.frames
    for model in ("ks", "st"):
        final, record = adapter_run(model, frames)
        plant, sequence = CommonRoadPlant(model, vehicle=2), commands(frames)
        bare_times, adapter_times = [], []
        for _ in range(arguments.repeat):  # interleaved: both see the same machine load
            bare, bare_final = time_bare(plant, record)
            if bare_final != final:
                raise SystemExit(f"{model}: the bare loop did not reproduce the adapter's run")
            bare_times.append(bare)
            adapter_times.append(time_adapter(plant, sequence))
        bare, adapter = min(bare_times), min(adapter_times)
        substeps = sum(count for _, count in record) / len(record)
        print(
            f"{model.upper()}: simulator's own step {1e6 * bare / frames:7.2f} us, "
            f"adapter step {1e6 * adapter / frames:7.2f} us, ratio {adapter / bare:.3f} "
            f"(adds {100.0 * (adapter / bare - 1.0):.1f} %), {substeps:.2f} RK4 substeps/frame"
        )


if __name__ == "__main__":
    main()
