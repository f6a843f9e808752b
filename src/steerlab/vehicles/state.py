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

import numpy as np

from steerlab._checks import check_field_array, check_finite

__all__ = [
    "DriveCommand",
    "VehicleBatch",
    "VehicleState",
    "check_drive_command",
    "check_vehicle_state",
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
    if not isinstance(state, VehicleState):
        raise ValueError(f"{name} must be a VehicleState, got {state!r}")
    if all(type(value) is float for value in state) and all(map(math.isfinite, state)):
        return state
    return VehicleState(
        *(check_finite(f"{name}.{field}", getattr(state, field)) for field in VehicleState._fields)
    )


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
        value = check_finite(f"{name}.{field}", getattr(command, field))
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"{name}.{field} must be in [-1, 1], got {value!r}")
        values.append(value)
    return DriveCommand(*values)


class VehicleBatch:
    """Many vehicles as one float64 array per ``VehicleState`` field, updated in place."""

    # (weak references: a world keeps per-batch memory as long as the batch lives)
    __slots__ = (*VehicleState._fields, "__weakref__")

    def __init__(self, x, y, yaw, v=None, v_lat=None, yaw_rate=None, steer=None):
        x = check_field_array("x", x)
        size = x.size
        self.x = x
        self.y = check_field_array("y", y, size)
        self.yaw = check_field_array("yaw", yaw, size)
        self.v = check_field_array("v", np.zeros(size) if v is None else v, size)
        self.v_lat = check_field_array("v_lat", np.zeros(size) if v_lat is None else v_lat, size)
        self.yaw_rate = check_field_array(
            "yaw_rate", np.zeros(size) if yaw_rate is None else yaw_rate, size
        )
        self.steer = check_field_array("steer", np.zeros(size) if steer is None else steer, size)

    @classmethod
    def from_states(cls, states) -> VehicleBatch:
        """A batch holding the given ``VehicleState`` records, in order."""
        states = [check_vehicle_state(state, f"states[{i}]") for i, state in enumerate(states)]
        width = len(VehicleState._fields)
        columns = np.array(states, dtype=np.float64).reshape(len(states), width)
        return cls(*(np.ascontiguousarray(columns[:, j]) for j in range(width)))

    @property
    def size(self) -> int:
        return self.x.size

    def __len__(self) -> int:
        return self.x.size

    def fields(self) -> tuple[np.ndarray, ...]:
        """The arrays in ``VehicleState`` field order."""
        return tuple(getattr(self, field) for field in VehicleState._fields)

    def state(self, index: int) -> VehicleState:
        """The ``VehicleState`` of vehicle ``index``."""
        return VehicleState(*(float(array[index]) for array in self.fields()))

    def copy(self) -> VehicleBatch:
        return VehicleBatch(*(array.copy() for array in self.fields()))

    def __repr__(self) -> str:
        return f"VehicleBatch(size={self.size})"
