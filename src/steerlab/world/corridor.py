"""Walls along a path's corridor: the outline of the corridor, open at both ends.

A path (``Polyline``) carries a full corridor width per segment (``docs/design.md``). Its walled
corridor is the region

    union over segments of the segment's rectangle (half width h = width / 2 + margin on each
    side, from its start to its end) and, at each interior vertex, a joint on the outside of the
    turn,

and ``walls_along`` returns the boundary of that region, except the two ends of the path (an open
corridor: the vehicle drives in and out). The joint at a vertex ``V`` fills the wedge the two
rectangles leave on the outside of the turn, between ``A' = V + h1 n1`` (end of the incoming
offset) and ``B' = V + h2 n2`` (start of the outgoing one), ``n`` the outer normals:

- **miter** (turns up to 90 degrees for equal widths): the two offset lines extended to meet, if
  each extension is at most ``max(h1, h2)``;
- **clipped miter** (sharper turns, up to the 180-degree hairpin): each offset extended by
  ``max(h1, h2)``, then joined by a cap; a hairpin thus gets a square cap ``max(h1, h2)`` beyond
  its vertex;
- **bevel** (the segment ``A'-B'``), where a width change makes the miter point fall behind an
  offset's end.

On the inside of a turn the two rectangles overlap and their sides are cut where they cross.
Taking the boundary of the union, rather than offsetting each side as a polyline, also handles the
cases where offsets misbehave: a sharp turn between short segments, a hairpin whose two legs'
corridors overlap (the walls between them disappear), a path that crosses itself or comes back
near itself (its corridors merge). The centre line lies inside the region (every point of it is
inside its own segment's rectangle, and a vertex is inside the union of the two rectangles and the
joint), so no wall crosses or touches it, except possibly at the path's two ends when another
part of the corridor's outline passes exactly through them.

Computation: every rectangle and joint is a convex polygon (joints as fans of triangles from
``V``); candidate walls are the rectangles' sides, their end edges at interior vertices (the step of
a width change) and the joints' outer edges; each candidate keeps the parts not strictly inside
another polygon (sides and joints) or not inside nor on another polygon (end edges, which lie on
their neighbour's boundary where the corridor continues). "Strictly" uses a tolerance of ``1e-9``
times the drawing's size. Cost ``O(n^2)`` in the number of segments (a bounding-box test per
pair; ``docs/performance.md`` gives seconds for 100 to 4,000).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from steerlab._checks import check_nonnegative
from steerlab._jit import kernel
from steerlab.geometry.polyline import Polyline
from steerlab.world.walls import Walls

__all__ = ["walls_along"]

_PARALLEL = 1e-12  # |sin| of the turn angle below which two segments are parallel
_TOLERANCE = 1e-9  # relative to the drawing's size: "strictly inside"


def walls_along(polyline: Polyline, margin=0.0) -> Walls:
    """Walls on both sides of a path's corridor, ``width / 2 + margin`` from the centre line.

    Parameters
    ----------
    polyline : Polyline
        The path, with corridor widths (``Polyline(points, widths)``), all finite. Only the
        horizontal plane counts: 3-D points are projected, vertical segments (ladders) and
        zero-length segments are skipped.
    margin : float, optional
        Extra distance [m] ``>= 0`` between the corridor's edge and the walls (default 0).

    Returns
    -------
    Walls
        The corridor's outline (module docstring): sides, joints and width steps; open at the
        path's first and last points.

    Raises
    ------
    ValueError
        ``polyline`` not a ``Polyline`` or without widths; a width of ``inf`` (an open segment:
        a path is walled or open as a whole); ``margin`` negative or not finite; a segment whose
        ``width / 2 + margin`` is 0 (walls on the centre line); no segment of horizontal extent.
    """
    if not isinstance(polyline, Polyline):
        raise ValueError(f"polyline must be a Polyline, got {polyline!r}")
    extra = check_nonnegative("margin", margin, per_agent=False)
    widths = polyline.widths
    if widths is None:
        raise ValueError(
            "polyline has no corridor widths (widths=None): build Polyline(points, widths) to wall "
            "its corridor"
        )
    infinite = ~np.isfinite(widths)
    if infinite.any():
        index = int(np.argmax(infinite))
        raise ValueError(
            f"widths[{index}] must be finite to wall the corridor (inf means open), got "
            f"{widths[index]!r}"
        )
    points = np.ascontiguousarray(polyline.points_3d[:, :2])
    starts, ends, half_widths = [], [], []
    for index in range(points.shape[0] - 1):
        start, end = points[index], points[index + 1]
        if not (end != start).any():
            continue
        half = 0.5 * float(widths[index]) + extra
        if not half > 0.0:
            raise ValueError(
                f"widths[{index}] / 2 + margin must be > 0 (walls on the centre line), got "
                f"width {widths[index]!r} and margin {margin!r}"
            )
        starts.append(start)
        ends.append(end)
        half_widths.append(half)
    if not starts:
        raise ValueError("polyline has no segment of horizontal extent: nothing to wall")
    pieces, candidates, closed, owners = _outline_parts(
        np.array(starts), np.array(ends), np.array(half_widths)
    )
    scale = max(1.0, float(np.abs(points).max()), max(half_widths))
    segments = _clip(candidates, closed, owners, pieces, _TOLERANCE * scale)
    return Walls.from_segments(segments.reshape(-1, 2, 2))


# --------------------------------------------------------------------------------------------------
# construction of the pieces (convex polygons) and the candidate walls


def _outline_parts(starts, ends, half_widths):
    """Rectangles and joints as convex polygons, and the candidate wall segments.

    Returns ``(pieces, candidates, closed, owners)``: ``pieces`` a list of ``(k, 2)`` vertex
    arrays (counter-clockwise), ``candidates`` an ``(m, 4)`` array ``(x0, y0, x1, y1)``,
    ``closed`` whether each candidate is cut by the closed polygons (end edges), ``owners`` the
    piece each candidate must not be cut by (its own rectangle; -1 for none).
    """
    count = len(starts)
    pieces: list[np.ndarray] = []
    candidates: list[tuple[float, float, float, float]] = []
    closed: list[bool] = []
    owners: list[int] = []
    directions = (ends - starts) / np.hypot(*(ends - starts).T)[:, None]
    for k in range(count):
        start, end, half = starts[k], ends[k], half_widths[k]
        left = np.array((-directions[k, 1], directions[k, 0]))
        corners = np.array(
            (start - half * left, end - half * left, end + half * left, start + half * left)
        )
        owner = len(pieces)
        pieces.append(corners)
        for a, b in ((corners[0], corners[1]), (corners[3], corners[2])):
            candidates.append((*a, *b))
            closed.append(False)
            owners.append(owner)
        if k > 0:
            candidates.append((*corners[0], *corners[3]))
            closed.append(True)
            owners.append(owner)
        if k < count - 1:
            candidates.append((*corners[1], *corners[2]))
            closed.append(True)
            owners.append(owner)
    for k in range(count - 1):
        fan = _joint(ends[k], directions[k], directions[k + 1], half_widths[k], half_widths[k + 1])
        if fan is None:
            continue
        vertex = ends[k]
        for a, b in itertools.pairwise(fan):
            pieces.append(_counter_clockwise(np.array((vertex, a, b))))
            candidates.append((*a, *b))
            closed.append(False)
            owners.append(-1)
    return pieces, np.array(candidates), np.array(closed), np.array(owners, dtype=np.int64)


def _joint(vertex, t1, t2, h1, h2):
    """The outer rim of the joint at ``vertex`` (incoming unit direction ``t1``, outgoing ``t2``,
    half widths ``h1``, ``h2``) as points ``A', ..., B'``; ``None`` for a straight continuation."""
    cross = t1[0] * t2[1] - t1[1] * t2[0]
    dot = t1[0] * t2[0] + t1[1] * t2[1]
    if abs(cross) <= _PARALLEL and dot > 0.0:
        return None
    side = -1.0 if cross > 0.0 else 1.0  # the outer side: right of a left turn
    n1 = side * np.array((-t1[1], t1[0]))
    n2 = side * np.array((-t2[1], t2[0]))
    a_point = vertex + h1 * n1
    b_point = vertex + h2 * n2
    extension = max(h1, h2)
    if abs(cross) > _PARALLEL:
        gap = b_point - a_point
        along_1 = (gap[0] * t2[1] - gap[1] * t2[0]) / cross
        along_2 = (t1[0] * gap[1] - t1[1] * gap[0]) / cross
        if 0.0 <= along_1 <= extension and 0.0 <= along_2 <= extension:
            return [a_point, a_point + along_1 * t1, b_point]
        if along_1 < 0.0 or along_2 < 0.0:
            return [a_point, b_point]
    rim = [a_point, a_point + extension * t1, b_point - extension * t2, b_point]
    # the fan from the vertex must turn one way (else fall back to the bevel)
    signs = [_cross2(p - vertex, q - vertex) for p, q in itertools.pairwise(rim)]
    if all(s > 0.0 for s in signs) or all(s < 0.0 for s in signs):
        return rim
    return [a_point, b_point]


def _cross2(u, v) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _counter_clockwise(polygon: np.ndarray) -> np.ndarray:
    x, y = polygon[:, 0], polygon[:, 1]
    twice_area = np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))
    return polygon if twice_area >= 0.0 else polygon[::-1].copy()


# --------------------------------------------------------------------------------------------------
# clipping: the parts of each candidate outside the other pieces


def _clip(candidates, closed, owners, pieces, tolerance) -> np.ndarray:
    """Kept parts of the candidates, as an ``(k, 4)`` array of segments."""
    width = max(len(piece) for piece in pieces)
    vertices = np.zeros((len(pieces), width, 2))
    counts = np.zeros(len(pieces), dtype=np.int64)
    for index, piece in enumerate(pieces):
        vertices[index, : len(piece)] = piece
        counts[index] = len(piece)
    boxes = np.array([(p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()) for p in pieces])
    starts = np.zeros(len(candidates) + 1, dtype=np.int64)
    empty = np.zeros((0, 4))
    _clip_kernel(candidates, closed, owners, vertices, counts, boxes, tolerance, starts, empty)
    np.cumsum(starts, out=starts)
    out = np.zeros((int(starts[-1]), 4))
    _clip_kernel(candidates, closed, owners, vertices, counts, boxes, tolerance, starts, out)
    return out


@kernel
def _inside_interval(x0, y0, x1, y1, vertices, count, offset):
    """Parameter interval ``[t0, t1]`` of ``(x0, y0) + t ((x1, y1) - (x0, y0))``, ``t`` in
    ``[0, 1]``, inside the convex counter-clockwise polygon shrunk by ``offset`` [m] (grown if
    negative). Empty when ``t0 >= t1``."""
    t0 = 0.0
    t1 = 1.0
    dx = x1 - x0
    dy = y1 - y0
    for i in range(count):
        ax = vertices[i, 0]
        ay = vertices[i, 1]
        j = i + 1 if i + 1 < count else 0
        ex = vertices[j, 0] - ax
        ey = vertices[j, 1] - ay
        length = math.hypot(ex, ey)
        if length == 0.0:
            continue
        nx = -ey / length  # inward normal of a counter-clockwise edge
        ny = ex / length
        value = (x0 - ax) * nx + (y0 - ay) * ny - offset  # inside: value + t rate > 0
        rate = dx * nx + dy * ny
        if rate == 0.0:
            if value <= 0.0:
                return 1.0, 0.0
        elif rate > 0.0:
            t0 = max(t0, -value / rate)
        else:
            t1 = min(t1, -value / rate)
        if t0 >= t1:
            return 1.0, 0.0
    return t0, t1


@kernel
def _clip_kernel(candidates, closed, owners, vertices, counts, boxes, tolerance, starts, out):
    """Count (``out`` empty: ``starts[c + 1]`` = number of kept parts) or write the kept parts."""
    fill = out.shape[0] > 0
    removed = np.empty((boxes.shape[0], 2))
    for c in range(candidates.shape[0]):
        x0 = candidates[c, 0]
        y0 = candidates[c, 1]
        x1 = candidates[c, 2]
        y1 = candidates[c, 3]
        offset = -tolerance if closed[c] else tolerance
        low_x = min(x0, x1) - tolerance
        high_x = max(x0, x1) + tolerance
        low_y = min(y0, y1) - tolerance
        high_y = max(y0, y1) + tolerance
        found = 0
        for p in range(boxes.shape[0]):
            if p == owners[c]:
                continue
            if boxes[p, 0] > high_x or boxes[p, 2] < low_x or boxes[p, 1] > high_y:
                continue
            if boxes[p, 3] < low_y:
                continue
            t0, t1 = _inside_interval(x0, y0, x1, y1, vertices[p], counts[p], offset)
            if t0 < t1:
                # kept in order of their start as found (a few per candidate; numba's argsort
                # would compile its sort on first use); ties in either order cut the same parts
                k = found
                while k > 0 and removed[k - 1, 0] > t0:
                    removed[k, 0] = removed[k - 1, 0]
                    removed[k, 1] = removed[k - 1, 1]
                    k -= 1
                removed[k, 0] = t0
                removed[k, 1] = t1
                found += 1
        length = math.hypot(x1 - x0, y1 - y0)
        kept = 0
        cursor = 0.0
        slot = starts[c]
        for k in range(found + 1):
            if k < found:
                stop = removed[k, 0]
                resume = removed[k, 1]
            else:
                stop = 1.0
                resume = 1.0
            if (stop - cursor) * length > tolerance:
                if fill:
                    out[slot + kept, 0] = x0 + cursor * (x1 - x0)
                    out[slot + kept, 1] = y0 + cursor * (y1 - y0)
                    out[slot + kept, 2] = x0 + stop * (x1 - x0) if stop < 1.0 else x1
                    out[slot + kept, 3] = y0 + stop * (y1 - y0) if stop < 1.0 else y1
                kept += 1
            cursor = max(cursor, resume)
        if not fill:
            starts[c + 1] = kept
