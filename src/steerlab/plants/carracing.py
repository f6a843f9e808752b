"""``CarRacingPlant``: the Box2D car of Gymnasium's CarRacing-v3 as a steerlab plant.

The car (``gymnasium.envs.box2d.car_dynamics.Car``) is stepped directly, as the environment's own
``step`` does it but without rendering a frame: ``car.steer``, ``car.gas``, ``car.brake``, then
``car.step(h)`` and ``world.Step(h, 180, 60)`` (the environment's iteration counts). The
environment is built from its class, not with ``gym.make``, so no ``TimeLimit`` (1000 steps) is
wrapped around it; its ``reset(seed=...)`` generates the seeded track and places the car on it
(that call renders one observation frame, once per reset, never per step).

Conventions bridged (Box2D world -> ``steerlab.vehicles.VehicleState``):

- Units: the car's world is in metre-like Box2D units (the track is ``TRACK_RAD = 150`` units in
  radius, the road ``2 * 40 / 6 = 13.3`` wide, the car 3.24 between axles); they are read as
  metres and seconds unchanged (no scaling). The car is a game car, not a real one: from rest,
  half gas reaches about 23 m/s in 0.5 s, and its tyres give far less lateral grip than that.
- Axes: Box2D's x, y are steerlab's x, y (both right-handed, counter-clockwise angles).
- Yaw: the car's forward axis is its body's local **+y** (``hull.angle == 0`` faces world +y),
  steerlab's is body +x: ``yaw = wrap(hull.angle + pi / 2)`` into ``[-pi, pi)``.
- Position: ``x, y`` is the hull's centre of mass (``hull.worldCenter``), the ``VehicleState``
  convention; ``vehicle_params.cg_to_front`` is measured from that point.
- Body-frame velocity: ``v = hull velocity . forward`` (local +y), ``v_lat = hull velocity .
  left`` (local -x); ``yaw_rate = hull.angularVelocity`` (counter-clockwise positive).
- Steer: ``DriveCommand.steer`` +1 (left) is ``car.steer(+1)``: the front wheels' joint target
  +0.4 rad, counter-clockwise, i.e. left (the environment's action is ``car.steer(-action[0])``
  because *its* action +1 means right). The joints turn at ``min(50 |error|, 3)`` rad/s (slew
  limited) up to their limit of 0.4 rad: ``VehicleState.steer`` is the mean of the two front
  joints' actual angles [rad], left positive, and ``vehicle_params.max_steer`` is 0.4 (Box2D's
  joint limit is soft: the angle overshoots it by up to about 0.02 rad at full lock).
- Throttle: ``throttle >= 0`` is ``car.gas(throttle)``, brake 0; ``throttle < 0`` is gas 0 and
  ``car.brake(-throttle)`` (at ``>= 0.9`` the wheels lock). The car has no reverse gear: a
  negative throttle brakes to a stop and holds it there (a departure from ``DriveCommand``'s
  "reverse once stopped", which this simulator cannot do).
- Time: the car is tuned for the environment's 50 Hz physics (``h = 0.02 s``). ``step(state,
  command, dt)`` runs ``k = ceil(dt / 0.02)`` substeps of ``h = dt / k`` (``dt = 0.02``: exactly
  the environment's step). The command is re-applied each substep, so gas rises at most 0.1 per
  substep (5 per second at 50 Hz), as in the environment.

Statefulness: the Box2D world holds the truth. ``step`` uses its ``state`` argument only as a
check: it must equal the state this plant last returned (from ``reset``, ``observe`` or
``step``), else ``ValueError`` (teleporting a jointed multi-body car is not supported, and
silently ignoring a foreign state would hide a bug in the caller). ``observe()`` reads the
simulator's current state. A non-finite Box2D state after a step raises ``PlantDiverged``.

The follower's stuck manager may request a teleport (``PathFollower.teleport_request``); this
plant does not perform it (see above).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._checks import check_timestep
from steerlab.geometry.polyline import Polyline
from steerlab.plants.errors import PlantDiverged
from steerlab.vehicles.state import (
    DriveCommand,
    VehicleState,
    check_drive_command,
    check_vehicle_state,
)

_MISSING = (
    "CarRacingPlant needs Gymnasium's Box2D environments: pip install 'steerlab[plants]' (or "
    "pip install 'gymnasium[box2d]'); import failed with: {}"
)
try:
    import gymnasium.error
except ImportError as _error:
    raise ImportError(_MISSING.format(_error)) from _error
try:
    from gymnasium.envs.box2d import car_dynamics as _car_dynamics
    from gymnasium.envs.box2d import car_racing as _car_racing
except (ImportError, gymnasium.error.DependencyNotInstalled) as _error:  # Box2D or pygame
    raise ImportError(_MISSING.format(_error)) from _error

__all__ = ["CarRacingParams", "CarRacingPlant", "PlantDiverged"]

PHYSICS_DT = 1.0 / _car_racing.FPS  # [s] the environment's step, 0.02
_VELOCITY_ITERATIONS = 6 * 30  # as CarRacing.step
_POSITION_ITERATIONS = 2 * 30
_HALF_PI = 0.5 * math.pi


class CarRacingParams(NamedTuple):
    """What the followers read of the CarRacing car (``PathFollower(vehicle_params)``).

    Measured from ``car_dynamics`` (``WHEELPOS``, ``SIZE``, the joints' limits); not tunable.
    """

    kind: int = 0  # WHEELED
    wheelbase: float = 3.24  # [m] front axle (local y = 1.60) to rear axle (local y = -1.64)
    max_steer: float = 0.4  # [rad] front wheels' joint limit
    cg_to_front: float = 1.6  # [m] hull centre of mass to front axle along the forward axis
    half_width: float = 1.1  # [m] wheel centre lines at local x = +-1.1
    max_steer_rate: float = 3.0  # [rad/s] the joint motor's speed limit (car_dynamics.step)
    physics_dt: float = PHYSICS_DT  # [s] the environment's step


def _wrap(angle: float) -> float:
    """``angle`` wrapped into ``[-pi, pi)``."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


class CarRacingPlant:
    """Gymnasium CarRacing-v3's Box2D car, driven by ``DriveCommand`` without rendering.

    Parameters
    ----------
    seed : int
        Seed of the track (``CarRacing.reset(seed=seed)``); the same seed gives the same track,
        start and trajectory.
    lap_complete_percent : float
        The environment's fraction of road tiles to visit before touching the start tile counts as
        a lap, in ``(0, 1]`` (default 0.95, the environment's).

    Attributes
    ----------
    vehicle_params : CarRacingParams
        ``kind``, ``wheelbase``, ``max_steer`` (and ``cg_to_front``) for the followers.
    env : gymnasium.envs.box2d.car_racing.CarRacing
        The unwrapped environment holding the Box2D world, the car and the track.
    """

    def __init__(self, seed: int = 0, lap_complete_percent: float = 0.95):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
        lap_complete_percent = float(lap_complete_percent)
        if not 0.0 < lap_complete_percent <= 1.0:
            raise ValueError(
                f"lap_complete_percent must be in (0, 1], got {lap_complete_percent!r}"
            )
        self.seed = int(seed)
        self.env = _car_racing.CarRacing(
            render_mode=None, lap_complete_percent=lap_complete_percent, continuous=True
        )
        self._last: VehicleState | None = None
        self.time = 0.0
        self.reset()
        self.vehicle_params = self._measure_params()

    # -- the simulator's state --------------------------------------------------------------

    def reset(self, seed: int | None = None) -> VehicleState:
        """Regenerate the track of ``seed`` (default: this plant's) and put the car at its start.

        Returns the car's state there (at rest, on the first track point, facing along the track).
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
            self.seed = int(seed)
        self.env.reset(seed=self.seed)
        self.time = 0.0
        self._last = self.observe()
        return self._last

    def observe(self) -> VehicleState:
        """The car's current state read from the Box2D world, in steerlab's conventions."""
        car = self.env.car
        hull = car.hull
        centre = hull.worldCenter
        vx, vy = hull.linearVelocity
        angle = float(hull.angle)
        # forward (local +y) is (-sin a, cos a) in the world, left (local -x) is (-cos a, -sin a)
        cos_angle, sin_angle = math.cos(angle), math.sin(angle)
        state = VehicleState(
            float(centre[0]),
            float(centre[1]),
            _wrap(angle + _HALF_PI),
            float(cos_angle * vy - sin_angle * vx),
            float(-cos_angle * vx - sin_angle * vy),
            float(hull.angularVelocity),
            0.5 * (float(car.wheels[0].joint.angle) + float(car.wheels[1].joint.angle)),
        )
        if not all(map(math.isfinite, state)):
            raise PlantDiverged(f"CarRacing car state is not finite: {state!r}")
        self._last = state
        return state

    # -- the plant ----------------------------------------------------------------------------

    def step(self, state: VehicleState, command: DriveCommand, dt: float) -> VehicleState:
        """Drive the car ``dt`` seconds with ``command``; return its new state.

        ``state`` must be the state this plant last returned (the simulator holds the truth; see
        the module docstring), else ``ValueError``. ``dt`` > 0 is split into ``ceil(dt / 0.02)``
        equal substeps. Raises ``PlantDiverged`` if the simulator's state becomes non-finite.
        """
        if state is not self._last:
            state = check_vehicle_state(state)
            if state != self._last:
                raise ValueError(
                    "state must be the state this CarRacingPlant last returned (the Box2D world "
                    f"holds the truth and cannot be set), got {state!r}, expected {self._last!r}"
                )
        command = check_drive_command(command)
        dt = check_timestep(dt)
        substeps = max(1, math.ceil(dt / PHYSICS_DT - 1e-9))
        h = dt / substeps
        steer, throttle = command
        gas = throttle if throttle > 0.0 else 0.0
        brake = -throttle if throttle < 0.0 else 0.0
        car = self.env.car
        world = self.env.world
        for _ in range(substeps):
            car.steer(steer)
            car.gas(gas)
            car.brake(brake)
            car.step(h)
            world.Step(h, _VELOCITY_ITERATIONS, _POSITION_ITERATIONS)
        self.time += dt
        self.env.t += dt
        return self.observe()

    # -- the track ----------------------------------------------------------------------------

    def track_path(self) -> Polyline:
        """The track's centre line as a closed steerlab path, the road as its corridor.

        Points: the environment's track points ``(x, y)`` in order of travel, from the last one
        (``track[-1]``, about 3.5 m behind the car's start ``track[0]``) round to it again: a
        closed lap whose end is the start tile (the environment's tile 0 joins ``track[-1]`` and
        ``track[0]``). Starting one point behind the car matters: a path starting exactly at the
        car would project it on the lap's end (same point, larger arc length) and a follower would
        arrive at once. Widths: the road's full width ``2 * TRACK_WIDTH`` [m] (``half_width_at``
        is the road's half-width, 6.67 m).
        """
        track = np.asarray(self.env.track, dtype=np.float64)[:, 2:4]
        points = np.vstack([track[-1:], track])
        return Polyline(points, widths=2.0 * _car_racing.TRACK_WIDTH)

    @property
    def lap_fraction(self) -> float:
        """Fraction of road tiles the car's wheels have touched since the reset, in [0, 1]."""
        return self.env.tile_visited_count / len(self.env.track)

    @property
    def lap_finished(self) -> bool:
        """The environment's lap criterion: all tiles visited, or the start tile touched after
        ``lap_complete_percent`` of them."""
        return bool(self.env.new_lap or self.env.tile_visited_count == len(self.env.track))

    @property
    def off_playfield(self) -> bool:
        """The car left the environment's playfield (where the environment would terminate)."""
        x, y = self.env.car.hull.position
        return abs(x) > _car_racing.PLAYFIELD or abs(y) > _car_racing.PLAYFIELD

    def close(self) -> None:
        """Release the environment (its Box2D world)."""
        self.env.close()

    def _measure_params(self) -> CarRacingParams:
        """The follower's record, measured on the car just built (axles relative to the CoM)."""
        car = self.env.car
        size = _car_dynamics.SIZE
        front = max(wy for _, wy in _car_dynamics.WHEELPOS) * size
        rear = min(wy for _, wy in _car_dynamics.WHEELPOS) * size
        centre_forward = float(car.hull.localCenter[1])
        return CarRacingParams(
            wheelbase=front - rear,
            max_steer=float(car.wheels[0].joint.upperLimit),
            cg_to_front=front - centre_forward,
            half_width=max(abs(wx) for wx, _ in _car_dynamics.WHEELPOS) * size,
        )

    def __repr__(self) -> str:
        return f"CarRacingPlant(seed={self.seed}, track={len(self.env.track)} points)"
