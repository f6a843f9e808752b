"""The baseline target speed (seed 001, Section III): inverse of the largest angle ahead.

Seed 001, Section III, on the baseline (AutoPlayers' original path following logic): "the
target speed module computes a target inversely proportional to the largest angle between the
vehicle forward vector and a segment on the path in front of the vehicle up until a lookahead
distance ... In addition, the speed controller employs the simpler P-controller (i.e. no
integral term)". For the parameters the two followers share (``v_min``, ``v_max``, the target
point, steering, stuck manager) "the same values were set".

Reading, fixed here (``BaselineFollower`` uses it; ``docs/design.md``, "Path follower"):

- the segments "in front of the vehicle up until a lookahead distance" are the path's segments
  that hold some arc length in ``[s, s + baseline_horizon]``, with ``s`` the vehicle's
  projection (the segment it is on counts, from where it is); ``baseline_horizon`` defaults to
  ``dh N = 30 m``, the paper's own words for Algorithm 1's reach ("up to a lookahead distance
  dh N"), so both followers look equally far;
- the angle of a segment is the unsigned angle in the ground plane between the vehicle's
  forward vector ``(cos yaw, sin yaw)`` and the segment's direction, in ``[0, pi]``; segments
  with no horizontal extent are skipped;
- "inversely proportional", literally: ``v = K / theta_max``, clamped to ``[v_min, v_max]``
  (``theta_max = 0`` gives ``v_max``), with ``K = baseline_k = 2.5 m rad/s``: ``v_max = 10 m/s``
  up to 0.25 rad (14 degrees), ``v_min = 1 m/s`` from 2.5 rad (143 degrees).

Because the angle is measured from the vehicle's forward vector, the baseline's target speed
follows the vehicle's heading oscillations (the paper's "noisy target speed outputs").
"""

from __future__ import annotations

import math

from steerlab._jit import kernel
from steerlab.geometry.kernels import atan2, segment_at, sincos

__all__: list[str] = []


@kernel
def _baseline_target_speed(points, cum, yaw, s_from, horizon, k, v_min, v_max):
    """``(v_target, theta_max)``: ``clamp(k / theta_max, v_min, v_max)`` over the segments that
    hold arc length in ``[s_from, s_from + horizon]`` (see the module docstring)."""
    last = cum.size - 1
    s_end = min(s_from + horizon, cum[last])
    first_segment = segment_at(cum, s_from)
    last_segment = segment_at(cum, s_end)
    if last_segment > first_segment and s_end <= cum[last_segment]:
        last_segment -= 1  # the horizon ends on a vertex: the segment starting there is beyond
    forward_sin, forward_cos = sincos(yaw)
    theta_max = 0.0
    for i in range(first_segment, last_segment + 1):
        dx = points[i + 1, 0] - points[i, 0]
        dy = points[i + 1, 1] - points[i, 1]
        if dx == 0.0 and dy == 0.0:
            continue
        cross = forward_cos * dy - forward_sin * dx
        dot = forward_cos * dx + forward_sin * dy
        theta_max = max(theta_max, atan2(abs(cross), dot))
    speed = k / theta_max if theta_max > 0.0 else math.inf
    return min(max(speed, v_min), v_max), theta_max
