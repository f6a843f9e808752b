"""``steerlab/PathFollowing-v0``: learn to follow a path with a steerlab vehicle (Gymnasium).

An episode spawns a vehicle (a preset of ``steerlab.vehicles.PRESETS``) at the first waypoint of
a path of a benchmark suite (``steerlab.trials.suite``: ``"train"`` by default, the only suite
learning may see; ``"table1"`` for evaluation), heading along the first segment, at rest, with
the suite's spawn jitter drawn from the environment's ``np_random``; the vehicle moves in the
path's world (terrain, walls) with ``Vehicle.step(..., world=)``, one frame of the suite's ``dt``
per step.

Observation (``float32``, shape ``(4 + K,)``, ``K = curvature_samples``)::

    index      name            unit    bounds
    0          speed v         m/s     (-inf, inf)   forward speed, negative in reverse
    1          cross-track     m       (-inf, inf)   signed distance to the path, left positive
    2          heading error   rad     [-pi, pi]     yaw - path heading at the projection
    3..2+K     curvatures      1/m     (-inf, inf)   kappa at s + k spacing, k = 1..K, left
                                                      positive, 0 past the path end
    3+K        target speed    m/s     [v_min, v_max] the follower's: seed 001, Algorithm 1
                                                      (FollowerParams defaults) with its
                                                      end-of-path cap

Action: ``(steer, throttle)`` in ``[-1, 1]^2`` (``DriveCommand``; clipped into the box).

Reward per step::

    r = (s_t - s_{t-1}) - cross_track_weight |e_t| dt - stuck_penalty dt [|v_ground| < stuck_speed]

``s`` the arc length of the vehicle's projection on the path, tracked as the follower and the
Table I observer track it (``[s - 2 m, s + 20 m]`` around the last frame's); ``e`` the
cross-track error [m], ``Polyline.project``'s (the signed distance to the nearest point of the
whole path), as the Table I observer measures it. Progress is in metres (negative when driving
back); the defaults ``cross_track_weight = 1 /s`` and ``stuck_penalty = 1 m/s`` make one metre
of cross-track error, or standing still, cost as much as driving 1 m/s slower.

Episode end: *terminated* when the vehicle arrives (Table I's rule: within 2 m of the last
waypoint, or past it) or its state is no longer finite (``info["failed"]``); *truncated* after
``ceil(time_limit / dt)`` steps, the path's time limit in the suite (or ``time_limit``).

The vector version ``PathFollowingVectorEnv`` steps N copies (one vehicle preset, one path) with
``Vehicle.step_batch(..., world=)`` and one numba kernel for every observation and reward; each
copy draws its spawn from its own generator, seeded like Gymnasium's ``SyncVectorEnv`` (``seed +
i``), so it equals N single environments step for step. ``autoreset_mode`` is
``AutoresetMode.NEXT_STEP`` (Gymnasium 1.x's default): the step after an episode ended resets
that copy, ignores its action and returns its first observation with reward 0 and neither flag.

``info`` (single env): ``path``, ``s`` (the tracked arc length [m]), ``state`` (the
``VehicleState``: what a classical follower needs, see ``examples/gym_policy.py``) and
``failed`` when the state went non-finite. Vector env: ``failed`` / ``_failed`` masks only.

Speed: the single env calls the vehicle-in-world kernel (``steerlab.sim.vehicle_world``'s
``_vehicle_world_step``, the frame ``Vehicle.step(..., world=)`` runs) and the observation kernel
through compiled entry points looked up once per path: typing the world's and the vehicle's
records on every call cost three times the rest of a step (``docs/performance.md``). The state
needs no validation there (a non-finite state ends the episode; actions are clipped, ``dt`` is the
suite's). The vector env goes through the public ``Vehicle.step_batch(..., world=)``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from steerlab._checks import as_float_array, check_positive
from steerlab._jit import entry_point
from steerlab.envs._kernels import (
    FAILED,
    RUNNING,
    ObservePath,
    ObserveSettings,
    Outcome,
    Progress,
    _curvature_table,
    _observe,
    _observe_batch,
)
from steerlab.follower.params import FollowerParams
from steerlab.sim.vehicle_world import _vehicle_world_step
from steerlab.trials.observer import ARRIVAL_RADIUS, PROJECTION_AHEAD, PROJECTION_BACK, planar_path
from steerlab.trials.suite import load_suite
from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch, VehicleState
from steerlab.world.collide import FREE_SPACE_UNKNOWN

__all__ = ["PathFollowingEnv", "PathFollowingVectorEnv", "RewardWeights"]


class RewardWeights:
    """Defaults of the reward's weights (module docstring)."""

    cross_track_weight = 1.0  # [1/s] per metre of |cross-track error|, per second
    stuck_penalty = 1.0  # [m/s] per second spent below stuck_speed
    stuck_speed = 0.5  # [m/s] ground speed below which the vehicle counts as stuck


class _Task:
    """What both environments share: the suite, path, world, vehicle, kernels' arrays, spaces."""

    def __init__(self, suite, path, vehicle, curvatures, weights, time_limit):
        """The keywords of ``PathFollowingEnv``, with ``curvatures`` = ``(curvature_samples,
        curvature_spacing)`` and ``weights`` = ``(cross_track_weight, stuck_penalty,
        stuck_speed)``."""
        curvature_samples, curvature_spacing = curvatures
        cross_track_weight, stuck_penalty, stuck_speed = weights
        self.suite = load_suite(suite)
        if not isinstance(vehicle, str) or vehicle not in PRESETS:
            raise ValueError(f"vehicle: no preset named {vehicle!r}; presets: {list(PRESETS)}")
        self.vehicle_name = vehicle
        self.vehicle = Vehicle(PRESETS[vehicle])
        if (
            isinstance(curvature_samples, bool)
            or not isinstance(curvature_samples, int | np.integer)
            or curvature_samples < 1
        ):
            raise ValueError(
                f"curvature_samples must be an integer >= 1, got {curvature_samples!r}"
            )
        self.curvature_samples = int(curvature_samples)
        self.spacing = check_positive("curvature_spacing", curvature_spacing)
        if time_limit is not None:
            time_limit = check_positive("time_limit", time_limit)
        self.time_limit_override = time_limit
        follower = FollowerParams()
        self.settings = ObserveSettings(
            back=float(PROJECTION_BACK),
            ahead=float(PROJECTION_AHEAD),
            arrival_radius=float(ARRIVAL_RADIUS),
            a_lat=float(follower.a_lat),
            dh=float(follower.dh),
            n=int(follower.n),
            v_min=float(follower.v_min),
            v_max=float(follower.v_max),
            stop_decel=float(follower.stop_decel),
            spacing=self.spacing,
            cross_track_weight=_nonnegative("cross_track_weight", cross_track_weight),
            stuck_penalty=_nonnegative("stuck_penalty", stuck_penalty),
            stuck_speed=_nonnegative("stuck_speed", stuck_speed),
        )
        self.dt = float(self.suite.dt)
        size = 4 + self.curvature_samples
        low = np.full(size, -np.inf, dtype=np.float32)
        high = np.full(size, np.inf, dtype=np.float32)
        low[2], high[2] = -np.pi, np.pi
        low[-1], high[-1] = follower.v_min, follower.v_max
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self._paths: dict[str, tuple] = {}
        self.path_name = None
        if path is not None:
            self.select(path)

    def select(self, name) -> None:
        """Make ``name`` the current path (its arrays and world built once)."""
        if name not in self._paths:
            polyline = planar_path(self.suite.polyline(name))  # ValueError for an unknown name
            limit = self.time_limit_override or self.suite.time_limit(name)
            steps = math.ceil(limit / self.dt - 1e-9)
            path = observe_path(polyline, self.spacing)
            self._paths[name] = (polyline, path, self.suite.world(name), steps)
        self.path_name = name
        self.polyline, self.path, self.world, self.max_steps = self._paths[name]

    def spawn(self, rng: np.random.Generator) -> VehicleState:
        """The spawn of seed 001's trials: the first waypoint, along the first segment, at rest,
        with the suite's lateral and yaw jitter, uniform in ``[-a, a]`` (two draws of ``rng``)."""
        lateral = rng.uniform(-1.0, 1.0) * self.suite.spawn_lateral
        turn = rng.uniform(-1.0, 1.0) * self.suite.spawn_yaw
        heading = self.polyline.heading_at(0.0)
        x0, y0 = (float(value) for value in self.polyline.points[0])
        return VehicleState(
            x=x0 - lateral * math.sin(heading),
            y=y0 + lateral * math.cos(heading),
            yaw=math.remainder(heading + turn, 2.0 * math.pi),
        )


def observe_path(polyline, spacing: float) -> ObservePath:
    """The path record the observation kernel reads: a planar ``Polyline``'s points and arc
    lengths, and its curvature table at ``spacing`` [m]."""
    points = polyline.points_3d
    cum = polyline.cumulative_length
    table = np.empty(math.floor(cum[-1] / spacing) + 2)
    _curvature_table(points, cum, spacing, table)
    return ObservePath(points, cum, table, np.empty((0, 3)))


def _nonnegative(name: str, value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number >= 0, got {value!r}") from None
    if not 0.0 <= number < math.inf:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return number


_DOC_PARAMETERS = """
    Parameters
    ----------
    suite : str or path
        A benchmark suite (``"train"`` default, ``"table1"``, or a suite file).
    path : str, optional
        A path of the suite. Single env: ``None`` (default) draws one per reset from
        ``np_random`` (or ``reset(options={"path": name})``). Vector env: default the first.
    vehicle : str
        A preset of ``steerlab.vehicles.PRESETS`` (default ``"storm"``).
    curvature_samples : int
        K, curvatures observed ahead (default 8), ``>= 1``.
    curvature_spacing : float
        [m] arc length between them (default 5), ``> 0``.
    cross_track_weight, stuck_penalty, stuck_speed : float
        The reward's weights (``RewardWeights``), ``>= 0``.
    time_limit : float, optional
        [s] truncation; default the path's time limit in the suite.
"""


class PathFollowingEnv(gym.Env):
    __doc__ = "One vehicle following one path of a steerlab suite (module docstring).\n" + (
        _DOC_PARAMETERS
    )

    metadata: ClassVar[dict] = {"render_modes": []}

    def __init__(
        self,
        suite="train",
        path=None,
        vehicle="storm",
        curvature_samples=8,
        curvature_spacing=5.0,
        cross_track_weight=RewardWeights.cross_track_weight,
        stuck_penalty=RewardWeights.stuck_penalty,
        stuck_speed=RewardWeights.stuck_speed,
        time_limit=None,
        render_mode=None,
    ):
        if render_mode is not None:
            raise ValueError(f"render_mode: this environment does not render, got {render_mode!r}")
        curvatures = (curvature_samples, curvature_spacing)
        weights = (cross_track_weight, stuck_penalty, stuck_speed)
        self.task = _Task(suite, path, vehicle, curvatures, weights, time_limit)
        self._fixed_path = path
        self.observation_space = self.task.observation_space
        self.action_space = self.task.action_space
        self.render_mode = None
        self.state = VehicleState()
        self._s = 0.0
        self._segment = 0
        self._steps = 0
        self._done = True
        self._observation = np.zeros(self.observation_space.shape, dtype=np.float64)
        self._entries_for = None
        self._world_step = _vehicle_world_step
        self._observe_entry = _observe
        self._free_space = FREE_SPACE_UNKNOWN  # the vehicle's free disc (world.collide)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None and (
            not isinstance(seed, int | np.integer) or isinstance(seed, bool | np.bool_)
        ):
            raise ValueError(f"seed must be None or an int, got {seed!r}")
        super().reset(seed=None if seed is None else int(seed))
        task = self.task
        options = options or {}
        unknown = set(options) - {"path"}
        if unknown:
            raise ValueError(f"options: unknown keys {sorted(unknown)}; known: ['path']")
        if "path" in options:
            task.select(options["path"])
        elif self._fixed_path is None:
            names = task.suite.path_names
            task.select(names[int(self.np_random.integers(len(names)))])
        self.state = task.spawn(self.np_random)
        self._free_space = FREE_SPACE_UNKNOWN  # a new episode, maybe in another world
        self._steps = 0
        self._compile_entries()
        self._s, self._segment, _, status = self._observe(0.0, 0)
        self._done = False
        return self._observation.astype(np.float32), self._info(status)

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called after the episode ended: call reset() first")
        steer, throttle = _command(action)
        task = self.task
        # Vehicle.step(state, command, dt, world=task.world) without its per-call validation
        # and dispatch (module docstring, "Speed"): the state is finite (a non-finite one ended
        # the episode), the command clipped, dt the suite's
        result = self._world_step(
            self.state,
            DriveCommand(steer, throttle),
            task.vehicle.params,
            task.world.data,
            task.world.wall_friction,
            self._free_space,
            task.dt,
        )
        self.state = VehicleState(*result[:7])
        self._free_space = result[10:]
        s_last = self._s
        self._s, self._segment, reward, status = self._observe(s_last, self._segment)
        self._steps += 1
        terminated = status != RUNNING
        truncated = not terminated and self._steps >= task.max_steps
        self._done = terminated or truncated
        return (
            self._observation.astype(np.float32),
            float(reward),
            bool(terminated),
            bool(truncated),
            self._info(status),
        )

    def _observe(self, s_last, segment_last):
        task = self.task
        progress = Progress(s_last, segment_last)
        return self._observe_entry(
            self.state, progress, task.settings, task.path, task.dt, self._observation
        )

    def _compile_entries(self) -> None:
        """The compiled entry points of the two kernels a step calls, for this path's types.

        A numba dispatcher types every argument on every call (the world's and the vehicle's
        records: most of a step); the types only change with the path (its world), so the entry
        point is looked up once per path, as ``Vehicle`` does for its own dynamics.
        """
        task = self.task
        key = task.path_name
        if key == self._entries_for:
            return
        world = task.world
        self._world_step = _entry(
            _vehicle_world_step,
            (
                self.state,
                DriveCommand(0.0, 0.0),
                task.vehicle.params,
                world.data,
                world.wall_friction,
                FREE_SPACE_UNKNOWN,
                task.dt,
            ),
        )
        self._observe_entry = _entry(
            _observe,
            (self.state, Progress(0.0, 0), task.settings, task.path, task.dt, self._observation),
        )
        self._entries_for = key

    def _info(self, status) -> dict:
        info = {"path": self.task.path_name, "s": float(self._s), "state": self.state}
        if status == FAILED:
            info["failed"] = "non-finite vehicle state"
        return info


def _entry(dispatcher, arguments):
    """``dispatcher``'s entry point for the types of ``arguments`` (``steerlab._jit.entry_point``:
    called without typing the arguments again; under ``uncompiled``, the plain function)."""
    return entry_point(dispatcher, *arguments)


def _command(action) -> tuple[float, float]:
    """``(steer, throttle)`` of an action, clipped into ``[-1, 1]``; ``ValueError`` if it is not
    two finite numbers."""
    if isinstance(action, np.ndarray) and action.shape == (2,) and action.dtype.kind == "f":
        steer = float(action[0])
        throttle = float(action[1])
    else:
        array = as_float_array("action", action, "2 numbers (steer, throttle)").reshape(-1)
        if array.shape != (2,):
            raise ValueError(f"action must be 2 numbers (steer, throttle), got {action!r}")
        steer, throttle = float(array[0]), float(array[1])
    if not (math.isfinite(steer) and math.isfinite(throttle)):
        raise ValueError(f"action must be 2 finite numbers (steer, throttle), got {action!r}")
    return min(max(steer, -1.0), 1.0), min(max(throttle, -1.0), 1.0)


class PathFollowingVectorEnv(VectorEnv):
    __doc__ = (
        "N copies of ``PathFollowingEnv`` on one path and one vehicle preset, stepped by the batch "
        "kernels (module docstring); the keywords are ``PathFollowingEnv``'s.\n\n"
        "    num_envs : int\n        N, ``>= 1``.\n" + _DOC_PARAMETERS
    )

    metadata: ClassVar[dict] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, **kwargs):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        # the keywords are the single env's, checked by it; its task is every copy's, on one path
        task = PathFollowingEnv(**kwargs).task
        if task.path_name is None:
            task.select(task.suite.path_names[0])
        self.task = task
        self.num_envs = int(num_envs)
        self.render_mode = None
        self.single_observation_space = self.task.observation_space
        self.single_action_space = self.task.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self.batch = VehicleBatch(np.zeros(n), np.zeros(n), np.zeros(n))
        self._progress = Progress(np.zeros(n), np.zeros(n, dtype=np.int64))
        self._steps = np.zeros(n, dtype=np.int64)
        self._observation = np.zeros((n, self.single_observation_space.shape[0]))
        self._outcome = Outcome(np.zeros(n), np.zeros(n, dtype=np.int8))
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._generators: list[np.random.Generator] = [None] * n  # type: ignore[list-item]

    def reset(self, *, seed=None, options: dict[str, Any] | None = None):
        """Reset every copy: ``seed`` an int (copy ``i`` gets ``seed + i``, as ``SyncVectorEnv``
        seeds its envs), a list of N seeds, or ``None`` (each copy's generator goes on; a fresh
        one from the OS the first time, as ``Env.reset``). ``options``: none accepted (one path
        per vector env)."""
        if options:
            raise ValueError(f"options: the vector env takes none, got {options!r}")
        n = self.num_envs
        if seed is None:
            seeds = [None] * n
        elif isinstance(seed, int | np.integer) and not isinstance(seed, bool | np.bool_):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed) if isinstance(seed, list | tuple | np.ndarray) else []
            if len(seeds) != n or not all(
                value is None
                or (isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_))
                for value in seeds
            ):
                raise ValueError(f"seed must be None, an int or {n} ints (or None), got {seed!r}")
        for i, value in enumerate(seeds):
            if value is not None or self._generators[i] is None:
                self._generators[i], _ = seeding.np_random(None if value is None else int(value))
        self._reset_copies(np.arange(n))
        self._autoreset[:] = False
        return self._observation.astype(np.float32), {}

    def step(self, actions):
        actions = as_float_array("actions", actions, "an array of numbers")
        n = self.num_envs
        if actions.shape != (n, 2) or not np.isfinite(actions).all():
            raise ValueError(f"actions must be a finite array of shape ({n}, 2), got {actions!r}")
        steer = np.clip(actions[:, 0], -1.0, 1.0)
        throttle = np.clip(actions[:, 1], -1.0, 1.0)
        task = self.task
        restart = np.flatnonzero(self._autoreset)
        task.vehicle.step_batch(self.batch, steer, throttle, task.dt, world=task.world)
        state = self.batch.record()
        outcome = self._outcome
        _observe_batch(
            state, self._progress, task.settings, task.path, task.dt, self._observation, outcome
        )
        self._steps += 1
        terminated = outcome.status != RUNNING
        truncated = ~terminated & (self._steps >= task.max_steps)
        reward = outcome.reward.copy()
        if restart.size:
            # NEXT_STEP autoreset: these copies ended last step; their move above is discarded
            self._reset_copies(restart)
            reward[restart] = 0.0
            terminated[restart] = False
            truncated[restart] = False
        self._autoreset = terminated | truncated
        infos: dict[str, Any] = {}
        failed = outcome.status == FAILED
        if restart.size:
            failed[restart] = False
        if failed.any():
            infos["failed"] = failed
            infos["_failed"] = failed
            # a finite placeholder until the autoreset: the world's kernels never see a NaN
            # position (the next step's move of these copies is discarded)
            for array in self.batch.fields():
                array[failed] = 0.0
        return self._observation.astype(np.float32), reward, terminated, truncated, infos

    def _reset_copies(self, indices: np.ndarray) -> None:
        """Spawn the copies ``indices`` and observe them: a Python loop over resets only, the
        scalar kernel that ``_observe_batch`` runs per copy; the other copies are untouched."""
        task = self.task
        batch = self.batch
        for i in indices:
            spawn = task.spawn(self._generators[i])
            for name, value in zip(VehicleState._fields, spawn, strict=True):
                getattr(batch, name)[i] = value
            self._steps[i] = 0
            start = Progress(0.0, 0)
            progress = self._progress
            progress.s[i], progress.segment[i], _, self._outcome.status[i] = _observe(
                batch.state(i), start, task.settings, task.path, task.dt, self._observation[i]
            )
