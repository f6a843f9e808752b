"""Adapter overhead of ``CarRacingPlant`` (target: the adapter adds < 20 % to the
simulator's own step time).

One lap of the seeded track is driven first by ``PathFollower`` through the plant and its
commands recorded. The same commands are then replayed from the same reset on two plants of the
same seed, in lockstep, each step timed on both (a shared machine's load falls on both alike):

- *simulator*: the car stepped as ``CarRacing.step`` does it, minus the frame rendering:
  ``car.steer(s); car.gas(g); car.brake(b); car.step(0.02); world.Step(0.02, 180, 60)``;
- *adapter*: ``state = plant.step(state, DriveCommand(s, t), 0.02)`` (validation, the command
  mapping, the substep loop, reading and converting the state, the divergence check).

Both replays must end in the same Box2D state (checked). The replay is repeated ``--repeat``
times and the best total of each counts. ``observe()`` (the state read and mapped, most of
the adapter's own work) is also timed alone, without physics. For context the environment's own
``env.step`` (which renders a 96 x 96 observation every step) is timed on the first
``--env-steps`` commands.

Run: ``.venv/bin/python benchmarks/plants_carracing.py [--quick] [--seed S] [--repeat R]``
from the repository's root (``--quick``: the lap's first 100 steps).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

import harness
from steerlab.follower.follower import PathFollower
from steerlab.follower.params import FollowerParams
from steerlab.plants.carracing import CarRacingPlant
from steerlab.vehicles.state import DriveCommand

DT = 0.02  # [s] the environment's step


def record_lap(plant: CarRacingPlant, max_steps: int = 20_000) -> list[DriveCommand]:
    """The follower's commands over one lap of the plant's track."""
    follower = PathFollower(plant.vehicle_params, FollowerParams(v_max=20.0), plant.track_path())
    state = plant.reset()
    commands = []
    for _ in range(max_steps):
        command = follower.step(state, DT)
        commands.append(command)
        state = plant.step(state, command, DT)
        if follower.info.arrived:
            break
    return commands


def replay_both(raw: CarRacingPlant, plant: CarRacingPlant, commands) -> tuple[float, float]:
    """Seconds spent in the simulator's own step (on ``raw``) and in ``plant.step`` (on
    ``plant``, the same track) for the same ``commands``, interleaved step by step so that a
    shared machine's load falls on both alike."""
    raw.reset()
    car = raw.env.car
    world = raw.env.world
    state = plant.reset()
    clock = time.perf_counter
    simulator = adapter = 0.0
    for command in commands:
        steer, throttle = command
        start = clock()
        car.steer(steer)
        car.gas(throttle if throttle > 0.0 else 0.0)
        car.brake(-throttle if throttle < 0.0 else 0.0)
        car.step(DT)
        world.Step(DT, 6 * 30, 2 * 30)
        middle = clock()
        state = plant.step(state, command, DT)
        simulator += middle - start
        adapter += clock() - middle
    return simulator, adapter


def replay_environment(plant: CarRacingPlant, commands) -> float:
    """Seconds for ``env.step`` (renders the observation) through ``commands``."""
    env = plant.env
    env.reset(seed=plant.seed)

    def run():
        for steer, throttle in commands:
            env.step(np.array([-steer, max(throttle, 0.0), max(-throttle, 0.0)]))

    return harness.seconds(run)


def box2d_state(plant: CarRacingPlant) -> tuple[float, ...]:
    hull = plant.env.car.hull
    return (*hull.position, hull.angle, *hull.linearVelocity, hull.angularVelocity)


def measure(
    plant: CarRacingPlant, repeat: int = 5, max_steps: int = 20_000
) -> tuple[float, float, list[DriveCommand]]:
    """The best total seconds of the simulator's own steps and of ``plant.step`` over one lap
    of ``plant``'s track (at most ``max_steps`` steps; ``repeat`` replays, lockstep on a second
    plant of the same seed), and the lap's commands. ``benchmarks/plants.py`` calls this."""
    commands = record_lap(plant, max_steps)
    raw = CarRacingPlant(seed=plant.seed)

    def replay() -> tuple[float, float]:
        times = replay_both(raw, plant, commands)
        if box2d_state(raw) != box2d_state(plant):
            raise SystemExit(f"replays differ: {box2d_state(raw)} != {box2d_state(plant)}")
        return times

    try:
        (samples,) = harness.alternate([replay], repeat)
    finally:
        raw.close()
    simulator, adapter = (min(side) for side in zip(*samples, strict=True))
    return simulator, adapter, commands


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    """Print the table; return the microseconds per step of each line."""
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0],
        argv,
        seed=(int, (3, 3), "track seed"),
        repeat=(int, (5, 1), "replays of the lap"),
        env_steps=(int, (300, 20), "steps of env.step timed for context"),
    )
    plant = CarRacingPlant(seed=arguments.seed)
    try:
        simulator, adapter, commands = measure(
            plant, arguments.repeat, 100 if arguments.quick else 20_000
        )
        count = len(commands)
        calls = 100 if arguments.quick else 10_000

        def observe_calls():
            for _ in range(calls):
                plant.observe()

        # the adapter's own work without the physics (less sensitive to a shared machine's load)
        reading = harness.best_seconds(observe_calls, budget=0.0, repeats=5, warm_up=False)
        environment = replay_environment(plant, commands[: arguments.env_steps])
    finally:
        plant.close()
    per_step = {
        "simulator's own step": 1e6 * simulator / count,
        "CarRacingPlant.step": 1e6 * adapter / count,
        "observe() alone (state read and mapped)": 1e6 * reading / calls,
        "env.step (renders; context)": 1e6 * environment / min(count, arguments.env_steps),
    }
    print(harness.machine_line() + "\n")
    lap = "the lap's first steps" if arguments.quick else "one lap"
    print(f"Track seed {arguments.seed}: {count} steps of {DT} s ({lap}).\n")
    print(
        harness.markdown_table(
            ("CarRacing", "per step"), ((name, f"{us:.1f} us") for name, us in per_step.items())
        )
    )
    ratio = adapter / simulator
    print(f"adapter / simulator: {ratio:.3f} (overhead {ratio - 1:+.1%})")
    return per_step


if __name__ == "__main__":
    main()
