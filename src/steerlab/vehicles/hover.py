"""Hovercraft: thrust along the body axis and a rudder, on an air cushion that barely grips.

State in body axes at the centre of mass: ``v``, ``v_lat``, yaw rate ``r`` and ``steer`` the
rudder angle (it follows the command at ``steer_rate``). One frame (``_hover_step``):

1. **Thrust** from the propellers (variable pitch), signed by the throttle: forward
   ``throttle * min(F_max, P / |v|)`` (``engine_force``, ``engine_power``, governed at
   ``max_speed``), reverse ``throttle * brake_force`` (reverse pitch, governed at
   ``max_reverse_speed``). Negative throttle brakes while moving forward and backs off once
   stopped, as the throttle axis of the other kinds; nothing acts like a ground brake, so a
   hovercraft cannot hold itself on a slope, and forward throttle pushes uphill even while it
   slides back.
2. **Yaw**: rudder moment proportional to the forward speed (the rudders sit in the airflow)
   plus a small static yaw thruster (puff ports, or differential thrust) so that it can turn at
   rest: ``M = (steer / max_steer) (rudder_torque v + yaw_thruster_torque)``, against a linear
   yaw damping ``yaw_damping r`` (air and skirt), integrated implicitly; bounded by
   ``max_yaw_rate``. At speed the steady yaw rate per forward speed at full rudder is
   ``rudder_torque / yaw_damping``; the presets set it to ``tan(max_steer) / wheelbase`` (a
   bicycle's curvature, so that pure pursuit steers it), but the path bends less: it drifts.
3. **Sideways**: only the skirt's low friction (``lateral_friction``, Coulomb) and a quadratic
   side drag resist ``v_lat``, so a turn mostly rotates the hull and the velocity lags behind it
   (drift); the thrust, once turned, bends the path.
4. **Longitudinal**: thrust, gravity along the slope, drag, then the cushion's small friction
   (``rolling_resistance``, Coulomb): with the thrust off, or too weak for the grade, it slides
   back down any hill steeper than ``atan(rolling_resistance)``; **pose**: semi-implicit Euler.

``mu`` and the cornering stiffnesses are not used.
"""

from __future__ import annotations

from steerlab._jit import kernel
from steerlab.vehicles._common import (
    _governed,
    _integrate_pose,
    _normal_gravity,
    _steer_follow,
    _toward_zero,
    _tractive_force,
    _with_drag,
)
from steerlab.vehicles.state import VehicleState

__all__: list[str] = []


@kernel
def _hover_step(state, command, params, gravity_forward, gravity_left, dt):
    """One frame of the hovercraft (module docstring): the ``VehicleState`` a frame later.

    ``state`` a ``VehicleState``, ``command`` a ``DriveCommand``, ``params`` a validated
    ``VehicleParams``; ``gravity_*`` as ``_vehicle_dynamics`` takes them."""
    mass = params.mass
    inertia = params.yaw_inertia
    max_yaw_rate = params.max_yaw_rate
    v = state.v
    throttle_command = command.throttle
    steer = _steer_follow(state.steer, command.steer, params.max_steer, params.steer_rate, dt)
    normal_gravity = _normal_gravity(gravity_forward, gravity_left)
    if throttle_command >= 0.0:
        forward = _tractive_force(v, params.engine_force, params.engine_power)
        thrust = _governed(throttle_command * forward, mass, params.max_speed - v, dt)
    else:
        reverse = -throttle_command * params.brake_force
        thrust = -_governed(reverse, mass, params.max_reverse_speed + v, dt)
    # yaw: rudder + static thruster against linear damping (implicit)
    moment = (steer / params.max_steer) * (params.rudder_torque * v + params.yaw_thruster_torque)
    new_rate = (state.yaw_rate + dt * moment / inertia) / (1.0 + dt * params.yaw_damping / inertia)
    new_rate = min(max(new_rate, -max_yaw_rate), max_yaw_rate)
    # sideways: centripetal demand and slope against side drag and the skirt's friction
    new_lat = state.v_lat + dt * (gravity_left - v * new_rate)
    new_lat = _with_drag(new_lat, params.side_drag / mass, dt)
    new_lat = _toward_zero(new_lat, dt * params.lateral_friction * normal_gravity)
    new_v = v + dt * (thrust / mass + gravity_forward + new_lat * new_rate)
    new_v = _with_drag(new_v, params.drag / mass, dt)
    new_v = _toward_zero(new_v, dt * params.rolling_resistance * normal_gravity)
    x, y, yaw = _integrate_pose(state.x, state.y, state.yaw, new_v, new_lat, new_rate, dt)
    return VehicleState(x, y, yaw, new_v, new_lat, new_rate, steer)
