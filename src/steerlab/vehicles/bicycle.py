"""Wheeled vehicle: dynamic bicycle (single-track) model with a tyre traction limit.

State in body axes at the centre of mass: forward speed ``v``, lateral speed ``v_lat``, yaw rate
``r``, road-wheel angle ``delta`` (front axle). One frame of ``dt`` (``_bicycle_step``):

1. **Steer**: ``delta`` follows ``steer_command * max_steer`` at ``steer_rate``.
2. **Loads**: normal load ``N = m g_n`` (``g_n`` gravity's component along the terrain normal),
   split statically, ``N_f = N b / L``, ``N_r = N a / L`` (no load transfer).
3. **Tyres**: linear lateral force per axle ``F = -C * (lateral speed of the axle in the wheel's
   frame) / max(|longitudinal speed|, LOW_SPEED)`` (``C alpha`` with ``alpha`` the small-angle
   slip), bounded by the axle's friction ``mu N_i``.
4. **Lateral and yaw** (``_lateral_solve``): backward Euler on ``m (dv_lat/dt + v r) = F_y``,
   ``I dr/dt = M_z`` with the tyre forces linear in the new ``(v_lat, r)``: a 2x2 linear solve,
   stable for any ``dt``. An axle whose new force exceeds its bound is fixed at the bound and the
   system solved again (at most three solves). As the speed goes to zero the tyres' damping
   ``C / LOW_SPEED`` dominates and the solve returns the kinematic bicycle: no division by zero
   and no low-speed instability, the usual failure of an explicit dynamic bicycle.
5. **Drive and brakes** (``_drive_demand``): engine force ``min(F_max, P / |v|)`` scaled by the
   throttle, or brakes, split between the axles by static load (all-wheel drive). Friction
   circle, lateral first: each axle's drive or brake is bounded by
   ``sqrt((mu N_i)^2 - F_i^2)``, what its cornering force leaves, as a vehicle with stability
   control keeps its cornering grip. (Longitudinal-first sharing was tried: with no load
   transfer the limit is neutral, and the drive's share tips an agile buggy into a spin as soon
   as a speed controller opens the throttle in a hard turn.) The limit is then an understeering
   plough at ``a_lat ~ mu g``.
6. **Longitudinal**: ``m (dv/dt - v_lat r) = F_x`` with drive, the front tyre's lateral force
   component ``-F_f sin(delta)`` (scrub), gravity along the slope and drag; brakes and rolling
   resistance as Coulomb friction that stops the vehicle and holds it (``_toward_zero``).
7. **Pose**: semi-implicit Euler with the new velocities.

Simplifications: no load transfer, no wheel-spin states (the drive is bounded by the friction
circle directly), drive, brakes and rolling resistance act along the body axis.
"""

from __future__ import annotations

import math

from steerlab._jit import kernel
from steerlab.geometry.kernels import sincos
from steerlab.vehicles._common import (
    LOW_SPEED,
    _drive_demand,
    _integrate_pose,
    _normal_gravity,
    _steer_follow,
    _toward_zero,
    _with_drag,
)
from steerlab.vehicles.state import VehicleState

__all__: list[str] = []


@kernel
def _lateral_solve(
    state,
    sin_steer,
    cos_steer,
    stiffness_front,
    stiffness_rear,
    bound_front,
    bound_rear,
    lateral_extra,
    params,
    dt,
):
    """Backward-Euler lateral/yaw step with saturating axles. Returns ``(v_lat, r, F_f, F_r)``.

    ``state`` the ``VehicleState`` at the start of the frame (its ``v``, ``v_lat``, ``yaw_rate``);
    ``params`` the ``VehicleParams`` (``mass``, ``yaw_inertia``, ``cg_to_front``, ``wheelbase``);
    ``stiffness_*`` are ``C / max(|u|, LOW_SPEED)`` [N s/m]: force per m/s of the axle's lateral
    speed in the wheel frame; ``bound_*`` the axle's lateral friction bound [N];
    ``lateral_extra`` the explicit lateral force (gravity along a side slope).
    Front: lateral speed in the wheel frame ``-v sin d + (v_lat + a r) cos d``; rear:
    ``v_lat - b r``. Each axle force is ``f0 + fp * v_lat' + fr * r'`` (linear) or a constant
    (saturated); the two momentum equations are then linear in ``(v_lat', r')``.
    """
    v, v_lat, yaw_rate = state.v, state.v_lat, state.yaw_rate
    mass = params.mass
    inertia = params.yaw_inertia
    a = params.cg_to_front
    b = params.wheelbase - a
    saturated_front = False
    saturated_rear = False
    fixed_front = 0.0
    fixed_rear = 0.0
    new_lat = v_lat
    new_rate = yaw_rate
    force_front = 0.0
    force_rear = 0.0
    for _ in range(3):
        if saturated_front:
            f0, fp, fr = fixed_front, 0.0, 0.0
        else:
            f0 = stiffness_front * v * sin_steer
            fp = -stiffness_front * cos_steer
            fr = -stiffness_front * a * cos_steer
        if saturated_rear:
            r0, rp, rr = fixed_rear, 0.0, 0.0
        else:
            r0, rp, rr = 0.0, -stiffness_rear, stiffness_rear * b
        # m (v_lat' - v_lat) / dt = cos d F_f + F_r + lateral_extra - m v r'
        # I (r' - r) / dt = a cos d F_f - b F_r
        a11 = mass / dt - cos_steer * fp - rp
        a12 = mass * v - cos_steer * fr - rr
        a21 = b * rp - a * cos_steer * fp
        a22 = inertia / dt + b * rr - a * cos_steer * fr
        rhs1 = mass * v_lat / dt + cos_steer * f0 + r0 + lateral_extra
        rhs2 = inertia * yaw_rate / dt + a * cos_steer * f0 - b * r0
        determinant = a11 * a22 - a12 * a21
        new_lat = (rhs1 * a22 - a12 * rhs2) / determinant
        new_rate = (a11 * rhs2 - a21 * rhs1) / determinant
        force_front = f0 + fp * new_lat + fr * new_rate
        force_rear = r0 + rp * new_lat + rr * new_rate
        changed = False
        if not saturated_front and abs(force_front) > bound_front:
            saturated_front = True
            fixed_front = bound_front if force_front > 0.0 else -bound_front
            changed = True
        if not saturated_rear and abs(force_rear) > bound_rear:
            saturated_rear = True
            fixed_rear = bound_rear if force_rear > 0.0 else -bound_rear
            changed = True
        if not changed:
            break
    return new_lat, new_rate, force_front, force_rear


@kernel
def _bicycle_step(state, command, params, gravity_forward, gravity_left, dt):
    """One frame of the wheeled model (module docstring): the ``VehicleState`` a frame later.

    ``state`` a ``VehicleState``, ``command`` a ``DriveCommand``, ``params`` a validated
    ``VehicleParams``; ``gravity_*`` as ``_vehicle_dynamics`` takes them."""
    mass = params.mass
    wheelbase = params.wheelbase
    a = params.cg_to_front
    b = wheelbase - a
    v = state.v
    steer = _steer_follow(state.steer, command.steer, params.max_steer, params.steer_rate, dt)
    sin_steer, cos_steer = sincos(steer)
    load = mass * _normal_gravity(gravity_forward, gravity_left)
    drive, brake = _drive_demand(v, command.throttle, params, dt)
    grip_front = params.mu * load * b / wheelbase  # mu N_f
    grip_rear = params.mu * load * a / wheelbase  # mu N_r
    # axle speeds along the wheels (front: in the steered wheel's frame), regularised at rest
    front_speed = v * cos_steer + (state.v_lat + a * state.yaw_rate) * sin_steer
    stiffness_front = params.cornering_front / max(abs(front_speed), LOW_SPEED)
    stiffness_rear = params.cornering_rear / max(abs(v), LOW_SPEED)
    new_lat, new_rate, force_front, force_rear = _lateral_solve(
        state,
        sin_steer,
        cos_steer,
        stiffness_front,
        stiffness_rear,
        grip_front,
        grip_rear,
        mass * gravity_left,
        params,
        dt,
    )
    # friction circle, lateral first: each axle's drive and brake get what the cornering force
    # leaves of mu N_i (all-wheel drive and brakes split by static load)
    room_front = math.sqrt(max(grip_front * grip_front - force_front * force_front, 0.0))
    room_rear = math.sqrt(max(grip_rear * grip_rear - force_rear * force_rear, 0.0))
    drive_front = drive * b / wheelbase
    drive_rear = drive - drive_front
    drive = min(max(drive_front, -room_front), room_front) + min(
        max(drive_rear, -room_rear), room_rear
    )
    brake_front = brake * b / wheelbase
    brake = min(brake_front, room_front) + min(brake - brake_front, room_rear)
    longitudinal = drive - force_front * sin_steer
    new_v = v + dt * (longitudinal / mass + gravity_forward + new_lat * new_rate)
    new_v = _with_drag(new_v, params.drag / mass, dt)
    new_v = _toward_zero(new_v, dt * (brake + params.rolling_resistance * load) / mass)
    x, y, yaw = _integrate_pose(state.x, state.y, state.yaw, new_v, new_lat, new_rate, dt)
    return VehicleState(x, y, yaw, new_v, new_lat, new_rate, steer)
