"""Collision of a moving footprint with walls: swept test, slide, push-out; velocity response.

Footprints (``shape`` code in the kernels):

- ``0``, circle of radius ``half_width`` (``half_length`` unused);
- ``1``, box: ``2 half_length`` along the heading ``yaw``, ``2 half_width`` across, centred on the
  position. Boxes are swept exactly (not approximated by circles): a few circles either leave the
  box's corners uncovered or stick out of its sides, and in the narrow corridors of seed 001's
  tests ("narrow corridors, and sharp turns") a vehicle's width matters to the centimetre.

Walls are closed segments (``steerlab.world.walls``); a zero-length wall is a point obstacle.

**Narrow phase** (standard tests, as in Ericson, "Real-Time Collision Detection", 2005, ch. 5).
Motion is a translation ``(dx, dy)`` at a fixed yaw, parametrised by the distance ``s`` travelled
along its unit direction ``u`` (no overflow for any finite input).

- Circle vs segment: a moving circle against a segment is the centre's ray against the segment's
  capsule (the segment grown by the radius): its two side lines and its two end discs, the root of
  each disc's quadratic in the numerically stable form.
- Box vs segment: the separating-axis test for convex polygons under translation (the moving-box
  test with the axes of both shapes): the box's two axes and the segment's normal (only the box's
  axes for a point). On each axis the projections must overlap; the contact is at the latest
  entry over the axes if it precedes the earliest exit, and its normal is that axis, turned
  against the motion. It is exact for a translating convex polygon.

**Skin.** Every test runs on the footprint grown by ``skin`` (``World(skin=1e-6)`` m by default):
the footprint stops when its grown shape touches a wall, so it always ends at least about ``skin``
from every wall and rounding (about ``1e-16`` times the coordinates) can never carry it through.
A contact counts only when the motion goes into the wall: ``u . n < -1e-12`` (``APPROACH``); a
motion closer to parallel than that slides on, and can enter the skin by at most ``1e-12`` of its
length. A footprint that starts *within* the skin of a wall (grown shapes overlapping) is blocked
at ``s = 0`` if it moves into the wall, and free otherwise; "into" is measured against the
separating axis of largest gap (box) or the direction from the wall's closest point (circle), so a
free motion never reduces that gap. If the real shapes already overlap (a box turned in place
against a wall), the normal is the wall's, on the side of the footprint's centre.

**Move and slide** (``_collide_move``; the scheme of Quake's ``SV_FlyMove``, id Software, 1996,
"the basic solid body movement clip that slides along multiple planes", with four "bumps").
Sweep the remaining displacement; stop at the earliest contact; remove the remaining
displacement's component into the wall (frictionless slide along its tangent); if that slide
goes into the wall hit just before (a corner closer than 180 degrees), stop: in 2-D two walls
leave no direction to slide along; if it goes back against the displacement asked for (a slide out
of a corner wider than 90 degrees), stop too, as ``SV_FlyMove`` does against its "primal
velocity": a move never carries the footprint backwards. After ``MAX_SLIDES`` contacts the rest
of the displacement is dropped. Two walls met at the same travel (a corner; two walls within the
skin) are ordered by the contacts themselves (the more head-on first, ``_earlier_contact``), never
by the order in which the grid lists them: the cell size never changes a move (tested).

**Push-out.** If the footprint started a sweep within half a skin of a wall (an overlap from a turn
in place, a spawn in a wall), it is pushed out at the end, up to ``PUSH_PASSES`` times, deepest
wall first, to ``skin`` from that wall: a circle away from the wall's closest point; a box along the
separating axis when the shapes are apart, otherwise along the shortest of the wall's normal (to
the centre's side) and the box's four axis directions that do not point towards the wall's line.
Neither moves the centre towards the wall it leaves. Each push is a straight move of the centre,
cut to half of its length up to the first wall it would touch: a push never takes the centre
through any wall, at the price of leaving an overlap where walls are closer than the footprint is
wide (a box wedged across a corridor narrower than its diagonal).

**Guarantee** (tested with hypothesis): a footprint whose centre starts on one side of a wall never
ends a call on the other side of it, at any displacement (``1e-6`` to ``1e3`` m tested), angle or
yaw, including wall ends, polygon corners and corners between walls; one that starts clear of the
walls ends at least ``skin / 2`` from each of them (in practice ``skin``, up to rounding).

**Velocity** (``_slide_velocity``): an impulse-based contact with zero restitution and Coulomb
friction, as in impulse-based rigid-body solvers (Catto, "Iterative Dynamics with Temporal
Coherence", GDC 2005, clamps the friction impulse to the friction coefficient times the normal
impulse): the normal
component into the wall, ``v_n = v . n < 0``, is removed; the tangential speed is reduced by
``friction |v_n|`` (the friction impulse is at most ``friction`` times the normal impulse) and
never reversed: ``|v_t'| = max(|v_t| - friction |v_n|, 0)``, direction kept. A velocity leaving
the wall (``v_n >= 0``) or a zero normal (no contact) is returned unchanged.
"""

from __future__ import annotations

import math

import numba

from steerlab._checks import check_nonnegative, check_xy
from steerlab._jit import batch_kernel, kernel
from steerlab.geometry.kernels import closest_on_segment
from steerlab.world.grid import _index_span, _row_columns

__all__ = ["APPROACH", "BOX", "CIRCLE", "MAX_SLIDES", "PUSH_PASSES", "slide_velocity"]

CIRCLE = 0  # shape code: circle of radius half_width
BOX = 1  # shape code: box half_length x half_width, oriented by yaw
MAX_SLIDES = 4  # sweeps per call: Quake's SV_FlyMove has numbumps = 4
PUSH_PASSES = 8  # push-out passes per call (each resolves the deepest overlap)
APPROACH = 1e-12  # cosine: a contact counts when u . n < -APPROACH
_QUERY_MARGIN = 1e-9  # [cells] extra reach of the cell queries (rounding at cell borders)


# --------------------------------------------------------------------------------------------------
# narrow phase: one footprint, one wall, coordinates relative to the footprint's centre


@kernel
def _sweep_circle(ux, uy, length, radius, wall, skin):
    """Earliest travel ``s`` in ``[0, length]`` at which the circle grown by ``skin``, centred at
    the origin and moving along unit ``(ux, uy)``, touches segment ``A-B`` (``wall`` ``(ax, ay,
    bx, by)``) while moving into it.

    Returns ``(s, nx, ny, gap)``: ``s = inf`` if there is no such contact; ``(nx, ny)`` the unit
    contact normal (from the wall to the centre); ``gap`` the initial distance between the circle
    and the segment (negative: overlap).
    """
    ax, ay, bx, by = wall
    grown = radius + skin
    ex = bx - ax
    ey = by - ay
    length2 = ex * ex + ey * ey
    qx, qy, _ = closest_on_segment(ax, ay, bx, by, 0.0, 0.0)
    distance = math.hypot(qx, qy)
    gap = distance - radius
    if distance < grown:
        if distance > 0.0:
            nx = -qx / distance
            ny = -qy / distance
        elif length2 > 0.0:
            wall_length = math.sqrt(length2)
            nx = -ey / wall_length
            ny = ex / wall_length
            if ux * nx + uy * ny > 0.0:
                nx = -nx
                ny = -ny
        else:
            nx = -ux
            ny = -uy
        if ux * nx + uy * ny < -APPROACH:
            return 0.0, nx, ny, gap
        return math.inf, 0.0, 0.0, gap
    best = math.inf
    best_x = 0.0
    best_y = 0.0
    if length2 > 0.0:
        # side line of the capsule facing the centre
        wall_length = math.sqrt(length2)
        mx = -ey / wall_length
        my = ex / wall_length
        height = -(ax * mx + ay * my)
        if height < 0.0:
            mx = -mx
            my = -my
            height = -height
        approach = ux * mx + uy * my
        if approach < -APPROACH:
            # (height < grown only by rounding here, or off the segment's ends: then the discs)
            s = max((height - grown) / -approach, 0.0)
            if s <= length:
                along = ((s * ux - ax) * ex + (s * uy - ay) * ey) / length2
                if 0.0 <= along <= 1.0:
                    best = s
                    best_x = mx
                    best_y = my
    for end in range(2 if length2 > 0.0 else 1):
        px = ax if end == 0 else bx
        py = ay if end == 0 else by
        wx = -px  # centre relative to the end point
        wy = -py
        half_b = wx * ux + wy * uy
        if half_b < 0.0:
            c = wx * wx + wy * wy - grown * grown
            discriminant = half_b * half_b - c
            if discriminant >= 0.0:
                s = max(c / (-half_b + math.sqrt(discriminant)), 0.0)
                if s < best and s <= length:
                    cx = wx + s * ux
                    cy = wy + s * uy
                    norm = math.hypot(cx, cy)
                    if norm > 0.0:
                        cx /= norm
                        cy /= norm
                        if ux * cx + uy * cy < -APPROACH:
                            best = s
                            best_x = cx
                            best_y = cy
    return best, best_x, best_y, gap


@kernel
def _box_reach(kx, ky, box):
    """Half the extent [m] of ``box`` (``(fx, fy, half_length, half_width)``: unit forward axis
    and half sizes, centred at the origin) along unit ``k``."""
    fx, fy, half_length, half_width = box
    return half_length * abs(fx * kx + fy * ky) + half_width * abs(fx * ky - fy * kx)


@kernel
def _box_axis(kx, ky, box, wall, ux, uy, skin):
    """One separating axis, unit ``k``, of ``box`` (``_box_reach``) against segment ``A-B``
    (``wall`` ``(ax, ay, bx, by)``).

    Returns ``(gap, nx, ny, s_in, s_out)``: the gap between the two projections on ``k`` (negative:
    they overlap); ``(nx, ny) = +-k``, the direction from the segment to the box along ``k``; and
    the travel interval ``(s_in, s_out)`` along unit ``u`` during which the projections overlap
    within ``skin`` (``(-inf, inf)``: always; ``(inf, -inf)``: never).
    """
    ax, ay, bx, by = wall
    reach = _box_reach(kx, ky, box)
    pa = ax * kx + ay * ky
    pb = bx * kx + by * ky
    low = min(pa, pb)
    high = max(pa, pb)
    gap_below = low - reach  # the box under the segment's projection
    gap_above = -reach - high  # the box over it
    if gap_above >= gap_below:
        gap = gap_above
        nx, ny = kx, ky
    else:
        gap = gap_below
        nx, ny = -kx, -ky
    enter_low = low - reach - skin  # centre coordinates where the projections overlap within skin
    enter_high = high + reach + skin
    velocity = ux * kx + uy * ky
    if velocity > 0.0:
        return gap, nx, ny, enter_low / velocity, enter_high / velocity
    if velocity < 0.0:
        return gap, nx, ny, enter_high / velocity, enter_low / velocity
    if enter_low < 0.0 < enter_high:
        return gap, nx, ny, -math.inf, math.inf
    return gap, nx, ny, math.inf, -math.inf


@kernel
def _segment_axis(ax, ay, bx, by, fx, fy):
    """Unit normal of segment ``A-B``; for a point, the box's forward axis ``f`` (tested twice)."""
    ex = bx - ax
    ey = by - ay
    length2 = ex * ex + ey * ey
    if length2 > 0.0:
        wall_length = math.sqrt(length2)
        return -ey / wall_length, ex / wall_length
    return fx, fy


@kernel
def _wall_normal_to_centre(ax, ay, bx, by, refx, refy):
    """Unit normal of segment ``A-B`` pointing to the origin's side of its line.

    When the origin is on the line, the side of ``ref`` (the left normal if ``ref`` is on the line
    too). For a point wall, the direction from the point to the origin (``ref`` normalised, then
    ``+x``, when they coincide).
    """
    ex = bx - ax
    ey = by - ay
    length2 = ex * ex + ey * ey
    if length2 > 0.0:
        wall_length = math.sqrt(length2)
        mx = -ey / wall_length
        my = ex / wall_length
        height = -(ax * mx + ay * my)
        if height == 0.0:
            height = (refx - ax) * mx + (refy - ay) * my
        if height < 0.0:
            return -mx, -my
        return mx, my
    distance = math.hypot(ax, ay)
    if distance > 0.0:
        return -ax / distance, -ay / distance
    norm = math.hypot(refx, refy)
    if norm > 0.0:
        return refx / norm, refy / norm
    return 1.0, 0.0


@kernel
def _sweep_box(ux, uy, length, box, wall, skin):
    """Earliest travel ``s`` in ``[0, length]`` at which the box grown by ``skin`` (``box``
    ``(fx, fy, half_length, half_width)``: centred at the origin, unit forward axis ``(fx, fy)``)
    touches segment ``A-B`` (``wall`` ``(ax, ay, bx, by)``) while moving into it.

    Returns ``(s, nx, ny, gap)`` as ``_sweep_circle``; ``gap`` is the largest gap over the
    separating axes (negative: the shapes overlap).
    """
    fx, fy, _, _ = box
    ax, ay, bx, by = wall
    mx, my = _segment_axis(ax, ay, bx, by, fx, fy)
    g1, n1x, n1y, in1, out1 = _box_axis(fx, fy, box, wall, ux, uy, skin)
    g2, n2x, n2y, in2, out2 = _box_axis(-fy, fx, box, wall, ux, uy, skin)
    g3, n3x, n3y, in3, out3 = _box_axis(mx, my, box, wall, ux, uy, skin)
    gap = max(g1, g2, g3)
    if gap < skin:
        # the grown shapes overlap already: blocked iff moving into the separating direction
        if gap < 0.0:
            nx, ny = _wall_normal_to_centre(ax, ay, bx, by, -ux, -uy)
        elif g1 == gap:
            nx, ny = n1x, n1y
        elif g2 == gap:
            nx, ny = n2x, n2y
        else:
            nx, ny = n3x, n3y
        if ux * nx + uy * ny < -APPROACH:
            return 0.0, nx, ny, gap
        return math.inf, 0.0, 0.0, gap
    leave = min(out1, out2, out3)
    # a negative entry with a positive exit is an overlap within skin lost to rounding: contact now
    enter = max(in1, in2, in3, 0.0)
    if enter < leave and enter <= length:
        # the box comes from the gap's side of the entry axis: its normal faces the motion
        if in1 >= in2 and in1 >= in3:
            nx, ny = n1x, n1y
        elif in2 >= in3:
            nx, ny = n2x, n2y
        else:
            nx, ny = n3x, n3y
        if ux * nx + uy * ny < -APPROACH:
            return enter, nx, ny, gap
    return math.inf, 0.0, 0.0, gap


@kernel
def _push_circle(radius, wall, skin, refx, refy):
    """Push-out of a circle (centre at the origin) from segment ``A-B`` (``wall`` ``(ax, ay, bx,
    by)``): ``(gap, nx, ny, amount)``.

    ``gap`` is the distance minus the radius; the push is ``amount`` [m] along unit ``(nx, ny)``,
    away from the wall's closest point, to ``skin`` from the wall. ``ref`` points to the side the
    footprint came from (used only when the centre lies on the wall).
    """
    ax, ay, bx, by = wall
    qx, qy, _ = closest_on_segment(ax, ay, bx, by, 0.0, 0.0)
    distance = math.hypot(qx, qy)
    if distance > 0.0:
        nx = -qx / distance
        ny = -qy / distance
    else:
        nx, ny = _wall_normal_to_centre(ax, ay, bx, by, refx, refy)
    return distance - radius, nx, ny, radius + skin - distance


@kernel
def _box_clearance(kx, ky, box, wall, skin):
    """Travel along unit ``k`` that puts ``box`` (``_box_reach``) ``skin`` beyond ``A-B``
    (``wall`` ``(ax, ay, bx, by)``)."""
    ax, ay, bx, by = wall
    return max(ax * kx + ay * ky, bx * kx + by * ky) + _box_reach(kx, ky, box) + skin


@kernel
def _inside_box(px, py, box):
    """Whether point ``P`` lies inside ``box`` (``_box_reach``)."""
    fx, fy, half_length, half_width = box
    return abs(px * fx + py * fy) < half_length and abs(py * fx - px * fy) < half_width


@kernel
def _push_box(box, wall, skin, refx, refy):
    """Push-out of ``box`` (``(fx, fy, half_length, half_width)``, centred at the origin) from
    segment ``A-B`` (``wall`` ``(ax, ay, bx, by)``): ``(gap, nx, ny, amount)``.

    ``gap`` is the largest separating-axis gap. Apart (``gap >= 0``): along that axis, to ``skin``.
    Overlapping: along the wall's normal to the centre's side ``m`` (a corner of the box through the
    wall's face), or, when an end of the wall is inside the box (the wall pokes into a face), the
    shortest push among ``m`` and the box's axis directions ``k`` with ``k . m >= 0``. None moves
    the centre towards the wall's line.
    """
    fx, fy, _, _ = box
    ax, ay, bx, by = wall
    mx, my = _segment_axis(ax, ay, bx, by, fx, fy)
    g1, n1x, n1y, _, _ = _box_axis(fx, fy, box, wall, 0.0, 0.0, skin)
    g2, n2x, n2y, _, _ = _box_axis(-fy, fx, box, wall, 0.0, 0.0, skin)
    g3, n3x, n3y, _, _ = _box_axis(mx, my, box, wall, 0.0, 0.0, skin)
    gap = max(g1, g2, g3)
    if gap >= 0.0:
        if g1 == gap:
            return gap, n1x, n1y, skin - gap
        if g2 == gap:
            return gap, n2x, n2y, skin - gap
        return gap, n3x, n3y, skin - gap
    wx, wy = _wall_normal_to_centre(ax, ay, bx, by, refx, refy)
    best = _box_clearance(wx, wy, box, wall, skin)
    best_x = wx
    best_y = wy
    if not (_inside_box(ax, ay, box) or _inside_box(bx, by, box)):
        return gap, best_x, best_y, best  # the box's corner is through the wall's face
    for candidate in range(4):
        if candidate == 0:
            kx, ky = fx, fy
        elif candidate == 1:
            kx, ky = -fx, -fy
        elif candidate == 2:
            kx, ky = -fy, fx
        else:
            kx, ky = fy, -fx
        if kx * wx + ky * wy >= 0.0:
            amount = _box_clearance(kx, ky, box, wall, skin)
            if amount < best:
                best = amount
                best_x = kx
                best_y = ky
    return gap, best_x, best_y, best


@kernel
def _crossing(x0, y0, x1, y1, ax, ay, bx, by):
    """Fraction ``t`` in ``[0, 1]`` of the segment ``(x0, y0)-(x1, y1)`` where it first touches the
    closed segment ``A-B`` (collinear overlaps included); ``inf`` if they do not touch."""
    rx = x1 - x0
    ry = y1 - y0
    ex = bx - ax
    ey = by - ay
    wx = ax - x0
    wy = ay - y0
    denominator = rx * ey - ry * ex
    if denominator != 0.0:
        t = (wx * ey - wy * ex) / denominator
        u = (wx * ry - wy * rx) / denominator
        if 0.0 <= t <= 1.0 and 0.0 <= u <= 1.0:
            return t
        return math.inf
    if wx * ry - wy * rx != 0.0:
        return math.inf  # parallel, apart
    length2 = rx * rx + ry * ry
    if length2 == 0.0:
        # a point: on the wall?
        wall2 = ex * ex + ey * ey
        if wall2 == 0.0:
            return 0.0 if wx == 0.0 and wy == 0.0 else math.inf
        if wx * ey - wy * ex != 0.0:
            return math.inf
        along = -(wx * ex + wy * ey) / wall2
        return 0.0 if 0.0 <= along <= 1.0 else math.inf
    ta = (wx * rx + wy * ry) / length2
    tb = ((bx - x0) * rx + (by - y0) * ry) / length2
    low = min(ta, tb)
    high = max(ta, tb)
    if high < 0.0 or low > 1.0:
        return math.inf
    return max(low, 0.0)


# --------------------------------------------------------------------------------------------------
# broad phase + narrow phase over the world's walls: compiled once and called (not inlined), so
# that a composite kernel inlining ``_collide_move`` does not recompile them (minutes otherwise)


@kernel
def _footprint_reach(fx, fy, shape, half_length, half_width):
    """Half extents ``(ex, ey)`` [m] of the footprint's axis-aligned bounding box."""
    if shape == CIRCLE:
        return half_width, half_width
    return (
        half_length * abs(fx) + half_width * abs(fy),
        half_length * abs(fy) + half_width * abs(fx),
    )


@kernel
def _footprint_radius(shape, half_length, half_width):
    """Radius [m] of the footprint's bounding circle (about its centre)."""
    if shape == CIRCLE:
        return half_width
    return math.sqrt(half_length * half_length + half_width * half_width)


@kernel
def _beyond(px, py, wall, reach2):
    """Whether segment ``A-B`` (``wall`` ``(ax, ay, bx, by)``) lies farther than ``sqrt(reach2)``
    from point ``P`` (no division: inside the segment's span the squared distance times
    ``|AB|^2`` is the cross product squared).

    The broad phase's conservative reject: a footprint of bounding radius ``r`` moving ``l`` stays
    within ``r + l / 2`` of its move's midpoint, so a wall beyond that (plus skin) cannot stop it;
    and its separation from such a wall along the best separating axis, at least ``1 / sqrt(2)``
    of their distance for a box (the Minkowski sum of a box and a segment has no corner sharper
    than 90 degrees), is more than ``skin``, so the wall cannot trigger a push-out either.
    """
    ax, ay, bx, by = wall
    wx = px - ax
    wy = py - ay
    ex = bx - ax
    ey = by - ay
    along = wx * ex + wy * ey
    if along <= 0.0:
        return wx * wx + wy * wy > reach2
    length2 = ex * ex + ey * ey
    if along >= length2:
        qx = px - bx
        qy = py - by
        return qx * qx + qy * qy > reach2
    cross = wx * ey - wy * ex
    return cross * cross > reach2 * length2


@kernel
def _sweep_reach(radius, length, margin):
    """Distance from a move's midpoint beyond which ``_sweep`` skips a wall: the footprint's
    radius ``radius``, half the move's ``length``, and 3 ``margin`` (skin plus the rounding of
    the cell queries)."""
    return radius + 0.5 * length + 3.0 * margin


@kernel
def _earlier_contact(s, nx, ny, best, best_x, best_y, ux, uy):
    """Whether the contact ``(s, n)`` of a move along unit ``u`` comes before ``(best, best_n)``.

    The earlier travel first; at equal travel (two walls met at once: a corner, or two walls
    within the skin, both at ``s = 0``) the wall met more head-on (smaller ``u . n``), then the
    smaller normal (``x``, then ``y``). The order is one of the contacts themselves, so the order in
    which the grid's cells list the walls (which changes with the cell size) never decides a move.
    """
    if s != best:
        return s < best
    facing = ux * nx + uy * ny
    best_facing = ux * best_x + uy * best_y
    if facing != best_facing:
        return facing < best_facing
    return nx < best_x or (nx == best_x and ny < best_y)


@kernel
def _deeper_push(gap, nx, ny, amount, best_gap, best_x, best_y, best_amount):
    """Whether the push-out ``(gap, n, amount)`` comes before ``(best_gap, best_n, best_amount)``:
    the smaller gap (the deeper overlap) first, then the longer push, then the smaller normal
    (``x``, then ``y``); as ``_earlier_contact``, never the order of the walls in the grid."""
    if gap != best_gap:
        return gap < best_gap
    if amount != best_amount:
        return amount > best_amount
    return nx < best_x or (nx == best_x and ny < best_y)


@kernel
def _query_margin(data):
    """How far [m] the cell queries reach beyond a footprint: the skin, and the rounding at cell
    borders."""
    return data.skin + _QUERY_MARGIN * data.grid_cell


@kernel
def _query_reach(data, fx, fy, shape, half_length, half_width):
    """``(ex, ey, margin)``: the half extents [m] of the cell query around a footprint, its
    axis-aligned bounding box (``_footprint_reach``) grown by the query's ``margin``
    (``_query_margin``)."""
    margin = _query_margin(data)
    ex, ey = _footprint_reach(fx, fy, shape, half_length, half_width)
    return ex + margin, ey + margin, margin


@kernel
def _swept_rows(data, y0, y1, ey):
    """Rows ``first..last`` of the grid covered by a move from ``y0`` to ``y1`` [m] grown by
    ``ey``."""
    return _index_span(
        min(y0, y1) - ey, max(y0, y1) + ey, data.grid_origin_y, data.grid_cell, data.grid_ny
    )


@kernel
def _row_slots(data, row, first, last):
    """``(start, stop)``: the slots (rows of ``data.grid_segments``) of the walls listed in columns
    ``first..last`` of ``row``, one stretch since cells are numbered row by row
    (``steerlab.world.grid``); empty when ``last < first``."""
    start = row * data.grid_nx
    return data.grid_start[start + first], data.grid_start[start + last + 1]


@kernel
def _swept_row(data, x0, y0, x1, y1, ex, ey, row):
    """The slots (``_row_slots``) of ``row`` covered by the segment ``(x0, y0)-(x1, y1)`` grown by
    ``(ex, ey)`` (``grid._row_columns``)."""
    first, last = _row_columns(
        x0,
        y0,
        x1,
        y1,
        ex,
        ey,
        row,
        data.grid_origin_x,
        data.grid_origin_y,
        data.grid_cell,
        data.grid_nx,
    )
    return _row_slots(data, row, first, last)


@kernel
def _wall(data, slot, x, y):
    """The wall in ``slot`` of the grid, ``(ax, ay, bx, by)`` relative to ``(x, y)`` [m]."""
    segments = data.grid_segments
    return (
        segments[slot, 0] - x,
        segments[slot, 1] - y,
        segments[slot, 2] - x,
        segments[slot, 3] - y,
    )


@kernel(inline="never")
def _sweep(data, x, y, ux, uy, length, fx, fy, shape, half_length, half_width):
    """Earliest contact of the footprint at ``(x, y)`` moving ``length`` [m] along unit ``u``.

    Returns ``(s, nx, ny, gap)``: travel to the contact (``inf``: none), its normal, and the
    smallest initial gap over the walls examined (``inf`` if none).
    """
    skin = data.skin
    ex, ey, margin = _query_reach(data, fx, fy, shape, half_length, half_width)
    box = (fx, fy, half_length, half_width)
    x1 = x + length * ux
    y1 = y + length * uy
    # a wall farther than `reach` from the move's midpoint can neither be touched by the swept
    # (grown) footprint nor be within 2 skin of it at the start: skipped without its exact test
    mid_x = 0.5 * length * ux
    mid_y = 0.5 * length * uy
    reach = _sweep_reach(_footprint_radius(shape, half_length, half_width), length, margin)
    reach2 = reach * reach
    best = math.inf
    best_x = 0.0
    best_y = 0.0
    smallest_gap = math.inf
    first_row, last_row = _swept_rows(data, y, y1, ey)
    for row in range(first_row, last_row + 1):
        start, stop = _swept_row(data, x, y, x1, y1, ex, ey, row)
        for slot in range(start, stop):
            wall = _wall(data, slot, x, y)
            if _beyond(mid_x, mid_y, wall, reach2):
                continue
            if shape == CIRCLE:
                s, nx, ny, gap = _sweep_circle(ux, uy, length, half_width, wall, skin)
            else:
                s, nx, ny, gap = _sweep_box(ux, uy, length, box, wall, skin)
            smallest_gap = min(smallest_gap, gap)
            if s <= best and _earlier_contact(s, nx, ny, best, best_x, best_y, ux, uy):
                best = s
                best_x = nx
                best_y = ny
    return best, best_x, best_y, smallest_gap


@kernel(inline="never")
def _deepest(data, x, y, fx, fy, shape, half_length, half_width, refx, refy):
    """The wall the footprint at ``(x, y)`` is closest to (or deepest in): ``(gap, nx, ny,
    amount)`` of its push-out (``gap = inf`` if no wall is near)."""
    skin = data.skin
    ex, ey, margin = _query_reach(data, fx, fy, shape, half_length, half_width)
    box = (fx, fy, half_length, half_width)
    # a wall farther than this from the centre is more than 2 skins from the footprint along
    # its best separating axis (``_beyond``): it cannot be the one to push out of
    reach = _footprint_radius(shape, half_length, half_width) + 3.0 * margin
    reach2 = reach * reach
    best_gap = math.inf
    best_x = 0.0
    best_y = 0.0
    best_amount = 0.0
    first_row, last_row = _swept_rows(data, y, y, ey)
    for row in range(first_row, last_row + 1):
        start, stop = _swept_row(data, x, y, x, y, ex, ey, row)
        for slot in range(start, stop):
            wall = _wall(data, slot, x, y)
            if _beyond(0.0, 0.0, wall, reach2):
                continue
            if shape == CIRCLE:
                gap, nx, ny, amount = _push_circle(half_width, wall, skin, refx, refy)
            else:
                gap, nx, ny, amount = _push_box(box, wall, skin, refx, refy)
            if gap <= best_gap and _deeper_push(
                gap, nx, ny, amount, best_gap, best_x, best_y, best_amount
            ):
                best_gap = gap
                best_x = nx
                best_y = ny
                best_amount = amount
    return best_gap, best_x, best_y, best_amount


@kernel(inline="never")
def _first_crossing(data, x0, y0, x1, y1):
    """Fraction in ``[0, 1]`` of the centre's straight move where it first touches a wall; ``inf``
    if it touches none."""
    margin = _QUERY_MARGIN * data.grid_cell
    best = math.inf
    first_row, last_row = _swept_rows(data, y0, y1, margin)
    for row in range(first_row, last_row + 1):
        start, stop = _swept_row(data, x0, y0, x1, y1, margin, margin, row)
        for slot in range(start, stop):
            ax, ay, bx, by = _wall(data, slot, 0.0, 0.0)
            best = min(best, _crossing(x0, y0, x1, y1, ax, ay, bx, by))
    return best


@kernel(inline="never")
def _clearance(data, x, y, limit):
    """Distance [m] from ``(x, y)`` to the nearest wall, or ``limit`` if no wall is nearer.

    Reads the cells covering the square of half side ``limit`` around the point: a wall listed in
    none of them lies outside that square, farther than ``limit``. A world without walls: ``inf``.
    """
    if data.grid_segments.shape[0] == 0:
        return math.inf
    cell = data.grid_cell
    margin = _QUERY_MARGIN * cell
    nearest2 = limit * limit
    first_row, last_row = _index_span(
        y - limit - margin, y + limit + margin, data.grid_origin_y, cell, data.grid_ny
    )
    first, last = _index_span(
        x - limit - margin, x + limit + margin, data.grid_origin_x, cell, data.grid_nx
    )
    for row in range(first_row, last_row + 1):
        start, stop = _row_slots(data, row, first, last)
        for slot in range(start, stop):
            ax, ay, bx, by = _wall(data, slot, x, y)
            qx, qy, _ = closest_on_segment(ax, ay, bx, by, 0.0, 0.0)
            nearest2 = min(nearest2, qx * qx + qy * qy)
    return math.sqrt(nearest2)


# --------------------------------------------------------------------------------------------------
# the kernels the vehicle composite calls


@kernel
def _collide_move(data, x0, y0, dx, dy, yaw, shape, half_length, half_width):
    """Move a footprint by ``(dx, dy)`` [m] from ``(x0, y0)`` [m] at heading ``yaw`` [rad] among
    the walls of ``data`` (a ``WorldData``): swept, sliding, pushed out (module docstring).

    ``shape`` is ``CIRCLE`` (0: radius ``half_width``) or ``BOX`` (1: ``half_length`` along the
    heading, ``half_width`` across); both half sizes [m] ``> 0``.

    Returns ``(x, y, normal_x, normal_y, hit)``: the new position [m], the unit normal of the last
    contact (pointing from the wall to the footprint; ``(0, 0)`` without contact) and whether any
    contact or push-out happened. Without contact the position is ``(x0 + dx, y0 + dy)`` exactly.
    """
    fx = math.cos(yaw)
    fy = math.sin(yaw)
    skin = data.skin
    x = x0
    y = y0
    rx = dx
    ry = dy
    normal_x = 0.0
    normal_y = 0.0
    hit = False
    previous_x = 0.0
    previous_y = 0.0
    smallest_gap = -math.inf if dx == 0.0 and dy == 0.0 else math.inf
    for _ in range(MAX_SLIDES):
        length = math.hypot(rx, ry)
        if length == 0.0:
            break
        ux = rx / length
        uy = ry / length
        s, nx, ny, gap = _sweep(data, x, y, ux, uy, length, fx, fy, shape, half_length, half_width)
        smallest_gap = min(smallest_gap, gap)
        if s > length:
            x += rx
            y += ry
            rx = 0.0
            ry = 0.0
            break
        x += s * ux
        y += s * uy
        hit = True
        normal_x = nx
        normal_y = ny
        remaining = length - s
        rx = remaining * ux
        ry = remaining * uy
        into = rx * nx + ry * ny
        if into < 0.0:
            rx -= into * nx
            ry -= into * ny
        if rx * previous_x + ry * previous_y < -APPROACH * math.hypot(rx, ry):
            rx = 0.0  # a corner: no direction left to slide along
            ry = 0.0
        if rx * dx + ry * dy <= 0.0:
            rx = 0.0  # the slide would go back against the move asked for (a corner wider than
            ry = 0.0  # 90 degrees; SV_FlyMove stops there too, against its "primal velocity")
        previous_x = nx
        previous_y = ny
    if smallest_gap < 0.5 * skin:
        for _ in range(PUSH_PASSES):
            gap, nx, ny, amount = _deepest(
                data, x, y, fx, fy, shape, half_length, half_width, x0 - x, y0 - y
            )
            if not gap < 0.5 * skin:
                break
            push_x = amount * nx
            push_y = amount * ny
            fraction = _first_crossing(data, x, y, x + push_x, y + push_y)
            if fraction <= 1.0:
                push_x *= 0.5 * fraction
                push_y *= 0.5 * fraction
            x += push_x
            y += push_y
            hit = True
            normal_x = nx
            normal_y = ny
    return x, y, normal_x, normal_y, hit


FREE_SPACE_UNKNOWN = (0.0, 0.0, 0.0)  # (free_x, free_y, free_r): no free disc known yet
FREE_SPACE_NONE = (0.0, 0.0, -1.0)  # none wanted: a single move, nothing measured or kept
FREE_SPACE_RADII = 3.0  # the free disc of ``_collide_move_cached`` is looked for up to this many
#   footprint radii from the footprint's centre


@kernel
def _in_free_space(x, y, dx, dy, radius, margin, free_x, free_y, free_r):
    """Whether every wall is so far from the move that ``_sweep`` would skip it: the disc of
    centre ``(free_x, free_y)`` and radius ``free_r`` holds no wall, and the move's midpoint is
    inside it by at least the sweep's reach (``_sweep_reach``: footprint radius ``radius`` + half
    the move + 3 ``margin``) plus one more ``margin`` for the rounding of the disc's radius."""
    length = math.sqrt(dx * dx + dy * dy)
    slack = free_r - (_sweep_reach(radius, length, margin) + margin)
    if not slack >= 0.0:
        return False
    mx = x + 0.5 * dx - free_x
    my = y + 0.5 * dy - free_y
    return mx * mx + my * my <= slack * slack


@kernel
def _collide_move_cached(
    data, x0, y0, dx, dy, yaw, shape, half_length, half_width, free_x, free_y, free_r
):
    """``_collide_move`` that skips the walls when a known free disc proves none is near.

    ``(free_x, free_y, free_r)``: a disc that holds no wall of ``data`` (centre, radius [m]),
    remembered from an earlier frame of the same body; ``free_r = 0``: none known yet;
    ``free_r < 0``: none wanted (a single move: none is measured, returned as given). When the
    move stays inside it by the sweep's reach (``_in_free_space``), every wall is beyond the reach
    of ``_sweep`` and of the push-out, so ``_collide_move`` would return the unobstructed move:
    that is returned without reading the grid. Otherwise ``_collide_move`` runs and a new disc is
    measured around the final position (``_clearance``, up to ``FREE_SPACE_RADII`` footprint
    radii), unless it would be too small to spare a sweep (``_collide_move_measured``). Returns
    ``_collide_move``'s ``(x, y, normal_x, normal_y, hit)`` bit for bit, then the disc to
    remember ``(free_x, free_y, free_r)``.
    """
    radius = _footprint_radius(shape, half_length, half_width)
    margin = _query_margin(data)
    if _in_free_space(x0, y0, dx, dy, radius, margin, free_x, free_y, free_r):
        if dx == 0.0 and dy == 0.0:
            return x0, y0, 0.0, 0.0, False, free_x, free_y, free_r
        return x0 + dx, y0 + dy, 0.0, 0.0, False, free_x, free_y, free_r
    return _collide_move_measured(
        data, x0, y0, dx, dy, yaw, shape, half_length, half_width, free_x, free_y, free_r
    )


@kernel(inline="never")
def _collide_move_measured(
    data, x0, y0, dx, dy, yaw, shape, half_length, half_width, free_x, free_y, free_r
):
    """``_collide_move_cached`` when its free disc does not prove the move free:
    ``_collide_move``, then a new disc around the final position (none when ``free_r < 0``),
    unless the old disc shows that the new one would be smaller than the footprint's radius.

    The distance to the nearest wall changes by at most the distance moved, so at the final
    position it is at most ``free_r + |final - (free_x, free_y)|``; a disc smaller than the
    footprint's radius never proves a move free (``_in_free_space``), so the old disc, which
    still holds no wall, is kept instead of measuring (a body whose bounding circle overlaps the
    walls of a corridor, frame after frame). ``free_r = 0`` (none known) is always measured.

    Called, not inlined: a kernel that inlines ``_collide_move_cached`` (the serial build of the
    world's vehicle batch inlines the whole vehicle step) compiles the sweep once, here, and
    pays a call only on this path (a few % of the frames of a vehicle in a corridor).
    """
    x, y, normal_x, normal_y, hit = _collide_move(
        data, x0, y0, dx, dy, yaw, shape, half_length, half_width
    )
    if free_r < 0.0:
        return x, y, normal_x, normal_y, hit, free_x, free_y, free_r
    radius = _footprint_radius(shape, half_length, half_width)
    if free_r > 0.0:
        moved = math.sqrt((x - free_x) * (x - free_x) + (y - free_y) * (y - free_y))
        if free_r + moved < radius:
            return x, y, normal_x, normal_y, hit, free_x, free_y, free_r
    return x, y, normal_x, normal_y, hit, x, y, _clearance(data, x, y, FREE_SPACE_RADII * radius)


@kernel
def _slide_velocity(vx, vy, normal_x, normal_y, friction):
    """Velocity after a contact of unit normal ``(normal_x, normal_y)`` (from the wall to the
    body): the component into the wall removed, the tangential speed reduced by ``friction`` times
    the removed normal speed, never reversed (module docstring). Returns ``(vx, vy)``."""
    normal_speed = vx * normal_x + vy * normal_y
    if not normal_speed < 0.0:
        return vx, vy
    tx = vx - normal_speed * normal_x
    ty = vy - normal_speed * normal_y
    tangential = math.hypot(tx, ty)
    if tangential == 0.0:
        return tx, ty
    scale = max(tangential + friction * normal_speed, 0.0) / tangential
    return tx * scale, ty * scale


@batch_kernel
def _collide_move_batch(
    x, y, dx, dy, yaw, shape, half_length, half_width, data, normal_x, normal_y, hit
):
    """``_collide_move`` for every footprint ``i``: ``x``, ``y`` updated in place; ``normal_x``,
    ``normal_y``, ``hit`` written. ``shape`` is an int64 array of shape codes."""
    for i in numba.prange(x.size):
        x[i], y[i], normal_x[i], normal_y[i], hit[i] = _collide_move(
            data, x[i], y[i], dx[i], dy[i], yaw[i], shape[i], half_length[i], half_width[i]
        )


@batch_kernel
def _slide_velocity_batch(vx, vy, normal_x, normal_y, friction):
    """``_slide_velocity`` for every body ``i`` (one ``friction``); ``vx``, ``vy`` in place."""
    for i in numba.prange(vx.size):
        vx[i], vy[i] = _slide_velocity(vx[i], vy[i], normal_x[i], normal_y[i], friction)


# --------------------------------------------------------------------------------------------------
# public function


def slide_velocity(velocity, normal, friction=0.0) -> tuple[float, float]:
    """Velocity [m/s] after hitting a wall of unit ``normal`` (module docstring: the law).

    Parameters
    ----------
    velocity : (float, float)
        World-frame velocity [m/s].
    normal : (float, float)
        Contact normal from ``World.move`` (unit, from the wall to the body), or ``(0, 0)`` for no
        contact (velocity unchanged).
    friction : float, optional
        Coulomb coefficient ``>= 0`` (dimensionless); 0 (default): frictionless slide.
    """
    vx, vy = check_xy("velocity", velocity)
    nx, ny = check_xy("normal", normal)
    norm = math.hypot(nx, ny)
    if norm != 0.0 and abs(norm - 1.0) > 1e-9:
        raise ValueError(f"normal must be a unit vector or (0, 0), got {normal!r}")
    mu = check_nonnegative("friction", friction, per_agent=False)
    out = _slide_velocity(vx, vy, nx, ny, mu)
    return float(out[0]), float(out[1])
