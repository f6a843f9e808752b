"""``steerlab/PathFollowing-v0``: environment steps per second, vector (4096 envs) and single.

Vector: ``PathFollowingVectorEnv`` with 4096 copies of the ``storm`` on a path of the ``train``
suite, fixed random actions (steer uniform in [-1, 1], throttle in [0.5, 1]), so that copies
spread along the path, end episodes and are autoreset (NEXT_STEP) as in training; after 20
warm-up steps, each figure is ``num_envs * steps / seconds`` over 200 steps with observation and
reward included, and the split between the vehicle step (``Vehicle.step_batch(..., world=)``)
and the observation kernel (each timed alone over as many steps). Single: the unwrapped
``PathFollowingEnv`` and the one ``gym.make`` returns (with Gymnasium's wrappers), 20,000 steps
each after 200 warm-up steps.

Run: ``.venv/bin/python benchmarks/gym_env.py [--quick] [--envs 4096] [--steps 200]
[--single-steps 20000]`` from the repository's root. Uses every numba thread
(``NUMBA_NUM_THREADS`` to change); the figure depends on the other loads of the machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import numpy as np

import harness
from steerlab.envs import ENV_ID, PathFollowingEnv, PathFollowingVectorEnv
from steerlab.envs._kernels import _observe_batch

PATHS = ("long_s", "canyon", "hill_pair")  # flat, walled, hills


def vector_rate(path: str, envs: int, steps: int) -> tuple[float, float, float]:
    """``(env steps/s, share of time in the vehicle step, share in the observation)``."""
    env = PathFollowingVectorEnv(envs, suite="train", path=path)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = np.column_stack((rng.uniform(-1.0, 1.0, envs), rng.uniform(0.5, 1.0, envs)))
    for _ in range(20):  # compile, warm up
        env.step(actions)

    def run_env():
        for _ in range(steps):
            env.step(actions)

    seconds = harness.seconds(run_env)
    task = env.task
    batch = env.batch
    steer = np.ascontiguousarray(actions[:, 0])
    throttle = np.ascontiguousarray(actions[:, 1])

    def run_vehicle():
        for _ in range(steps):
            task.vehicle.step_batch(batch, steer, throttle, task.dt, world=task.world)

    state = batch.record()

    def run_observe():
        for _ in range(steps):
            _observe_batch(
                state, env._progress, task.settings, task.path, task.dt, env._observation,
                env._outcome,
            )  # fmt: skip

    vehicle_seconds = harness.seconds(run_vehicle)
    observe_seconds = harness.seconds(run_observe)
    return envs * steps / seconds, vehicle_seconds / seconds, observe_seconds / seconds


def single_rate(env, steps: int) -> float:
    """Env steps/s of one environment over ``steps`` steps (reset when an episode ends)."""
    env.reset(seed=0)
    action = np.array([0.1, 0.8], dtype=np.float32)

    def run():
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()

    return steps / harness.seconds(run)


def main(argv: Sequence[str] | None = None) -> list[tuple[str, float, float]]:
    """Print both tables; return per path ``(path, vector env steps/s, single env steps/s)``."""
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0],
        argv,
        envs=(int, (4096, 64), "copies of the environment"),
        steps=(int, (200, 5), "timed steps of the vector environment"),
        single_steps=(int, (20_000, 50), "timed steps of each single environment"),
    )
    warm_up = 10 if arguments.quick else 200
    print(harness.machine_line() + "\n")
    vector = []
    for path in PATHS:
        rate, vehicle, observe = vector_rate(path, arguments.envs, arguments.steps)
        vector.append((path, rate, vehicle, observe))
    print(
        harness.markdown_table(
            (
                "path",
                f"vector env steps/s ({arguments.envs} envs)",
                "vehicle step",
                "observation",
            ),
            ((path, f"{rate:,.0f}", f"{vehicle:.0%}", f"{observe:.0%}")
             for path, rate, vehicle, observe in vector),
        )
    )  # fmt: skip
    single = []
    for path in PATHS:
        bare = PathFollowingEnv(suite="train", path=path)
        single_rate(bare, warm_up)
        wrapped = gym.make(ENV_ID, suite="train", path=path)
        single_rate(wrapped, warm_up)
        rates = (
            single_rate(bare, arguments.single_steps),
            single_rate(wrapped, arguments.single_steps),
        )
        single.append((path, *rates))
    print(
        harness.markdown_table(
            ("path", "single env steps/s (unwrapped)", "gym.make (wrappers)"),
            ((path, f"{bare:,.0f}", f"{wrapped:,.0f}") for path, bare, wrapped in single),
        )
    )
    return [(path, v[1], s[1]) for path, v, s in zip(PATHS, vector, single, strict=True)]


if __name__ == "__main__":
    main()
