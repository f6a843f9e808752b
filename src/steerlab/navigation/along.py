"""Navigation along segments (seed 002): follow a route's corridors segment by segment.

Seed 002, "Navigation along segments": the applicable law is seed 000's "Rallying & moving along
a directed line" on the current path segment ``PQ``; "it is the Width of the corridors that is
here the basic key parameter". The seed gives two pseudo-codes, both here (``version=1`` or
``2``); names below are the seed's, ``M`` the agent, ``T`` the frame time, ``S`` the end of the
next segment ``QS``.

**Version 1** (the first pseudo-code, "With the Half-life engine model"):

- switch ``while`` the agent is within the next corridor, ``|XTDNext| < Width(next)``, possibly
  several segments in one frame (the seed's comment: with aligned waypoints and wide corridors
  "the system will switch to the last path segment right from the start"); at each switch
  ``IcptAngMax = 0.5 |wrap180(CourseNext - Course)|``;
- prediction ``PredPos = M + (1/friction - T) vel`` and ``XTDPred = XTD + cross(uvPQ, (1/friction -
  T) vel)``;
- speed ``UE_mVel = k_D DistToIsec`` with ``DistToIsec = |XTDNext / SinNext|`` the distance along
  the velocity to the next segment's line, ``k_D < 1/T``, floored at ``stopspeed friction /
  accelerate`` (the low-speed trap of seed 004) and bounded by ``UE_mVelMax``;
- deviation control only outside ``Width + K_margin``: inside, ``U_IcptAng = 0``; outside,
  ``U_IcptAng = asin(clamp(-k_Y XTDPred / mVel_2))`` bounded by ``IcptAngMax``, which returns to
  ``INTERCEPTANGMAX`` once the command falls within it;
- ``UE_yaw = Course + U_IcptAng``.

**Version 2** (the Counter-Strike pseudo-code):

- ``bAllowSwitchXTD`` carried between frames: set once the agent reaches the near bound of the
  next corridor (``XTDNextSeg < Width(next)`` for a left turn, ``> -Width(next)`` for a right
  one); then switch when the plane perpendicular to ``PQ`` near ``Q`` is crossed,
  ``dot(uvPQ, MQ) < max(Width(next), CurrentSegmentDestReachedDist)``; reset at each switch;
- ``XTDPred`` as version 1, ``mVel_2 = max(mVel, mVelSafe)`` with ``mVelSafe = accelerate T
  maxspeed``, the bounded linear law ``U_IcptAng = -k_YPred XTDPred / mVel_2`` (``k_YPred = 4``)
  bounded by ``IcptAngMax = 60`` degrees;
- the safety fallback: ``UE_yaw = Bearing`` (the bearing of ``Q``) when ``|Bearing - Course| >=
  90`` degrees (the destination is behind) or when the intercept angle is shallower than the
  bearing on the same side;
- ladder mode on segments flagged ``ladder`` (in both versions, reading 13): ``U_IcptAng = -k_Y
  XTD / UE_mVelMax`` (``k_Y = 2``), ``UE_mVel = min(BotDistToIsec / T, UE_mVelMax)``;
- speed ``Dist = BotDistToIsec + Width(next) / |SinNext|``, ``UE_mVel = k_D Dist`` with ``2 < k_D
  < 4``, floored at ``stopspeed friction / accelerate``, bounded by ``Dist / T`` and
  ``UE_mVelMax``.

How steerlab reads the seed's text (where it is ambiguous or has typos):

1. **Width is the half width.** The seed's corridors are "+- 2 units" and every test compares a
   distance to the line with ``Width``: the seed's ``Width`` is the distance from the centreline
   to a bound. steerlab's routes carry *full* widths (as ``Polyline``): ``Width = width / 2``.
2. **Plane.** Agents move in the plane: a segment is its horizontal projection. A segment whose
   two ends coincide horizontally has no course in the plane; it is removed when the navigator
   is built (its end point merges with its start, keeping the later waypoint's radius). So is a
   vertical ladder (``navigation.flags``: a ``ladder`` segment whose run is at most a quarter of
   its rise), whose length becomes a climb at its foot: the segment ending there is approached
   as a final one (reading 10), the agent holds at the foot for ``length / climb_speed``, then
   follows the next segment from there. A climb at the route's first point is taken after going
   to that point. Ladder mode applies to ``ladder`` segments with a longer run (sloped ladders).
3. **Version 1, ``vSM = PredPos - S`` before ``DistToIsec = |XTDNext / SinNext|``.** The line
   sets ``vSM`` but does not recompute ``XTDNext``; read as intended: ``XTDNext`` of the
   predicted position, ``cross(uvQS, PredPos - S)``.
4. **Version 1, to and fro.** "For a bot to be able to patrol to and fro between 2 waypoints, a
   supplementary condition on the distance to the current destination waypoint must obviously
   be introduced": when the next segment turns back by more than 90 degrees, version 1 also
   requires ``dot(uvPQ, MQ) < max(Width(next), CurrentSegmentDestReachedDist)`` (version 2's
   plane test), otherwise the return leg, lying on the same line, would be switched to at once.
   Smaller turns keep the seed's pure corridor test.
5. **Version 1 past the destination.** The seed's comments propose "adding a switching
   condition based on distance to waypoints"; version 1 also switches once the agent has
   crossed the plane through ``Q`` perpendicular to ``PQ`` (``dot(uvPQ, MQ) <= 0``). Without it
   an agent inside a wide corridor but outside the narrower, aligned next one never switches
   and runs on past ``Q`` for ever (no deviation control inside the band): the seed's own
   warning on its blind zone, "for almost aligned segments with the next being narrower than
   the current - these conditions might never be met".
6. **Version 2, ``if( bAllowSwitchXTD);``** with its stray semicolon, inside the block ``if(
   bAllowSwitchXTD== FALSE)``: read as "while switching is allowed (now or since an earlier
   frame), test the plane": the allowance is carried between frames precisely so that the plane
   test goes on once the bound was reached. ``DeltaNextAng = 0`` (aligned segments) tests
   ``|XTDNextSeg| < Width(next)``, symmetric, instead of the seed's right-turn branch.
7. **Version 2, ``aVel_2``** is used but only set in version 1's code: read as version 1's, the
   velocity's direction, or the yaw at rest. ``SinNext = sin(aVel_2 - CourseNext)`` is computed
   as ``cross(uvQS, vel) / mVel`` (the same quantity without trigonometry).
8. **Version 2 ladder bound** ``if( U_IcptAng > 90) U_IcptAng= IcptAngMax``: read as the bound
   the seed's comment states, "bound -to at least 90 degrees- the intercept angle": clamped to
   +-90 degrees (assigning 60 above 90 but keeping 80 would make the law jump).
9. **``vSM`` reused, ``BotDistToIsec``**: version 2's ``BotDistToIsec`` is "the distance to
   current segment destination", ``|MQ|``.
10. **Final segment** ("moveTowardsFinalDest(); not detailed here; it could be the same code as
    below with some more code to be sure to stop on the final dest"): the last segment is
    followed with the version's own law (version 2's includes the safety fallback, which turns
    the agent back to ``Q`` when it passes it; version 1, past the plane through ``Q``
    perpendicular to the segment, heads for ``Q``), at speed ``min(k_D |MQ|, |MQ| / T,
    UE_mVelMax)`` with the low-speed floor; the agent latches zero speed (holding its heading,
    ``arrived``) when the segment swept during the frame comes within the destination's reach
    (its radius, or ``switch_radius``) or ``Q`` is within one frame of travel: only there, so a
    wide corridor's plane crossed far from ``Q`` is not an arrival. Latched until ``reset()``. A
    route that is a single point (after merging) is just that final approach.
11. **Engine.** The seed's code is Half-Life's, and so is the default: ``engine=HalfLifeParams()``
    gives the prediction horizon ``1/friction - T``, the floor ``stopspeed friction /
    accelerate`` (without it a Half-Life bot's command falls under 60 u/s near a waypoint, a
    speed it never reaches, and it stalls short), ``mVelSafe = accelerate T maxspeed`` and
    version 1's speed at rest ``accelerate T 2``. ``engine=BaseEngineParams(...)`` (seed 000's
    engine) gives seed 000's own prediction horizon ``T / Ek_Yaw`` and no floor;
    ``engine=None`` neither prediction nor floor. At zero
    speed without a safe speed the law takes its limit (full bound towards the line), as
    ``FollowLine`` does. ``prediction_horizon`` overrides the horizon.
12. **No tunnelling.** Version 1's corridor test is a strip: it is tested on the segment swept
    during the frame (inside at either end, or the two ends on both sides of the line), so a
    fast agent that jumps over a narrow corridor in one frame still switches. Version 2's tests
    are half-planes (reached bound, crossed plane), which a jump cannot skip; version 2 switches
    at most one segment per frame and never skips one.
13. **Flags** (``navigation.flags``). ``UE_mVelMax`` is the current segment's bound: ``walk`` and
    ``crouch`` scale ``speed_bound``, a sloped ``ladder`` bounds it by ``climb_speed * run /
    length``; before a slower segment the speed is at most ``approach_bound`` of it, the entry
    ``max(Width(next), CurrentSegmentDestReachedDist)`` before ``Q``. The seed's ladder mode is
    in its Counter-Strike code only; steerlab applies it in both versions, since it stands for
    the engine's ladder move (no friction, a preset speed), not for a switching rule. ``jump``
    segments are driven as any other, except that version 1 leaves a flagged segment only once
    past its end's plane (reading 5), never by its corridor test: the seed's Counter-Strike code
    switches on that plane to "avoid this problem and some others (jumps, ..)", and version 1's
    corridor test would otherwise skip a walk or crouch segment aligned with the next one. Kept
    on such a segment inside the next corridor (where the seed's version 1 has switched), its
    speed law's ``DistToIsec`` is read as infinite: no turn is left to slow down for.
    ``AlongMemory.applied_flags`` reports the rules applied.

Units: world units and seconds; angles in radians, yaw counter-clockwise from +x.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_nonnegative, check_positive, check_record, check_timestep
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, check_shared, set_agent
from steerlab.engines.base import BaseEngineParams, _lag_gain
from steerlab.engines.halflife import HalfLifeParams, low_speed_threshold
from steerlab.geometry.kernels import asin, atan2, closest_on_segment, sincos, wrap_pi
from steerlab.laws._common import (
    check_choice,
    check_flag,
    choice_codes,
    record_field,
    record_fields,
)
from steerlab.navigation._batch import Navigator, check_lists
from steerlab.navigation.flags import (
    CLIMB_SPEED,
    CROUCH_FACTOR,
    DRIVEN_FLAGS,
    WALK_FACTOR,
    approach_bound,
    check_factor,
    climb_time,
    is_vertical_ladder,
    segment_bound,
    slope_of,
)
from steerlab.navigation.navdata import FLAG_BITS, TOUCH_RADIUS
from steerlab.navigation.prediction import _half_life_horizon
from steerlab.navigation.route import check_routes, flag_mask

__all__ = ["ENGINES", "AlongMemory", "AlongParams", "AlongSegments"]

ENGINES = ("none", "half-life", "base")
"""The engines whose terms ``AlongParams`` holds (``AlongParams.engine``)."""

_HALF_LIFE = ENGINES.index("half-life")  # ``kernel_record().engine`` codes
_BASE = ENGINES.index("base")


SEED_ENGINE = HalfLifeParams()
"""``AlongSegments``' default engine: the seed's code is Half-Life's (module docstring, 11)."""


class AlongParams(NamedTuple):
    """Parameters of ``AlongSegments`` (seed 002, "Navigation along segments"; module docstring).

    Each field is a number (``version`` 1 or 2, ``engine`` a name of ``ENGINES``, the flags
    bools), or in a navigator's batch one value per agent (a 1-D sequence). The last five fields
    are the engine's terms (module docstring, 11); ``AlongParams.for_engine`` sets them from an
    engine record.
    """

    version: int = 2  # the seed's first pseudo-code (1) or its Counter-Strike one (2)
    k_y: float = 4.0  # [1/s] k_Y (k_YPred) > 0; the seed's 4 with prediction
    k_d: float = 3.0  # [1/s] speed gain > 0; version 1: k_D < 1/T (checked at each step)
    intercept_max: float = math.pi / 3  # [rad] INTERCEPTANGMAX, in (0, pi/2]
    k_margin: float = 0.0  # [u] >= 0, version 1's K_margin
    speed_bound: float = 320.0  # [u/s] UE_mVelMax > 0; inf: none
    predict: bool = True  # XTDPred (True) or XTD
    speed_control: bool = True  # the distance-based speed law before turns
    prediction_horizon: float = math.inf  # [s] >= 0, overrides the engine's; inf: the engine's
    switch_radius: float = math.inf  # [u] >= 0 for every waypoint; inf: each waypoint's own
    ladder_k_y: float = 2.0  # [1/s] > 0, version 2's ladder-mode gain
    engine: str = "none"  # one of ENGINES: whose prediction horizon the agent uses
    engine_rate: float = 1.0  # [1/s] > 0, Half-Life friction or BaseEngine k_yaw (inf allowed)
    floor: float = 0.0  # [u/s] >= 0, the low-speed floor stopspeed friction / accelerate
    accelerate: float = 0.0  # [1/s] >= 0, Half-Life sv_accelerate (mVelSafe; 0 without)
    maxspeed: float = 0.0  # [u/s] >= 0, Half-Life sv_maxspeed (mVelSafe; 0 without)
    touch_radius: float = TOUCH_RADIUS  # [u] > 0, the reach of a waypoint of radius 0
    walk_factor: float = WALK_FACTOR  # in (0, 1], the speed bound's scale on walk segments
    crouch_factor: float = CROUCH_FACTOR  # > 0, its scale on crouch segments
    climb_speed: float = CLIMB_SPEED  # [u/s] > 0, the ladder speed; inf: climbs take no time

    @classmethod
    def for_engine(cls, engine: HalfLifeParams | BaseEngineParams | None, **fields) -> AlongParams:
        """The record with the terms of ``engine`` (shared by every agent) and ``fields``."""
        if engine is None:
            return cls(**fields)
        if isinstance(engine, HalfLifeParams):
            p = engine.validated()
            check_shared(p, "AlongParams.for_engine")
            return cls(
                engine="half-life",
                engine_rate=p.friction,
                floor=low_speed_threshold(p),
                accelerate=p.accelerate,
                maxspeed=p.maxspeed,
                **fields,
            )
        if isinstance(engine, BaseEngineParams):
            p = engine.validated()
            check_shared(p, "AlongParams.for_engine")
            return cls(engine="base", engine_rate=p.k_yaw, **fields)
        raise ValueError(
            f"engine must be a HalfLifeParams, a BaseEngineParams or None, got {engine!r}"
        )

    def validated(self) -> AlongParams:
        """Return the fields as floats (``version`` an integer, ``engine`` a name, the flags
        bools); ``ValueError`` naming the first bad one."""
        intercept_max = check_positive("intercept_max", self.intercept_max)
        if np.any(np.asarray(intercept_max) > 0.5 * math.pi):
            index = int(np.argmax(np.asarray(intercept_max) > 0.5 * math.pi))
            name = "intercept_max" if np.ndim(intercept_max) == 0 else f"intercept_max[{index}]"
            value = intercept_max if np.ndim(intercept_max) == 0 else intercept_max[index]
            raise ValueError(f"{name} must be <= pi/2, got {value!r}")
        return AlongParams(
            version=_check_version(self.version),
            k_y=check_positive("k_y", self.k_y),
            k_d=check_positive("k_d", self.k_d),
            intercept_max=intercept_max,
            k_margin=check_nonnegative("k_margin", self.k_margin),
            speed_bound=check_positive("speed_bound", self.speed_bound, allow_inf=True),
            predict=check_flag("predict", self.predict),
            speed_control=check_flag("speed_control", self.speed_control),
            prediction_horizon=check_nonnegative(
                "prediction_horizon", self.prediction_horizon, allow_inf=True
            ),
            switch_radius=check_nonnegative("switch_radius", self.switch_radius, allow_inf=True),
            ladder_k_y=check_positive("ladder_k_y", self.ladder_k_y),
            engine=check_choice("engine", self.engine, ENGINES),
            engine_rate=check_positive("engine_rate", self.engine_rate, allow_inf=True),
            floor=check_nonnegative("floor", self.floor),
            accelerate=check_nonnegative("accelerate", self.accelerate),
            maxspeed=check_nonnegative("maxspeed", self.maxspeed),
            touch_radius=check_positive("touch_radius", self.touch_radius),
            walk_factor=check_factor("walk_factor", self.walk_factor),
            crouch_factor=check_factor("crouch_factor", self.crouch_factor),
            climb_speed=check_positive("climb_speed", self.climb_speed, allow_inf=True),
        )

    def kernel_record(self) -> AlongParams:
        """The record as the kernels read it: ``engine`` as its index in ``ENGINES``."""
        return self._replace(engine=choice_codes(self.engine, ENGINES))


def _check_version(version):
    """``version`` 1 or 2 as an integer, or a read-only int64 array of them (one per agent)."""
    if np.ndim(version) == 0:
        if version not in (1, 2) or isinstance(version, (bool, np.bool_, str)):
            raise ValueError(f"version must be 1 or 2, got {version!r}")
        return int(version)
    entries = list(version)
    if not entries:
        raise ValueError(f"version must be 1 or 2, or one of them per agent, got {version!r}")
    for index, entry in enumerate(entries):
        if entry not in (1, 2) or isinstance(entry, (bool, np.bool_, str)):
            raise ValueError(f"version[{index}] must be 1 or 2, got {entry!r}")
    array = np.array(entries, dtype=np.int64)
    array.setflags(write=False)
    return array


class AlongMemory(NamedTuple):
    """What ``AlongSegments`` remembers between frames (scalars for ``step``, arrays in batch).

    Attributes
    ----------
    index : int
        Current segment, an index into the navigator's plane route (``segments``).
    allow_switch : bool
        Version 2's ``bAllowSwitchXTD``: the next corridor's near bound was reached.
    intercept_bound : float
        Version 1's ``IcptAngMax`` [rad], carried between frames (NaN before the first frame:
        ``intercept_max``).
    previous_x, previous_y : float
        [u] the previous position, start of the frame's swept segment (NaN before the first
        frame).
    arrived : bool
        The final destination's arrival latch.
    climb_left : float
        [s] the climb of a vertical ladder still to hold after this frame (> 0: holding at its
        foot; ``navigation.flags``).
    climbed : int
        The last point of the plane route (``segments``) whose climb has begun (-1: none).
    applied_flags : int
        The flags whose rules shaped this frame's command, a ``FLAG_BITS`` mask
        (``navigation.flags.flag_names``): the current segment's driven flags, ``ladder``
        while holding for a climb.
    """

    index: int = 0
    allow_switch: bool = False
    intercept_bound: float = math.nan
    previous_x: float = math.nan
    previous_y: float = math.nan
    arrived: bool = False
    climb_left: float = 0.0
    climbed: int = -1
    applied_flags: int = 0


_LADDER_BOUND = 0.5 * math.pi  # version 2 ladder mode: "bound -to at least 90 degrees-"
_LADDER = FLAG_BITS["ladder"]
_DRIVEN = flag_mask(DRIVEN_FLAGS)


@kernel
def _bounded_ratio(numerator, speed):
    """``numerator / speed``, or its limit ``sign(numerator) inf`` as ``speed -> 0+``."""
    limit = math.copysign(math.inf, numerator) if numerator != 0.0 else 0.0
    return numerator / speed if speed > 0.0 else limit


@kernel
def _reach(params, route, k):
    """The destination reached distance of packed point ``k``: ``switch_radius``, or the
    waypoint's own radius, ``touch_radius`` for a radius of 0 ("touch this point")."""
    if params.switch_radius < math.inf:
        return params.switch_radius
    radius = route.radius[k]
    return radius if radius > 0.0 else params.touch_radius


@kernel
def _engine_terms(params, dt):
    """``(horizon, floor, safe_speed, rest_speed)`` of ``params`` (an ``AlongParams`` as
    ``kernel_record()`` gives it) at frame time ``dt``: module docstring, 11.

    Half-Life: ``PredCoeff = 1/friction - T``, ``stopspeed friction / accelerate``, ``mVelSafe =
    accelerate T maxspeed`` and ``accelerate T 2``; BaseEngine: seed 000's ``T / Ek_Yaw``.
    """
    horizon = 0.0
    safe = 0.0
    rest = 0.0
    if params.engine == _HALF_LIFE:
        horizon = _half_life_horizon(params.engine_rate, dt)  # PredCoeff
        safe = params.accelerate * dt * params.maxspeed  # mVelSafe
        rest = params.accelerate * dt * 2.0
    elif params.engine == _BASE:
        horizon = dt / _lag_gain(params.engine_rate, dt)  # seed 000: XTDPred horizon T / Ek_Yaw
    if params.prediction_horizon < math.inf:
        horizon = params.prediction_horizon
    if not params.predict:
        horizon = 0.0
    return horizon, params.floor, safe, rest


@kernel
def _along_command(state, memory, params, route, agent, dt):
    """Seed 002 "along segments" for one agent: command and new memory.

    ``state`` an ``AgentState``, ``memory`` an ``AlongMemory``, ``params`` an ``AlongParams`` as
    ``kernel_record()`` gives it, ``route`` the ``_PlaneRoutes``: segment ``j`` of the agent's
    route runs from point ``first[agent] + j`` to the next one (``ux, uy, course, half_width,
    mask, slope`` stored at its start point, ``climb`` at each point). Returns ``(UE_yaw,
    UE_mVel, *memory)``, the fields of ``AlongMemory`` in order. Module docstring for the
    readings, ``navigation.flags`` for the flags.
    """
    x = state.x
    y = state.y
    vx = state.vx
    vy = state.vy
    yaw = state.yaw
    index = memory.index
    allow = memory.allow_switch
    intercept_bound = memory.intercept_bound
    previous_x = memory.previous_x
    previous_y = memory.previous_y
    arrived = memory.arrived
    climb_left = memory.climb_left
    climbed = memory.climbed
    version = params.version
    k_y = params.k_y
    k_d = params.k_d
    intercept_max = params.intercept_max
    speed_bound = params.speed_bound
    horizon, floor, safe_speed, rest_speed = _engine_terms(params, dt)
    px = route.px
    py = route.py
    ux = route.ux
    uy = route.uy
    course = route.course
    half_width = route.half_width
    mask = route.mask
    climb = route.climb
    first = route.first[agent]
    count = route.count[agent]
    if previous_x != previous_x or previous_y != previous_y:  # NaN: first frame
        previous_x = x
        previous_y = y
    if intercept_bound != intercept_bound:  # NaN: not set yet, INTERCEPTANGMAX
        intercept_bound = intercept_max
    last = count - 2  # index of the final segment (-1: a one-point route)
    speed_now = math.sqrt(vx * vx + vy * vy)
    if climb_left > 0.0:  # climbing a vertical ladder: hold at its foot (navigation.flags)
        climb_left -= dt
        return yaw, 0.0, index, allow, intercept_bound, x, y, arrived, climb_left, climbed, _LADDER
    applied = 0

    # ---- switching (never past a point where a climb is to begin)
    if version == 1:
        while index < last:
            g = first + index
            n = g + 1
            if climb[n] > 0.0:
                break
            # XTDNext at both ends of the swept segment (S on the line QS: use Q)
            a = ux[n] * (previous_y - py[n]) - uy[n] * (previous_x - px[n])
            b = ux[n] * (y - py[n]) - uy[n] * (x - px[n])
            inside = min(abs(a), abs(b)) < half_width[n] or a * b < 0.0
            along = ux[g] * (px[n] - x) + uy[g] * (py[n] - y)  # dot(uvPQ, MQ)
            if inside and abs(wrap_pi(course[n] - course[g])) > 0.5 * math.pi:
                inside = along < max(
                    half_width[n], _reach(params, route, n)
                )  # to and fro (reading 4)
            if mask[g] & _DRIVEN:  # a flagged segment is left past its end's plane (reading 13)
                inside = False
            if not (inside or along <= 0.0):  # or past Q's plane (reading 5)
                break
            intercept_bound = 0.5 * abs(wrap_pi(course[n] - course[g]))
            index += 1
    elif index < last and climb[first + index + 1] == 0.0:
        g = first + index
        n = g + 1
        xtd_next = ux[n] * (y - py[n]) - uy[n] * (x - px[n])  # XTDNextSeg
        if not allow:
            delta = wrap_pi(course[n] - course[g])  # DeltaNextAng
            if delta > 0.0:
                allow = xtd_next < half_width[n]
            elif delta < 0.0:
                allow = xtd_next > -half_width[n]
            else:
                allow = abs(xtd_next) < half_width[n]
        if allow:
            along = ux[g] * (px[n] - x) + uy[g] * (py[n] - y)  # dot(uvPQ, MQ)
            if along < max(half_width[n], _reach(params, route, n)):
                index += 1
                allow = False

    # ---- a one-point route, or a climb at the route's start: go to the point and stop
    pending = climbed < index and climb[first + index] > 0.0
    reached = False
    stop = index  # the point stopped on when reached
    if last < 0 or pending:
        p = first + index
        qx = px[p]
        qy = py[p]
        dx = qx - x
        dy = qy - y
        remaining = math.sqrt(dx * dx + dy * dy)
        _, _, swept = closest_on_segment(previous_x, previous_y, x, y, qx, qy)
        reached = swept <= _reach(params, route, p) or remaining <= speed_now * dt
        heading = yaw if (reached or arrived or remaining == 0.0) else atan2(dy, dx)
        speed = min(min(max(k_d * remaining, floor), remaining / dt), speed_bound)
    else:
        g = first + index
        qx = px[g + 1]
        qy = py[g + 1]
        stop = index + 1
        final = index == last or climb[g + 1] > 0.0  # stop on Q: the route's end or a ladder
        applied = mask[g]
        bound = segment_bound(
            speed_bound,
            mask[g],
            route.slope[g],
            params.walk_factor,
            params.crouch_factor,
            params.climb_speed,
        )
        xtd = ux[g] * (y - qy) - uy[g] * (x - qx)  # XTD, left of P -> Q positive
        dx = qx - x
        dy = qy - y
        remaining = math.sqrt(dx * dx + dy * dy)  # |MQ|, BotDistToIsec
        predicted_x = x + horizon * vx  # PredPos
        predicted_y = y + horizon * vy
        xtd_pred = xtd + horizon * (ux[g] * vy - uy[g] * vx)  # XTDPred

        # ---- heading
        if mask[g] & _LADDER:  # the seed's ladder mode, both versions (module docstring, 13)
            ratio = -params.ladder_k_y * xtd / bound
            heading = wrap_pi(course[g] + min(max(ratio, -_LADDER_BOUND), _LADDER_BOUND))
        elif version == 2:
            ratio = _bounded_ratio(-k_y * xtd_pred, max(speed_now, safe_speed))
            intercept = min(max(ratio, -intercept_max), intercept_max)  # U_IcptAng
            heading = wrap_pi(course[g] + intercept)
            bearing = atan2(dy, dx)  # safety fallback
            relative = wrap_pi(bearing - course[g])
            if (
                abs(relative) >= 0.5 * math.pi
                or (intercept < relative and intercept >= 0.0)
                or (intercept > relative and intercept <= 0.0)
            ):
                heading = bearing if remaining > 0.0 else yaw
        else:
            if abs(xtd_pred) < half_width[g] + params.k_margin:
                intercept = 0.0  # no deviation control while no bound is at risk
                intercept_bound = intercept_max
            else:
                mvel_2 = speed_now if speed_now != 0.0 else rest_speed
                ratio = _bounded_ratio(-k_y * xtd_pred, mvel_2)
                intercept = asin(min(max(ratio, -1.0), 1.0))
                if intercept > intercept_bound:
                    intercept = intercept_bound
                elif intercept < -intercept_bound:
                    intercept = -intercept_bound
                else:
                    intercept_bound = intercept_max
            heading = wrap_pi(course[g] + intercept)
            if final and ux[g] * dx + uy[g] * dy <= 0.0 and remaining > 0.0:
                heading = atan2(dy, dx)  # past Q's plane, off its reach: back to Q (reading 10)

        # ---- speed
        if final:
            _, _, swept = closest_on_segment(previous_x, previous_y, x, y, qx, qy)
            # within Q's reach during the frame, or within the frame's own travel of Q
            reached = swept <= _reach(params, route, g + 1) or remaining <= speed_now * dt
            speed = min(min(max(k_d * remaining, floor), remaining / dt), bound)
        elif mask[g] & _LADDER:
            speed = min(remaining / dt, bound)
        elif not params.speed_control:
            speed = bound
        else:
            n = g + 1
            if speed_now > 0.0:
                sin_next = (ux[n] * vy - uy[n] * vx) / speed_now  # sin(aVel_2 - CourseNext)
            else:
                sin_yaw, cos_yaw = sincos(yaw)
                sin_next = ux[n] * sin_yaw - uy[n] * cos_yaw
            if version == 1:
                xtd_next = ux[n] * (predicted_y - py[n]) - uy[n] * (predicted_x - px[n])
                distance = abs(xtd_next / sin_next) if sin_next != 0.0 else math.inf  # DistToIsec
                if mask[g] & _DRIVEN and abs(xtd_next) < half_width[n]:
                    distance = math.inf  # kept on a flagged segment inside the next corridor
                speed = min(max(k_d * distance, floor), bound)
            elif sin_next == 0.0:
                speed = bound
            else:
                distance = remaining + half_width[n] / abs(sin_next)  # Dist
                speed = min(min(max(k_d * distance, floor), distance / dt), bound)
        if index > 0 and ux[g - 1] * (px[g] - x) + uy[g - 1] * (py[g] - y) > 0.0:
            # short of the previous segment's end: its bound lasts to there (navigation.flags)
            before = segment_bound(
                speed_bound,
                mask[g - 1],
                route.slope[g - 1],
                params.walk_factor,
                params.crouch_factor,
                params.climb_speed,
            )
            speed = min(speed, before)
            applied |= mask[g - 1] if before < bound else 0
        if not final:  # slow down for a slower next segment (navigation.flags)
            n = g + 1
            next_bound = segment_bound(
                speed_bound,
                mask[n],
                route.slope[n],
                params.walk_factor,
                params.crouch_factor,
                params.climb_speed,
            )
            if next_bound < bound:
                entry = remaining - max(half_width[n], _reach(params, route, n))
                speed = min(speed, approach_bound(next_bound, k_d, entry, speed_now * dt))
    if reached:
        if climbed < stop and climb[first + stop] > 0.0:  # the foot of a vertical ladder
            climbed = stop
            climb_left = climb_time(climb[first + stop], params.climb_speed) - dt
            if stop <= last:
                if stop > index:
                    intercept_bound = intercept_max
                index = stop
                allow = False
            heading = yaw
            speed = 0.0
            applied = _LADDER
        elif stop == last + 1 or last < 0:
            arrived = True
    if arrived:
        heading = yaw
        speed = 0.0
    return (
        heading,
        speed,
        index,
        allow,
        intercept_bound,
        x,
        y,
        arrived,
        climb_left,
        climbed,
        applied,
    )


@batch_kernel
def _along_batch(state, memory, params, route, dt, out):
    """``_along_command`` for every agent: ``state`` an ``AgentState`` of arrays, ``memory`` an
    ``AlongMemory`` of arrays (updated in place), ``out`` a ``Command`` of arrays (written), both
    written by index (``set_agent``)."""
    for i in numba.prange(state.x.size):
        command = _along_command(
            agent_params(state, i), agent_params(memory, i), agent_params(params, i), route, i, dt
        )
        set_agent(out, i, command[:2])
        set_agent(memory, i, command[2:])


class _PlaneRoutes(NamedTuple):
    """Routes in the plane, packed: one row per point, segment values at their start point."""

    px: np.ndarray
    py: np.ndarray
    ux: np.ndarray
    uy: np.ndarray
    course: np.ndarray
    half_width: np.ndarray
    slope: np.ndarray  # run / 3-D length of the segment
    radius: np.ndarray
    climb: np.ndarray  # [u] the vertical ladders climbed at the point (3-D length; 0: none)
    mask: np.ndarray  # int64, the segment's driven flags (FLAG_BITS)
    first: np.ndarray
    count: np.ndarray


def _plane_routes(routes) -> _PlaneRoutes:
    """Project each route on the plane, merge horizontally coincident points and vertical
    ladders (their length kept as the climb at the foot), pack them."""
    columns: dict[str, list] = {name: [] for name in _PlaneRoutes._fields[:10]}
    first, count = [], []
    total = 0
    seen: dict[int, tuple[int, int]] = {}  # a route given for many agents is stored once
    for number, route in enumerate(routes):
        if id(route) in seen:
            first.append(seen[id(route)][0])
            count.append(seen[id(route)][1])
            continue
        widths = np.asarray(route.widths, dtype=float)
        if not (np.isfinite(widths).all() and (widths >= 0).all()):
            raise ValueError(
                f"route[{number}] must have finite widths >= 0, got {widths.tolist()!r}"
            )
        positions = np.asarray(route.positions, dtype=float)
        points = positions[:, :2]
        keep_points = [points[0]]
        keep_radii = [float(route.radii[0])]
        keep_climbs = [0.0]
        keep_widths, keep_masks, keep_slopes = [], [], []
        for j, flags in enumerate(route.driven_flags):
            step = points[j + 1] - keep_points[-1]
            run = math.hypot(*step)
            rise = positions[j + 1, 2] - positions[j, 2]
            if is_vertical_ladder(flags, math.dist(points[j + 1], points[j]), rise):
                keep_climbs[-1] += float(route.lengths[j])  # climbed at the foot (reading 2)
                keep_radii[-1] = float(route.radii[j + 1])
                continue
            if run <= 1e-9:  # vertical in the plane: merge (module docstring, 2)
                keep_radii[-1] = float(route.radii[j + 1])
                continue
            keep_points.append(points[j + 1])
            keep_radii.append(float(route.radii[j + 1]))
            keep_climbs.append(0.0)
            keep_widths.append(widths[j])
            keep_masks.append(flag_mask(flags))
            keep_slopes.append(slope_of(run, math.hypot(run, rise)))
        kept = np.array(keep_points)
        steps = np.diff(kept, axis=0)
        lengths = np.hypot(steps[:, 0], steps[:, 1])
        units = steps / lengths[:, None] if lengths.size else np.zeros((0, 2))
        pad = [0.0]  # the last point starts no segment
        columns["px"].extend(kept[:, 0])
        columns["py"].extend(kept[:, 1])
        columns["ux"].extend([*units[:, 0], *pad])
        columns["uy"].extend([*units[:, 1], *pad])
        columns["course"].extend([*np.arctan2(units[:, 1], units[:, 0]), *pad])
        columns["half_width"].extend([*(0.5 * np.array(keep_widths)), *pad])
        columns["slope"].extend([*keep_slopes, *pad])
        columns["radius"].extend(keep_radii)
        columns["climb"].extend(keep_climbs)
        columns["mask"].extend([*keep_masks, 0])
        first.append(total)
        count.append(len(kept))
        seen[id(route)] = (total, len(kept))
        total += len(kept)
    arrays = {
        name: np.ascontiguousarray(values, dtype=np.int64 if name == "mask" else np.float64)
        for name, values in columns.items()
    }
    return _PlaneRoutes(
        **arrays,
        first=np.array(first, dtype=np.int64),
        count=np.array(count, dtype=np.int64),
    )


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return bool(value)


class AlongSegments(Navigator):
    """Navigation along segments (seed 002): follow a route corridor by corridor, then stop.

    Each frame the agent rallies and follows the current path segment ``P -> Q`` (seed 000's
    directed-line law, in the form of the chosen pseudo-code), switches to the next segment by
    the pseudo-code's corridor test, slows down before turns (speed control), and stops on the
    route's final waypoint. See the module docstring for both pseudo-codes and every reading.

    Parameters
    ----------
    route : Route, or a sequence of Route
        The route (``find_route``); a sequence gives one route per agent for ``step_batch``. Its
        widths are full corridor widths; the seed's ``Width`` is half of it.
    version : 1 or 2
        The seed's first pseudo-code (corridor switching) or its Counter-Strike one (default:
        bound reached and plane crossed, safety fallback, ladder mode).
    engine : HalfLifeParams, BaseEngineParams or None
        The engine the agent runs on, for the prediction horizon, the low-speed floor and the
        safe speed (module docstring, 11). Default: Half-Life's stock parameters, the engine of
        the seed's code; pass the engine your agent runs on, or ``None`` for neither prediction
        nor floor.
    k_y : float or None
        [1/s] ``k_Y`` (``k_YPred``); ``None``: 4 with prediction (the seed's value), 1 without.
    k_d : float
        [1/s] speed gain: version 1 ``0 < k_D < 1/T`` (checked at each step), version 2 "say 2 <
        k_D < 4 for Half-life". Default 3.
    intercept_max : float
        [rad] ``INTERCEPTANGMAX`` (version 2's ``IcptAngMax``), in ``(0, pi/2]``; default 60 deg.
    k_margin : float
        [u] version 1's ``K_margin`` (">= 0, safeguard, eg bot width"); default 0.
    speed_bound : float
        [u/s] ``UE_mVelMax``, the speed wished by the bot (``inf`` allowed).
    predict : bool
        Use ``XTDPred`` (default) or ``XTD``.
    speed_control : bool
        The distance-based speed law before turns (default), or ``UE_mVelMax`` throughout (the
        final approach always slows down to stop).
    prediction_horizon : float or None
        [s] overrides the engine's horizon (``1/friction - T`` for Half-Life).
    switch_radius : float or None
        [u] ``CurrentSegmentDestReachedDist`` for every waypoint; ``None``: each waypoint's own
        radius. Also the final destination's arrival distance.
    ladder_k_y : float
        [1/s] version 2's ladder-mode gain ("half-life specific: k_Y= 2").
    touch_radius : float
        [u] > 0, the reach of a waypoint whose radius is 0 ("touch this point", as the bots'
        files store it). Default ``navdata.TOUCH_RADIUS`` (16 units, Half-Life's player half
        width); ``switch_radius``, when given, applies to every waypoint instead.
    walk_factor, crouch_factor : float
        In (0, 1], the speed bound's scale on ``walk`` and ``crouch`` segments
        (``navigation.flags``); defaults Half-Life's ``cl_movespeedkey`` 0.3 and
        ``PLAYER_DUCKING_MULTIPLIER`` 0.333; 1 ignores the flag.
    climb_speed : float
        [u/s] > 0, the ladder speed: a vertical ladder is climbed holding at its foot for its
        length over this, a sloped one driven at most ``climb_speed * run / length`` in the
        plane. Default Half-Life's ``MAX_CLIMB_SPEED``, 200; ``inf``: climbs take no time.

    Notes
    -----
    ``AlongSegments.from_params(route, AlongParams(...))`` builds the navigator from its record, in
    which any field may hold one value per agent (for ``step_batch``).

    Attributes: ``params`` (an ``AlongParams``), ``memory``, ``batch_memory`` (``AlongMemory`` of
    numbers, of arrays), as every ``Navigator``; ``segments``, each route's points in the plane
    after merging vertical segments, ``(k, 2)``.
    """

    MEMORY = AlongMemory

    def __init__(
        self,
        route,
        version: int = 2,
        engine: HalfLifeParams | BaseEngineParams | None = SEED_ENGINE,
        k_y: float | None = None,
        k_d: float = 3.0,
        intercept_max: float = math.pi / 3,
        k_margin: float = 0.0,
        speed_bound: float = 320.0,
        predict: bool = True,
        speed_control: bool = True,
        prediction_horizon: float | None = None,
        switch_radius: float | None = None,
        ladder_k_y: float = 2.0,
        touch_radius: float = TOUCH_RADIUS,
        walk_factor: float = WALK_FACTOR,
        crouch_factor: float = CROUCH_FACTOR,
        climb_speed: float = CLIMB_SPEED,
    ):
        if (
            not isinstance(version, int | np.integer)
            or isinstance(version, bool | np.bool_)
            or version not in (1, 2)
        ):
            raise ValueError(f"version must be 1 or 2, got {version!r}")
        predict = _check_bool("predict", predict)
        params = AlongParams.for_engine(
            engine,
            version=version,
            k_y=(4.0 if predict else 1.0) if k_y is None else check_positive("k_y", k_y),
            k_d=check_positive("k_d", k_d),
            intercept_max=check_positive("intercept_max", intercept_max),
            k_margin=check_nonnegative("k_margin", k_margin),
            speed_bound=speed_bound,
            predict=predict,
            speed_control=_check_bool("speed_control", speed_control),
            prediction_horizon=math.inf
            if prediction_horizon is None
            else check_nonnegative("prediction_horizon", prediction_horizon),
            switch_radius=math.inf
            if switch_radius is None
            else check_nonnegative("switch_radius", switch_radius),
            ladder_k_y=ladder_k_y,
            touch_radius=touch_radius,
            walk_factor=walk_factor,
            crouch_factor=crouch_factor,
            climb_speed=climb_speed,
        )
        self._setup(route, params)
        self.engine = None if engine is None else engine.validated()

    @classmethod
    def from_params(cls, route, params: AlongParams) -> AlongSegments:
        """The navigator over ``route`` with the record ``params`` (fields may be per agent)."""
        check_record("params", params, AlongParams)
        navigator = cls.__new__(cls)
        navigator._setup(route, params)
        navigator.engine = None
        return navigator

    def _setup(self, route, params: AlongParams) -> None:
        self.routes = check_routes(route)
        self.params = params.validated()
        self.agents = check_lists(self.params, len(self.routes), "route")
        self._kernel_record = self.params.kernel_record()
        # the largest k_D of a version-1 agent: version 1 needs k_D < 1/T
        version_1 = np.broadcast_to(np.asarray(self.params.version) == 1, (self.agents or 1,))
        gains = np.broadcast_to(np.asarray(self.params.k_d), version_1.shape)
        self._k_d_version_1 = float(gains[version_1].max()) if version_1.any() else -math.inf
        self._data = _plane_routes(self.routes)
        self.reset()

    version, k_y, k_d, intercept_max, k_margin = record_fields(
        "version", "k_y", "k_d", "intercept_max", "k_margin"
    )
    speed_bound, predict, speed_control, ladder_k_y = record_fields(
        "speed_bound", "predict", "speed_control", "ladder_k_y"
    )
    prediction_horizon = record_field(
        "prediction_horizon",
        inf_is_none=True,
        doc="[s] the horizon override; ``None``: the engine's (the record's ``inf``).",
    )
    switch_radius = record_field(
        "switch_radius",
        inf_is_none=True,
        doc="[u] every waypoint's reached distance; ``None``: each waypoint's own (``inf``).",
    )

    @property
    def segments(self) -> list[np.ndarray]:
        plane = self._data
        return [
            np.column_stack((plane.px[f : f + c], plane.py[f : f + c]))
            for f, c in zip(plane.first, plane.count, strict=True)
        ]

    def engine_terms(self, dt: float) -> tuple[float, float, float, float]:
        """``(horizon, floor, safe_speed, rest_speed)`` for frame time ``dt`` (module docstring).

        ``horizon`` [s] is the prediction horizon (0 without ``predict``), ``floor`` [u/s] the
        low-speed floor ``stopspeed friction / accelerate``, ``safe_speed`` [u/s] version 2's
        ``mVelSafe``, ``rest_speed`` [u/s] version 1's ``mVel_2`` at rest.
        """
        check_shared(self.params, "AlongSegments.engine_terms")
        return tuple(float(term) for term in _engine_terms(self._kernel_record, check_timestep(dt)))

    def _check_dt(self, dt) -> float:
        dt = check_timestep(dt)
        if self._k_d_version_1 >= 1.0 / dt:
            k_d = self.params.k_d
            name = "k_d"
            if isinstance(k_d, np.ndarray) or isinstance(self.params.version, np.ndarray):
                version_1 = np.asarray(self.params.version) == 1
                bad = version_1 & (np.asarray(k_d) >= 1.0 / dt)
                index = int(np.argmax(np.broadcast_to(bad, (self.agents,))))
                name = f"k_d[{index}]"
                k_d = float(np.broadcast_to(k_d, (self.agents,))[index])
            raise ValueError(
                f"{name} must be < 1/dt = {1.0 / dt!r} for version 1 (seed 002: 'k_D must be less "
                f"than 1/T'), got {k_d!r}"
            )
        return dt

    @staticmethod
    def _kernels():
        return _along_command, _along_batch

    def __repr__(self) -> str:
        return (
            f"AlongSegments({len(self.routes)} route(s), version={self.version}, "
            f"engine={self.engine!r}, k_y={self.k_y}, k_d={self.k_d}, "
            f"predict={self.predict}, speed_control={self.speed_control})"
        )
