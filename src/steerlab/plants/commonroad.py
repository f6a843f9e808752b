"""``CommonRoadPlant``: CommonRoad's kinematic (KS) and single-track (ST) car models as a plant.

Source: ``commonroad-vehicle-models`` (module ``vehiclemodels``; Althoff & Wuersching, "CommonRoad:
Vehicle Models", 2020): ``vehicle_dynamics_ks`` (kinematic single-track, reference point the rear
axle) and ``vehicle_dynamics_st`` (single-track, reference point the centre of mass), each the
right-hand side ``f(x, u, p)`` of an ODE, with the published parameter sets 1 (Ford Escort), 2 (BMW
320i) and 3 (VW Vanagon), ``parameters_vehicle1/2/3``. The package ships no integrator; this adapter
integrates the package's own right-hand side (never a copy of it) with classical RK4.

Inputs bridged (``DriveCommand`` -> the models' ``u = (steering velocity, acceleration)``)
------------------------------------------------------------------------------------------------
- ``steer`` in [-1, 1] is a *target* road-wheel angle ``steer * p.steering.max`` [rad] (left
  positive, as the models': ``yaw_rate = v tan(delta) / l`` in KS). The steering velocity held
  over the step is ``clip((target - delta) / dt, p.steering.v_min, p.steering.v_max)``: the wheels
  reach the target at the end of the step when the rate limit allows, else turn at the limit
  (0.4 rad/s for all three cars). The package's ``steering_constraints`` still applies (angle
  limits).
- ``throttle`` in [-1, 1] is a longitudinal acceleration ``throttle * p.longitudinal.a_max``
  [m/s^2] along the velocity ``v`` of the model: forward > 0. A negative throttle brakes while
  moving forward and then drives in reverse once stopped (steerlab's convention, seed 001); the
  package's ``acceleration_constraints`` applies its own limits (the power limit
  ``a_max v_switch / v`` above ``v_switch``, and zero acceleration at ``v_max`` / ``v_min``).
- Inputs are held constant over ``dt`` (zero-order hold).

State bridged (the models' vectors -> ``VehicleState``, metres, seconds, radians)
-------------------------------------------------------------------------------
Both use the same world axes and yaw origin as steerlab (x, y in a global frame; yaw ``psi``
counter-clockwise from +x); the model's ``psi`` is not wrapped, ``VehicleState.yaw`` is wrapped to
[-pi, pi). ``VehicleState`` gives the centre of mass and body-frame velocities:

- KS ``[sx, sy, delta, v, psi]`` is the *rear axle*: ``x = sx + b cos(psi)``, ``y = sy + b
  sin(psi)`` (``b`` = ``p.b``, centre of mass to rear axle); rigid-body kinematics give
  ``yaw_rate = v tan(delta) / (a + b)``, ``v`` forward (the rear axle's velocity has no lateral
  component) and ``v_lat = yaw_rate * b`` at the centre of mass.
- ST ``[sx, sy, delta, v, psi, psi_dot, beta]`` is the centre of mass, ``v`` the signed speed
  along the direction ``psi + beta``: ``v_forward = v cos(beta)``, ``v_lat = v sin(beta)``.
- ``steer`` = ``delta``.

``reset(state)`` maps back: KS keeps ``x, y, yaw, v, steer`` (its ``v_lat`` and ``yaw_rate`` are
not free: those of ``state`` are replaced by the kinematic ones above); ST takes every field
(``v = +-hypot(v, v_lat)`` with the sign of ``v``, ``beta = atan2(v_lat, v)`` folded into
(-pi/2, pi/2]).

Solver
------
KS is not stiff: RK4 substeps of at most ``max_substep``. ST's lateral dynamics
(``psi_dot``, ``beta``) have eigenvalues that grow as ``1/v`` (the model's equations have ``1/v``
and ``1/v^2`` factors); the package switches ST to a kinematic model at ``|v| < 0.1`` m/s (checked
in ``vehicle_dynamics_st``: ``if abs(x[3]) < 0.1``), so the stiffness is bounded by its value at 0.1
m/s (the adapter's bound there: about 6500 1/s for the BMW). At construction the adapter measures
the lateral Jacobian of the package's ST right-hand side by finite differences at 1 m/s (worst case
over full braking and full acceleration) as ``|trace| + sqrt(|det|)`` and scales it as ``rho(v) <=
rho_1 / |v|`` (the block's trace scales as ``1/v`` and its determinant as ``1/v^2``, up to a term
from the load transfer under acceleration that a 25% margin covers; checked by test against a 100x
finer substep, not proven). Each step then uses ``n = ceil(dt / h)`` substeps with ``h <= 2 /
rho(v_low)`` (RK4 is stable to ``|h lambda| ~ 2.8`` on the real axis), ``v_low`` the lowest speed
the step can reach (``|v'|`` is at most the commanded acceleration); a step that stays below 0.1 m/s
is kinematic and takes ``max_substep``. So ST stays stable from rest (a step that crosses 0.1-2 m/s
takes substeps of 0.2-5 ms) and costs ``ceil(dt / max_substep)`` substeps at road speeds.

Stateful plant: the simulator holds the truth. ``step(state, command, dt)`` steps on from the
simulator's state when ``state`` equals the last state it returned (or ``reset``/``observe``
returned); any other ``state`` resynchronises the simulator first (``reset(state)``), so
``steerlab.sim.simulate`` works from any initial state and an edited state is honoured.

A non-finite model state after a step, or an ST yaw rate beyond ``MAX_YAW_RATE`` (100 rad/s), raises
``PlantDiverged`` (a ``RuntimeError``) with the state, so the benchmark can record the trial as
failed; the simulator is left as it was before the step. ST really diverges in reverse: for ``v <
-0.1`` m/s the ``1/v`` terms of its lateral dynamics change sign and the ODE itself is unstable
(eigenvalues near ``+rho_1 / |v|``), so reversing ST at more than walking pace (the stuck manager's
recovery, a negative throttle held after stopping) ends in ``PlantDiverged`` within a step or two of
passing -0.1 m/s; the linear tyres of ST are also unsaturated, so ST accepts lateral accelerations
beyond ``mu g`` (the model's limit, not the adapter's). KS has neither problem.
"""

from __future__ import annotations

import math
from math import ceil, cos, isfinite, pi, sin, tan
from typing import NamedTuple

from steerlab._checks import check_positive, check_timestep
from steerlab.plants.errors import PlantDiverged
from steerlab.vehicles.state import (
    DriveCommand,
    VehicleState,
    check_drive_command,
    check_vehicle_state,
)

try:
    from vehiclemodels.parameters_vehicle1 import parameters_vehicle1
    from vehiclemodels.parameters_vehicle2 import parameters_vehicle2
    from vehiclemodels.parameters_vehicle3 import parameters_vehicle3
    from vehiclemodels.vehicle_dynamics_ks import vehicle_dynamics_ks
    from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "CommonRoadPlant needs commonroad-vehicle-models: pip install 'steerlab[plants]'"
    ) from error

__all__ = ["CommonRoadPlant", "CommonRoadVehicleParams", "PlantDiverged"]

MODELS = ("ks", "st")
VEHICLES = {1: parameters_vehicle1, 2: parameters_vehicle2, 3: parameters_vehicle3}
_TWO_PI = 2.0 * math.pi
_INF = math.inf
_new_tuple = tuple.__new__  # VehicleState(*fields) without the NamedTuple's Python __new__
_RK4_STABLE = 2.0  # [-] |h lambda| allowed (RK4's real-axis limit is 2.785)
_STIFFNESS_MARGIN = 1.25  # [-] on the measured stiffness bound
_KINEMATIC_SPEED = 0.1  # [m/s] vehicle_dynamics_st uses its kinematic branch below this speed
MAX_YAW_RATE = 100.0  # [rad/s] a model yaw rate beyond this (16 turns a second) is a divergence


class CommonRoadVehicleParams(NamedTuple):
    """What the followers read of a CommonRoad car (``kind``, ``wheelbase``, ``max_steer``,
    ``cg_to_front`` for Stanley), plus the limits the adapter maps the inputs to."""

    kind: int  # 0: wheeled
    wheelbase: float  # [m] a + b
    max_steer: float  # [rad] p.steering.max
    cg_to_front: float  # [m] a: VehicleState's position is the centre of mass
    max_steer_rate: float  # [rad/s] p.steering.v_max
    max_accel: float  # [m/s^2] p.longitudinal.a_max
    switching_speed: float  # [m/s] p.longitudinal.v_switch (power limit above it)
    max_speed: float  # [m/s] p.longitudinal.v_max
    min_speed: float  # [m/s] p.longitudinal.v_min (negative: reverse)
    length: float  # [m] p.l
    width: float  # [m] p.w
    mass: float  # [kg] p.m


class CommonRoadPlant:
    """A CommonRoad KS or ST car driven by ``DriveCommand`` (see the module docstring).

    Parameters
    ----------
    model : {"ks", "st"}
        Kinematic single-track (KS) or single-track (ST) model.
    vehicle : {1, 2, 3}
        The published parameter set: 1 Ford Escort, 2 BMW 320i, 3 VW Vanagon.
    max_substep : float
        Longest RK4 substep [s] (> 0); ST takes shorter ones at low speed (stiffness).
    state : VehicleState, optional
        Initial state (``reset``); at rest at the origin by default.

    Notes
    -----
    The models are deterministic (no random input), so there is no seed: two plants given the
    same states and commands produce identical states, bit for bit.
    """

    def __init__(
        self,
        model: str = "st",
        vehicle: int = 2,
        max_substep: float = 0.01,
        state: VehicleState | None = None,
    ):
        if not isinstance(model, str) or model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {model!r}")
        if isinstance(vehicle, bool) or not isinstance(vehicle, int) or vehicle not in VEHICLES:
            raise ValueError(f"vehicle must be one of {tuple(VEHICLES)}, got {vehicle!r}")
        self.max_substep = check_positive("max_substep", max_substep, per_agent=False)
        self.model = model
        self.vehicle = vehicle
        self.p = p = VEHICLES[vehicle]()
        self.vehicle_params = CommonRoadVehicleParams(
            kind=0,
            wheelbase=float(p.a + p.b),
            max_steer=float(p.steering.max),
            cg_to_front=float(p.a),
            max_steer_rate=float(p.steering.v_max),
            max_accel=float(p.longitudinal.a_max),
            switching_speed=float(p.longitudinal.v_switch),
            max_speed=float(p.longitudinal.v_max),
            min_speed=float(p.longitudinal.v_min),
            length=float(p.l),
            width=float(p.w),
            mass=float(p.m),
        )
        self._dynamics = vehicle_dynamics_st if model == "st" else vehicle_dynamics_ks
        # the parameters read every step, as plain floats (the package's records are dataclasses)
        self._rear = float(p.b)  # [m] centre of mass to rear axle
        self._wheelbase = float(p.a + p.b)
        self._steer_limits = (
            float(p.steering.max),
            float(p.steering.v_min),
            float(p.steering.v_max),
        )
        self._max_accel = float(p.longitudinal.a_max)
        self._is_st = model == "st"
        # spectral-radius bound of ST's lateral dynamics times |v| [m/s^2]
        self.stiffness = self._measure_stiffness() if model == "st" else 0.0
        self._x: list[float] = []
        self._last: VehicleState | None = None
        self.reset(state)

    # -- the simulator's state <-> VehicleState ---------------------------------------------------

    def reset(self, state: VehicleState | None = None) -> VehicleState:
        """Set the simulator's state from ``state`` (module docstring; ``None``: at rest at the
        origin, heading +x, straight wheels); return it as reported."""
        state = check_vehicle_state(VehicleState() if state is None else state)
        p = self.p
        if self.model == "ks":
            c, s = math.cos(state.yaw), math.sin(state.yaw)
            self._x = [state.x - p.b * c, state.y - p.b * s, state.steer, state.v, state.yaw]
        else:
            speed = math.hypot(state.v, state.v_lat)
            if state.v >= 0.0:
                v, beta = speed, math.atan2(state.v_lat, state.v)
            else:
                v, beta = -speed, math.atan2(-state.v_lat, -state.v)
            x = [state.x, state.y, state.steer, v, state.yaw, state.yaw_rate, beta]
            self._x = x
        return self.observe()

    def observe(self) -> VehicleState:
        """The simulator's state as a ``VehicleState`` (module docstring)."""
        self._last = state = self._report(self._x)
        return state

    def _report(self, x) -> VehicleState:
        """The package's state vector ``x`` as a ``VehicleState`` (``observe``'s mapping)."""
        psi = x[4]
        yaw = (psi + pi) % _TWO_PI - pi
        if self._is_st:
            v, beta = x[3], x[6]
            fields = (x[0], x[1], yaw, v * cos(beta), v * sin(beta), x[5], x[2])
        else:
            rear = self._rear
            yaw_rate = x[3] * tan(x[2]) / self._wheelbase
            fields = (
                x[0] + rear * cos(psi),
                x[1] + rear * sin(psi),
                yaw,
                x[3],
                yaw_rate * rear,
                yaw_rate,
                x[2],
            )
        return _new_tuple(VehicleState, fields)  # VehicleState(*fields), without its checks

    @property
    def model_state(self) -> tuple[float, ...]:
        """The package's own state vector (KS: 5 entries, ST: 7), a copy."""
        return tuple(self._x)

    # -- stepping ---------------------------------------------------------------------------------

    def inputs(self, command: DriveCommand, dt: float) -> tuple[float, float]:
        """``(steering velocity [rad/s], acceleration [m/s^2])`` the step holds for ``command``."""
        return self._inputs(command.steer, command.throttle, dt)

    def _inputs(self, steer: float, throttle: float, dt: float) -> tuple[float, float]:
        # comparisons, not builtin min / max (a call each, on the hot path): the same values
        max_steer, min_rate, max_rate = self._steer_limits
        rate = (steer * max_steer - self._x[2]) / dt
        if rate < min_rate:
            rate = min_rate
        elif rate > max_rate:
            rate = max_rate
        return rate, throttle * self._max_accel

    def substeps(self, dt: float, accel: float) -> int:
        """RK4 substeps for a step of ``dt`` under ``accel`` [m/s^2] from the current state
        (module docstring). ``|v'| <= |accel|`` (the package only clips it), which bounds the
        speeds the step can reach: a step that stays below 0.1 m/s is all kinematic (not stiff).
        """
        h = self.max_substep
        if self.stiffness > 0.0:
            speed, change = abs(self._x[3]), abs(accel) * dt  # [m/s]
            if speed + change >= _KINEMATIC_SPEED:
                lowest = speed - change
                if lowest < _KINEMATIC_SPEED:
                    lowest = _KINEMATIC_SPEED
                stable = _RK4_STABLE * lowest / self.stiffness
                if stable < h:
                    h = stable
        count = ceil(dt / h - 1e-9)
        return count if count >= 1 else 1

    def step(self, state: VehicleState, command: DriveCommand, dt: float) -> VehicleState:
        """Advance the simulator by ``dt`` seconds under ``command``; return its new state.

        ``state`` not the last state returned resynchronises the simulator (``reset(state)``)
        first. Raises ``PlantDiverged`` if the model's state becomes non-finite.

        The hot path (the adapter's own work, measured against the package's RK4 step of KS by
        ``benchmarks/plants_commonroad.py``): plain floats, comparisons instead of builtin
        ``min`` / ``max``, no ``VehicleState`` checks on the simulator's own output.
        """
        if state is not self._last and state != self._last:
            self.reset(state)
        steer, throttle = check_drive_command(command)
        if not (type(dt) is float and 0.0 < dt < _INF):  # the common case, checked cheaply
            dt = check_timestep(dt)
        x = self._x
        u = self._inputs(steer, throttle, dt)
        count = self.substeps(dt, u[1])
        new = _rk4(self._dynamics, x, u, self.p, dt / count, count)
        # a NaN or an inf anywhere makes the sum non-finite (so does a sum beyond 1e308)
        if self._is_st:
            if not isfinite(new[0] + new[1] + new[2] + new[3] + new[4] + new[5] + new[6]) or not (
                -MAX_YAW_RATE <= new[5] <= MAX_YAW_RATE
            ):
                self._diverged(x, new, u, dt)
        elif not isfinite(new[0] + new[1] + new[2] + new[3] + new[4]):
            self._diverged(x, new, u, dt)
        self._x = new
        self._last = state = self._report(new)
        return state

    def _diverged(self, x, new, u, dt):
        raise PlantDiverged(
            f"CommonRoad {self.model.upper()} model (vehicle {self.vehicle}) diverged: state "
            f"{x} -> {new} under u={u}, dt={dt}"
        )

    def _measure_stiffness(self) -> float:
        """``|v| rho`` bound of ST's lateral block (``psi_dot``, ``beta``) measured at 1 m/s."""
        worst = 0.0
        speed, eps = 1.0, 1e-6
        for accel in (-self.p.longitudinal.a_max, 0.0, self.p.longitudinal.a_max):
            u = [0.0, accel]
            base = [0.0, 0.0, 0.0, speed, 0.0, 0.0, 0.0]
            f0 = self._dynamics(base, u, self.p)
            jacobian = []
            for index in (5, 6):
                probe = list(base)
                probe[index] += eps
                f1 = self._dynamics(probe, u, self.p)
                jacobian.append(((f1[5] - f0[5]) / eps, (f1[6] - f0[6]) / eps))
            (a11, a21), (a12, a22) = jacobian
            trace, det = a11 + a22, a11 * a22 - a12 * a21
            # any 2x2 eigenvalue has |lambda| <= |trace| + sqrt(|det|)
            worst = max(worst, abs(trace) + math.sqrt(abs(det)))
        return _STIFFNESS_MARGIN * worst * speed

    def __repr__(self) -> str:
        return f"CommonRoadPlant(model={self.model!r}, vehicle={self.vehicle})"


def _rk4(dynamics, x, u, p, h, count):
    """``count`` classical RK4 steps of ``h`` of ``x' = dynamics(x, u, p)`` (u held); a new list."""
    n = len(x)
    half = 0.5 * h
    sixth = h / 6.0
    for _ in range(count):
        k1 = dynamics(x, u, p)
        k2 = dynamics([x[i] + half * k1[i] for i in range(n)], u, p)
        k3 = dynamics([x[i] + half * k2[i] for i in range(n)], u, p)
        k4 = dynamics([x[i] + h * k3[i] for i in range(n)], u, p)
        x = [x[i] + sixth * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]) for i in range(n)]
    return x
