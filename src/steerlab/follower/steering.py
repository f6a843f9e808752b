"""Steering control (seed 001, Section II): pure pursuit, or a heading-error law.

Seed 001: "we use the geometric steering controller pure pursuit [7] which is based on a
steering angle control law that minimizes the cross track error characterized by the target
position ... in the case of a bicycle kinematic model."

**Wheeled vehicles** (``kind = 0``): pure pursuit, the road-wheel angle of the circular arc
through the target point tangent to the vehicle's heading,

    delta = atan(2 L sin(alpha) / l_d),

with ``L`` the wheelbase [m], ``alpha`` the angle from the vehicle's heading to the line of
sight to the target point (left positive) and ``l_d`` the distance to it. It is mapped to the
game's input by the maximum steer angle: ``steer = clamp(delta / max_steer, -1, 1)``. Readings:
``alpha`` and ``l_d`` are measured from the vehicle position the follower is given (the centre
of mass for ``steerlab.vehicles``; pure pursuit's textbook reference is the rear axle, which the
follower does not know). A target behind the vehicle (``|alpha| > pi/2``, e.g. a vehicle spawned
facing backwards) gets full lock towards the side of the target: the formula there would give
a *smaller* angle as the target falls straight behind (``sin(alpha) -> 0``) and the vehicle
would drive away. Straight behind, full left. A target on the vehicle (``l_d = 0``) gives 0.
Computed without trigonometry of ``alpha``: with the target ``(forward, left)`` in the vehicle's
axes, ``sin(alpha) = left / l_d``, so ``delta = atan2(2 L left, l_d^2)``.

**Tracked and hover vehicles** (``kind = 1, 2``): a steer input that turns the hull; the
equivalent heading-error law ``steer = clamp(heading_gain alpha / max_steer, -1, 1)``
(``FollowerParams.heading_gain``, dimensionless: 1 commands the heading error as if it were a
road-wheel angle). For small ``alpha`` pure pursuit is the same proportional law with gain
``2 L / l_d``; here the gain does not shrink with distance, since a hull that turns on the spot
does not need the arc geometry. ``FollowerParams.pure_pursuit_all = True`` drives them with
pure pursuit instead (``steerlab.vehicles`` defines ``wheelbase`` and ``max_steer`` of every kind
so that full steer commands the path curvature ``tan(max_steer) / wheelbase``).

Angles use steerlab's deterministic ``atan2`` / ``sincos`` (same bits in every build).
"""

from __future__ import annotations

from steerlab._jit import kernel
from steerlab.geometry.kernels import atan2, sincos

__all__: list[str] = []


@kernel
def _line_of_sight(x, y, yaw, target_x, target_y):
    """The target in the vehicle's axes: ``(forward, left, distance2)`` [m, m, m^2].

    ``forward = l_d cos(alpha)``, ``left = l_d sin(alpha)``, ``distance2 = l_d^2``, with ``alpha``
    the angle from the heading to the line of sight (left positive) and ``l_d`` the distance.
    """
    dx = target_x - x
    dy = target_y - y
    heading_sin, heading_cos = sincos(yaw)
    forward = heading_cos * dx + heading_sin * dy
    left = heading_cos * dy - heading_sin * dx
    return forward, left, dx * dx + dy * dy


@kernel
def _pure_pursuit(forward, left, distance2, wheelbase, max_steer):
    """Pure pursuit steer input in ``[-1, 1]``: ``atan(2 L sin(alpha) / l_d) / max_steer``,
    written ``atan2(2 L left, l_d^2)`` (``sin(alpha) = left / l_d``); full lock towards the
    target when it is behind (``forward < 0``; full left when straight behind)."""
    if distance2 <= 0.0:
        return 0.0
    delta = atan2(2.0 * wheelbase * left, distance2)
    behind = max_steer if left >= 0.0 else -max_steer
    delta = delta if forward >= 0.0 else behind
    return min(max(delta / max_steer, -1.0), 1.0)


@kernel
def _heading_steer(forward, left, heading_gain, max_steer):
    """Heading-error law for tracked and hover vehicles: ``clamp(k alpha / max_steer)`` with
    ``alpha = atan2(left, forward)`` (0 for a target on the vehicle)."""
    alpha = atan2(left, forward)
    return min(max(heading_gain * alpha / max_steer, -1.0), 1.0)


@kernel
def _steering(
    kind, x, y, yaw, target_x, target_y, wheelbase, max_steer, heading_gain, pure_pursuit_all
):
    """Steer input in ``[-1, 1]`` towards the target point: pure pursuit for ``kind = 0``
    (wheeled) or when ``pure_pursuit_all``, the heading-error law otherwise."""
    forward, left, distance2 = _line_of_sight(x, y, yaw, target_x, target_y)
    if kind == 0 or pure_pursuit_all:
        return _pure_pursuit(forward, left, distance2, wheelbase, max_steer)
    return _heading_steer(forward, left, heading_gain, max_steer)
