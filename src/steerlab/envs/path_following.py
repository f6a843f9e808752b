"""``steerlab/PathFollowing-v0``: learn to follow a path with a steerlab vehicle (Gymnasium).

``PathFollowingEnv`` is one vehicle on one path of a benchmark suite; ``PathFollowingVectorEnv``
steps N of them with the batch kernels and equals Gymnasium's ``SyncVectorEnv`` of N
``PathFollowingEnv`` step for step. Their docstrings give the spaces, the reward and the episode's
end.

Speed: the single env calls the vehicle-in-world kernel (``steerlab.sim.vehicle_world``'s
``_vehicle_world_step``, the frame ``Vehicle.step(..., world=)`` runs) and the observation kernel
through compiled entry points looked up once per path: typing the world's and the vehicle's
records on every call cost three times the rest of a step (``docs/performance.md``). The state
needs no validation there (a non-finite state ends the episode; actions are clipped, ``dt`` is the
suite's). The vector env goes through the public ``Vehicle.step_batch(..., world=)``, once per
path its copies are on.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from steerlab._checks import as_float_array, check_nonnegative, check_positive
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
from steerlab.follower.target_point import _lookahead_distance, _target_point
from steerlab.sim.vehicle_world import _vehicle_world_step
from steerlab.trials.observer import ARRIVAL_RADIUS, PROJECTION_AHEAD, PROJECTION_BACK, planar_path
from steerlab.trials.suite import load_suite
from steerlab.vehicles import DriveCommand, Vehicle, VehicleBatch, VehicleState
from steerlab.vehicles.files import resolve_vehicle
from steerlab.world.collide import FREE_SPACE_UNKNOWN

__all__ = ["PathFollowingEnv", "PathFollowingVectorEnv", "RewardWeights"]

RENDER_MODES = ("human", "rgb_array")
CROSS_TRACK_LIMIT = 50.0  # [m] default bound of the observed cross-track error
MAX_CURVATURE_SAMPLES = 1000  # observed curvatures ahead: the observation's size is bounded
MIN_CURVATURE_SPACING = 0.01  # [m] the curvature table holds length / spacing values per path


class RewardWeights:
    """Defaults of the reward's weights (``PathFollowingEnv``'s docstring, "Reward")."""

    cross_track_weight = 1.0  # [1/s] per metre of |cross-track error|, per second
    stuck_penalty = 1.0  # [m/s] per second spent below stuck_speed
    stuck_speed = 0.5  # [m/s] ground speed below which the vehicle counts as stuck


class _PathData(NamedTuple):
    """One path of the task: what stepping, observing and drawing on it need."""

    polyline: Any  # the planar Polyline (with its corridor widths)
    observed: ObservePath  # the observation kernel's arrays
    world: Any  # the World (terrain, walls)
    walls: np.ndarray  # (m, 2, 2) the world's wall segments [m], for drawing
    max_steps: int  # steps before truncation


class _Task:
    """What both environments share: the suite, its paths, the vehicle, the kernels' settings,
    the spaces."""

    def __init__(self, suite, path, vehicle, curvatures, weights, time_limit, cross_track_limit):
        """The keywords of ``PathFollowingEnv``, with ``curvatures`` = ``(curvature_samples,
        curvature_spacing)`` and ``weights`` = ``(cross_track_weight, stuck_penalty,
        stuck_speed)``."""
        curvature_samples, curvature_spacing = curvatures
        cross_track_weight, stuck_penalty, stuck_speed = weights
        self.suite = load_suite(suite)
        named = resolve_vehicle(vehicle)
        self.vehicle_name = named.name
        self.vehicle = Vehicle(named.params)
        if (
            isinstance(curvature_samples, bool)
            or not isinstance(curvature_samples, int | np.integer)
            or not 1 <= curvature_samples <= MAX_CURVATURE_SAMPLES
        ):
            raise ValueError(
                f"curvature_samples must be an integer from 1 to {MAX_CURVATURE_SAMPLES}, got "
                f"{curvature_samples!r}"
            )
        self.curvature_samples = int(curvature_samples)
        self.spacing = check_positive("curvature_spacing", curvature_spacing, per_agent=False)
        if self.spacing < MIN_CURVATURE_SPACING:
            raise ValueError(
                f"curvature_spacing must be >= {MIN_CURVATURE_SPACING} m (the curvature table "
                f"holds a value per spacing of every path), got {curvature_spacing!r}"
            )
        if time_limit is not None:
            time_limit = check_positive("time_limit", time_limit, per_agent=False)
        self.time_limit_override = time_limit
        self.cross_track_limit = check_positive(
            "cross_track_limit", cross_track_limit, per_agent=False
        )
        follower = FollowerParams()
        self.lookahead = (float(follower.lookahead), float(follower.lookahead_time))
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
            cross_track_weight=check_nonnegative(
                "cross_track_weight", cross_track_weight, per_agent=False
            ),
            stuck_penalty=check_nonnegative("stuck_penalty", stuck_penalty, per_agent=False),
            stuck_speed=check_nonnegative("stuck_speed", stuck_speed, per_agent=False),
        )
        self.dt = float(self.suite.dt)
        # every path's shape (its curvature table bounds the observation); worlds when used
        self._shapes = {}
        for name in self.suite.path_names:
            polyline = planar_path(self.suite.polyline(name))
            self._shapes[name] = (polyline, observe_path(polyline, self.spacing))
        self._paths: dict[str, _PathData] = {}
        self.low, self.high = self._bounds()
        self.observation_space = spaces.Box(
            self.low.astype(np.float32), self.high.astype(np.float32), dtype=np.float32
        )
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.path_name = None
        if path is not None:
            self.select(path)

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The observation's bounds (float64; ``PathFollowingEnv``'s docstring, "Observation")."""
        params = self.vehicle.params
        settings = self.settings
        curvature = max(float(np.max(np.abs(shape[1].table))) for shape in self._shapes.values())
        if curvature == 0.0:
            curvature = 1.0 / self.spacing  # straight paths only: every curvature is 0
        count = self.curvature_samples
        low = [-params.max_reverse_speed, -self.cross_track_limit, -math.pi]
        high = [params.max_speed, self.cross_track_limit, math.pi]
        low += [-curvature] * count + [settings.v_min]
        high += [curvature] * count + [settings.v_max]
        return np.array(low), np.array(high)

    def clip(self, observation: np.ndarray) -> np.ndarray:
        """An observation (float64, one row or ``(N, 4 + K)``) clipped into the box, as a new
        float32 array."""
        return np.clip(observation, self.low, self.high).astype(np.float32)

    def data(self, name) -> _PathData:
        """The path ``name`` of the suite (its world built on first use); ``ValueError`` naming
        the suite's paths for another name."""
        found = self._paths.get(name) if isinstance(name, str) else None
        if found is None:
            if not isinstance(name, str) or name not in self._shapes:
                raise ValueError(
                    f"path: no path named {name!r} in suite {self.suite.name!r}; paths: "
                    f"{list(self._shapes)}"
                )
            polyline, observed = self._shapes[name]
            limit = self.time_limit_override or self.suite.time_limit(name)
            steps = math.ceil(limit / self.dt - 1e-9)
            walls = self.suite.walls(name).segments
            found = _PathData(polyline, observed, self.suite.world(name), walls, steps)
            self._paths[name] = found
        return found

    def select(self, name) -> None:
        """Make ``name`` the current path (``polyline``, ``path``, ``world``, ``max_steps``)."""
        data = self.data(name)
        self.path_name = name
        self.polyline, self.path, self.world = data.polyline, data.observed, data.world
        self.max_steps = data.max_steps

    def draw_path(self, rng: np.random.Generator) -> str:
        """A path of the suite, uniform (one draw of ``rng``)."""
        names = self.suite.path_names
        return names[int(rng.integers(len(names)))]

    def spawn(self, polyline, rng: np.random.Generator) -> VehicleState:
        """The spawn of seed 001's trials: the first waypoint, along the first segment, at rest,
        with the suite's lateral and yaw jitter, uniform in ``[-a, a]`` (two draws of ``rng``)."""
        lateral = rng.uniform(-1.0, 1.0) * self.suite.spawn_lateral
        turn = rng.uniform(-1.0, 1.0) * self.suite.spawn_yaw
        heading = polyline.heading_at(0.0)
        x0, y0 = (float(value) for value in polyline.points[0])
        return VehicleState(
            x=x0 - lateral * math.sin(heading),
            y=y0 + lateral * math.cos(heading),
            yaw=math.remainder(heading + turn, 2.0 * math.pi),
        )

    def target_point(self, observed: ObservePath, v, s, segment) -> tuple[float, float]:
        """The follower's target point (``FollowerParams`` defaults: ``follower.target_point``'s
        kernels) for a vehicle at speed ``v`` [m/s] projected at ``s`` [m] on ``segment``."""
        lookahead, lookahead_time = self.lookahead
        distance = _lookahead_distance(v, lookahead, lookahead_time)
        _, x, y, _ = _target_point(observed.points, observed.cum, s, segment, distance)
        return x, y


def observe_path(polyline, spacing: float) -> ObservePath:
    """The path record the observation kernel reads: a planar ``Polyline``'s points and arc
    lengths, and its curvature table at ``spacing`` [m]."""
    points = polyline.points_3d
    cum = polyline.cumulative_length
    table = np.empty(math.floor(cum[-1] / spacing) + 2)
    _curvature_table(points, cum, spacing, table)
    return ObservePath(points, cum, table, np.empty((0, 3)))


def _check_render_mode(render_mode, allowed) -> None:
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(
            f"render_mode: unknown mode {render_mode!r}; allowed: None or one of {list(allowed)}"
        )


def _check_options(options, known) -> dict:
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ValueError(f"options must be None or a dict, got {options!r}")
    unknown = set(options) - set(known)
    if unknown:
        raise ValueError(f"options: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    return options


def _status_text(steps: int, dt: float, observation: np.ndarray) -> str:
    """The frame's line of text: time, speed, target speed, cross-track error."""
    return (
        f"t {steps * dt:6.2f} s  v {observation[0]:5.1f} m/s  "
        f"target {observation[-1]:4.1f} m/s  e {observation[1]:+6.2f} m"
    )


class PathFollowingEnv(gym.Env):
    """One vehicle following one path of a steerlab suite (``steerlab/PathFollowing-v0``).

    An episode spawns a vehicle (a preset of ``steerlab.vehicles.PRESETS``) at the first waypoint
    of a path of a benchmark suite (``steerlab.trials.suite``: ``"train"`` by default, the only
    suite learning may see; ``"table1"`` for evaluation), heading along the first segment, at
    rest, with the suite's spawn jitter (lateral and yaw, uniform) drawn from ``np_random``. The
    path is ``path`` when given, else drawn uniformly from the suite's paths at every reset
    (``np_random``, before the jitter); ``reset(options={"path": name})`` picks one for that
    episode. The vehicle moves in the path's world (terrain, walls) with ``Vehicle.step(...,
    world=)``, one frame of the suite's ``dt`` per step.

    Observation: ``float32``, shape ``(4 + K,)``, ``K = curvature_samples``:

    - index 0, speed ``v`` [m/s], in ``[-max_reverse_speed, max_speed]`` of the vehicle preset:
      forward speed, negative in reverse. The governors hold the engine to these; gravity down a
      slope can pass them, and the observation is clipped there.
    - index 1, cross-track error [m], in ``[-cross_track_limit, cross_track_limit]``: the signed
      distance to the nearest point of the whole path, left of travel positive
      (``Polyline.project``'s, as the Table I observer measures it); unbounded in an open world,
      so clipped (the reward uses the true value).
    - index 2, heading error [rad], in ``[-pi, pi]``: yaw minus the path's heading at the tracked
      projection, wrapped.
    - indices 3 to 2+K, curvatures [1/m], in ``[-c, c]``: the path's signed curvature (left
      positive) at ``s + k curvature_spacing``, ``k = 1..K``, 0 past the path end; ``c`` the
      largest ``|curvature|`` of the suite's paths at that spacing (``1 / curvature_spacing`` if
      every path is straight), so never clipped.
    - index 3+K, target speed [m/s], in ``[v_min, v_max]`` of ``FollowerParams`` (1 and 10): the
      follower's target speed (seed 001, Algorithm 1, then its end-of-path cap).

    After a failure (non-finite state) the observation is the zero vector clipped into the box.

    Action: ``(steer, throttle)`` in ``[-1, 1]^2``, ``float32`` (a ``DriveCommand``: ``steer``
    +1 full left; ``throttle`` > 0 drives forward, < 0 brakes then reverses), clipped into the
    box; a non-finite action is a ``ValueError``.

    Reward per step::

        r = (s_t - s_{t-1}) - cross_track_weight |e_t| dt
            - stuck_penalty dt [|v_ground| < stuck_speed]

    ``s`` [m] the arc length of the vehicle's projection on the path, tracked as the follower
    and the Table I observer track it (on ``[s - 2 m, s + 20 m]`` around the last frame's);
    ``e`` [m] the cross-track error (unclipped); ``v_ground`` the ground speed
    ``hypot(v, v_lat)``. The progress term is in metres (negative when driving back); the
    defaults (``RewardWeights``) ``cross_track_weight = 1 /s``, ``stuck_penalty = 1 m/s``,
    ``stuck_speed = 0.5 m/s`` make one metre of cross-track error, or standing still, cost as
    much as driving 1 m/s slower.

    Episode end: *terminated* when the vehicle arrives (Table I's rule: within 2 m of the last
    waypoint, or past it) or its state is no longer finite (``info["failed"]``, reward 0);
    *truncated* after ``ceil(time_limit / dt)`` steps, the path's time limit in the suite (or
    ``time_limit``). ``step()`` before ``reset()`` or after the episode ended is a
    ``RuntimeError``.

    ``info``: ``path`` (its name), ``s`` (the tracked arc length [m]), ``state`` (the
    ``VehicleState``: what a classical follower needs, see ``examples/gym_policy.py``) and
    ``failed`` (``True``) when the state went non-finite.

    Rendering (``steerlab.envs.render``): ``"rgb_array"``, a ``(480, 640, 3)`` uint8 frame of
    the path, its corridor's edges, the world's walls, the vehicle's footprint and heading and
    the follower's target point (``FollowerParams`` defaults), the view fixed on the path;
    ``"human"``, the same in a pyplot window, updated at every reset and step (nothing shown,
    and no error, under a non-interactive backend such as Agg). ``metadata["render_fps"]`` is
    ``1 / dt``.

    Parameters
    ----------
    suite : str or path
        A benchmark suite (``"train"`` default, ``"table1"``, or a suite file).
    path : str, optional
        A path of the suite; ``None`` (default) draws one per reset.
    vehicle : str, path, VehicleParams or NamedVehicle
        A preset of ``steerlab.vehicles.PRESETS`` (default ``"storm"``), a vehicle file or
        one's own parameters (``steerlab.vehicles.files.resolve_vehicle``).
    curvature_samples : int
        K, curvatures observed ahead (default 8), ``>= 1``.
    curvature_spacing : float
        [m] arc length between them (default 5), ``> 0``.
    cross_track_weight, stuck_penalty, stuck_speed : float
        The reward's weights (``RewardWeights``), ``>= 0``.
    time_limit : float, optional
        [s] truncation, ``> 0``; default the path's time limit in the suite.
    cross_track_limit : float
        [m] bound of the observed cross-track error (default 50), ``> 0``.
    render_mode : {None, "rgb_array", "human"}
        What ``render()`` does (default ``None``: nothing).

    Raises
    ------
    ValueError
        An argument out of its range, naming it (an unknown ``render_mode``, ``vehicle`` or
        ``path`` names the allowed ones).
    """

    metadata: ClassVar[dict] = {"render_modes": list(RENDER_MODES), "render_fps": 50}

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
        cross_track_limit=CROSS_TRACK_LIMIT,
        render_mode=None,
    ):
        _check_render_mode(render_mode, RENDER_MODES)
        curvatures = (curvature_samples, curvature_spacing)
        weights = (cross_track_weight, stuck_penalty, stuck_speed)
        self.task = _Task(suite, path, vehicle, curvatures, weights, time_limit, cross_track_limit)
        self._fixed_path = path
        self.observation_space = self.task.observation_space
        self.action_space = self.task.action_space
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / self.task.dt}
        self.state = VehicleState()
        self._s = 0.0
        self._segment = 0
        self._steps = 0
        self._started = False
        self._done = True
        self._observation = np.zeros(self.observation_space.shape, dtype=np.float64)
        self._entries_for = None
        self._world_step = _vehicle_world_step
        self._observe_entry = _observe
        self._free_space = FREE_SPACE_UNKNOWN  # the vehicle's free disc (world.collide)
        self._frame = None  # the render's EpisodeFrame, made on first use
        self._window = None  # the human mode's HumanWindow

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode: ``(observation, info)``.

        ``seed`` an int seeds ``np_random`` (``None``: it goes on); ``options={"path": name}``
        drives that path for this episode (else ``path``, or a draw when ``path`` is ``None``).
        """
        if seed is not None and (
            not isinstance(seed, int | np.integer) or isinstance(seed, bool | np.bool_) or seed < 0
        ):
            raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")
        super().reset(seed=None if seed is None else int(seed))
        task = self.task
        options = _check_options(options, ("path",))
        if "path" in options:
            task.select(options["path"])
        elif self._fixed_path is None:
            task.select(task.draw_path(self.np_random))
        else:
            task.select(self._fixed_path)
        self.state = task.spawn(task.polyline, self.np_random)
        self._free_space = FREE_SPACE_UNKNOWN  # a new episode, maybe in another world
        self._steps = 0
        self._compile_entries()
        self._s, self._segment, _, status = self._observe(0.0, 0)
        self._started = True
        self._done = False
        if self.render_mode == "human":
            self.render()
        return task.clip(self._observation), self._info(status)

    def step(self, action):
        """One frame of ``dt``: ``(observation, reward, terminated, truncated, info)`` (class
        docstring); ``RuntimeError`` before ``reset()`` or after the episode ended."""
        if self._done:
            if not self._started:
                raise RuntimeError("step() called before reset(): call reset() first")
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
        if self.render_mode == "human":
            self.render()
        return (
            task.clip(self._observation),
            float(reward),
            bool(terminated),
            bool(truncated),
            self._info(status),
        )

    def render(self):
        """The current frame: an ``(480, 640, 3)`` uint8 array in ``"rgb_array"`` mode; in
        ``"human"`` mode the frame is shown and ``None`` returned (as without a render mode)."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() without a render mode: make the environment with "
                'render_mode="rgb_array" or "human"'
            )
            return None
        if not self._started:
            raise RuntimeError("render() called before reset(): call reset() first")
        frame = self._draw()
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            from steerlab.envs.render import HumanWindow

            self._window = HumanWindow(self.metadata["render_fps"])
        self._window.show(frame)
        return None

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None
        self._frame = None

    def _draw(self) -> np.ndarray:
        from steerlab.envs.render import EpisodeFrame  # matplotlib only when rendering

        task = self.task
        if self._frame is None:
            params = task.vehicle.params
            self._frame = EpisodeFrame(params.half_length, params.half_width)
        data = task.data(task.path_name)
        self._frame.set_path(task.path_name, data.polyline, data.walls)
        state = self.state
        target = task.target_point(data.observed, state.v, self._s, self._segment)
        text = _status_text(self._steps, task.dt, task.clip(self._observation))
        return self._frame.draw(state.x, state.y, state.yaw, target, text)

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
            info["failed"] = True
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


MAX_COPIES = 1 << 24
"""The most copies a ``PathFollowingVectorEnv`` holds (its arrays are allocated at once)."""


class PathFollowingVectorEnv(VectorEnv):
    """N copies of ``PathFollowingEnv`` stepped by the batch kernels.

    Equal to ``gymnasium.vector.SyncVectorEnv`` of N ``PathFollowingEnv(**kwargs)`` (its default
    ``autoreset_mode``, ``AutoresetMode.NEXT_STEP``) for the same seeds and actions: the same
    observations, rewards, terminations, truncations and infos, bit for bit. Spaces, reward,
    episode end and ``info`` are ``PathFollowingEnv``'s (``info`` batched as Gymnasium batches
    it: ``infos["s"][i]`` with the mask ``infos["_s"]``).

    - Each copy has its own generator, seeded as ``SyncVectorEnv`` seeds its envs: ``reset(seed)``
      gives copy ``i`` the seed ``seed + i``; a list gives one seed (or ``None``) per copy;
      ``None`` goes on with each copy's generator (a fresh one from the OS the first time).
    - Each copy draws its own path at each of its resets unless ``path`` is given
      (``PathFollowingEnv``'s rule); the copies on one path are stepped together, one
      ``Vehicle.step_batch(..., world=)`` and one observation kernel per path in use.
    - ``AutoresetMode.NEXT_STEP``: the step after a copy's episode ended resets that copy,
      ignores its action and returns its first observation with reward 0, neither flag, and the
      infos of its reset.
    - ``reset(options=)``: ``{"path": name}`` puts the copies reset on that path for this
      episode; ``{"reset_mask": mask}`` (a bool array of N) resets only those copies (Gymnasium
      1.x's partial reset), the others keep their state.
    - ``step()`` before ``reset()`` is a ``RuntimeError``.
    - ``render_mode="rgb_array"``: ``render()`` returns one frame per copy (a tuple, as
      ``SyncVectorEnv``); ``"human"`` is the single env's only.

    Parameters
    ----------
    num_envs : int
        N, ``>= 1``.
    **kwargs
        ``PathFollowingEnv``'s keywords (``render_mode`` ``None`` or ``"rgb_array"``).

    Raises
    ------
    ValueError
        ``num_envs`` not an integer ``>= 1``; a keyword as ``PathFollowingEnv``.
    """

    metadata: ClassVar[dict] = {
        "render_modes": ["rgb_array"],
        "render_fps": 50,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(self, num_envs: int, **kwargs):
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, int | np.integer)
            or not 1 <= num_envs <= MAX_COPIES
        ):
            raise ValueError(f"num_envs must be an integer in 1..{MAX_COPIES}, got {num_envs!r}")
        render_mode = kwargs.pop("render_mode", None)
        _check_render_mode(render_mode, ("rgb_array",))
        # the keywords are the single env's, checked by it; its task is every copy's
        task = PathFollowingEnv(**kwargs).task
        self.task = task
        self._fixed_path = kwargs.get("path")
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "render_fps": 1.0 / task.dt}
        self.single_observation_space = task.observation_space
        self.single_action_space = task.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self.batch = VehicleBatch(np.zeros(n), np.zeros(n), np.zeros(n))
        self._progress = Progress(np.zeros(n), np.zeros(n, dtype=np.int64))
        self._steps = np.zeros(n, dtype=np.int64)
        self._max_steps = np.zeros(n, dtype=np.int64)
        self._observation = np.zeros((n, self.single_observation_space.shape[0]))
        self._outcome = Outcome(np.zeros(n), np.zeros(n, dtype=np.int8))
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._generators: list[np.random.Generator] = [None] * n  # type: ignore[list-item]
        self._paths: list[str | None] = [None] * n  # each copy's path
        self._groups: dict[str, np.ndarray | None] = {}  # path -> its copies (None: all)
        self._group_batches: dict[str, VehicleBatch] = {}  # the copies of a path, stepped
        self._started = False
        self._frames: dict = {}  # path -> its EpisodeFrame, made on first render

    def reset(self, *, seed=None, options: dict[str, Any] | None = None):
        """Reset every copy, or those of ``options["reset_mask"]`` (class docstring); returns
        the observations of all copies and the infos of the copies reset."""
        options = _check_options(options, ("path", "reset_mask"))
        n = self.num_envs
        indices = np.arange(n)
        mask = options.get("reset_mask")
        if mask is not None:
            if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n,)):
                raise ValueError(
                    f"options['reset_mask'] must be a bool array of shape ({n},), got {mask!r}"
                )
            if not mask.any():
                raise ValueError("options['reset_mask'] must select at least one copy")
            if not self._started:
                raise RuntimeError(
                    "reset(options={'reset_mask': ...}) before a first reset(): reset every copy "
                    "first"
                )
            indices = np.flatnonzero(mask)
        path = options.get("path")
        if "path" in options:
            self.task.data(path)  # ValueError for a path not in the suite
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
        if any(value is not None and value < 0 for value in seeds):
            raise ValueError(f"seed must be >= 0 (every copy's), got {seed!r}")
        for i in indices:
            value = seeds[i]
            if value is not None or self._generators[i] is None:
                self._generators[i], _ = seeding.np_random(None if value is None else int(value))
        self._reset_copies(indices, path)
        self._autoreset[indices] = False
        self._started = True
        return self.task.clip(self._observation), self._infos(indices)

    def step(self, actions):
        """One frame of every copy: ``actions`` ``(N, 2)``; returns the observations ``(N, 4 +
        K)`` float32, rewards ``(N,)`` float64, terminations and truncations ``(N,)`` bool, and
        the infos (class docstring)."""
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        actions = as_float_array("actions", actions, "an array of numbers")
        n = self.num_envs
        if actions.shape != (n, 2) or not np.isfinite(actions).all():
            raise ValueError(f"actions must be a finite array of shape ({n}, 2), got {actions!r}")
        steer = np.clip(actions[:, 0], -1.0, 1.0)
        throttle = np.clip(actions[:, 1], -1.0, 1.0)
        restart = np.flatnonzero(self._autoreset)
        for name, indices in self._groups.items():
            self._step_group(name, indices, steer, throttle)
        outcome = self._outcome
        self._steps += 1
        terminated = outcome.status != RUNNING
        truncated = ~terminated & (self._steps >= self._max_steps)
        reward = outcome.reward.copy()
        failed = outcome.status == FAILED
        if restart.size:
            # NEXT_STEP autoreset: these copies ended last step; their move above is discarded
            self._reset_copies(restart, None)
            reward[restart] = 0.0
            terminated[restart] = False
            truncated[restart] = False
            failed[restart] = False
        self._autoreset = terminated | truncated
        infos = self._infos(np.arange(n))
        if failed.any():
            infos["failed"] = failed
            infos["_failed"] = failed.copy()
            # a finite placeholder until the autoreset: the world's kernels never see a NaN
            # position (the next step's move of these copies is discarded)
            for array in self.batch.fields(check=False):
                array[failed] = 0.0
        return self.task.clip(self._observation), reward, terminated, truncated, infos

    def render(self):
        """One ``(480, 640, 3)`` uint8 frame per copy (a tuple) in ``"rgb_array"`` mode."""
        if self.render_mode is None:
            gym.logger.warn('render() without a render mode: make the env with "rgb_array"')
            return None
        if not self._started:
            raise RuntimeError("render() called before reset(): call reset() first")
        from steerlab.envs.render import EpisodeFrame  # matplotlib only when rendering

        task = self.task
        params = task.vehicle.params
        observations = task.clip(self._observation)
        frames = []
        for i, name in enumerate(self._paths):
            frame = self._frames.get(name)
            if frame is None:
                frame = self._frames[name] = EpisodeFrame(params.half_length, params.half_width)
            data = task.data(name)
            frame.set_path(name, data.polyline, data.walls)
            x, y, yaw, v = (float(array[i]) for array in self.batch.fields()[:4])
            progress = self._progress
            s, segment = float(progress.s[i]), int(progress.segment[i])
            target = task.target_point(data.observed, v, s, segment)
            text = _status_text(int(self._steps[i]), task.dt, observations[i])
            frames.append(frame.draw(x, y, yaw, target, text))
        return tuple(frames)

    def close_extras(self, **kwargs):
        self._frames = {}

    def _step_group(self, name, indices, steer, throttle) -> None:
        """Move the copies on path ``name`` (``indices``; ``None``: every copy) and observe
        them: the batch kernels on that path's world and arrays."""
        task = self.task
        data = task.data(name)
        if indices is None:
            task.vehicle.step_batch(self.batch, steer, throttle, task.dt, world=data.world)
            _observe_batch(
                self.batch.record(check=False),  # a failed copy's NaN is an outcome here
                self._progress,
                task.settings,
                data.observed,
                task.dt,
                self._observation,
                self._outcome,
            )
            return
        part = self._group_batches[name]  # kept while the group lasts: the world's free discs
        for whole, piece in zip(self.batch.fields(), part.fields(), strict=True):
            np.take(whole, indices, out=piece)
        task.vehicle.step_batch(part, steer[indices], throttle[indices], task.dt, world=data.world)
        for whole, piece in zip(self.batch.fields(), part.fields(check=False), strict=True):
            whole[indices] = piece
        progress = Progress(self._progress.s[indices], self._progress.segment[indices])
        observation = np.empty((indices.size, self._observation.shape[1]))
        outcome = Outcome(np.empty(indices.size), np.empty(indices.size, dtype=np.int8))
        _observe_batch(
            part.record(check=False),
            progress,
            task.settings,
            data.observed,
            task.dt,
            observation,
            outcome,
        )
        self._progress.s[indices] = progress.s
        self._progress.segment[indices] = progress.segment
        self._observation[indices] = observation
        self._outcome.reward[indices] = outcome.reward
        self._outcome.status[indices] = outcome.status

    def _reset_copies(self, indices: np.ndarray, path) -> None:
        """Spawn the copies ``indices`` (on ``path``, or each on its own draw or the fixed path)
        and observe them: a Python loop over resets only, the scalar kernel that
        ``_observe_batch`` runs per copy; the other copies are untouched."""
        task = self.task
        batch = self.batch
        before = list(self._paths)
        for i in indices:
            generator = self._generators[i]
            if path is not None:
                name = path
            elif self._fixed_path is None:
                name = task.draw_path(generator)
            else:
                name = self._fixed_path
            data = task.data(name)
            self._paths[i] = name
            spawn = task.spawn(data.polyline, generator)
            for field, value in zip(VehicleState._fields, spawn, strict=True):
                getattr(batch, field)[i] = value
            self._steps[i] = 0
            self._max_steps[i] = data.max_steps
            progress = self._progress
            progress.s[i], progress.segment[i], _, self._outcome.status[i] = _observe(
                batch.state(i), Progress(0.0, 0), task.settings, data.observed, task.dt,
                self._observation[i],
            )  # fmt: skip
        if self._paths != before:
            self._regroup()

    def _regroup(self) -> None:
        """The copies of each path in use (all of them on one path: the whole batch)."""
        members: dict[str, list[int]] = {}
        for i, name in enumerate(self._paths):
            members.setdefault(name, []).append(i)
        if len(members) == 1:
            self._groups = dict.fromkeys(members)
            self._group_batches = {}
            return
        self._groups = {name: np.array(copies) for name, copies in members.items()}
        self._group_batches = {
            name: VehicleBatch(*(np.zeros(len(copies)) for _ in VehicleState._fields))
            for name, copies in members.items()
        }

    def _infos(self, indices: np.ndarray) -> dict:
        """The copies' ``info``, batched as ``VectorEnv._add_info`` batches the single env's:
        one entry per copy of ``indices`` (``None`` / 0 elsewhere) and a mask per key."""
        n = self.num_envs
        columns = [array.tolist() for array in self.batch.fields(check=False)]
        every = indices.size == n
        if every:
            present = np.ones(n, dtype=np.bool_)
            paths = np.array(self._paths, dtype=object)
            records = map(VehicleState._make, zip(*columns, strict=True))
            states = np.fromiter(records, dtype=object, count=n)
            s = self._progress.s.copy()
        else:
            present = np.zeros(n, dtype=np.bool_)
            present[indices] = True
            paths = np.full(n, None, dtype=object)
            states = np.full(n, None, dtype=object)
            for i in indices:
                paths[i] = self._paths[i]
                states[i] = VehicleState(*(column[i] for column in columns))
            s = np.zeros(n)
            s[indices] = self._progress.s[indices]
        return {
            "path": paths,
            "_path": present,
            "s": s,
            "_s": present.copy(),
            "state": states,
            "_state": present.copy(),
        }
