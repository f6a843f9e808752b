"""State and command records of ground vehicles (seed 001): steer and throttle inputs.

Seed 001 (de Schaetzen & Sestini, CoG 2023), "Problem Formulation": "We denote vehicle speed
along the axis of the vehicle's forward vector as v ... v < 0 indicates the vehicle is going in
reverse ... We assume there are two inputs to the game for changing the vehicle's motion:
steering and throttle for lateral and longitudinal motion, respectively."

Scalar API: immutable ``NamedTuple`` records that flow (``new = vehicle.step(state, command,
dt)``). Batch API: ``VehicleBatch``, one float64 array per field, updated in place.

Units: metres, seconds, radians; yaw counter-clockwise from +x; body axes x forward, y left.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from steerlab._checks import check_finite, check_state_record, check_timestep
from steerlab.engines.state import StateArrays

__all__ = [
    "MIN_DT",
    "DriveCommand",
    "VehicleBatch",
    "VehicleState",
    "check_drive_command",
    "check_vehicle_state",
    "check_vehicle_timestep",
]


class VehicleState(NamedTuple):
    """State of a ground vehicle (any kind: wheeled, tracked, hover).

    The position is the centre of mass on the ground plane (its height is the terrain's). The
    velocity is given in body axes: ``v`` forward (the seed's signed speed), ``v_lat`` to the
    left (sideslip, drift). A tracked vehicle's track speeds are ``v -+ yaw_rate * track / 2``.
    """

    x: float = 0.0  # [m] position of the centre of mass, world frame
    y: float = 0.0  # [m]
    yaw: float = 0.0  # [rad] heading of the body's forward axis, in [-pi, pi)
    v: float = 0.0  # [m/s] forward speed (body x), negative in reverse: the seed's v
    v_lat: float = 0.0  # [m/s] lateral speed (body y, left positive): sideslip or drift
    yaw_rate: float = 0.0  # [rad/s] counter-clockwise
    steer: float = 0.0  # [rad] actual road-wheel (or rudder) angle, left positive; 0 if none

    @property
    def speed(self) -> float:
        """Ground speed ``hypot(v, v_lat)`` [m/s]."""
        return math.hypot(self.v, self.v_lat)

    @property
    def velocity(self) -> tuple[float, float]:
        """Velocity in the world frame ``(vx, vy)`` [m/s]."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (self.v * c - self.v_lat * s, self.v * s + self.v_lat * c)


class DriveCommand(NamedTuple):
    """The game's two inputs (seed 001): ``steer`` and ``throttle``, both in ``[-1, 1]``.

    ``steer`` +1 is full left (the wheels' maximum angle, or the tracks' / rudder's full turn
    counter-clockwise). ``throttle`` > 0 drives forward; < 0 brakes while moving forward, then
    drives in reverse once stopped (as a game's single accelerator/brake axis).
    """

    steer: float = 0.0
    throttle: float = 0.0


def check_vehicle_state(state: VehicleState, name: str = "state") -> VehicleState:
    """Validate a ``VehicleState`` (every field a finite number); return it with float fields."""
    return check_state_record(name, state, VehicleState)


def check_drive_command(command: DriveCommand, name: str = "command") -> DriveCommand:
    """Validate a ``DriveCommand``: finite, each input in ``[-1, 1]`` (out of range is an error:
    a controller that asks for more than full lock has a bug worth seeing)."""
    if not isinstance(command, DriveCommand):
        raise ValueError(f"{name} must be a DriveCommand, got {command!r}")
    steer, throttle = command
    in_range = type(steer) is float and type(throttle) is float
    if in_range and -1.0 <= steer <= 1.0 and -1.0 <= throttle <= 1.0:
        return command
    values = []
    for field in DriveCommand._fields:
        value = check_finite(f"{name}.{field}", getattr(command, field), per_agent=False)
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"{name}.{field} must be in [-1, 1], got {value!r}")
        values.append(value)
    return DriveCommand(*values)


MIN_DT = 1e-9
"""[s] The shortest frame a vehicle takes. The dynamic bicycle's backward-Euler lateral solve
forms ``m / dt`` and ``I / dt``; their product overflows a float below about 1e-150 s (the state
would come back NaN). Vehicle frames are 1e-4 to 1e-1 s; a nanosecond leaves every real use."""


def check_vehicle_timestep(dt) -> float:
    """A vehicle's frame time ``dt``: ``check_timestep``'s number, at least ``MIN_DT``."""
    dt = check_timestep(dt)
    if dt < MIN_DT:
        raise ValueError(f"dt must be >= {MIN_DT!r} s for a vehicle (MIN_DT), got {dt!r}")
    return dt


class VehicleBatch(StateArrays):
    """Many vehicles as one float64 array per ``VehicleState`` field, updated in place."""

    # (weak references: a world keeps per-batch memory as long as the batch lives)
    __slots__ = (*VehicleState._fields, "__weakref__")
    STATE = VehicleState
    _check_state = staticmethod(check_vehicle_state)

    def __init__(self, x, y, yaw, v=None, v_lat=None, yaw_rate=None, steer=None):
        self._set_fields((x, y, yaw, v, v_lat, yaw_rate, steer))
