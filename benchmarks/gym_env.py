"""``steerlab/PathFollowing-v0``: environment steps per second, vector (4096 envs) and single.

Vector: ``PathFollowingVectorEnv`` with 4096 copies of the ``storm`` on a path of the ``train``
suite, fixed random actions (steer uniform in [-1, 1], throttle in [0.5, 1]), so that copies
spread along the path, end episodes and are autoreset (NEXT_STEP) as in training; each figure is
``num_envs * steps / seconds`` with observation and reward included, and the split between the
vehicle step (``Vehicle.step_batch(..., world=)``) and the observation kernel. Single: the
unwrapped ``PathFollowingEnv`` and the one ``gym.make`` returns (with Gymnasium's wrappers).

Run: ``.venv/bin/python benchmarks/gym_env.py [--envs 4096] [--steps 200]``. Uses every numba
thread (``NUMBA_NUM_THREADS`` to change); the figure depends on the other loads of the machine.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium as gym
import numba
import numpy as np

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
    start = time.perf_counter()
    for _ in range(steps):
        env.step(actions)
    seconds = time.perf_counter() - start
    task = env.task
    batch = env.batch
    steer = np.ascontiguousarray(actions[:, 0])
    throttle = np.ascontiguousarray(actions[:, 1])
    start = time.perf_counter()
    for _ in range(steps):
        task.vehicle.step_batch(batch, steer, throttle, task.dt, world=task.world)
    vehicle_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(steps):
        _observe_batch(
            batch.x, batch.y, batch.yaw, batch.v, batch.v_lat, env._s, env._segment,
            task.points, task.cum, task.table, task.spacing, task.no_record, task.dt,
            task.settings, env._observation, env._reward, env._status,
        )  # fmt: skip
    observe_seconds = time.perf_counter() - start
    return envs * steps / seconds, vehicle_seconds / seconds, observe_seconds / seconds


def single_rate(env, steps: int) -> float:
    env.reset(seed=0)
    action = np.array([0.1, 0.8], dtype=np.float32)
    done = 0
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
            done += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--single-steps", type=int, default=20_000)
    arguments = parser.parse_args()
    print(f"numba threads: {numba.get_num_threads()}, cpus: {os.cpu_count()}")
    print(f"| path | vector env steps/s ({arguments.envs} envs) | vehicle step | observation |")
    print("|---|---|---|---|")
    for path in PATHS:
        rate, vehicle, observe = vector_rate(path, arguments.envs, arguments.steps)
        print(f"| {path} | {rate:,.0f} | {vehicle:.0%} | {observe:.0%} |")
    print()
    print("| path | single env steps/s (unwrapped) | gym.make (wrappers) |")
    print("|---|---|---|")
    for path in PATHS:
        bare = PathFollowingEnv(suite="train", path=path)
        single_rate(bare, 200)  # warm up
        wrapped = gym.make(ENV_ID, suite="train", path=path)
        single_rate(wrapped, 200)
        rates = (single_rate(bare, arguments.single_steps), single_rate(wrapped, 20_000))
        print(f"| {path} | {rates[0]:,.0f} | {rates[1]:,.0f} |")


if __name__ == "__main__":
    main()
