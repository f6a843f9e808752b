"""The point of a 2-D segment closest to a point: the swept-segment tests of the navigators."""

from __future__ import annotations

import math

from steerlab._jit import kernel

__all__: list[str] = []


@kernel
def _closest_on_segment(ax, ay, bx, by, px, py):
    """The point of the closed segment ``AB`` closest to ``P``, and its distance to ``P``.

    Returns ``(cx, cy, distance)``; a zero-length segment is the point ``A``. The navigators call
    it with ``AB`` the segment swept by the agent during a frame (previous to current position)
    and ``P`` a waypoint: the frame's travel came within ``r`` of the waypoint iff ``distance <=
    r``, whatever the speed (no tunnelling).
    """
    ux = bx - ax
    uy = by - ay
    length2 = ux * ux + uy * uy
    t = ((px - ax) * ux + (py - ay) * uy) / length2 if length2 > 0.0 else 0.0
    t = min(max(t, 0.0), 1.0)
    cx = ax + t * ux
    cy = ay + t * uy
    return cx, cy, math.sqrt((px - cx) * (px - cx) + (py - cy) * (py - cy))
