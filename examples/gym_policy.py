"""Evaluate a policy in ``steerlab/PathFollowing-v0`` and print seed 001's Table I metrics.

Two policies drive the same episodes (same paths, same seeds, so the same spawns):

- ``follower``: steerlab's ``PathFollower`` (seed 001, "ours") wrapped as a policy: it reads the
  vehicle state the env reports in ``info["state"]`` (not the observation vector) and returns
  its ``DriveCommand`` as the action;
- ``random``: actions drawn uniformly from the action space.

Each episode's trajectory is judged by ``steerlab.trials.observer.trial_metrics`` (the Table I
observer) and the table gives, per policy: completed episodes, stuck episodes and events, the
mean cross-track error, the time inside the corridor, the mean time and the mean speed.

Run: ``.venv/bin/python examples/gym_policy.py [--suite table1] [--vehicle storm] [--seeds 1]``
(needs the ``gym`` extra).
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import steerlab.envs
from steerlab.trials.followers import make_follower
from steerlab.trials.observer import trial_metrics


class FollowerPolicy:
    """``PathFollower`` as a policy: ``action = follower.step(info["state"], dt)``."""

    def __init__(self, env):
        task = env.unwrapped.task
        self.task = task
        self.follower = make_follower("ours", task.vehicle.params, task.vehicle_name)

    def reset(self, info) -> None:
        """A new episode: the follower starts afresh on the episode's path."""
        self.follower.set_path(self.task.polyline)

    def __call__(self, observation, info) -> np.ndarray:
        command = self.follower.step(info["state"], self.task.dt)
        return np.array([command.steer, command.throttle], dtype=np.float32)


class RandomPolicy:
    """Uniform random actions from the env's own (seeded) action space."""

    def __init__(self, env):
        self.space = env.action_space

    def reset(self, info) -> None:
        pass

    def __call__(self, observation, info) -> np.ndarray:
        return self.space.sample()


def episode(env, policy, path: str, seed: int):
    """Run one episode; return its Table I metrics and the return (sum of rewards)."""
    observation, info = env.reset(seed=seed, options={"path": path})
    env.action_space.seed(seed)
    policy.reset(info)
    task = env.unwrapped.task
    states = [info["state"]]
    total = 0.0
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        states.append(info["state"])
        total += reward
        done = terminated or truncated
    x = np.array([state.x for state in states])
    y = np.array([state.y for state in states])
    speed = np.array([state.speed for state in states])
    t = task.dt * np.arange(len(states))
    metrics, _ = trial_metrics(task.polyline, t, x, y, speed, time_limit=task.max_steps * task.dt)
    return metrics, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="table1")
    parser.add_argument("--vehicle", default="storm")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--paths", nargs="*", default=None, help="default: every path")
    arguments = parser.parse_args()
    env = gym.make(steerlab.envs.ENV_ID, suite=arguments.suite, vehicle=arguments.vehicle)
    paths = arguments.paths or env.unwrapped.task.suite.path_names
    print(f"suite {arguments.suite}, vehicle {arguments.vehicle}, {len(paths)} paths x "
          f"{arguments.seeds} seeds")  # fmt: skip
    print("| policy | completed | stuck | stuck events | cte mean [m] | inside [%] | time [s] "
          "| speed [m/s] | return |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for name, make in (("follower", FollowerPolicy), ("random", RandomPolicy)):
        policy = make(env)
        rows = [
            episode(env, policy, path, seed) for path in paths for seed in range(arguments.seeds)
        ]
        metrics = [row[0] for row in rows]
        count = len(metrics)
        print(
            f"| {name} | {sum(m.completed for m in metrics)}/{count} "
            f"| {sum(m.stuck for m in metrics)} | {sum(m.stuck_events for m in metrics)} "
            f"| {np.mean([m.cte_mean for m in metrics]):.2f} "
            f"| {np.mean([m.inside_corridor for m in metrics]):.1f} "
            f"| {np.mean([m.time for m in metrics]):.1f} "
            f"| {np.mean([m.speed_mean for m in metrics]):.2f} "
            f"| {np.mean([row[1] for row in rows]):.1f} |"
        )


if __name__ == "__main__":
    main()
