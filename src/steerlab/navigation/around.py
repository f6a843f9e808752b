"""Navigation around points (seed 002): slalom around points in order, switching on tangency.

Seed 002, "Navigation around points": nav data are "points (3D coordinates, flags) or
(close-to-)vertical wedges/'poles' (segment, turning sign) around which the bot will turn";
the applicable law is seed 000's "Moving passed & around a point", ``UE_yaw = Bear - Sgn *
asin(min(U_Dist / MQ, 1))``, ``UE_mVel = min(k_D MQ, SPEEDBOUND)`` (the kernel
``steerlab.laws.point._around_point_command``, not rewritten here). "The bot moves towards the
current point, then around. It switches to the next point when it is in a position to move
tangentially to the next point circle. Tangency can be checked on the actual yaw (better but
may cause locks, ie continuous circling, ...) or on the yaw command based on the next point.
The sign of turn tells on which side the next point must lie."

Readings and additions (``docs/design.md``, "Navigation around points"):

- **Points.** Each ``SlalomPoint`` gives its ``center[:2]`` (a pole's bottom end), ``side``
  (+1: the point on the agent's left, counter-clockwise turn) and ``radius`` (``U_Dist``).
  Agents move in the plane.
- **Tangency test.** Let ``t_next`` be the law's yaw command towards the *next* point (the
  tangent to its circle with the next point on side ``side_next``, from the same kernel) and
  ``h`` the heading checked: this frame's command towards the current point
  (``check="command"``, default, the seed's safe choice) or the agent's actual heading
  (``check="yaw"``: the direction of its velocity, its yaw at rest; on Half-Life the state's
  yaw is the last command, so the velocity is the "actual yaw" of the seed's BaseEngine).
  With ``d = side_cur * wrap_pi(t_next - h)`` (``d > 0`` while ``h``, turning around the current
  point in its sense, has not reached the tangent), the tangent is *reached* when ``-pi/2 < d <=
  0`` (recently reached; the bound rejects the opposite branch of the wrap) and the next point
  lies on side ``side_next`` of ``h`` (cross product; the seed's "sign of turn"). Two
  additions: a crossing within the frame (``d`` moved from ``(0, pi/2)`` into ``(-pi/2, 0]``)
  counts even if the frame's rotation carried ``h`` past the side limit (otherwise a coarse
  frame misses a same-sign tangent and the agent loops once more); the next point must not be
  behind the current one along ``h`` (``dot(u_h, Q_next - Q_cur) >= 0``: on a common tangent
  the current circle's tangent point comes first), and with ``check="yaw"`` the current point
  must lie on its own side of ``h``.
- **Gate: "towards the current point, then around".** A switch also needs the agent to have
  begun going around the current point: its closest approach is passed (the distance
  decreased, then stopped decreasing: the point is abeam or behind the actual heading), or
  it is inside the circle. Without the gate the switch can happen far away: on a slalom whose
  consecutive circles are nearly aligned the tangent is "already past" from the start (``d``
  slightly negative on the approach), and the agent would head for the next point at once. That
  early switch is harmless for the order and the side (the new tangent passes the current point
  on its side, farther out), but the agent no longer goes towards and around the point as the
  seed says: it passes it wide. A tangency reached while the gate is closed is remembered
  (``tangent_reached``) and the switch happens when the gate opens: with a lagging engine the
  command towards the current point swings fast near its circle, and testing the window only at
  the gate's opening missed it and made the agent loop (measured on BaseEngine ``k_yaw = 4``).
  So the switch of an "already past" tangent happens at the closest approach, with a jump of
  the yaw command; a tangent reached while going around (a genuine crossing) is switched on the
  frame of the crossing, where the command jumps by at most that frame's rotation.
- **Inside the next circle** (``MQ_next <= r_next``) the tangent is undefined (the law then
  commands a heading perpendicular to the bearing): the navigator switches as soon as the gate
  is open.
- **One switch per frame**, in order: the index grows by one at a time, never skips a point.
- **Locks** (the seed's "continuous circling ... when the 2 points are too close and their
  radius too small compared to the actual bot turn radius"). ``turned`` accumulates the
  rotation of the agent's (predicted) position around the current point, in the point's sense,
  since the switch to it; beyond ``max_turns`` turns (default 1.5) the navigator switches anyway
  and counts it in ``locks_broken``. ``math.inf`` disables the breaker. Reproduced (tests):
  with ``check="yaw"`` and a yaw-rate-bounded engine whose turning circle (radius speed / rate
  bound) holds the next point's circle, no line along the agent's course ever touches that
  circle and the agent circles the current point for ever; ``check="command"`` switches there.
  On the last point the breaker has nothing to switch to: the final rule below applies.
- **Predicted position** (the seed's "This can be reduced by using a predicted position instead
  of the position alone"): with ``prediction_horizon`` the law and every test use ``P = M +
  horizon * vVel``; for Half-Life the seed's ``PredCoeff = -T + 1/Friction``
  (``half_life_prediction_horizon``). Measured on Half-Life (``T`` = 0.01 and 0.03; the slalom
  file, a 90-degree turn and a U-turn around one point), as the largest distance from the path
  an ideal engine draws with the same navigator (the law's own path): the seed's horizon
  reduces it on the slalom (53 -> 38 units at ``T = 0.01``) and the 90-degree turn (53 -> 36)
  but not on the U-turn (35 -> 41). That horizon is long for circling (``horizon * speed`` is
  60-77 units against radii of 32-96): with ``P`` kept on the circle the agent runs at
  ``sqrt(r^2 + (horizon v)^2)`` from the point (its excursion outside the circle grows, 16 -> 39
  units on the 90-degree turn) and, where the turn reverses, cuts inside circles by up to 41
  units. Half the seed's horizon did better than both in every case on the largest distance
  (13, 24 and 15 units) and on the excursion outside the circles (at most 11 units), at the
  cost of cutting up to 8 units inside a circle (never inside without prediction). ``horizon =
  0`` (default) is the seed's law.
- **Final point: go past it, then stop.** After switching to the last point the agent goes
  around it until it has gone past it: closest approach passed within ``2 r + speed * T`` of the
  point (one radius of lag allowed, plus one frame of travel), or half a turn around it either
  way (this also catches a predicted position resting on a point of radius 0). The navigator
  then commands zero speed and holds the heading, latched until ``reset()`` (``finished``). The
  agent stops where its engine brings it to rest. A single point is a final point.
- **Flags** (``navigation.flags``). While a point flagged ``walk`` or ``crouch`` is the current
  one, ``SPEEDBOUND`` is scaled by ``walk_factor`` or ``crouch_factor``, and before the switch to
  it the speed is at most ``approach_bound`` of that bound, the entry being its circle (the
  tangent command of the switching test uses the next point's bound too). A point to go round
  is neither climbed nor jumped to: ``ladder`` and ``jump`` on points are carried, not driven.
  ``AroundMemory.applied_flags`` reports the rules applied.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_nonnegative, check_positive, check_record
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, set_agent
from steerlab.engines.state import AgentState
from steerlab.geometry.kernels import atan2, sincos, wrap_pi
from steerlab.laws._common import (
    Target,
    check_choice,
    choice_codes,
    frame_gain,
    largest_finite,
    record_field,
    record_fields,
)
from steerlab.laws.point import AroundParams, _around_point_command
from steerlab.navigation._batch import Navigator, check_lists
from steerlab.navigation.flags import (
    CROUCH_FACTOR,
    WALK_FACTOR,
    approach_bound,
    check_factor,
    segment_bound,
)
from steerlab.navigation.navdata import PointsNav
from steerlab.navigation.route import flag_mask

__all__ = ["CHECKS", "AroundMemory", "AroundPoints", "AroundPointsParams"]

CHECKS = ("command", "yaw")
"""The headings the tangency can be checked on (``AroundPoints(check=...)``)."""

_YAW = CHECKS.index("yaw")  # ``kernel_record().check`` of check="yaw"
_HALF_PI = 0.5 * math.pi


class AroundPointsParams(NamedTuple):
    """Parameters of ``AroundPoints`` (seed 002, "Navigation around points").

    Each field is a number (``check`` a name of ``CHECKS``), or in a navigator's batch one value
    per agent (a 1-D sequence).
    """

    # [1/s] k_D, 0 < k_D <= 1/T (checked at each step); inf: 1/T, the seed's "simplest form"
    k_d: float = math.inf
    speed_bound: float = 320.0  # [u/s] SPEEDBOUND > 0; inf: none
    check: str = "command"  # one of CHECKS: the heading whose tangency is checked
    prediction_horizon: float = 0.0  # [s] >= 0, the law and the tests use M + horizon vVel
    max_turns: float = 1.5  # > 0, turns around one point before a forced switch; inf: never
    walk_factor: float = WALK_FACTOR  # in (0, 1], the speed bound's scale at walk points
    crouch_factor: float = CROUCH_FACTOR  # > 0, its scale at crouch points

    def validated(self) -> AroundPointsParams:
        """Return the fields as floats (``check`` a name); ``ValueError`` naming the first bad
        one."""
        return AroundPointsParams(
            k_d=check_positive("k_d", self.k_d, allow_inf=True),
            speed_bound=check_positive("speed_bound", self.speed_bound, allow_inf=True),
            check=check_choice("check", self.check, CHECKS),
            prediction_horizon=check_nonnegative("prediction_horizon", self.prediction_horizon),
            max_turns=check_positive("max_turns", self.max_turns, allow_inf=True),
            walk_factor=check_factor("walk_factor", self.walk_factor),
            crouch_factor=check_factor("crouch_factor", self.crouch_factor),
        )

    def kernel_record(self) -> AroundPointsParams:
        """The record as the kernels read it: ``check`` as its index in ``CHECKS``."""
        return self._replace(check=choice_codes(self.check, CHECKS))


class PointLists(NamedTuple):
    """The packed point lists as the kernels read them: one entry per point, and each agent's
    ``(first, count)`` into them (one entry per agent, or one for all)."""

    centers_x: np.ndarray  # [u]
    centers_y: np.ndarray
    radii: np.ndarray  # [u] U_Dist of each point
    sides: np.ndarray  # +-1.0
    mask: np.ndarray  # int64, the point's walk and crouch flags (FLAG_BITS)
    first: np.ndarray  # int64, each list's first point in the packed arrays
    count: np.ndarray  # int64, its number of points


class AroundMemory(NamedTuple):
    """What ``AroundPoints`` remembers between frames (scalars for ``step``, arrays in batch).

    Attributes
    ----------
    index : int
        Current point, an index into the agent's point list (0 = its first point).
    turned : float
        [rad] rotation of the (predicted) position around the current point since the switch
        to it, counted positive in the point's ``side`` sense (the lock detector).
    previous_angle : float
        [rad] last frame's angular position around the current point (NaN before the first
        frame).
    previous_difference : float
        [rad] last frame's ``side * wrap_pi(t_next - h)`` (NaN before the first frame, right
        after a switch, and on the last point).
    approached : bool
        The agent has moved towards the current point since the switch to it.
    around : bool
        Closest approach to the current point passed (the distance stopped decreasing after
        ``approached``); with "inside its circle", the switching gate.
    tangent_reached : bool
        The tangency test has held on some frame since the switch to the current point (the
        switch waits for the gate).
    locks_broken : int
        Switches forced by the lock breaker (``max_turns``), over the whole run.
    finished : bool
        The final point has been gone past: zero speed, heading held, until ``reset()``.
    applied_flags : int
        The flags whose rules shaped this frame's command, a ``FLAG_BITS`` mask
        (``navigation.flags.flag_names``): the current point's ``walk`` and ``crouch``.
    """

    index: int = 0
    turned: float = 0.0
    previous_angle: float = math.nan
    previous_difference: float = math.nan
    approached: bool = False
    around: bool = False
    tangent_reached: bool = False
    locks_broken: int = 0
    finished: bool = False
    applied_flags: int = 0


@kernel(inline="never")
def _around_points_command(state, memory, params, points, agent, dt):
    """Seed 002 "around points" for one agent: command and new memory.

    ``state`` an ``AgentState``, ``memory`` an ``AroundMemory``, ``params`` an
    ``AroundPointsParams`` as ``kernel_record()`` gives it, ``points`` the ``PointLists``: the
    agent's points are ``first[agent] : first[agent] + count[agent]``. Returns ``(UE_yaw,
    UE_mVel, *memory)`` with the fields of ``AroundMemory`` in order; see the module docstring
    for the switching rule.

    Called, not inlined, by the batch loop: inlined, the parallel build's compile takes tens of
    seconds longer; called, the batch is a few per cent slower (docs/performance.md).
    """
    x = state.x
    y = state.y
    vx = state.vx
    vy = state.vy
    yaw = state.yaw
    index = memory.index
    turned = memory.turned
    previous_angle = memory.previous_angle
    previous_difference = memory.previous_difference
    approached = memory.approached
    around = memory.around
    tangent_reached = memory.tangent_reached
    locks_broken = memory.locks_broken
    finished = memory.finished
    centers_x = points.centers_x
    centers_y = points.centers_y
    radii = points.radii
    sides = points.sides
    first = points.first[agent]
    count = points.count[agent]
    k_d = params.k_d
    check_yaw = params.check == _YAW
    horizon = params.prediction_horizon
    max_turn_angle = 2.0 * math.pi * params.max_turns
    # predicted position P = M + horizon * vVel: the law and every test use it
    px = x + horizon * vx
    py = y + horizon * vy
    speed_now = math.sqrt(vx * vx + vy * vy)
    course = atan2(vy, vx) if speed_now > 0.0 else yaw  # the actual heading of the motion
    course_sin, course_cos = sincos(course)
    last = count - 1
    i = first + index
    center_x = centers_x[i]
    center_y = centers_y[i]
    radius = radii[i]
    side = sides[i]
    speed_bound = segment_bound(
        params.speed_bound, points.mask[i], 1.0, params.walk_factor, params.crouch_factor, 1.0
    )
    dx = center_x - px
    dy = center_y - py
    distance = math.sqrt(dx * dx + dy * dy)  # MQ
    # rotation of P around the current point, in the point's sense (the lock detector)
    angle = atan2(-dy, -dx)
    if previous_angle == previous_angle:  # not NaN
        turned += side * wrap_pi(angle - previous_angle)
    previous_angle = angle
    # closest approach passed: the distance has decreased, then stopped decreasing (the point
    # is abeam or behind)
    closing = course_cos * dx + course_sin * dy  # > 0: moving towards the point
    approached = approached | (closing > 0.0)
    around = around | (approached & (closing <= 0.0))
    # "has begun going around": closest approach passed, or inside the circle
    going_around = around | (distance <= radius)
    predicted = AgentState(px, py, vx, vy, yaw)
    heading, speed = _around_point_command(
        predicted, AroundParams(radius, side, k_d, speed_bound), Target(center_x, center_y), dt
    )
    difference = math.nan
    if index < last:
        j = i + 1
        next_x = centers_x[j]
        next_y = centers_y[j]
        next_radius = radii[j]
        next_side = sides[j]
        next_bound = segment_bound(
            params.speed_bound, points.mask[j], 1.0, params.walk_factor, params.crouch_factor, 1.0
        )
        tangent, next_speed = _around_point_command(
            predicted,
            AroundParams(next_radius, next_side, k_d, next_bound),
            Target(next_x, next_y),
            dt,
        )
        checked = course if check_yaw else heading
        checked_sin, checked_cos = sincos(checked)
        # > 0: the checked heading has not reached the next tangent yet, turning in `side`
        difference = side * wrap_pi(tangent - checked)
        next_dx = next_x - px
        next_dy = next_y - py
        next_distance = math.sqrt(next_dx * next_dx + next_dy * next_dy)
        reached = (difference <= 0.0) & (difference > -_HALF_PI)
        crossed = (previous_difference > 0.0) & (previous_difference < _HALF_PI)  # NaN: False
        next_on_side = next_side * (checked_cos * next_dy - checked_sin * next_dx) >= 0.0
        current_on_side = side * (checked_cos * dy - checked_sin * dx) >= 0.0
        in_order = checked_cos * (next_x - center_x) + checked_sin * (next_y - center_y) >= 0.0
        tangency = reached & (next_on_side | crossed) & (current_on_side | (not check_yaw))
        tangent_reached = tangent_reached | (tangency & in_order)
        inside_next = next_distance <= next_radius
        regular = going_around & (tangent_reached | inside_next)
        lock = turned > max_turn_angle
        if regular | lock:
            if not regular:
                locks_broken += 1
            index += 1
            heading = tangent
            speed = next_speed
            turned = 0.0
            previous_angle = atan2(-next_dy, -next_dx)
            difference = math.nan
            approached = False
            around = False
            tangent_reached = False
        elif next_bound < speed_bound:  # slow down for a slower next point (navigation.flags)
            entry = next_distance - next_radius
            gain = frame_gain(k_d, dt)
            speed = min(speed, approach_bound(next_bound, gain, entry, speed_now * dt))
    else:
        passed = around & (distance <= 2.0 * radius + speed_now * dt)
        finished = finished | passed | (abs(turned) >= math.pi)
    if finished:
        heading = yaw
        speed = 0.0
    return (
        heading,
        speed,
        index,
        turned,
        previous_angle,
        difference,
        approached,
        around,
        tangent_reached,
        locks_broken,
        finished,
        points.mask[first + index],
    )


@batch_kernel
def _around_points_batch(state, memory, params, points, dt, out):
    """``_around_points_command`` for every agent: ``state`` an ``AgentState`` of arrays,
    ``memory`` an ``AroundMemory`` of arrays (updated in place), ``out`` a ``Command`` of arrays
    (written), both written by index (``set_agent``)."""
    for i in numba.prange(state.x.size):
        command = _around_points_command(
            agent_params(state, i), agent_params(memory, i), agent_params(params, i), points, i, dt
        )
        set_agent(out, i, command[:2])
        set_agent(memory, i, command[2:])


class _PointList(NamedTuple):
    centers: np.ndarray  # (n, 2)
    sides: np.ndarray  # (n,) of +-1.0
    radii: np.ndarray  # (n,)
    masks: np.ndarray | None = None  # (n,) int64, walk and crouch flags; None: none


def _check_arrays(centers, sides, radii, name: str = "") -> _PointList:
    """Validate one point list given as arrays; ``name`` prefixes the argument names."""
    try:
        centers = np.asarray(centers, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}centers must be an (n, 2) array, got {centers!r}") from None
    if centers.ndim != 2 or centers.shape[1] != 2 or centers.shape[0] == 0:
        raise ValueError(
            f"{name}centers must be an (n, 2) array with n >= 1 points, got shape {centers.shape}"
        )
    size = centers.shape[0]
    if not np.isfinite(centers).all():
        row = int(np.argmin(np.isfinite(centers).all(axis=1)))
        raise ValueError(f"{name}centers[{row}] must be finite, got {centers[row].tolist()!r}")
    arrays = []
    for label, values in (("sides", sides), ("radii", radii)):
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name}{label} must be a 1-D array, got {values!r}") from None
        if array.shape != (size,):
            raise ValueError(
                f"{name}{label} must have shape ({size},) (one per point), got {array.shape}"
            )
        arrays.append(array)
    sides, radii = arrays
    bad = np.flatnonzero((sides != 1.0) & (sides != -1.0))
    if bad.size:
        raise ValueError(f"{name}sides[{bad[0]}] must be +1 or -1, got {sides[bad[0]]!r}")
    bad = np.flatnonzero(~(np.isfinite(radii) & (radii >= 0.0)))
    if bad.size:
        raise ValueError(f"{name}radii[{bad[0]}] must be finite and >= 0, got {radii[bad[0]]!r}")
    return _PointList(centers, sides, radii)


def _lists_from_navdata(points) -> list[_PointList]:
    if isinstance(points, PointsNav):
        navs = [points]
    elif isinstance(points, Sequence) and not isinstance(points, (str, bytes)):
        navs = list(points)
        if not navs:
            raise ValueError("points must be a PointsNav or a non-empty sequence of them, got []")
    else:
        raise ValueError(f"points must be a PointsNav or a sequence of PointsNav, got {points!r}")
    lists = []
    for number, nav in enumerate(navs):
        if not isinstance(nav, PointsNav):
            raise ValueError(f"points[{number}] must be a PointsNav, got {type(nav).__name__}")
        arrays = _check_arrays(
            [point.center[:2] for point in nav.points],
            [point.side for point in nav.points],
            [point.radius for point in nav.points],
            f"points[{number}]: ",
        )
        masks = [flag_mask(point.flags & {"walk", "crouch"}) for point in nav.points]
        lists.append(arrays._replace(masks=np.array(masks, dtype=np.int64)))
    return lists


def _params(
    k_d: float | None = None,
    speed_bound: float = 320.0,
    check: str = "command",
    prediction_horizon: float = 0.0,
    max_turns: float = 1.5,
    walk_factor: float = WALK_FACTOR,
    crouch_factor: float = CROUCH_FACTOR,
) -> AroundPointsParams:
    """The record of the constructor's keywords (``k_d=None``: ``inf``, ``1/T``)."""
    k_d = math.inf if k_d is None else check_positive("k_d", k_d)
    if not isinstance(check, str) or check not in CHECKS:
        raise ValueError(f"check must be one of {CHECKS}, got {check!r}")
    return AroundPointsParams(
        k_d, speed_bound, check, prediction_horizon, max_turns, walk_factor, crouch_factor
    )


class AroundPoints(Navigator):
    """Navigation around points (seed 002): towards, then around each point in turn, then stop.

    Each frame the agent goes towards, then around its current point with seed 000's "Moving
    passed & around a point" (``UE_yaw = Bear - side * asin(min(r / MQ, 1))``, ``UE_mVel =
    min(k_D MQ, SPEEDBOUND)``; the kernel of ``steerlab.laws.AroundPoint``). It "switches to the
    next point when it is in a position to move tangentially to the next point circle", checked
    on this frame's yaw command (``check="command"``, the seed's safe choice) or on the agent's
    actual heading (``check="yaw"``, which "may cause locks"); a lock breaker switches after
    ``max_turns`` turns around one point. After the final point has been gone past, the agent
    stops. The module docstring gives every reading.

    Parameters
    ----------
    points : PointsNav, or a sequence of PointsNav
        The points in order (``load_navdata`` of a ``kind = "points"`` file: each point's
        ``center[:2]``, ``side`` and ``radius``); a sequence gives one list per agent for
        ``step_batch``; one list serves ``step``, and every agent of a batch.
    k_d : float or None
        ``k_D`` [1/s], ``0 < k_D <= 1/T`` (checked at each step); ``None`` (default) is ``1/T``.
    speed_bound : float
        ``SPEEDBOUND`` [u/s], the bot's speed bound (``inf`` allowed).
    check : "command" or "yaw"
        The heading whose tangency to the next circle is checked: this frame's yaw command
        towards the current point (default), or the agent's actual heading (the direction of
        its velocity; its yaw at rest).
    prediction_horizon : float
        [s] >= 0: the law and the switching tests use ``P = M + prediction_horizon * vVel``
        instead of ``M`` (seed 002: "a predicted position instead of the position alone"); for
        Half-Life, ``half_life_prediction_horizon(params, dt)``. Default 0 (the position).
    max_turns : float
        Turns (``> 0``) around one point after which the agent switches to the next anyway (the
        lock breaker, counted in ``memory.locks_broken``); ``math.inf`` disables it. Default 1.5.
    walk_factor, crouch_factor : float
        In (0, 1], the speed bound's scale while a point flagged ``walk`` or ``crouch`` is the
        current one (``navigation.flags``); defaults Half-Life's 0.3 and 0.333; 1 ignores the
        flag.

    Notes
    -----
    ``AroundPoints.from_params(points, AroundPointsParams(...))`` (or ``from_arrays(...,
    params=...)``) builds the navigator from its record, in which any field may hold one value
    per agent (for ``step_batch``).

    Attributes: ``params`` (an ``AroundPointsParams``), ``memory``, ``batch_memory``
    (``AroundMemory`` of numbers, of arrays), as every ``Navigator``.
    """

    MEMORY = AroundMemory
    _LISTS = ("points", "point lists", "PointsNav")

    def __init__(
        self,
        points,
        k_d: float | None = None,
        speed_bound: float = 320.0,
        check: str = "command",
        prediction_horizon: float = 0.0,
        max_turns: float = 1.5,
        walk_factor: float = WALK_FACTOR,
        crouch_factor: float = CROUCH_FACTOR,
    ):
        lists = _lists_from_navdata(points)
        params = _params(
            k_d, speed_bound, check, prediction_horizon, max_turns, walk_factor, crouch_factor
        )
        self._setup(lists, params)

    @classmethod
    def from_arrays(cls, centers, sides, radii, **kw) -> AroundPoints:
        """A navigator over one point list given as arrays (no nav data file).

        Parameters
        ----------
        centers : array_like of shape (n, 2)
            [u] the points, in order, n >= 1.
        sides : array_like of shape (n,)
            +1 (point on the agent's left, counter-clockwise turn) or -1, per point.
        radii : array_like of shape (n,)
            [u] >= 0, the distance kept around each point.
        **kw
            The other parameters of ``AroundPoints`` (``k_d``, ``speed_bound``, ``check``,
            ``prediction_horizon``, ``max_turns``), by keyword; or ``params=``, an
            ``AroundPointsParams`` (fields may be per agent).
        """
        params = kw.pop("params", None)
        if params is None:
            params = _params(**kw)
        elif kw:
            raise ValueError(f"from_arrays takes params= or keywords, not both: got {sorted(kw)}")
        navigator = cls.__new__(cls)
        navigator._setup([_check_arrays(centers, sides, radii)], params)
        return navigator

    @classmethod
    def from_params(cls, points, params: AroundPointsParams) -> AroundPoints:
        """The navigator over ``points`` (as the constructor's) with the record ``params``,
        whose fields may hold one value per agent (for ``step_batch``)."""
        navigator = cls.__new__(cls)
        navigator._setup(_lists_from_navdata(points), params)
        return navigator

    def _setup(self, lists: list[_PointList], params: AroundPointsParams) -> None:
        check_record("params", params, AroundPointsParams)
        self.params = params.validated()
        self.agents = check_lists(self.params, len(lists), "points")
        self._kernel_record = self.params.kernel_record()
        self._k_d_largest = largest_finite(self.params.k_d)
        self._lists = lists
        count = np.array([p.radii.size for p in lists], dtype=np.int64)
        self._data = PointLists(
            np.ascontiguousarray(np.concatenate([p.centers[:, 0] for p in lists])),
            np.ascontiguousarray(np.concatenate([p.centers[:, 1] for p in lists])),
            np.ascontiguousarray(np.concatenate([p.radii for p in lists])),
            np.ascontiguousarray(np.concatenate([p.sides for p in lists])),
            np.concatenate(
                [np.zeros(p.radii.size, np.int64) if p.masks is None else p.masks for p in lists]
            ),
            np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64),
            count,
        )
        self.reset()

    k_d = record_field(
        "k_d", inf_is_none=True, doc="``k_D`` [1/s]; ``None`` for ``1/T`` (the record's ``inf``)."
    )
    speed_bound, check, prediction_horizon, max_turns = record_fields(
        "speed_bound", "check", "prediction_horizon", "max_turns"
    )

    def points_of(self, number: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(centers (n, 2), sides (n,), radii (n,))`` of point list ``number`` (copies)."""
        point_list = self._lists[number]
        return point_list.centers.copy(), point_list.sides.copy(), point_list.radii.copy()

    @staticmethod
    def _kernels():
        return _around_points_command, _around_points_batch

    def __repr__(self) -> str:
        return (
            f"AroundPoints({self.list_count} point list(s), k_d={self.k_d}, "
            f"speed_bound={self.speed_bound}, check={self.check!r}, "
            f"prediction_horizon={self.prediction_horizon}, max_turns={self.max_turns})"
        )
