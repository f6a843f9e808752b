"""Parameters of ground vehicles (seed 001): one record for every kind, as numba kernels take it.

``VehicleParams`` is a single ``NamedTuple`` of one ``int`` (``kind``) and floats, so that a kernel
receives a whole vehicle as one argument and dispatches on ``kind``. Fields a kind does not use
keep their (valid) defaults. For a batch, any field (``kind`` too) may hold one value per vehicle
instead (``steerlab._per_agent``): the batch loop hands each vehicle its own record of numbers.
Units: kilograms, metres, seconds, radians, newtons, watts.

Which fields each kind reads:

=====================  =========================================================================
kind                   fields
=====================  =========================================================================
all                    ``mass``, ``yaw_inertia``, ``wheelbase``, ``max_steer``, ``steer_rate``,
                       ``half_length``, ``half_width``, ``mu``, ``engine_force``,
                       ``engine_power``, ``brake_force``, ``rolling_resistance``, ``drag``,
                       ``max_speed``, ``max_reverse_speed``
``WHEELED`` (0)        ``cg_to_front``, ``cornering_front``, ``cornering_rear``
``TRACKED`` (1)        ``track_width``, ``lateral_friction`` (coefficient of lateral
                       resistance), ``max_yaw_rate``; ``wheelbase`` is the tracks' ground-contact
                       length
``HOVER`` (2)          ``lateral_friction`` (skirt), ``side_drag``, ``rudder_torque``,
                       ``yaw_thruster_torque``, ``yaw_damping``, ``max_yaw_rate``; ``wheelbase``
                       is the body length; ``mu`` is unused (no tyres: thrust is not limited by
                       the ground)
=====================  =========================================================================

``wheelbase`` and ``max_steer`` mean the same thing to a path follower for every kind: at full
steer the vehicle's commanded path curvature is ``tan(max_steer) / wheelbase`` (exactly, for the
wheeled and tracked models, at low speed; for the hovercraft, that of its yaw rate at speed, before
drift), so pure pursuit's ``steer = atan(2 L sin(alpha) / l_d) / max_steer`` drives all three.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._checks import check_finite, check_nonnegative, check_positive

__all__ = ["GRAVITY", "HOVER", "KINDS", "TRACKED", "WHEELED", "VehicleParams"]

WHEELED = 0  # dynamic bicycle (single-track) model with a tyre traction limit
TRACKED = 1  # skid-steer tracked vehicle
HOVER = 2  # hovercraft: thrust and rudder on an air cushion
KINDS = {WHEELED: "wheeled", TRACKED: "tracked", HOVER: "hover"}

GRAVITY = 9.81  # [m/s^2] standard gravity (9.80665, rounded as game engines do)


class VehicleParams(NamedTuple):
    """Physical parameters of a ground vehicle of any kind (see the module docstring).

    The defaults describe a generic 1.5 t two-axle car on firm ground (typical textbook values,
    Gillespie, *Fundamentals of Vehicle Dynamics*, and Wong, *Theory of Ground Vehicles*); the
    presets in ``steerlab.vehicles.presets`` cite their own sources.
    """

    kind: int = WHEELED  # WHEELED (0), TRACKED (1) or HOVER (2)
    mass: float = 1500.0  # [kg] including crew and fuel
    yaw_inertia: float = 2500.0  # [kg m^2] about the vertical axis through the centre of mass
    # [m] wheeled: front to rear axle; tracked: track ground-contact length; hover: body length
    wheelbase: float = 2.7
    cg_to_front: float = 1.2  # [m] centre of mass to front axle (wheeled), in (0, wheelbase)
    half_length: float = 2.25  # [m] footprint (a rectangle about the centre of mass) for the world
    half_width: float = 0.9  # [m]
    max_steer: float = 0.6  # [rad] wheeled: road-wheel lock; tracked, hover: full turn input
    steer_rate: float = 1.2  # [rad/s] rate at which the actual steer follows its command
    cornering_front: float = 100_000.0  # [N/rad] front axle cornering stiffness (wheeled)
    cornering_rear: float = 110_000.0  # [N/rad] rear axle (wheeled)
    mu: float = 0.9  # [-] tyre/track-ground friction coefficient (traction and lateral limit)
    engine_force: float = 9000.0  # [N] largest tractive force (first gear), F = min(this, P/|v|)
    engine_power: float = 90_000.0  # [W] power at the wheels / tracks / propeller
    brake_force: float = 12_000.0  # [N] at full brake (hover: reverse thrust)
    rolling_resistance: float = 0.015  # [-] coefficient: force = this * normal load
    drag: float = 0.4  # [kg/m] 0.5 * rho * Cd * A: force = drag * v |v| along the body axis
    max_speed: float = 50.0  # [m/s] governed top speed forward (inf: none)
    max_reverse_speed: float = 8.0  # [m/s] governed top speed in reverse (inf: none)
    track_width: float = 1.6  # [m] tracked: distance between the tracks' centre lines
    lateral_friction: float = 0.5  # [-] tracked: coefficient of lateral resistance; hover: skirt
    max_yaw_rate: float = 2.0  # [rad/s] tracked: steering limit; hover: bound; wheeled: unused
    rudder_torque: float = 0.0  # [N m s/m] hover: yaw torque per m/s of forward speed, full rudder
    yaw_thruster_torque: float = 0.0  # [N m] hover: static yaw torque at full rudder (any speed)
    yaw_damping: float = 1.0  # [N m s] hover: yaw moment per rad/s of yaw rate (air, skirt)
    side_drag: float = 0.0  # [kg/m] hover: 0.5 * rho * Cd * A sideways: force = side_drag v_lat^2

    @property
    def kind_name(self) -> str:
        """``"wheeled"``, ``"tracked"`` or ``"hover"``; with one kind per agent, the kinds present
        joined by ``"/"`` (``"wheeled/hover"``)."""
        if isinstance(self.kind, np.ndarray):
            present = sorted({int(kind) for kind in self.kind})
            return "/".join(KINDS.get(kind, f"unknown ({kind!r})") for kind in present)
        return KINDS.get(self.kind, f"unknown ({self.kind!r})")

    @property
    def min_turning_radius(self):
        """Kinematic radius ``wheelbase / tan(max_steer)`` [m] of the rear axle's (or, tracked
        and hover, the reference point's) path at full steer: what pure pursuit assumes. An
        array of one radius per agent if either field holds one value per agent."""
        if isinstance(self.wheelbase, np.ndarray) or isinstance(self.max_steer, np.ndarray):
            pairs = np.broadcast(self.wheelbase, self.max_steer)
            return np.array([float(length) / math.tan(float(steer)) for length, steer in pairs])
        return self.wheelbase / math.tan(self.max_steer)

    def validated(self) -> VehicleParams:
        """Return the parameters as floats (``kind`` an int); ``ValueError`` naming the first
        field out of its physical range.

        Every field, ``kind`` too, may hold one value per agent (a 1-D sequence), for a batch
        whose vehicles differ (``steerlab._per_agent``): such a field comes back as a read-only
        array (float64; ``kind`` int64) and an error names the first bad entry (``mass[3]``).
        """
        kind = _check_kind(self.kind)
        values = {"kind": kind}
        positive = (
            "mass",
            "yaw_inertia",
            "wheelbase",
            "half_length",
            "half_width",
            "steer_rate",
            "cornering_front",
            "cornering_rear",
            "mu",
            "engine_force",
            "engine_power",
            "track_width",
            "max_yaw_rate",
            "yaw_damping",
        )
        for name in positive:
            values[name] = check_positive(name, getattr(self, name))
        for name in (
            "brake_force",
            "rolling_resistance",
            "drag",
            "lateral_friction",
            "rudder_torque",
            "yaw_thruster_torque",
            "side_drag",
        ):
            values[name] = check_nonnegative(name, getattr(self, name))
        values["max_speed"] = check_positive("max_speed", self.max_speed, allow_inf=True)
        values["max_reverse_speed"] = check_nonnegative(
            "max_reverse_speed", self.max_reverse_speed, allow_inf=True
        )
        max_steer = check_positive("max_steer", self.max_steer)
        too_large = np.flatnonzero(np.atleast_1d(max_steer >= 0.5 * math.pi))
        if too_large.size:
            name, value = _entry("max_steer", self.max_steer, max_steer, int(too_large[0]))
            raise ValueError(f"{name} must be < pi/2 rad, got {value!r}")
        values["max_steer"] = max_steer
        cg_to_front = check_finite("cg_to_front", self.cg_to_front)
        wheelbase = values["wheelbase"]
        inside = np.logical_and(cg_to_front > 0.0, cg_to_front < wheelbase)
        outside = np.logical_and(np.equal(kind, WHEELED), np.logical_not(inside))
        outside = np.flatnonzero(np.atleast_1d(outside))
        if outside.size:
            index = int(outside[0])
            name, value = _entry("cg_to_front", self.cg_to_front, cg_to_front, index)
            length_name, length = _entry("wheelbase", wheelbase, wheelbase, index)
            raise ValueError(f"{name} must be in (0, {length_name} = {length!r}), got {value!r}")
        values["cg_to_front"] = cg_to_front
        return VehicleParams(**values)


def _check_kind(kind):
    """``kind`` as an int, or one per agent as a read-only int64 array; ``ValueError`` unless
    each is ``WHEELED``, ``TRACKED`` or ``HOVER``."""
    allowed = "WHEELED (0), TRACKED (1) or HOVER (2)"
    if isinstance(kind, str | bytes) or np.ndim(kind) == 0:
        if isinstance(kind, bool | np.bool_) or kind not in KINDS:
            raise ValueError(f"kind must be {allowed}, got {kind!r}")
        return int(kind)
    if np.ndim(kind) != 1 or len(kind) == 0:
        raise ValueError(
            f"kind must be {allowed} or a 1-D sequence of one per agent, got shape {np.shape(kind)}"
        )
    for index, each in enumerate(kind):
        if isinstance(each, bool | np.bool_) or each not in KINDS:
            raise ValueError(f"kind[{index}] must be {allowed}, got {each!r}")
    codes = np.array([int(each) for each in kind], dtype=np.int64)
    codes.setflags(write=False)
    return codes


def _entry(name: str, given, checked, index: int):
    """The name and value to report of a field's bad entry: ``name[index]`` and its value for
    one value per agent, else ``name`` and the value as given."""
    if isinstance(checked, np.ndarray):
        return f"{name}[{index}]", float(checked[index])
    return name, given
