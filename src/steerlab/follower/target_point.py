"""Target point generation (seed 001, Section II): a lookahead distance ahead on the path.

Seed 001: "To generate a steering command, our first step is to compute a target position on
the path some lookahead distance in front of the vehicle." Readings:

- **Ahead of the projection, along the path.** The target point is the point of the path at arc
  length ``s + l``, with ``s`` the arc length of the vehicle's projection on the path and ``l``
  the lookahead distance (clamped to the path end: near the end the target is the last
  waypoint). Arc length rather than Euclidean distance from the vehicle: it is defined for a
  vehicle far off the path, and it never picks a point of a later leg that happens to pass
  near the vehicle.
- **Lookahead: fixed or speed-scaled** (both options): ``l = max(lookahead, lookahead_time |v|)``
  with ``FollowerParams.lookahead`` [m] and ``lookahead_time`` [s]; ``lookahead_time = 0`` (the
  default) keeps it fixed. The speed-scaled form is the usual pure pursuit rule (a distance
  covered in a fixed time, never shorter than the minimum).
- **Projection with memory.** The follower projects the vehicle on the whole path on the first
  frame after a path change (or a teleport) and then only on the arc ``[s - back, s + ahead]``
  around the previous frame's ``s`` (``_project_window``; ``FollowerParams.projection_back`` and
  ``projection_ahead``). On a 180-degree hairpin, whose return leg lies on (or next to) the
  outbound leg, the whole-path projection would jump back onto the outbound leg (the nearest
  point, ties to the smallest ``s``); the window keeps the vehicle on the leg it is driving.
"""

from __future__ import annotations

import math

from steerlab._jit import kernel
from steerlab.geometry.kernels import line_point, point_near, segment_fraction

__all__: list[str] = []


@kernel
def _lookahead_distance(v, lookahead, lookahead_time):
    """``l = max(lookahead, lookahead_time |v|)`` [m]: fixed when ``lookahead_time = 0``."""
    return max(lookahead, lookahead_time * abs(v))


@kernel
def _project_window(points, cum, px, py, pz, s_low, s_high, hint):
    """Closest point to ``(px, py, pz)`` of the arc ``s_low <= s <= s_high`` of the path.

    Returns ``(s, x, y, z, segment)``. The bounds are clamped to ``[cum[0], cum[-1]]``; ties go to
    the smallest ``s``; zero-length segments are skipped (their point belongs to a neighbour).
    Euclidean distance in 3-D, as ``steerlab.geometry.kernels.project``, with the same closest
    point of a segment (``segment_fraction``, clamped to the arc, then ``line_point``; where the
    clamp reaches a segment's end the point is ``A + 1 (B - A)`` as computed, not ``B``).
    ``hint``: a segment near ``s_low`` (the previous frame's); the first segment of the arc is
    found by walking from it (a frame moves a vehicle by a segment or two at most, so this beats
    a binary search), the result does not depend on it.
    """
    last = cum.size - 1
    s_low = min(max(s_low, cum[0]), cum[last])
    s_high = min(max(s_high, s_low), cum[last])
    first_segment = min(max(hint, 0), last - 1)
    while first_segment > 0 and cum[first_segment] > s_low:
        first_segment -= 1
    while first_segment < last - 1 and cum[first_segment + 1] <= s_low:
        first_segment += 1  # the first segment with arc length beyond s_low (or the last one)
    best_segment = first_segment
    best_s = s_low
    best_x = points[first_segment, 0]
    best_y = points[first_segment, 1]
    best_z = points[first_segment, 2]
    best_distance2 = math.inf
    i = first_segment
    while i < last and (i == first_segment or cum[i] < s_high):
        span = cum[i + 1] - cum[i]
        fraction, length2 = segment_fraction(points, i, px, py, pz)
        if span > 0.0 and length2 > 0.0:
            # the arc's ends cut the first and last segments (divisions only there)
            lowest = (s_low - cum[i]) / span if cum[i] < s_low else 0.0
            highest = (s_high - cum[i]) / span if cum[i + 1] > s_high else 1.0
            fraction = min(max(fraction, lowest), highest)
            cx, cy, cz = line_point(points, i, fraction)
            distance2 = (px - cx) ** 2 + (py - cy) ** 2 + (pz - cz) ** 2
            if distance2 < best_distance2:
                best_distance2 = distance2
                best_s = cum[i + 1] if fraction >= 1.0 else cum[i] + fraction * span
                best_s = min(max(best_s, s_low), s_high)  # rounding stays inside the arc
                best_x, best_y, best_z = cx, cy, cz
                best_segment = i
        i += 1
    if best_distance2 == math.inf:  # only zero-length segments in reach: the path end
        best_s = cum[last]
        best_x, best_y, best_z = points[last, 0], points[last, 1], points[last, 2]
    return best_s, best_x, best_y, best_z, best_segment


@kernel
def _target_point(points, cum, s, segment, lookahead_distance):
    """``(s_target, x, y, z)``: the path point at arc length ``s + lookahead_distance``,
    clamped to the path end; ``segment``: the segment of ``s`` (the walk to the target starts
    there, ``point_near``)."""
    last = cum.size - 1
    s_target = min(s + lookahead_distance, cum[last])
    x, y, z = point_near(points, cum, s_target, segment)
    return s_target, x, y, z
