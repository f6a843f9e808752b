"""Stanley steering (Hoffmann, Tomlin, Montemerlo, Thrun 2007; Thrun et al. 2006): a peer of
seed 001's pure pursuit, used by ``StanleyFollower``.

Hoffmann et al., "Autonomous Automobile Trajectory Tracking for Off-Road Driving: Controller
Design, Experimental Validation and Racing" (ACC 2007), the kinematic steering law of the robot
"Stanley" (Thrun et al., "Stanley: The Robot that Won the DARPA Grand Challenge", J. Field
Robotics 2006)::

    delta = psi_e + atan(k e_fa / (k_soft + |v|))

with ``e_fa`` the cross-track error of the **front axle** (its distance to the closest point of
the path), ``psi_e`` the path heading there minus the vehicle's yaw (wrapped to ``[-pi, pi)``),
``k`` [1/s] the gain and ``k_soft`` [m/s] the softening constant that keeps the gain bounded at
low speed. For the kinematic bicycle the front axle's error then obeys ``de/dt = -v sin(atan(k e
/ (k_soft + v)))`` (Hoffmann et al.'s stability argument): near the path it decays exponentially
at the rate ``k v / (k_soft + v)``, about ``k`` at speed, and far from it the front axle heads
straight for the path at ``v``.

Readings and departures (``docs/design.md``, "Path follower"):

- **Signs.** steerlab's yaw is counter-clockwise, a positive steer turns left. ``left`` is the
  front axle's lateral offset from the path (positive left of the direction of travel); the law
  is written ``delta = psi_e - atan2(k left, k_soft + |v|)`` (Hoffmann's ``e`` is ``-left``: an
  axle right of the path steers left). The road-wheel angle is mapped to the game's input by the
  maximum steer angle and clamped: ``steer = clamp(delta / max_steer, -1, 1)``.
- **Closest point.** The front axle is projected on the arc of the path from the vehicle's own
  projection ``s`` forward (``[s, s + projection_ahead + front_axle]``; the rear axle on ``[s -
  projection_back - rear_axle, s]``): the follower's window, so an earlier leg of a hairpin never
  steals it, and where two legs overlap (ties go to the smaller arc length) the axle ahead of the
  vehicle is not pulled back onto the leg the vehicle is leaving. ``psi_e`` uses
  the heading of the segment holding that point; at a vertex, the segment that starts there (an
  axle in the outer wedge of a corner, whose closest point is the vertex, turns into the next leg
  instead of driving on along the old one). ``left`` is the component of (axle - closest point)
  normal to that heading: the signed distance inside a segment, and well defined at a vertex.
- **Axles.** The follower is given a reference position (the centre of mass for
  ``steerlab.vehicles``). The front axle lies ``front_axle`` metres ahead of it along the yaw,
  the rear axle ``rear_axle`` metres behind (``check_axles``): a ``VehicleParams`` of a wheeled
  vehicle gives ``cg_to_front`` and ``wheelbase - cg_to_front``; a vehicle record without
  ``cg_to_front`` is read as positioned at its rear axle (pure pursuit's textbook reference):
  ``wheelbase`` and 0.
- **Tracked and hover vehicles** use the same ``delta``: ``steerlab.vehicles`` gives every kind
  the full-steer path curvature ``tan(max_steer) / wheelbase`` about its reference point, which
  moves along the body axis, so a steer input ``delta / max_steer`` commands the curvature of a
  bicycle of wheelbase ``wheelbase`` steered by ``delta`` (exactly for ``|delta| <= max_steer``,
  and the tracked model at low speed; the hovercraft's drift is not modelled). The point whose
  velocity points along ``yaw + delta`` on that bicycle is its front axle, ``wheelbase`` ahead of
  the reference point: the "virtual front axle" Stanley needs (``front_axle = wheelbase``,
  ``rear_axle = 0``).
- **Reversing** (``v < 0``, outside the stuck manager's recovery). Driven backwards the front
  axle trails, and the forward law is unstable (both its terms then push away from the path).
  The law is mirrored onto the leading axle, the rear one: with ``left`` the rear axle's lateral
  offset, ``delta = -psi_e - atan2(k left, k_soft + |v|)``. Linearised on a straight path this
  gives ``e'' + (|v| / L) e' + (k v^2 / ((k_soft + |v|) L)) e = 0`` for the rear axle's error
  (``L`` the wheelbase, the kinematic bicycle): stable for every ``k > 0``. So a vehicle
  rolling back down a slope too steep for it, or spawned moving backwards, stays aligned with
  the path. During the stuck manager's recovery
  frames the forward law is used whatever the sign of ``v``, since the manager mirrors the steer
  of a forward law itself (``steerlab.follower.stuck``), as for every follower of this package.
  At ``v = 0`` the forward law applies.
- **Left out**: Hoffmann et al.'s additions for the dynamic vehicle (the steady-state yaw offset
  ``psi_ss``, the yaw-rate damping ``k_d,yaw (r_meas - r_traj)`` and the steering-servo damping):
  they need the measured yaw rate and road-wheel angle and a tyre model, which the follower does
  not have (it reads position, yaw and speed). The peer compared is the kinematic law.

Angles use steerlab's deterministic ``atan2`` / ``sincos`` (same bits in every build).
"""

from __future__ import annotations

from steerlab._jit import kernel
from steerlab.follower.target_point import _project_window
from steerlab.geometry.kernels import atan2, heading_at, sincos, wrap_pi

__all__: list[str] = []


@kernel
def _stanley_law(heading_error, left, v, reverse, gain, softening, max_steer):
    """Stanley's steer input in ``[-1, 1]``.

    ``heading_error`` [rad] ``wrap(path heading - yaw)``; ``left`` [m] the lateral offset of the
    leading axle from the path (positive left of the direction of travel); ``v`` [m/s];
    ``reverse``: the mirrored law for driving backwards (see the module docstring); ``gain`` k
    [1/s] > 0, ``softening`` k_soft [m/s] > 0, ``max_steer`` [rad] > 0.

    ``delta = s psi_e - atan2(k left, k_soft + |v|)``, ``s = -1`` when reversing, else 1;
    ``steer = clamp(delta / max_steer, -1, 1)``.
    """
    direction = -1.0 if reverse else 1.0
    delta = direction * heading_error - atan2(gain * left, softening + abs(v))
    return min(max(delta / max_steer, -1.0), 1.0)


@kernel
def _axle_errors(points, cum, x, y, yaw, offset, s_low, s_high, hint):
    """The path errors of the axle ``offset`` metres ahead of ``(x, y)`` along ``yaw`` (behind
    when negative): ``(heading_error, left, closest_x, closest_y)``.

    The axle is projected on the arc ``[s_low, s_high]`` of the path (``_project_window``;
    ``hint`` a segment near ``s_low``). ``heading_error = wrap(h - yaw)`` [rad] with ``h`` the
    heading of the segment at the closest point (at a vertex, the segment that starts there);
    ``left`` [m] the component of (axle - closest point) along the left normal of ``h``.
    """
    yaw_sin, yaw_cos = sincos(yaw)
    axle_x = x + offset * yaw_cos
    axle_y = y + offset * yaw_sin
    s, closest_x, closest_y, _, _ = _project_window(
        points, cum, axle_x, axle_y, 0.0, s_low, s_high, hint
    )
    heading = heading_at(points, cum, s)
    heading_sin, heading_cos = sincos(heading)
    left = heading_cos * (axle_y - closest_y) - heading_sin * (axle_x - closest_x)
    return wrap_pi(heading - yaw), left, closest_x, closest_y


@kernel(inline="never")
def _stanley_steering(points, cum, state, forward_only, s, segment, params, vehicle):
    """Stanley steering towards the path: ``(steer, closest_x, closest_y)``.

    ``state`` ``(x, y, yaw, v)`` ([m], [m], [rad], [m/s]); ``params`` a ``SteeringParams``
    (``stanley_gain`` k, ``stanley_softening`` k_soft, ``window_back``, ``window_ahead``);
    ``vehicle`` the follower's vehicle record (``front_axle``, ``rear_axle`` [m],
    ``max_steer`` [rad]).

    The front axle's errors (``front_axle`` ahead of ``(x, y)``) give the forward law; when
    ``v < 0`` and not ``forward_only`` (the stuck manager's recovery), the rear axle's
    (``rear_axle`` behind) give the mirrored law. ``(closest_x, closest_y)`` is that axle's
    closest point on the path (the follower reports it as its target point). ``s`` [m] is the
    arc length of the vehicle's own projection (``segment`` its segment): the front axle is
    projected on the arc ``[s, s + window_ahead + front_axle]``, the rear axle on ``[s -
    window_back - rear_axle, s]``, so an axle is never placed behind (ahead of) the vehicle along
    the path, and on a hairpin whose legs overlap the front axle is not pulled back onto the leg
    the vehicle is leaving. Compiled once and called by the follower
    (``kernel(inline="never")``), to keep its compile short.
    """
    x, y, yaw, v = state
    reverse = v < 0.0 and not forward_only
    offset = -vehicle.rear_axle if reverse else vehicle.front_axle
    s_low = s - (params.window_back + vehicle.rear_axle) if reverse else s
    s_high = s if reverse else s + (params.window_ahead + vehicle.front_axle)
    heading_error, left, closest_x, closest_y = _axle_errors(
        points, cum, x, y, yaw, offset, s_low, s_high, segment
    )
    steer = _stanley_law(
        heading_error,
        left,
        v,
        reverse,
        params.stanley_gain,
        params.stanley_softening,
        vehicle.max_steer,
    )
    return steer, closest_x, closest_y
