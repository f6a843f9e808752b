"""Accel-bounded unicycle: the plant of Boulic's funnelling control (seed 003).

Seed 003, Section 3: "a similarly simple vehicle model with unit mass and unit yaw moment of
inertia ... non-holonome", moving forward only, with "bounded accelerations and speeds (forward
and angular)" and a bounded "normal acceleration (product of linear and angular speeds) but not
the curvature" (Section 1), integrated with "a simple Euler integration scheme" (Section 3).

With unit mass and inertia, a force is an acceleration: the command is ``UnicycleCommand(accel,
angular_accel)``, the seek controllers' two outputs. One frame of ``dt`` (``_unicycle_step``):

1. the accelerations are bounded: ``|accel| <= accel_max``, ``|angular_accel| <=
   angular_accel_max``;
2. speeds by Euler: ``v' = v + accel dt`` in ``[0, speed_max]``, ``w' = w + angular_accel dt``
   in ``[-angular_speed_max, angular_speed_max]``;
3. the normal acceleration ``|v' w'| <= A`` (``normal_accel_max``), with the angular channel
   first (the seed gives the forward speed controller "an implicit lower priority compared to
   the angular control"): the speed gives way first, down to the lowest speed this frame's
   braking allows (``max(v - accel_max dt, 0)``); only then is ``|w'|`` cut to ``A / v'``. From a
   state within the bounds this never breaks an acceleration bound: ``(v - accel_max dt) (|w| -
   angular_accel_max dt) <= |v w| <= A`` (derivation in ``_unicycle_step``);
4. pose by semi-implicit Euler, as the other engines of steerlab (seed 000's BaseEngine):
   ``yaw' = wrap(yaw + w' dt)``, ``x' = x + v' cos(yaw') dt``, ``y' = y + v' sin(yaw') dt``.

The seed does not say whether its Euler step moves with the old or the new speeds; the new ones
(semi-implicit, symplectic Euler) are chosen, as in every steerlab engine. The seed gives no
values for the bounds: the defaults are assumed, a brisk walker in metres (see
``UnicycleParams``).

A turn is never bounded by a curvature: at rest the unicycle turns on the spot (up to
``angular_speed_max``), at speed ``v`` its tightest turn has radius ``max(v / angular_speed_max,
v^2 / A)`` (``turning_radius``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import (
    as_float_array,
    check_finite,
    check_finite_array,
    check_positive,
    check_record,
    check_timestep,
)
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, check_agent_count, check_shared
from steerlab.engines._batch import engine_params
from steerlab.engines.state import StateArrays
from steerlab.geometry.kernels import sincos, wrap_pi

__all__ = [
    "Unicycle",
    "UnicycleBatch",
    "UnicycleCommand",
    "UnicycleParams",
    "UnicycleState",
    "turning_radius",
]


class UnicycleParams(NamedTuple):
    """Bounds of the accel-bounded unicycle (seed 003). World units, seconds, radians.

    The seed bounds every quantity but gives no values; the defaults are assumed, a brisk
    walker in metres (the seed's entities are characters on a 1-unit grid, Figure 7).
    """

    speed_max: float = 2.0  # [u/s] forward speed bound (v in [0, speed_max]); assumed
    angular_speed_max: float = 3.0  # [rad/s] |w| bound, ~170 deg/s: turning on the spot; assumed
    accel_max: float = 2.0  # [u/s^2] |dv/dt| bound, forward and braking; assumed
    angular_accel_max: float = 8.0  # [rad/s^2] |dw/dt| bound; assumed
    normal_accel_max: float = 2.0  # [u/s^2] A: |v w| <= A (the seed's normal acceleration); assumed

    def validated(self) -> UnicycleParams:
        """Return the parameters as floats; ``ValueError`` naming the first bad one (all > 0)."""
        values = self._asdict().items()
        return UnicycleParams(*(check_positive(name, value) for name, value in values))


class UnicycleState(NamedTuple):
    """State of the unicycle: pose and the two speeds (seed 003's ``v_c`` and ``omega_c``)."""

    x: float = 0.0  # [u] position
    y: float = 0.0  # [u]
    yaw: float = 0.0  # [rad] forward direction, counter-clockwise from +x, in [-pi, pi)
    v: float = 0.0  # [u/s] forward speed, >= 0 (forward only)
    w: float = 0.0  # [rad/s] angular speed, counter-clockwise positive

    @property
    def speed(self) -> float:
        """The forward speed ``v`` [u/s] (the velocity modulus: a unicycle does not slide)."""
        return self.v


class UnicycleCommand(NamedTuple):
    """Forward and angular accelerations (unit mass and inertia: the force and the torque)."""

    accel: float = 0.0  # [u/s^2] forward acceleration; bounded by the plant
    angular_accel: float = 0.0  # [rad/s^2] angular acceleration; bounded by the plant


def check_unicycle_state(state: UnicycleState, name: str = "state") -> UnicycleState:
    """Validate a ``UnicycleState`` (finite fields, ``v >= 0``); return it with float fields."""
    if not isinstance(state, UnicycleState):
        raise ValueError(f"{name} must be a UnicycleState, got {state!r}")
    if (
        all(type(value) is float for value in state)
        and all(map(math.isfinite, state))
        and state.v >= 0.0
    ):
        return state
    values = [
        check_finite(f"{name}.{field}", getattr(state, field), per_agent=False)
        for field in state._fields
    ]
    if values[3] < 0.0:
        raise ValueError(f"{name}.v must be >= 0 (forward only), got {state.v!r}")
    return UnicycleState(*values)


def check_unicycle_command(command: UnicycleCommand, name: str = "command") -> UnicycleCommand:
    """Validate a ``UnicycleCommand`` (finite; the plant bounds it)."""
    if not isinstance(command, UnicycleCommand):
        raise ValueError(f"{name} must be a UnicycleCommand, got {command!r}")
    accel, angular_accel = command
    plain = type(accel) is float and type(angular_accel) is float
    if plain and math.isfinite(accel + angular_accel):
        return command
    return UnicycleCommand(
        check_finite(f"{name}.accel", accel, per_agent=False),
        check_finite(f"{name}.angular_accel", angular_accel, per_agent=False),
    )


@kernel
def angular_speed_limit(v, params):
    """``min(angular_speed_max, A / v)``: the largest ``|w|`` at speed ``v`` (``v = 0``: no
    normal-acceleration bound). The step's bound and the eta table's angular axis
    (``steerlab.funnel``) both read it from here."""
    normal = params.normal_accel_max / v if v > 0.0 else math.inf
    return min(params.angular_speed_max, normal)


@kernel
def _unicycle_step(state, command, params, dt):
    """One frame of the unicycle (module docstring): the ``UnicycleState`` a frame later.

    ``state`` a ``UnicycleState``, ``command`` a ``UnicycleCommand``, ``params`` a
    ``UnicycleParams`` (validated).

    The normal-acceleration projection keeps both acceleration bounds. Let ``v_low = max(v -
    accel_max dt, 0)`` (the slowest speed this frame) and ``w_low`` the smallest ``|w|`` this
    frame (``max(|w| - angular_accel_max dt, 0)``). Both are at most the old values, so ``v_low
    w_low <= |v w| <= A``: cutting the speed to ``max(A / |w'|, v_low)`` stays within the braking
    bound, and cutting ``|w'|`` to ``A / v'`` happens only at ``v' = v_low``, where ``A / v_low >=
    w_low``: within the angular bound.
    """
    x, y, yaw, v, w = state
    accel = min(max(command.accel, -params.accel_max), params.accel_max)
    angular_accel = min(
        max(command.angular_accel, -params.angular_accel_max), params.angular_accel_max
    )
    v_new = min(max(v + accel * dt, 0.0), params.speed_max)
    w_new = min(max(w + angular_accel * dt, -params.angular_speed_max), params.angular_speed_max)
    # |v w| <= A, the angular channel first: the speed gives way, down to this frame's floor
    v_floor = max(v - params.accel_max * dt, 0.0)
    abs_w = abs(w_new)
    v_turn = params.normal_accel_max / abs_w if abs_w > 0.0 else math.inf
    v_new = min(v_new, max(v_turn, v_floor))
    w_bound = angular_speed_limit(v_new, params)
    w_new = min(max(w_new, -w_bound), w_bound)
    yaw_new = wrap_pi(yaw + w_new * dt)
    sin_yaw, cos_yaw = sincos(yaw_new)
    return UnicycleState(x + v_new * cos_yaw * dt, y + v_new * sin_yaw * dt, yaw_new, v_new, w_new)


@batch_kernel
def _unicycle_batch(x, y, yaw, v, w, accel, angular_accel, params, dt):
    for i in numba.prange(x.size):
        x[i], y[i], yaw[i], v[i], w[i] = _unicycle_step(
            UnicycleState(x[i], y[i], yaw[i], v[i], w[i]),
            UnicycleCommand(
                accel[i] if accel.size > 1 else accel[0],
                angular_accel[i] if angular_accel.size > 1 else angular_accel[0],
            ),
            agent_params(params, i),
            dt,
        )


def turning_radius(speed: float, params: UnicycleParams | None = None) -> float:
    """Radius [u] of the tightest turn at ``speed``: ``max(v / angular_speed_max, v^2 / A)``.

    The Dubins radius the fidelity report compares paths with (``0`` at rest: a turn on the
    spot).
    """
    params = UnicycleParams() if params is None else params
    check_record("params", params, UnicycleParams)
    p = params.validated()
    check_shared(p, "turning_radius")
    speed = check_finite("speed", speed, per_agent=False)
    if speed < 0.0:
        raise ValueError(f"speed must be >= 0, got {speed!r}")
    return max(speed / p.angular_speed_max, speed * speed / p.normal_accel_max)


class UnicycleBatch(StateArrays):
    """Many unicycles as one float64 array per ``UnicycleState`` field, updated in place.

    Arrays that already are 1-D C-contiguous float64 are used as they are (no copy).
    """

    __slots__ = UnicycleState._fields
    STATE = UnicycleState
    _check_state = staticmethod(check_unicycle_state)

    def __init__(self, x, y, yaw, v=None, w=None):
        self._set_fields((x, y, yaw, v, w))
        if (self.v < 0.0).any():
            index = int(np.argmax(self.v < 0.0))
            value = float(self.v[index])
            raise ValueError(f"v[{index}] must be >= 0 (forward only), got {value!r}")


class Unicycle:
    """Seed 003's accel-bounded unicycle (module docstring).

    ``params`` may hold one value per agent in any field (a sequence or array); such a plant
    steps batches of that many entities (``step_batch``), each with its own values.

    Examples
    --------
    >>> plant = Unicycle()
    >>> plant.step(UnicycleState(v=1.0), UnicycleCommand(0.0, 0.0), dt=0.5).x
    0.5
    """

    def __init__(self, params: UnicycleParams | None = None):
        self.params, self.agents = engine_params(params, UnicycleParams)

    def step(self, state: UnicycleState, command: UnicycleCommand, dt: float) -> UnicycleState:
        """The state one frame of ``dt`` seconds later; ``state`` is not modified."""
        state = check_unicycle_state(state)
        command = check_unicycle_command(command)
        dt = check_timestep(dt)
        if self.agents is not None:
            check_shared(self.params, "Unicycle.step")
        return _unicycle_step(state, command, self.params, dt)

    def step_batch(self, batch: UnicycleBatch, accel, angular_accel, dt: float) -> None:
        """Step every entity of ``batch`` in place (arrays of accelerations, or scalars for
        all)."""
        if not isinstance(batch, UnicycleBatch):
            raise ValueError(f"batch must be a UnicycleBatch, got {batch!r}")
        dt = check_timestep(dt)
        accel = _command_array("accel", accel, batch.size)
        angular_accel = _command_array("angular_accel", angular_accel, batch.size)
        check_agent_count(self.params, batch.size)
        _unicycle_batch(*batch.fields(), accel, angular_accel, self.params, dt)

    def __repr__(self) -> str:
        return f"Unicycle({self.params!r})"


def _command_array(name: str, values, size: int) -> np.ndarray:
    array = as_float_array(name, values, f"a number or {size} numbers")
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1 or array.size not in (1, size):
        raise ValueError(f"{name} must be a scalar or {size} values, got shape {array.shape}")
    return check_finite_array(name, np.ascontiguousarray(array))
