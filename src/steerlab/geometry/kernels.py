"""Geometry kernels: each geometric formula of steerlab, written once.

The numba kernels (``steerlab._jit.kernel``: compiled, inlined into their callers) that the
kernels of every package call: angles, the closest point of a segment, polylines (arc length,
projection with the signed cross-track error, point at an arc length, next point at a distance),
the curvature of the circle through three points (Menger) and the maximum curvature of a
quadratic Bezier curve. Their names are public because other packages call them. They take
plain floats and arrays and validate nothing: the classes and functions of
``steerlab.geometry`` (``Polyline``, ``wrap_pi``, ``sincos``, ``atan2``,
``bezier_max_curvature``) validate their input and call them.

Conventions: radians, yaw counter-clockwise from +x, ``wrap_pi`` in ``[-pi, pi)``
(``steerlab.geometry.angles``). Polyline kernels take ``(points, cum, ...)``: ``points`` of
shape ``(n, 3)`` (2-D paths padded with ``z = 0``) and their cumulative arc length ``cum`` of
shape ``(n,)``, as ``steerlab.geometry.polyline`` describes; batch code calls them on slices
``points[start:stop]``, ``cum[start:stop]`` of concatenated paths.
"""

from __future__ import annotations

import math
import sys

import numba
import numpy as np

from steerlab._jit import batch_kernel, kernel

__all__ = [
    "PYTHON_HYPOT_EXACT",
    "asin",
    "atan2",
    "bezier_max_curvature",
    "bezier_max_curvature_batch",
    "closest_on_segment",
    "closest_on_segment_array",
    "cumulative_length",
    "heading_at",
    "line_point",
    "menger_curvature",
    "next_point",
    "next_point_walk",
    "point_at",
    "point_near",
    "point_on_segment",
    "project",
    "project_array",
    "python_hypot",
    "segment_at",
    "segment_fraction",
    "segment_near",
    "signed_cross_track",
    "signed_distance",
    "sincos",
    "unit_leg",
    "wrap_2pi",
    "wrap_2pi_array",
    "wrap_pi",
    "wrap_pi_array",
]


# --------------------------------------------------------------------------------------------------
# angles (steerlab.geometry.angles: conventions, and why sine, cosine and arc tangent are
# written in plain arithmetic)

_TWO_PI = 2.0 * math.pi

# Cody-Waite split of pi/2 (fdlibm e_rem_pio2.c: pio2_1, pio2_1t): pi/2 = PIO2_HI + PIO2_LO.
_PIO2_HI = 1.57079632673412561417e00
_PIO2_LO = 6.07710050650619224932e-11
_INV_PIO2 = 6.36619772367581382433e-01  # 2/pi

# fdlibm k_sin.c: sin(x) ~ x + x^3 (S1 + x^2 S2 + ...), |x| <= pi/4
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
# fdlibm k_cos.c: cos(x) ~ 1 - x^2/2 + x^4 (C1 + x^2 C2 + ...), |x| <= pi/4
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@kernel
def wrap_pi(angle):
    """Wrap an angle (radians) into ``[-pi, pi)``; the seeds' ``wrap180``. NaN stays NaN."""
    wrapped = angle - _TWO_PI * math.floor((angle + math.pi) / _TWO_PI)
    # rounding can land exactly on +pi (or a hair outside) for inputs near an odd multiple of
    # pi; conditional expressions (selects, not branches) keep batch loops vectorizable
    # (x + pi) / 2 pi may also underflow to -0, leaving x a hair below -pi; adding 2 pi can
    # then round to +pi, so the upper check comes last
    wrapped = wrapped + _TWO_PI if wrapped < -math.pi else wrapped
    return wrapped - _TWO_PI if wrapped >= math.pi else wrapped


@kernel
def wrap_2pi(angle):
    """Wrap an angle (radians) into ``[0, 2 pi)``; the seeds' ``wrap360``. NaN stays NaN."""
    wrapped = angle - _TWO_PI * math.floor(angle / _TWO_PI)
    # a tiny negative angle: angle / 2 pi underflows to -0, then angle + 2 pi rounds to 2 pi,
    # so the upper check comes last
    wrapped = wrapped + _TWO_PI if wrapped < 0.0 else wrapped
    return wrapped - _TWO_PI if wrapped >= _TWO_PI else wrapped


@kernel
def sincos(angle):
    """``(sin(angle), cos(angle))`` for finite angles; accurate for ``|angle| < 1e6``.

    Reduction ``r = angle - q pi/2`` with ``q`` the nearest integer (two-part pi/2), then the
    fdlibm kernels and the quadrant rule. Branch-free (the quadrant rule uses selects), so that
    numba vectorizes loops that call it (several times faster than a branchy version,
    ``docs/performance.md``).
    """
    quadrant = math.floor(angle * _INV_PIO2 + 0.5)
    reduced = (angle - quadrant * _PIO2_HI) - quadrant * _PIO2_LO
    z = reduced * reduced
    sin_r = reduced + reduced * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
    cos_r = 1.0 - 0.5 * z + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    q = int(quadrant) & 3
    # quadrant rule by selects: q odd swaps sine and cosine; q in {2, 3} negates the sine,
    # q in {1, 2} the cosine
    swap = (q & 1) == 1
    sine = cos_r if swap else sin_r
    cosine = sin_r if swap else cos_r
    sine = -sine if (q & 2) != 0 else sine
    cosine = -cosine if ((q + 1) & 2) != 0 else cosine
    return sine, cosine


# Cephes atan.c: atan(x) = x + x^3 P(x^2)/Q(x^2) on [0, 0.66], with a reduction by pi/4 above
_ATAN_P0 = -8.750608600031904122785e-01
_ATAN_P1 = -1.615753718733365076637e01
_ATAN_P2 = -7.500855792314704667340e01
_ATAN_P3 = -1.228866684490136173410e02
_ATAN_P4 = -6.485021904942025371773e01
_ATAN_Q0 = 2.485846490142306297962e01
_ATAN_Q1 = 1.650270098316988542046e02
_ATAN_Q2 = 4.328810604912902668951e02
_ATAN_Q3 = 4.853903996359136964868e02
_ATAN_Q4 = 1.945506571482613964425e02
_PIO2_LOW = 6.123233995736765886130e-17  # pi/2 - float(pi/2) (Cephes MOREBITS)


@kernel
def atan2(y, x):
    """``atan2(y, x)`` in plain arithmetic, branch-free: same bits in every build and platform.

    Reduces to ``t = min(|x|, |y|) / max(|x|, |y|)`` in ``[0, 1]``, takes Cephes' rational
    ``atan`` (with its reduction by pi/4 above 0.66), then places the angle in its octant with
    selects. Within a few units in the last place of ``math.atan2`` (tested); ``atan2(0, 0) = 0``
    and signed zeros are not distinguished (``atan2(-0.0, -1.0)`` gives ``pi``, not ``-pi``).
    """
    abs_x = abs(x)
    abs_y = abs(y)
    largest = max(abs_x, abs_y)
    ratio = min(abs_x, abs_y) / largest if largest > 0.0 else 0.0
    reduce = ratio > 0.66
    t = (ratio - 1.0) / (ratio + 1.0) if reduce else ratio
    z = t * t
    numerator = (((_ATAN_P0 * z + _ATAN_P1) * z + _ATAN_P2) * z + _ATAN_P3) * z + _ATAN_P4
    denominator = ((((z + _ATAN_Q0) * z + _ATAN_Q1) * z + _ATAN_Q2) * z + _ATAN_Q3) * z + _ATAN_Q4
    angle = t * z * numerator / denominator + t
    angle = (math.pi / 4 + (angle + 0.5 * _PIO2_LOW)) if reduce else angle  # atan(ratio)
    angle = ((math.pi / 2 - angle) + _PIO2_LOW) if abs_y > abs_x else angle
    angle = ((math.pi - angle) + 2.0 * _PIO2_LOW) if x < 0.0 else angle
    return -angle if y < 0.0 else angle


@kernel
def asin(value):
    """``asin(value)`` for ``value`` in ``[-1, 1]``, as ``atan2(value, sqrt(1 - value^2))``."""
    return atan2(value, math.sqrt((1.0 - value) * (1.0 + value)))


@batch_kernel
def wrap_pi_array(angles, out):
    """``out[i] = wrap_pi(angles[i])``."""
    for i in numba.prange(angles.size):
        out[i] = wrap_pi(angles[i])


@batch_kernel
def wrap_2pi_array(angles, out):
    """``out[i] = wrap_2pi(angles[i])``."""
    for i in numba.prange(angles.size):
        out[i] = wrap_2pi(angles[i])


# --------------------------------------------------------------------------------------------------
# lengths

PYTHON_HYPOT_EXACT = sys.version_info[:2] == (3, 11)
"""Whether ``python_hypot`` is this interpreter's ``math.hypot`` bit for bit: it follows CPython
3.11's algorithm, and CPython 3.12 changed how the squares are summed."""

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting constant for float64


@kernel
def _split_square_sum(x, csum, frac1, frac2, frac3):
    """Add ``x**2`` to the compensated sum ``(csum, frac1, frac2, frac3)`` (``python_hypot``):
    ``x`` split in halves ``hi + lo`` (Veltkamp), then ``hi**2`` and ``2 hi lo`` each added to
    ``csum`` with its rounding error kept (Fast2Sum: ``|csum| >= |term|``), ``lo**2`` kept
    aside. ``x`` negative subtracts ``|x|**2`` (CPython's differential correction)."""
    sign = 1.0 if x >= 0.0 else -1.0
    x = abs(x)
    t = x * _SPLIT
    hi = t - (t - x)
    lo = x - hi
    term = sign * hi * hi
    old = csum
    csum += term
    frac1 += (old - csum) + term
    term = sign * 2.0 * hi * lo
    old = csum
    csum += term
    frac2 += (old - csum) + term
    if sign > 0.0:
        frac3 += lo * lo
    else:
        term = -lo * lo
        old = csum
        csum += term
        frac3 += (old - csum) + term
    return csum, frac1, frac2, frac3


@kernel
def python_hypot(x, y):
    """``sqrt(x**2 + y**2)`` as CPython 3.11's ``math.hypot(x, y)`` computes it, bit for bit
    (``Modules/mathmodule.c``, ``vector_norm`` with two coordinates): the coordinates scaled by a
    power of two below 1, squared exactly, summed with compensation, the square root corrected by
    one differential step. C's ``hypot``, which ``math.hypot`` in compiled code and
    ``numpy.hypot`` call, may differ from it in the last bit. ``PYTHON_HYPOT_EXACT``: whether the
    running interpreter is such a CPython. Infinite beats NaN, as in CPython."""
    a = abs(x)
    b = abs(y)
    if math.isinf(a) or math.isinf(b):
        return math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    largest = max(a, b)
    if largest == 0.0:
        return largest
    # frexp's exponent and the scale 2**-exponent, read and made from the bits where both are
    # normal numbers (the exponent field 1 .. 2044); math.frexp and math.ldexp elsewhere
    field = (np.float64(largest).view(np.int64) >> 52) & 0x7FF
    if 1 <= field <= 2044:
        exponent = field - 1022
        scale = np.int64((2045 - field) << 52).view(np.float64)
    else:
        _, exponent = math.frexp(largest)
        scale = math.ldexp(1.0, -exponent)
    csum = 1.0  # CPython's sum starts at 1 (so that |csum| >= every term), taken off at the end
    if exponent < -1023:  # a subnormal largest: divide by it (a scale would overflow)
        a /= largest
        b /= largest
        frac = 0.0
        for term in (a * a, b * b):
            old = csum
            csum += term
            frac += (old - csum) + term
        return largest * math.sqrt(csum - 1.0 + frac)
    frac1 = 0.0
    frac2 = 0.0
    frac3 = 0.0
    csum, frac1, frac2, frac3 = _split_square_sum(a * scale, csum, frac1, frac2, frac3)
    csum, frac1, frac2, frac3 = _split_square_sum(b * scale, csum, frac1, frac2, frac3)
    h = math.sqrt(csum - 1.0 + (frac1 + frac2 + frac3))
    csum, frac1, frac2, frac3 = _split_square_sum(-h, csum, frac1, frac2, frac3)
    correction = csum - 1.0 + (frac1 + frac2 + frac3)
    return (h + correction / (2.0 * h)) / scale


# --------------------------------------------------------------------------------------------------
# segments


@kernel
def closest_on_segment(ax, ay, bx, by, px, py):
    """The point of the closed 2-D segment ``AB`` closest to ``P``, and its distance to ``P``.

    Returns ``(cx, cy, distance)``: ``C = A + t (B - A)`` with ``t = (P - A) . (B - A) / |B -
    A|^2`` clamped to ``[0, 1]``; a zero-length segment is the point ``A``. The navigators call
    it with ``AB`` the segment swept by the agent during a frame (previous to current position)
    and ``P`` a waypoint: the frame's travel came within ``r`` of the waypoint iff ``distance <=
    r``, whatever the speed (no tunnelling); the collision tests with ``P`` the footprint's
    centre. Polylines (3-D) use ``segment_fraction`` and ``line_point``.
    """
    ux = bx - ax
    uy = by - ay
    length2 = ux * ux + uy * uy
    t = ((px - ax) * ux + (py - ay) * uy) / length2 if length2 > 0.0 else 0.0
    t = min(max(t, 0.0), 1.0)
    cx = ax + t * ux
    cy = ay + t * uy
    return cx, cy, math.sqrt((px - cx) * (px - cx) + (py - cy) * (py - cy))


@batch_kernel
def closest_on_segment_array(ax, ay, bx, by, px, py, out_x, out_y, out_distance):
    """``closest_on_segment`` of element ``i`` of 1-D arrays of the same size, into ``out_x[i]``,
    ``out_y[i]``, ``out_distance[i]`` (``steerlab.geometry.closest_on_segments`` broadcasts)."""
    for i in numba.prange(out_distance.size):
        out_x[i], out_y[i], out_distance[i] = closest_on_segment(
            ax[i], ay[i], bx[i], by[i], px[i], py[i]
        )


# --------------------------------------------------------------------------------------------------
# polylines (steerlab.geometry.polyline: segments, arc length, zero-length segments)


@kernel
def cumulative_length(points, out):
    """``out[i]`` = arc length from ``points[0]`` to ``points[i]``; ``points`` ``(n, 3)``."""
    out[0] = 0.0
    for i in range(points.shape[0] - 1):
        dx = points[i + 1, 0] - points[i, 0]
        dy = points[i + 1, 1] - points[i, 1]
        dz = points[i + 1, 2] - points[i, 2]
        out[i + 1] = out[i] + math.sqrt(dx * dx + dy * dy + dz * dz)


@kernel
def segment_at(cum, s):
    """Index ``i`` of the segment of positive length with ``cum[i] <= s <= cum[i + 1]``.

    ``s`` is clamped to ``[cum[0], cum[-1]]``. At a vertex the segment that starts there is
    returned, at the path end the last segment of positive length. Returns 0 if every segment has
    zero length.
    """
    last = cum.size - 1
    s = min(max(s, cum[0]), cum[last])
    # bisection for the last vertex with cum <= s (numpy's searchsorted, side="right", minus
    # one), written out: numba's searchsorted compiles four functions of its own on first use
    low, high = 0, cum.size
    while low < high:
        middle = (low + high) // 2
        if cum[middle] <= s:
            low = middle + 1
        else:
            high = middle
    index = low - 1
    if index > last - 1:
        index = last - 1
    if index < 0:
        index = 0
    while index > 0 and cum[index + 1] <= cum[index]:
        index -= 1
    return index


@kernel
def segment_near(cum, s, hint):
    """``segment_at(cum, s)`` found by walking from segment ``hint`` instead of a binary search:
    the same index, cheaper when ``hint`` is near (a few segments from ``s``)."""
    last = cum.size - 1
    s = min(max(s, cum[0]), cum[last])
    index = min(max(hint, 0), last - 1)
    while index > 0 and cum[index] > s:
        index -= 1
    while index < last - 1 and cum[index + 1] <= s:
        index += 1  # the last segment (before the last point) starting at or before s
    while index > 0 and cum[index + 1] <= cum[index]:
        index -= 1
    return index


@kernel
def segment_fraction(points, index, px, py, pz):
    """Where the perpendicular from ``(px, py, pz)`` meets the line of segment ``index``.

    Returns ``(fraction, length2)``: ``fraction = (P - A) . (B - A) / |B - A|^2`` with ``A =
    points[index]``, ``B = points[index + 1]`` (any real number: 0 at ``A``, 1 at ``B``; the
    closest point of the segment is at ``fraction`` clamped to ``[0, 1]``), and ``length2 = |B -
    A|^2`` (0 for a zero-length segment, whose fraction is 0). ``project`` and the follower's
    projection on an arc of the path clamp it and place the point with ``line_point``.
    """
    ax = points[index, 0]
    ay = points[index, 1]
    az = points[index, 2]
    dx = points[index + 1, 0] - ax
    dy = points[index + 1, 1] - ay
    dz = points[index + 1, 2] - az
    length2 = dx * dx + dy * dy + dz * dz
    dot = (px - ax) * dx + (py - ay) * dy + (pz - az) * dz
    return (dot / length2 if length2 > 0.0 else 0.0), length2


@kernel
def line_point(points, index, fraction):
    """``(x, y, z)`` = ``A + fraction (B - A)`` on the line of segment ``index`` (``A =
    points[index]``, ``B = points[index + 1]``), as computed, not snapped to the ends
    (``point_on_segment`` returns the ends exactly)."""
    x = points[index, 0] + fraction * (points[index + 1, 0] - points[index, 0])
    y = points[index, 1] + fraction * (points[index + 1, 1] - points[index, 1])
    z = points[index, 2] + fraction * (points[index + 1, 2] - points[index, 2])
    return x, y, z


@kernel
def point_at(points, cum, s):
    """``(x, y, z)`` of the point at arc length ``s``, clamped to ``[cum[0], cum[-1]]``.

    The ends of a segment are returned exactly (no rounding of ``a + 1 (b - a)``), and the ends
    of the path too (even after a segment too short to change ``cum``).
    """
    return point_near(points, cum, s, segment_at(cum, s))


@kernel
def point_near(points, cum, s, hint):
    """``point_at(points, cum, s)``, its segment found from segment ``hint`` near ``s``
    (``segment_near``; from ``segment_at``'s own index the walk takes no step): the same
    point."""
    last = cum.size - 1
    if s <= cum[0]:
        return points[0, 0], points[0, 1], points[0, 2]
    if s >= cum[last]:
        return points[last, 0], points[last, 1], points[last, 2]
    return point_on_segment(points, cum, segment_near(cum, s, hint), s)


@kernel
def point_on_segment(points, cum, index, s):
    """``(x, y, z)`` of the point at arc length ``s`` of segment ``index`` (``cum[index] <= s <=
    cum[index + 1]``); its ends exactly, a zero-length segment gives its start."""
    span = cum[index + 1] - cum[index]
    fraction = (s - cum[index]) / span if span > 0.0 else 0.0
    if fraction <= 0.0:
        return points[index, 0], points[index, 1], points[index, 2]
    if fraction >= 1.0:
        return points[index + 1, 0], points[index + 1, 1], points[index + 1, 2]
    return line_point(points, index, fraction)


@kernel
def heading_at(points, cum, s):
    """Yaw [rad] of the segment at arc length ``s`` (``atan2`` of its xy direction).

    The segment is the one ``segment_at`` returns. If its xy direction is zero (a vertical
    segment in 3-D) the next segment with a horizontal direction is used, else the previous one,
    else the heading is 0.
    """
    index = segment_at(cum, s)
    for candidate in range(index, cum.size - 1):
        dx = points[candidate + 1, 0] - points[candidate, 0]
        dy = points[candidate + 1, 1] - points[candidate, 1]
        if dx != 0.0 or dy != 0.0:
            return math.atan2(dy, dx)
    for candidate in range(index - 1, -1, -1):
        dx = points[candidate + 1, 0] - points[candidate, 0]
        dy = points[candidate + 1, 1] - points[candidate, 1]
        if dx != 0.0 or dy != 0.0:
            return math.atan2(dy, dx)
    return 0.0


@kernel
def project(points, cum, px, py, pz):
    """Closest point of the path to ``(px, py, pz)`` (Euclidean, in 3-D).

    Returns ``(s, x, y, z, segment, cross_track)``: arc length of the closest point, the closest
    point, the index of its segment, and the signed distance to it (the signed cross-track
    error). The sign is that of the z-component of ``tangent_xy x (p - closest)_xy`` (positive:
    left of the direction of travel) with the tangent of the closest point's segment; if that is
    zero and the closest point is a vertex, the other segment meeting there decides (the
    vertex-neighbour rule); if that is zero too, positive. On ties the smallest ``s`` wins; at a
    vertex that is the segment ending there. Zero-length segments are skipped; if every segment
    has zero length the result is ``points[0]`` with segment 0. ``Polyline.project`` documents
    the rules.
    """
    count = points.shape[0] - 1
    best_distance2 = math.inf
    best_segment = -1
    best_end = 0  # -1: closest point is the segment's start vertex, +1: its end, 0: in between
    best_s = cum[0]
    best_x = points[0, 0]
    best_y = points[0, 1]
    best_z = points[0, 2]
    for i in range(count):
        fraction, length2 = segment_fraction(points, i, px, py, pz)
        if length2 == 0.0:
            continue
        if fraction <= 0.0:
            end = -1
            cx, cy, cz = points[i, 0], points[i, 1], points[i, 2]
            s = cum[i]
        elif fraction >= 1.0:
            end = 1
            cx, cy, cz = points[i + 1, 0], points[i + 1, 1], points[i + 1, 2]
            s = cum[i + 1]
        else:
            end = 0
            cx, cy, cz = line_point(points, i, fraction)
            s = cum[i] + fraction * (cum[i + 1] - cum[i])
        ex = px - cx
        ey = py - cy
        ez = pz - cz
        distance2 = ex * ex + ey * ey + ez * ez
        if distance2 < best_distance2:
            best_distance2 = distance2
            best_segment = i
            best_end = end
            best_s = s
            best_x, best_y, best_z = cx, cy, cz
    if best_segment < 0:
        ex = px - best_x
        ey = py - best_y
        ez = pz - best_z
        return best_s, best_x, best_y, best_z, 0, math.sqrt(ex * ex + ey * ey + ez * ez)
    cross_track = signed_distance(
        points, best_segment, best_end, px, py, pz, best_x, best_y, best_z
    )
    return best_s, best_x, best_y, best_z, best_segment, cross_track


@kernel
def signed_distance(points, segment, end, px, py, pz, cx, cy, cz):
    """The signed cross-track error [m] of ``(px, py, pz)`` from its foot ``(cx, cy, cz)`` on
    segment ``segment`` of the path: ``|P - C|`` (3-D), positive left of the direction of travel.

    The sign is that of the z-component of ``tangent_xy x (P - C)_xy`` with the segment's tangent;
    if that is zero and the foot is a vertex (``end``: -1 the segment's start, +1 its end, 0 in
    between), the first segment of nonzero length beyond that vertex decides (the vertex-neighbour
    rule); if that is zero too, positive. ``project`` and the follower's windowed projection
    (``steerlab.follower``) both take their cross-track error from here, each from its own foot.
    """
    count = points.shape[0] - 1
    offset_x = px - cx
    offset_y = py - cy
    offset_z = pz - cz
    distance = math.sqrt(offset_x * offset_x + offset_y * offset_y + offset_z * offset_z)
    tangent_x = points[segment + 1, 0] - points[segment, 0]
    tangent_y = points[segment + 1, 1] - points[segment, 1]
    left = tangent_x * offset_y - tangent_y * offset_x
    if left == 0.0 and end != 0:
        # on the extension of the segment past a vertex: the neighbour at the vertex decides
        neighbour = segment + end
        while 0 <= neighbour < count:
            tangent_x = points[neighbour + 1, 0] - points[neighbour, 0]
            tangent_y = points[neighbour + 1, 1] - points[neighbour, 1]
            tangent_z = points[neighbour + 1, 2] - points[neighbour, 2]
            if tangent_x != 0.0 or tangent_y != 0.0 or tangent_z != 0.0:
                left = tangent_x * offset_y - tangent_y * offset_x
                break
            neighbour += end
    return distance if left >= 0.0 else -distance


@batch_kernel
def project_array(points, cum, px, py, pz, out_s, out_x, out_y, out_z, out_segment, out_cross):
    """``project`` of point ``i`` (``px[i], py[i], pz[i]``, 1-D arrays of one size) into element
    ``i`` of the outputs (``out_segment`` int64, the others float64): the same bits as
    ``project`` called one point at a time (``Polyline.project_batch``)."""
    for i in numba.prange(out_s.size):
        out_s[i], out_x[i], out_y[i], out_z[i], out_segment[i], out_cross[i] = project(
            points, cum, px[i], py[i], pz[i]
        )


@kernel
def signed_cross_track(points, cum, px, py, pz):
    """The signed cross-track error of ``(px, py, pz)`` [m]: its distance to the path, positive
    left of the direction of travel, by ``project``'s rules (the nearest point of the whole path;
    at a vertex, the vertex-neighbour rule)."""
    return project(points, cum, px, py, pz)[5]


@kernel
def next_point(points, cum, ox, oy, oz, dh, s_from):
    """First point at or after ``s_from`` that is at least ``dh`` from ``(ox, oy, oz)``.

    Seed 001, Algorithm 1, line 3. Returns ``(s, x, y, z)`` with
    ``s = min{s >= s_from : |P(s) - origin| >= dh}``, or the path end if there is no such ``s``.
    ``s_from`` is clamped to ``[cum[0], cum[-1]]``; ``dh > 0``. Locates ``s_from`` (its segment
    and point), then walks with ``next_point_walk``.
    """
    last = points.shape[0] - 1
    s_start = min(max(s_from, cum[0]), cum[last])
    sx, sy, sz = point_at(points, cum, s_start)
    s, x, y, z, _ = next_point_walk(
        points, cum, segment_at(cum, s_start), s_start, sx, sy, sz, ox, oy, oz, dh
    )
    return s, x, y, z


@kernel
def unit_leg(points, cum, index):
    """Direction of segment ``index`` per metre of arc length: ``(points[index + 1] -
    points[index]) / (cum[index + 1] - cum[index])``, zero for a zero-length segment. One
    division and no square root.

    The arc-length span differs from the segment's length by at most half an ulp of
    ``cum[index + 1]`` (the rounding of the sum), so the norm is 1 within that half ulp over the
    length, and a point placed at most the span along the direction is within about that half ulp
    of where the exact unit vector puts it: the precision the arc length itself has.
    """
    span = cum[index + 1] - cum[index]
    inverse = 1.0 / span if span > 0.0 else 0.0
    return (
        (points[index + 1, 0] - points[index, 0]) * inverse,
        (points[index + 1, 1] - points[index, 1]) * inverse,
        (points[index + 1, 2] - points[index, 2]) * inverse,
    )


@kernel
def next_point_walk(points, cum, index, s_start, sx, sy, sz, ox, oy, oz, dh):
    """``next_point`` from a known start: the point ``(sx, sy, sz)`` at arc length ``s_start``
    on segment ``index``.

    Returns ``(s, x, y, z, segment)``, ``segment`` the segment holding the result, so that a
    caller sampling points one after another (Algorithm 1) continues from the exact point found
    without locating it again. Walks the segments from ``index``; on a segment whose start ``S``
    is inside the sphere of radius ``dh``, with ``t`` its unit direction (``unit_leg``), the exit
    is ``S + u t`` with ``u`` the positive root of ``|S + u t - origin|^2 = dh^2``,
    ``u = sqrt(b^2 - inside) - b`` (``b = (S - origin) . t``, ``inside = |S - origin|^2 - dh^2
    < 0``), if ``u`` is within the segment. No division depends on the start (the direction's
    depends on the path only), so none delays a caller's next search. Where ``b > 0`` the
    subtraction cancels, but ``|b| < dh``, so ``u`` is still within a few ulps of ``dh`` of the
    exact root (the precision of the coordinates).

    From a start that is the origin itself (``w = S - origin = 0`` exactly: Algorithm 1's
    ``P~[i-1]``), the first step gives exactly ``u = sqrt(fl(dh^2)) = dh``: the point ``dh``
    further along the segment when it goes on that far.
    """
    last = points.shape[0] - 1
    radius2 = dh * dh
    for i in range(index, last):
        wx = sx - ox
        wy = sy - oy
        wz = sz - oz
        inside = wx * wx + wy * wy + wz * wz - radius2
        if inside >= 0.0:
            return s_start, sx, sy, sz, i
        tx, ty, tz = unit_leg(points, cum, i)
        along = wx * tx + wy * ty + wz * tz
        exit_distance = math.sqrt(along * along - inside) - along
        if exit_distance <= cum[i + 1] - s_start:
            return (
                s_start + exit_distance,
                sx + exit_distance * tx,
                sy + exit_distance * ty,
                sz + exit_distance * tz,
                i,
            )
        sx = points[i + 1, 0]
        sy = points[i + 1, 1]
        sz = points[i + 1, 2]
        s_start = cum[i + 1]
    return cum[last], points[last, 0], points[last, 1], points[last, 2], max(last - 1, 0)


# --------------------------------------------------------------------------------------------------
# quadratic Bezier curves (steerlab.geometry.bezier: the derivation of Eq. 3 / Eq. 4)

SCALE_SAFE_LOW = 1e-40  # [m]: legs up to these lengths are used as they are (their sixth
SCALE_SAFE_HIGH = 1e40  # powers stay inside the double range)
_SUBNORMAL_GUARD = 1e-300  # [m] below, 1 / scale could overflow
_GROW = 2.0**600  # exact
_SHORT_LEG2 = 1e-60  # [(units of the legs)^2]: a shorter leg below 1e-30 takes Eq. 4 with two
#   square roots (its fourth power would underflow); above, the product (2 A)^2 shorter^2 of the
#   one-root form underflows only for curvatures below ~1e-34 per unit of the legs


@kernel
def menger_curvature(ax, ay, bx, by, cx, cy):
    """Signed curvature [1/m] of the circle through three points (Menger curvature):
    ``2 ((b - a) x (c - a)) / (|b - a| |c - b| |c - a|)``, positive turning left; 0 when two
    points coincide (a path end) or the three are collinear."""
    abx = bx - ax
    aby = by - ay
    acx = cx - ax
    acy = cy - ay
    bcx = cx - bx
    bcy = cy - by
    denominator = math.sqrt(
        (abx * abx + aby * aby) * (bcx * bcx + bcy * bcy) * (acx * acx + acy * acy)
    )
    if denominator == 0.0:
        return 0.0
    return 2.0 * (abx * acy - aby * acx) / denominator


@kernel
def bezier_max_curvature(x1, y1, z1, x2, y2, z2, x3, y3, z3):
    """Maximum curvature [1/m] of the quadratic Bezier curve with control points p1, p2, p3.

    Seed 001, Eq. 3 / Eq. 4 (derived in ``steerlab.geometry.bezier``); 2-D callers pass ``z1 =
    z2 = z3 = 0``. Never NaN for finite input whose coordinate differences are finite: a straight
    curve gives ``0.0``, a curve that reverses (cusp) gives ``math.inf``; see
    ``steerlab.geometry.bezier_max_curvature`` for the cases.
    """
    # legs of the control polygon: B'(t) = 2 ((1 - t) first_leg + t second_leg)
    first_x = x2 - x1
    first_y = y2 - y1
    first_z = z2 - z1
    second_x = x3 - x2
    second_y = y3 - y2
    second_z = z3 - z2
    # legs whose lengths are far from metres are rescaled first (``_legs_max_curvature`` forms
    # products up to the sixth power); the test reads the squared lengths, which the formula
    # needs anyway (the compiler computes them once)
    longer2 = max(
        first_x * first_x + first_y * first_y + first_z * first_z,
        second_x * second_x + second_y * second_y + second_z * second_z,
    )
    if SCALE_SAFE_LOW * SCALE_SAFE_LOW <= longer2 <= SCALE_SAFE_HIGH * SCALE_SAFE_HIGH:
        return _legs_max_curvature(first_x, first_y, first_z, second_x, second_y, second_z)
    scale = max(
        abs(first_x), abs(first_y), abs(first_z), abs(second_x), abs(second_y), abs(second_z)
    )
    if scale == 0.0:
        return 0.0  # all three points coincide: a point, no bend
    # far from metres: work in units of `scale` so that squares and cubes neither overflow nor
    # underflow (one division, then products: the scaled legs are the same up to an ulp)
    grow = 1.0
    if scale < _SUBNORMAL_GUARD:
        # 1 / scale would overflow (a subnormal scale): the legs are first made normal numbers
        # by an exact power of two (x grow unit = x unit when grow = 1)
        grow = _GROW
    unit = 1.0 / (scale * grow)
    kappa = _legs_max_curvature(
        first_x * grow * unit,
        first_y * grow * unit,
        first_z * grow * unit,
        second_x * grow * unit,
        second_y * grow * unit,
        second_z * grow * unit,
    )
    # (unit first: a curvature beyond the double range is inf, never 0 * inf)
    return kappa * unit * grow


@kernel
def _legs_max_curvature(first_x, first_y, first_z, second_x, second_y, second_z):
    """Eq. 3 / Eq. 4 from the legs ``p2 - p1`` and ``p3 - p2`` of the control polygon, the longer
    of length within ``[SCALE_SAFE_LOW, SCALE_SAFE_HIGH]`` (``bezier_max_curvature`` rescales
    other legs to a largest component of 1), so that their products up to the sixth power stay
    inside the double range."""
    cross_x = first_y * second_z - first_z * second_y
    cross_y = first_z * second_x - first_x * second_z
    cross_z = first_x * second_y - first_y * second_x
    cross2 = cross_x * cross_x + cross_y * cross_y + cross_z * cross_z  # (2 A)^2
    if cross2 == 0.0:
        # collinear: straight if the legs agree in direction (or one is zero), a cusp where
        # B'(t) passes through zero and the curve turns back if they oppose
        legs_dot = first_x * second_x + first_y * second_y + first_z * second_z
        if legs_dot < 0.0:
            return math.inf
        return 0.0

    # p2 - m = (first_leg - second_leg) / 2
    half_x = 0.5 * (first_x - second_x)
    half_y = 0.5 * (first_y - second_y)
    half_z = 0.5 * (first_z - second_z)
    # power of p2 with respect to the sphere on p1 m, and to the sphere on m p3 (each > 0 outside)
    power_first = first_x * half_x + first_y * half_y + first_z * half_z
    power_second = -(second_x * half_x + second_y * half_y + second_z * half_z)
    middle2 = half_x * half_x + half_y * half_y + half_z * half_z
    shorter2 = min(
        first_x * first_x + first_y * first_y + first_z * first_z,
        second_x * second_x + second_y * second_y + second_z * second_z,
    )
    # both equations evaluated, one kept by selection rather than a branch (which one applies
    # is as good as random along a path: a mispredicted branch costs more than the work), with
    # one square root and one division per curve.
    # Eq. 3: |p2 - m|^3 / A^2 = 4 |p2 - m|^2 |p2 - m| / (2 A)^2 (a tiny area gives inf, never
    # 0 / 0); Eq. 4: max(A / |p1 - p2|^3, A / |p3 - p2|^3) = A / shorter^3 =
    # sqrt((2 A)^2 shorter^2) / (2 shorter^4) (both legs are non-zero since A > 0)
    interior = (power_first > 0.0) & (power_second > 0.0)
    if shorter2 < _SHORT_LEG2 and not interior:
        # Eq. 4 with one leg 1e-30 or shorter (in the units of the legs): the same value with a
        # second square root, as the fourth power would underflow (rare: not on a path's
        # curve, whose legs are dh long)
        return 0.5 * math.sqrt(cross2) / (shorter2 * math.sqrt(shorter2))
    root = math.sqrt(middle2 if interior else cross2 * shorter2)
    numerator = 4.0 * middle2 * root if interior else root
    denominator = cross2 if interior else 2.0 * shorter2 * shorter2
    return numerator / denominator


@batch_kernel
def bezier_max_curvature_batch(first_points, middle_points, last_points, out):
    """``out[i]`` = maximum curvature of the curve ``(first_points[i], middle_points[i],
    last_points[i])``; point arrays of shape ``(n, 3)`` (2-D points padded with ``z = 0``)."""
    for i in numba.prange(out.size):
        out[i] = bezier_max_curvature(
            first_points[i, 0],
            first_points[i, 1],
            first_points[i, 2],
            middle_points[i, 0],
            middle_points[i, 1],
            middle_points[i, 2],
            last_points[i, 0],
            last_points[i, 1],
            last_points[i, 2],
        )
