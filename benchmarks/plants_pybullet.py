"""Adapter overhead of ``PyBulletRacecarPlant`` (target: under 20 % of the simulator's own step).

"Own step" is the same PyBullet work written directly: steering targets, ``k`` times (rear-wheel
torques + ``stepSimulation``), then the readings the adapter needs (base pose, base velocity,
hinge states). The adapter adds command/state validation, the state comparison, the unit mapping
and the ``VehicleState`` record. Both run in the same DIRECT client, from the same start, with
the same commands, the two interleaved; the best of several repeats is reported, in CPU time of
this process (``time.process_time``: the machine is shared, wall time swings with the load).

Run: ``.venv/bin/python benchmarks/plants_pybullet.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import pybullet

import harness
from steerlab.plants.pybullet_racecar import PyBulletRacecarPlant
from steerlab.vehicles import DriveCommand, VehicleState

FRAMES = 600
REPEATS = 9
COMMANDS = [DriveCommand(0.5 * ((i // 60) % 2 * 2 - 1), 0.6) for i in range(FRAMES)]


def raw_seconds(plant: PyBulletRacecarPlant, dt: float, commands=COMMANDS) -> float:
    """CPU seconds of the direct PyBullet loop over ``commands``."""
    client, body = plant.client, plant.body
    substeps = round(dt * plant.params.physics_rate)
    max_steer, max_torque = plant.params.max_steer, plant.params.max_torque
    force = plant.params.steer_force
    plant.reset()
    pybullet.setTimeStep(dt / substeps, physicsClientId=client)

    def run():
        for steer, throttle in commands:
            angle = steer * max_steer
            pybullet.setJointMotorControlArray(
                body,
                (4, 6),
                pybullet.POSITION_CONTROL,
                targetPositions=[angle, angle],
                forces=[force, force],
                physicsClientId=client,
            )
            torque = throttle * max_torque
            for _ in range(substeps):
                pybullet.setJointMotorControlArray(
                    body,
                    (2, 3),
                    pybullet.TORQUE_CONTROL,
                    forces=[torque, torque],
                    physicsClientId=client,
                )
                pybullet.stepSimulation(physicsClientId=client)
            pybullet.getBasePositionAndOrientation(body, physicsClientId=client)
            pybullet.getBaseVelocity(body, physicsClientId=client)
            pybullet.getJointStates(body, (4, 6), physicsClientId=client)

    return harness.seconds(run, clock=time.process_time)


def adapter_seconds(plant: PyBulletRacecarPlant, dt: float, commands=COMMANDS) -> float:
    """CPU seconds of ``plant.step`` over ``commands``."""
    start = plant.reset()

    def run():
        state = start
        for command in commands:
            state = plant.step(state, command, dt)

    return harness.seconds(run, clock=time.process_time)


def measure(
    plant: PyBulletRacecarPlant, hz: float, repeats: int = REPEATS, commands=COMMANDS
) -> tuple[float, float]:
    """The best CPU seconds of the direct PyBullet loop and of ``plant.step`` over ``commands``
    at a control rate of ``hz`` (the two alternated ``repeats`` times). ``benchmarks/plants.py``
    calls this."""
    dt = 1.0 / hz
    raw, adapter = harness.alternate(
        [lambda: raw_seconds(plant, dt, commands), lambda: adapter_seconds(plant, dt, commands)],
        repeats,
    )
    return min(raw), min(adapter)


def main(argv: Sequence[str] | None = None) -> list[tuple[float, float, float]]:
    """Print the table; return per control rate ``(hz, pybullet s, adapter s)``."""
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    commands = COMMANDS[:60] if arguments.quick else COMMANDS
    repeats = 1 if arguments.quick else REPEATS
    results, table = [], []
    with PyBulletRacecarPlant(start=VehicleState()) as plant:
        for hz in (60.0, 240.0):
            raw, adapter = measure(plant, hz, repeats, commands)
            results.append((hz, raw, adapter))
            table.append(
                (
                    f"{hz:.0f} Hz",
                    round(plant.params.physics_rate / hz),
                    f"{raw / len(commands) * 1e6:.1f} us",
                    f"{adapter / len(commands) * 1e6:.1f} us",
                    f"{adapter / raw:.3f}",
                    f"{100.0 * (adapter / raw - 1.0):+.1f} %",
                )
            )
    print(harness.machine_line() + "\n")
    print(
        harness.markdown_table(
            ("control", "physics steps of 1/240 s per frame", "pybullet per frame",
             "adapter per frame", "ratio", "overhead"),
            table,
        )
    )  # fmt: skip
    return results


if __name__ == "__main__":
    main()
