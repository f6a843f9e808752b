"""Adapter overhead of ``PyBulletRacecarPlant`` (issue 9: under 20 % of the simulator's own step).

"Own step" is the same PyBullet work written directly: steering targets, ``k`` times (rear-wheel
torques + ``stepSimulation``), then the readings the adapter needs (base pose, base velocity,
hinge states). The adapter adds command/state validation, the state comparison, the unit mapping
and the ``VehicleState`` record. Both run in the same DIRECT client, from the same start, with
the same commands, the two interleaved; the best of several repeats is reported, in CPU time of
this process (``time.process_time``: the machine is shared, wall time swings with the load).

Run: ``.venv/bin/python benchmarks/plants_pybullet.py``
"""

from __future__ import annotations

import time

import pybullet

from steerlab.plants.pybullet_racecar import PyBulletRacecarPlant
from steerlab.vehicles import DriveCommand, VehicleState

FRAMES = 600
REPEATS = 9
COMMANDS = [DriveCommand(0.5 * ((i // 60) % 2 * 2 - 1), 0.6) for i in range(FRAMES)]


def raw_seconds(plant: PyBulletRacecarPlant, dt: float) -> float:
    client, body = plant.client, plant.body
    substeps = round(dt * plant.params.physics_rate)
    max_steer, max_torque = plant.params.max_steer, plant.params.max_torque
    force = plant.params.steer_force
    plant.reset()
    pybullet.setTimeStep(dt / substeps, physicsClientId=client)
    start = time.process_time()
    for steer, throttle in COMMANDS:
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
    return time.process_time() - start


def adapter_seconds(plant: PyBulletRacecarPlant, dt: float) -> float:
    state = plant.reset()
    start = time.process_time()
    for command in COMMANDS:
        state = plant.step(state, command, dt)
    return time.process_time() - start


def measure(plant: PyBulletRacecarPlant, hz: float, repeats: int = REPEATS) -> tuple[float, float]:
    """The best CPU seconds of the direct PyBullet loop and of ``plant.step`` over ``COMMANDS``
    at a control rate of ``hz`` (the two alternated ``repeats`` times). ``benchmarks/plants.py``
    calls this."""
    dt = 1.0 / hz
    raw = adapter = float("inf")
    for _ in range(repeats):
        raw = min(raw, raw_seconds(plant, dt))
        adapter = min(adapter, adapter_seconds(plant, dt))
    return raw, adapter


def main() -> None:
    with PyBulletRacecarPlant(start=VehicleState()) as plant:
        for hz in (60.0, 240.0):
            dt = 1.0 / hz
            raw, adapter = measure(plant, hz)
            substeps = round(dt * plant.params.physics_rate)
            print(
                f"control {hz:5.0f} Hz ({substeps} physics steps of 1/240 s per frame): "
                f"pybullet {raw / FRAMES * 1e6:7.1f} us/frame, adapter "
                f"{adapter / FRAMES * 1e6:7.1f} us/frame, ratio {adapter / raw:.3f} "
                f"(overhead {100.0 * (adapter / raw - 1.0):+.1f} %)"
            )


if __name__ == "__main__":
    main()
