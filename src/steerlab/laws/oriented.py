"""Reaching a point in a given direction (seed 000), families LINE, CIRCLE, PARABOLA, F1 .. F5.

Seed 000, "Reaching a point in a given direction": ``x, y`` (and the velocity, ``UE_yaw``,
``Bearing``) are measured in a **local frame** whose origin is the destination and whose x-axis
is the given direction (``Course = 0``). Each family is a field of headings whose curves reach
the origin tangent to the x-axis, so that an agent following its curve passes the destination
heading along the course ("A key point to check when choosing/testing a family is that
vVely = 0 on x = y = 0"). The kernel ``_reach_oriented_command`` computes the local heading and
returns ``UE_yaw = Course + local heading``; ``ReachOriented.step`` calls it once,
``ReachOriented.step_batch`` in ``prange`` over agents (one target and course per agent, or one
for all). The kernel takes the law's parameters as one record (``OrientedParams``) and the
destination and course as another (``OrientedData``); a law built from a record
(``ReachOriented.from_params``) may hold one value per agent in any field (the family too), for
``step_batch``.

**Bearing.** The seed writes ``Bearing = atan2(y, x)`` and calls it "the bearing to the
destination point". ``atan2(y, x)`` is the direction of the agent *seen from* the destination;
the direction *to* the destination is ``atan2(-y, -x)``, ``pi`` apart. steerlab reads the seed's
words: ``Bearing = atan2(-y, -x)``. The CIRCLE case cannot tell the two readings apart
(``2 Bearing`` changes by ``2 pi``, the same heading), but only this one makes ``K = 1`` in F2
("K = 1 for the line") move *to* the destination and makes ``K Bearing -> 0`` (heading along the
course) as the agent closes in from behind the destination, for every ``K``; with
``atan2(y, x)`` the heading would tend to ``K pi``. Range: ``[-pi, pi)``; the cut, where the
bearing jumps by ``2 pi``, is the course line *ahead* of the destination (``x > 0, y = 0``, where
``Bearing = -pi``), the one place where a family must choose a side anyway.

**Headings of the families** (local frame, ``d = sqrt(x^2 + y^2)``). Where the seed gives a
slope ratio ``vVely / vVelx = N / D``, the heading is ``atan2(N, D)`` with ``N`` and ``D``
exactly as the seed writes them (not simplified): this orients every curve of the family so
that it passes the origin heading ``+x``, the direction the agent must follow along its curve.
For CIRCLE it gives ``atan2(2xy, x^2 - y^2) = 2 Bearing``, as the seed's first form says.

========  ======================================  ==============================================
family    seed 000                                heading in the local frame
========  ======================================  ==============================================
LINE      ``UE_yaw = Bearing``                    ``Bearing`` (F2 with ``K = 1``)
CIRCLE    ``UE_yaw = 2 Bearing``                  F1 with ``B = 0, c = 1``: ``atan2(2xy, x^2-y^2)``
PARABOLA  ``UE_yaw = atan(2 tan(Bearing))``       F1 with ``B = 0, c = 0``: ``atan2(2xy, x^2)``
F1        ``2y(x + By) / (x^2 - (cy)^2)``         ``atan2(2y(x + By), x^2 - (cy)^2)``
F2        ``UE_yaw = K Bearing``                  ``K Bearing``
F3        ``K x y / (x^2 - y^2)``                 ``atan2(K x y, x^2 - y^2)``
F4        ``vVely / mVel = K x y / d^2``          ``sin = clamp(Kxy/d^2, -1, 1)``, ``cos`` below
F5        ``UE_yaw = atan(K tan(Bearing))``       ``atan(K y / x)``: ``vVelx >= 0``
========  ======================================  ==============================================

Conics (F1) are ``x^2 + 2Bxy + c^2 y^2 = lambda y``; the gradient of that equation, turned a
quarter and multiplied by ``y``, is the seed's ``(D, N)``, so ``atan2(N, D)`` is the tangent
oriented through the origin towards ``+x`` on every ellipse and on every branch that reaches the
origin. F4 gives only the sine ``s`` of the heading; steerlab gives its cosine
``sqrt(1 - s^2)`` the sign of ``x^2 - y^2``, the circle's orientation at ``K = 2``. For
``K >= 2`` that field is continuous (``|Kxy/d^2| = K/2 >= 1`` on ``|x| = |y|``, where the cosine
is 0); for ``K < 2`` it jumps across ``|x| = |y|`` (by ``180 - 2 asin(K/2)`` degrees), but it turns
every agent the same way round the destination for ``K >= sqrt(2)``. The other reading,
``vVelx >= 0`` everywhere (continuous), was tried and rejected: its ray ``Bearing = acos(1/K)`` is
a straight approach at ``acos(1/K)`` from the course, and from beyond it the agent never comes
back (measured: with ``K = 1.5``, 26% of the start states arrived along the course against 81%).
``|Kxy/d^2| > 1`` (only when ``K > 2``) is clamped to 1: the agent heads straight across the
course, ``+-90`` degrees.

**Singularities.** (1) The destination itself (``d = 0``, every ratio is ``0/0``): the arrival
rule below. (2) ``x^2 - y^2 = 0`` and ``x^2 - (cy)^2 = 0`` are not singular in this form
(``atan2`` of a non-zero ``N`` with ``D = 0`` is ``+-90`` degrees). (3) Where ``N = D = 0`` away
from the origin: F1 with ``|B| = c`` (parabolas, PARABOLA included) on the line ``x + By = 0``
(``x = 0`` for PARABOLA) and F5 on ``x = 0``. The field there is the limit from the side of the
line the agent arrives from (``x + By < 0``): ``atan2(-2y, -(x - By))`` for F1, ``-sign(y) 90``
degrees for F5 (towards the course line). The field cannot be continuous there: on the other
side, the curves have passed the origin and lead away from it. Coordinates are divided by ``d``
before any product, so no input overflows; no finite input gives NaN.

**Adaptation for K > 2** (seed: F2 "is absolutely great (with some adaptation, especially for
K > 2)"). What goes wrong: with ``UE_yaw = K Bearing`` the heading relative to the bearing,
``UE_yaw - Bearing = (K - 1) Bearing`` (the seed's relative bearing ``U_VelRBear``, which it
writes ``UE_yaw = Bear - U_VelRBear``, with the opposite sign), exceeds 180 degrees once
``|Bearing| > pi / (K - 1)``; the agent then turns the wrong way around the destination.
Integrating the field (``dr/dt = -v cos((K-1) Bearing)``, ``r dBearing/dt = -v sin((K-1)
Bearing)``) shows that starts with ``|Bearing| > pi / (K - 1)`` (for ``K = 3``: anywhere ahead
of the destination) converge to one of the rays ``|Bearing| = 2 pi m / (K - 1)``, ``m >= 1``,
and run straight into the destination along it, at ``360 m / (K - 1)`` degrees from the course
(head-on for ``K = 3``) instead of along it; the curves ``r ~ |sin((K - 1) Bearing)|^(1 /
(K - 1))``, tangent to the course at the destination, are only those of the basin ``|Bearing| <
pi / (K - 1)``. Adapted: the relative bearing is bounded, ``|UE_yaw - Bearing| <=
relative_bearing_max`` (< 180 degrees), with the sign of ``Bearing`` (turn around the
destination the way that brings the agent behind it). Then ``|Bearing|`` decreases along every
trajectory until the agent enters the region where the family's own heading is within the bound,
and follows its curve from there. The same rule serves the other families: it takes an agent
from where the family's curve leads away from the destination (ahead of it, for parabolas,
hyperbolas, F4 with ``K < 2``, F5) round to the side where it does not. For PARABOLA, F5 and
F1's parabolas and hyperbolas that side begins near ``x = 0``, where their curves through the
agent are narrowest: agents from ahead then reach the destination, but across the course
(measured in ``docs/fidelity.md``); these families are for starts behind the destination. Inside
the bound the family's heading is used unchanged. ``relative_bearing_max=None`` is the seed's
law exactly. The default, ``0.6 pi`` (108 degrees), is a measured choice (``docs/fidelity.md``,
"Reach a point in a given direction", claim f, table of the bound): above 90 degrees the agent
spirals outward while it goes round, so that an engine with lag or a turn-rate bound still makes
the turn (at 90 degrees it circles at constant distance, too tight for them: fewer aligned
arrivals on both engines that lag); towards 180 degrees the detour round the destination grows
(the spiral widens by ``exp(|cot(bound)|)`` per radian turned) and starts far ahead of it time
out. Among the bounds measured (90, 108, 120, 135, 162 degrees), 108 gave the most aligned
arrivals summed over ``K = 3, 4, 6`` on each engine (tied with 90 on the ideal one).

**Arrival** (not in the seed). The law always commands ``speed`` (it never stops; compose with
``StopAt`` to stop). Within the *arrival radius* of the destination, and in the strip ahead of
it along the course (``x >= 0``, ``|y| <=`` arrival radius) while moving the course's way
(velocity along the course > 0), it commands the course: near the destination every family's
heading turns fast and is undefined on it, and once past it the agent keeps the given direction
instead of turning back for another pass. The velocity condition keeps an agent that comes
*towards* the destination along the course line from ahead (LINE does, from there) from being
taken for one that has passed it. The radius is ``max(arrival_radius, speed * T)`` with the
agent's current speed (what it covers in one frame, so the default ``arrival_radius = 0`` needs
no tuning), as for ``SeekPoint``; with an engine that lags, a larger radius (the pass tolerance
the user accepts) keeps agents that pass a little off the destination from turning back. A start
inside the strip, moving along the course, counts as arrived: it keeps the course.
``arrival_radius=None`` turns the rule off (exactly on the destination the law still commands
the course).

Units: world units ``u`` and seconds; angles in radians, yaw counter-clockwise from +x.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import (
    as_float_array,
    check_finite,
    check_finite_array,
    check_nonnegative,
    check_positive,
    check_record,
    check_timestep,
)
from steerlab._jit import batch_kernel, kernel, run_entry
from steerlab._per_agent import agent_params, check_agent_count, check_shared
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.geometry.kernels import sincos, wrap_pi
from steerlab.laws._common import (
    BatchOutput,
    check_batch_size,
    check_choice,
    check_flag,
    check_points,
    check_single,
    check_targets_and_params,
    columns,
    pick,
    record_field,
    record_fields,
)

__all__ = [
    "DEFAULT_RELATIVE_BEARING_MAX",
    "FAMILIES",
    "OrientedData",
    "OrientedParams",
    "ReachOriented",
    "fit_conic",
]

FAMILIES = ("LINE", "CIRCLE", "PARABOLA", "F1", "F2", "F3", "F4", "F5")

# kernel codes of the five general families; LINE, CIRCLE and PARABOLA are members of them
_F1, _F2, _F3, _F4, _F5 = 1, 2, 3, 4, 5
# the seed's own members: family -> (code, K, B, c)
_NAMED = {
    "LINE": (_F2, 1.0, 0.0, 0.0),  # seed: "F2: K = 1 for the line"
    "CIRCLE": (_F1, 0.0, 0.0, 1.0),  # seed: "the 3 hereabove curves are members of" F1
    "PARABOLA": (_F1, 0.0, 0.0, 0.0),
}
_CODES = {"F1": _F1, "F2": _F2, "F3": _F3, "F4": _F4, "F5": _F5}

# [rad] bound of |UE_yaw - Bearing| (the seed's |U_VelRBear|), the adaptation for K > 2
# (module docstring); chosen by the measurements of steerlab.experiments.fidelity.oriented_reach
DEFAULT_RELATIVE_BEARING_MAX = 0.6 * math.pi


class OrientedParams(NamedTuple):
    """Parameters of ``ReachOriented`` (seed 000, "Reaching a point in a given direction").

    Each field is a number (``family`` a name, ``adapt`` and ``arrive`` bools), or in a law's
    batch one value per agent (a 1-D sequence; ``family`` a sequence of names). ``k`` is read by
    F2 .. F5, ``b`` and ``c`` by F1; for LINE, CIRCLE and PARABOLA, ``validated()`` sets them to
    the member's values (F2 with ``K = 1``, F1 with ``B = 0`` and ``c = 1`` or ``c = 0``).
    """

    family: str = "F2"  # one of FAMILIES (case-insensitive)
    k: float = 2.0  # the seed's K: >= 1 for F2, F3, F5, > 1 for F4
    b: float = 0.0  # the seed's B of F1, finite
    c: float = 1.0  # the seed's c of F1, >= 0
    speed: float = 320.0  # [u/s] UE_mVel > 0, commanded every frame
    # [rad] bound of |UE_yaw - Bearing| in (0, pi], the adaptation for K > 2 (module docstring)
    relative_bearing_max: float = DEFAULT_RELATIVE_BEARING_MAX
    adapt: bool = True  # the adaptation on; False: the seed's law exactly
    arrival_radius: float = 0.0  # [u] >= 0, tolerance added to the frame's travel speed * T
    arrive: bool = True  # the arrival rule on (module docstring)

    def validated(self) -> OrientedParams:
        """Return the fields as floats (``family`` an upper-case name or a tuple of them, the
        flags bools), the named families' ``k``, ``b``, ``c`` set; ``ValueError`` naming the
        first bad field."""
        family = self.family
        if isinstance(family, str):
            family = family.upper()
        elif np.ndim(family) == 1:
            family = tuple(name.upper() if isinstance(name, str) else name for name in family)
        family = check_choice("family", family, FAMILIES)
        k = check_finite("k", self.k)
        b = check_finite("b", self.b)
        c = check_finite("c", self.c)
        names = np.array([family] if isinstance(family, str) else family)
        per_agent = isinstance(family, tuple)
        if per_agent:  # the named families' members write their own K, B, c per agent
            k, b, c = (np.array(np.broadcast_to(v, names.shape)) for v in (k, b, c))
        for name, (_, k_member, b_member, c_member) in _NAMED.items():
            if per_agent:
                member = names == name
                k[member], b[member], c[member] = k_member, b_member, c_member
            elif family == name:
                k, b, c = k_member, b_member, c_member
        for field, values, bad, rule in (
            ("c", c, (names == "F1") & (np.asarray(c) < 0.0), ">= 0"),
            ("k", k, np.isin(names, ("F2", "F3", "F5")) & ~(np.asarray(k) >= 1.0), ">= 1"),
            ("k", k, (names == "F4") & ~(np.asarray(k) > 1.0), "> 1"),
        ):
            if np.any(bad):
                # bad has one entry per agent, or one for all
                index = int(np.argmax(np.ravel(bad)))
                label, value = field, values
                if isinstance(values, np.ndarray):
                    label, value = f"{field}[{index}]", float(values[index])
                name = str(names[index if names.size > 1 else 0])
                raise ValueError(f"{label} must be {rule} for family {name!r}, got {value!r}")
        if per_agent:
            for values in (k, b, c):
                values.setflags(write=False)
        bound = check_positive("relative_bearing_max", self.relative_bearing_max)
        above = np.asarray(bound) > math.pi
        if above.any():
            label = "relative_bearing_max"
            value = bound
            if isinstance(bound, np.ndarray):
                index = int(np.argmax(above))
                label, value = f"{label}[{index}]", float(bound[index])
            raise ValueError(f"{label} must be in (0, pi], got {value!r}")
        return OrientedParams(
            family=family,
            k=k,
            b=b,
            c=c,
            speed=check_positive("speed", self.speed),
            relative_bearing_max=bound,
            adapt=check_flag("adapt", self.adapt),
            arrival_radius=check_nonnegative("arrival_radius", self.arrival_radius),
            arrive=check_flag("arrive", self.arrive),
        )

    def kernel_record(self) -> OrientedParams:
        """The record as the kernels read it: ``family`` as its kernel code (``_F1`` .. ``_F5``;
        an integer, or an array of them for one family per agent)."""
        if isinstance(self.family, str):
            return self._replace(family=_code(self.family))
        codes = np.array([_code(name) for name in self.family], dtype=np.int64)
        codes.setflags(write=False)
        return self._replace(family=codes)


def _code(family: str) -> int:
    return _NAMED[family][0] if family in _NAMED else _CODES[family]


class OrientedData(NamedTuple):
    """The destination and its course as the kernels read them: numbers for one agent, arrays
    (one entry for all agents, or one per agent) in a batch loop."""

    target_x: float  # [u] the destination
    target_y: float
    course: float  # [rad] the given direction, the seed's Course
    course_cos: float  # cos and sin of course, computed once by the law
    course_sin: float


@kernel
def _family_heading(unit_x, unit_y, bearing, family, k, b, c):
    """Seed 000: the family's heading [rad] at the unit direction ``(unit_x, unit_y)``.

    ``(unit_x, unit_y) = (x, y) / d`` is the agent's position in the local frame divided by its
    distance ``d > 0`` to the destination; ``bearing = atan2(-y, -x)``. Module docstring for the
    orientation and singular lines.
    """
    if family == _F2:
        return k * bearing  # UE_yaw = K Bearing
    if family == _F1:
        numerator = 2.0 * unit_y * (unit_x + b * unit_y)  # 2y(x + By)
        denominator = unit_x * unit_x - (c * unit_y) * (c * unit_y)  # x^2 - (cy)^2
        if numerator == 0.0 and denominator == 0.0:
            # |B| = c, on the line x + By = 0: the limit from the arrival side x + By < 0
            return math.atan2(-2.0 * unit_y, -(unit_x - b * unit_y))
        return math.atan2(numerator, denominator)
    if family == _F3:
        return math.atan2(k * unit_x * unit_y, unit_x * unit_x - unit_y * unit_y)
    if family == _F4:
        sine = min(max(k * unit_x * unit_y, -1.0), 1.0)  # vVely / mVel = K x y / d^2
        cosine = math.sqrt(1.0 - sine * sine)
        if unit_x * unit_x < unit_y * unit_y:
            cosine = -cosine
        return math.atan2(sine, cosine)
    # F5: UE_yaw = atan(K tan(Bearing)), tan(Bearing) = y / x; x = 0: towards the course line
    if unit_x > 0.0:
        return math.atan2(k * unit_y, unit_x)
    return math.atan2(-k * unit_y, -unit_x)


@kernel
def _reach_oriented_command(state, params, data, dt):
    """Seed 000: the ``Command`` ``(UE_yaw, UE_mVel)`` to reach the destination heading along
    the course.

    ``state`` an ``AgentState``, ``params`` an ``OrientedParams`` as ``kernel_record()`` gives
    it (``family`` a kernel code, ``_F1`` .. ``_F5``, with its ``k``, ``b``, ``c``), ``data`` an
    ``OrientedData``; ``adapt`` and ``arrive`` switch the adaptation and the arrival rule
    (module docstring). ``state.yaw`` is unused: the heading is set by the field alone.
    """
    course, course_cos, course_sin = data.course, data.course_cos, data.course_sin
    family, k = params.family, params.k
    # the local frame: origin at the destination, x-axis along the course
    dx = state.x - data.target_x
    dy = state.y - data.target_y
    local_x = course_cos * dx + course_sin * dy
    local_y = course_cos * dy - course_sin * dx
    distance = math.hypot(local_x, local_y)
    if params.arrive:
        vx, vy = state.vx, state.vy
        radius = max(params.arrival_radius, math.sqrt(vx * vx + vy * vy) * dt)
        moving_along = course_cos * vx + course_sin * vy > 0.0
        if distance <= radius or (local_x >= 0.0 and abs(local_y) <= radius and moving_along):
            # arrived, or past the destination on its course line
            return Command(wrap_pi(course), params.speed)
    elif distance == 0.0:
        return Command(wrap_pi(course), params.speed)  # on it, the rule off: no 0/0
    # bearing to the destination, in [-pi, pi): -pi on the course line ahead of it (the + 0.0
    # turns a -0.0 into 0.0 so that the cut does not depend on the sign of a zero)
    bearing = math.atan2(-(local_y + 0.0), -local_x)
    heading = _family_heading(
        local_x / distance, local_y / distance, bearing, family, k, params.b, params.c
    )
    if params.adapt:
        # UE_yaw - Bearing (-U_VelRBear), bounded and of the sign of Bearing (adaptation)
        # F2: (K - 1) Bearing, not wrapped: it is what exceeds pi when K > 2
        relative = (k - 1.0) * bearing if family == _F2 else wrap_pi(heading - bearing)
        side = 1.0 if bearing >= 0.0 else -1.0
        bound = params.relative_bearing_max
        if side * relative < 0.0 or abs(relative) > bound:
            heading = bearing + side * min(abs(relative), bound)
    return Command(wrap_pi(course + heading), params.speed)


@batch_kernel
def _reach_oriented_batch(x, y, vx, vy, yaw, params, data, dt, out_yaw, out_speed):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i] = _reach_oriented_command(
            AgentState(x[i], y[i], vx[i], vy[i], yaw[i]),
            agent_params(params, i),
            OrientedData(
                pick(data.target_x, i),
                pick(data.target_y, i),
                pick(data.course, i),
                pick(data.course_cos, i),
                pick(data.course_sin, i),
            ),
            dt,
        )


@batch_kernel
def _sincos_array(angles, sines, cosines):
    """``sincos`` of each course, once per law: the kernels take the rotation from here."""
    for i in numba.prange(angles.size):
        sines[i], cosines[i] = sincos(angles[i])


def _finite_values(name: str, value) -> np.ndarray:
    """``value`` (a number or an array of numbers) as float64; ``ValueError`` naming ``name``
    and the first entry that is not finite."""
    array = as_float_array(name, value, "a number or an array of numbers")
    if not np.isfinite(array).all():
        bad = array[~np.isfinite(array)].flat[0]
        raise ValueError(f"{name} must be finite, got {bad!r}")
    return array


def fit_conic(x, y, heading) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """F1's ``(B, c)`` whose conic through ``(x, y)`` has the tangent ``heading`` there, in the
    local frame (module docstring: origin the destination, x-axis the course).

    Seed 000: "Except for the F1 family thanks to more parameters, the velocity angles are set by
    the equations". F1's heading is ``atan2(N, D)``, ``N = 2y(x + By)``, ``D = x^2 - c^2 y^2``:
    it equals ``heading`` when ``(D, N) = lambda (cos, sin)(heading)`` with ``lambda > 0``. Two
    parameters, one condition: steerlab takes the conic's scale ``lambda = d^2`` (the circle's),
    reduced to ``x^2 / (2 cos(heading))`` where ``c^2 = (x^2 - lambda cos(heading)) / y^2`` would
    otherwise be negative, then ``B = (lambda sin(heading) / (2y) - x) / y``.

    Parameters
    ----------
    x, y : float or array_like
        [u] the agent's position in the local frame.
    heading : float or array_like
        [rad] its heading in the local frame (its yaw minus the course).

    Returns
    -------
    (b, c, fitted) : numpy.ndarray
        ``fitted`` is False where no conic of F1 fits (``y = 0``, or ``x = 0`` with a heading
        pointing to ``+x``); there ``b = 0, c = 1`` (the circle).
    """
    x, y, heading = (
        _finite_values(name, value) for name, value in (("x", x), ("y", y), ("heading", heading))
    )
    try:
        x, y, heading = np.broadcast_arrays(x, y, heading)
    except ValueError:
        raise ValueError(
            f"x, y and heading must broadcast to one shape, got shapes {np.shape(x)}, "
            f"{np.shape(y)} and {np.shape(heading)}"
        ) from None
    cosine, sine = np.cos(heading), np.sin(heading)
    scale = x * x + y * y
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        limited = np.where(cosine > 0.0, np.minimum(scale, x * x / (2.0 * cosine)), scale)
        c_squared = (x * x - limited * cosine) / (y * y)
        b = (limited * sine / (2.0 * y) - x) / y
    fitted = (y != 0.0) & (limited > 0.0) & np.isfinite(b) & np.isfinite(c_squared)
    b = np.where(fitted, b, 0.0)
    c = np.where(fitted, np.sqrt(np.maximum(np.where(fitted, c_squared, 1.0), 0.0)), 1.0)
    return b, c, fitted


class ReachOriented:
    """Reach a point heading along a given direction (seed 000, "Reaching a point in a given
    direction").

    Parameters
    ----------
    target : (x, y), or an (n, 2) array (one per agent, for ``step_batch``)
        The destination [u].
    course : float, or an (n,) array
        The given direction [rad], counter-clockwise from +x (the seed's ``Course``); one per
        agent or one for all.
    family : str
        ``"LINE"``, ``"CIRCLE"``, ``"PARABOLA"``, ``"F1"``, ``"F2"``, ``"F3"``, ``"F4"`` or
        ``"F5"`` (case-insensitive); module docstring for each heading law.
    k : float or None
        The seed's ``K`` of F2 .. F5 (default 2: the circle for F2, F3, F4, the parabola for F5).
        Domain: ``K >= 1`` for F2, F3, F5 (``K = 1`` is the seed's line for F2 and F5: it
        reaches the point but not the course), ``K > 1`` for F4 (at ``K = 1`` its approach ray
        is unstable). Below 1 no family's curves reach the origin along the x-axis.
    b, c : float or None
        The seed's ``B`` and ``c`` of F1 (defaults 0 and 1: the circle): any finite ``B``,
        ``c >= 0`` (only ``c^2`` enters). ``|B| > c`` hyperbolas, ``|B| = c`` parabolas,
        ``|B| < c`` ellipses (the seed writes ``B > c``, ``B = c``, ``B < c``, for ``B >= 0``).
    speed : float
        ``UE_mVel`` [u/s] > 0, commanded every frame. Default 320: Half-Life's
        ``sv_maxspeed``, as ``SeekPoint``'s ``speed_bound``.
    relative_bearing_max : float or None
        Bound of ``|UE_yaw - Bearing|`` (the seed's ``|U_VelRBear|``) [rad] in ``(0, pi]``,
        the adaptation for ``K > 2`` (module docstring); ``None`` is the seed's law exactly.
        Default ``0.6 pi`` (108 degrees).
    arrival_radius : float or None
        Tolerance [u] >= 0 added to the frame's own travel ``speed * T`` for the arrival rule
        (module docstring); ``None`` turns the rule off.

    Raises
    ------
    ValueError
        NaN or infinite target or course, an unknown family, ``K``, ``B`` or ``c`` outside the
        family's domain or given to a family that has no such parameter, ``speed <= 0``.

    Notes
    -----
    ``ReachOriented.from_params(target, course, OrientedParams(...))`` builds the law from its
    record, in which any field may hold one value per agent (for ``step_batch``).
    """

    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    def __init__(
        self,
        target,
        course,
        family: str = "F2",
        k: float | None = None,
        speed: float = 320.0,
        *,
        b: float | None = None,
        c: float | None = None,
        relative_bearing_max: float | None = DEFAULT_RELATIVE_BEARING_MAX,
        arrival_radius: float | None = 0.0,
    ):
        self._set_data(target, course)
        name, _, k_value, b_value, c_value = _check_family(family, k, b, c)
        adapt = relative_bearing_max is not None
        arrive = arrival_radius is not None
        params = OrientedParams(
            family=name,
            k=k_value,
            b=b_value,
            c=c_value,
            speed=speed,
            relative_bearing_max=relative_bearing_max if adapt else math.pi,
            adapt=adapt,
            arrival_radius=arrival_radius if arrive else 0.0,
            arrive=arrive,
        )
        self._set_params(params)

    @classmethod
    def from_params(cls, target, course, params: OrientedParams) -> ReachOriented:
        """The law to ``target`` along ``course`` with the record ``params`` (fields may be per
        agent)."""
        check_record("params", params, OrientedParams)
        law = cls.__new__(cls)
        law._set_data(target, course)
        law._set_params(params)
        return law

    @classmethod
    def fitted(
        cls,
        target,
        course,
        state: AgentState | AgentBatch,
        speed: float = 320.0,
        *,
        relative_bearing_max: float | None = DEFAULT_RELATIVE_BEARING_MAX,
        arrival_radius: float | None = 0.0,
    ) -> ReachOriented:
        """F1 fitted to the agent's current heading: the conic through its position starts
        along its yaw (``fit_conic``; seed 000: F1 "thanks to more parameters"), so the curve
        begins without a turn. ``state`` an ``AgentState`` (one law for ``step``) or an
        ``AgentBatch`` (one conic per agent, for ``step_batch``). Where no conic fits (the agent
        on the course line, or abeam of the destination heading along the course), the circle.
        """
        law = cls.__new__(cls)
        law._set_data(target, course)
        if isinstance(state, AgentBatch):
            x, y, yaw = state.x, state.y, state.yaw
        else:
            state = check_state(state)
            x, y, yaw = np.array([state.x]), np.array([state.y]), np.array([state.yaw])
        data = law._data
        dx, dy = x - data.target_x, y - data.target_y
        local_x = dx * data.course_cos + dy * data.course_sin
        local_y = -dx * data.course_sin + dy * data.course_cos
        heading = np.array([wrap_pi(float(a)) for a in yaw - data.course])
        b, c, _ = fit_conic(local_x, local_y, heading)
        one = isinstance(state, AgentState)
        adapt = relative_bearing_max is not None
        arrive = arrival_radius is not None
        params = OrientedParams(
            family="F1",
            b=float(b[0]) if one else b,
            c=float(c[0]) if one else c,
            speed=speed,
            relative_bearing_max=relative_bearing_max if adapt else math.pi,
            adapt=adapt,
            arrival_radius=arrival_radius if arrive else 0.0,
            arrive=arrive,
        )
        law._set_params(params)
        return law

    def _set_data(self, target, course) -> None:
        self._points = check_points("target", target)
        self._course = _check_course(course)
        several_targets = self._points.shape[0] > 1
        several_courses = self._course.size > 1
        if several_targets and several_courses and self._points.shape[0] != self._course.size:
            raise ValueError(
                f"course holds {self._course.size} angles but target holds "
                f"{self._points.shape[0]} points"
            )
        course_sin = np.empty(self._course.size)
        course_cos = np.empty(self._course.size)
        _sincos_array(self._course, course_sin, course_cos)
        target_x, target_y = columns(self._points)
        self._data = OrientedData(target_x, target_y, self._course, course_cos, course_sin)
        # scalar path: plain floats (the first entries; step refuses several)
        self._single = OrientedData(*(float(values[0]) for values in self._data))

    def _set_params(self, params: OrientedParams) -> None:
        self.params = params.validated()
        self.agents = check_targets_and_params("target", self._points, self.params)
        if self.agents is not None and self._course.size not in (1, self.agents):
            raise ValueError(
                f"course holds {self._course.size} angles but {type(params).__name__} holds "
                f"{self.agents} values per field (one per agent)"
            )
        self._kernel_record = self.params.kernel_record()

    @property
    def target(self) -> np.ndarray:
        """The destination(s), ``(2,)`` for one or ``(n, 2)`` for one per agent."""
        return self._points[0].copy() if self._points.shape[0] == 1 else self._points.copy()

    @property
    def course(self) -> float | np.ndarray:
        """The given direction(s) [rad], a float for one or an ``(n,)`` array for one per agent."""
        return float(self._course[0]) if self._course.size == 1 else self._course.copy()

    family, k, b, c, speed = record_fields("family", "k", "b", "c", "speed")
    relative_bearing_max = record_field(
        "relative_bearing_max",
        flag="adapt",
        doc="[rad]; ``None`` when the adaptation is off (the seed's law).",
    )
    arrival_radius = record_field(
        "arrival_radius", flag="arrive", doc="[u]; ``None`` when the arrival rule is off."
    )

    def step(self, state: AgentState, dt: float) -> Command:
        """The command for this frame."""
        check_single("target", self._points)
        if self._course.size != 1:
            raise ValueError(
                f"course holds {self._course.size} angles (one per agent): use step_batch, or "
                f"build the law with a single course for step"
            )
        if self.agents is not None:
            check_shared(self.params, "ReachOriented.step")
        state = check_state(state)
        dt = check_timestep(dt)
        arguments = (state, self._kernel_record, self._single, dt)
        return Command(*run_entry(self, _reach_oriented_command, arguments))

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch`` (``out`` reused when given)."""
        check_batch_size("target", self._points, batch)
        if self._course.size not in (1, batch.size):
            raise ValueError(
                f"course holds {self._course.size} angles but the batch has {batch.size} agents"
            )
        check_agent_count(self.params, batch.size)
        dt = check_timestep(dt)
        out = BatchOutput.ensure(out, batch.size)
        _reach_oriented_batch(
            *batch.fields(), self._kernel_record, self._data, dt, out.yaw, out.speed
        )
        return out

    def reset(self) -> None:
        """The law holds no memory between frames."""

    def __repr__(self) -> str:
        families = (self.family,) if isinstance(self.family, str) else self.family
        parameters = ""
        if "F1" in families:
            parameters += f", b={_listed(self.b)}, c={_listed(self.c)}"
        if {"F2", "F3", "F4", "F5"} & set(families):
            parameters += f", k={_listed(self.k)}"
        course = self.course
        course = course.tolist() if isinstance(course, np.ndarray) else course
        family = self.family if isinstance(self.family, str) else list(self.family)
        return (
            f"ReachOriented(target={self.target.tolist()}, course={course}, "
            f"family={family!r}{parameters}, speed={_listed(self.speed)}, "
            f"relative_bearing_max={_listed(self.relative_bearing_max)}, "
            f"arrival_radius={_listed(self.arrival_radius)})"
        )


def _listed(value):
    return value.tolist() if isinstance(value, np.ndarray) else value


def _check_course(course) -> np.ndarray:
    """Validate one course [rad] or one per agent; return a contiguous ``(m,)`` array."""
    if np.ndim(course) == 0:
        return np.array([check_finite("course", course)])
    array = as_float_array("course", course, "an angle [rad] or a 1-D array of angles")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"course must be an angle [rad] or a 1-D array of angles, got shape {array.shape}"
        )
    return np.ascontiguousarray(check_finite_array("course", array))


def _check_family(family, k, b, c):
    """Validate the family and its parameters; return ``(name, code, K, B, c)`` as floats."""
    name = family.upper() if isinstance(family, str) else None
    if name not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if name in _NAMED:
        for argument, value in (("k", k), ("b", b), ("c", c)):
            if value is not None:
                raise ValueError(
                    f"{argument} does not apply to family {name!r} (a fixed member of F1/F2), "
                    f"got {argument}={value!r}"
                )
        code, k_value, b_value, c_value = _NAMED[name]
        return name, code, k_value, b_value, c_value
    code = _CODES[name]
    if code == _F1:
        if k is not None:
            raise ValueError(f"k does not apply to family 'F1' (it takes b and c), got k={k!r}")
        b_value = 0.0 if b is None else check_finite("b", b)
        c_value = 1.0 if c is None else check_nonnegative("c", c)
        return name, code, 0.0, b_value, c_value
    for argument, value in (("b", b), ("c", c)):
        if value is not None:
            raise ValueError(
                f"{argument} does not apply to family {name!r} (it takes k), "
                f"got {argument}={value!r}"
            )
    k_value = 2.0 if k is None else check_finite("k", k)
    if code == _F4:
        if not k_value > 1.0:
            raise ValueError(f"k must be > 1 for family 'F4', got {k!r}")
    elif not k_value >= 1.0:
        raise ValueError(f"k must be >= 1 for family {name!r}, got {k!r}")
    return name, code, k_value, 0.0, 0.0
