"""Navigation towards points (seed 002): seek the current waypoint, switch inside its radius.

Seed 002, "Navigation towards points": the applicable law is seed 000's "Moving towards a
destination point" (``UE_mVel = min(k_D MQ, SPEEDBOUND)``, ``UE_yaw = Bear``; the kernel
``steerlab.laws.point._around_point_command`` with ``U_Dist = 0``, not rewritten here), and
"the current destination is discarded for the next one whenever the distance between the mobile
and its current destination is less than a pre-determined radius (the destination waypoint
radius or a generic value)". The seed takes the radius as "the maximum error allowed to
consider that the waypoint is reached".

Readings and additions (``docs/design.md``, "Navigation, part 1"):

- **Plane.** Agents move in the plane: only the ``x, y`` of the route's 3-D positions are used,
  and every distance is horizontal (a ladder's two waypoints coincide, so the second is switched
  the frame after the first).
- **No tunnelling**. The switch test is not "the end position is within the
  radius" but "the segment swept during the frame, from the previous position to the current
  one, comes within the radius": a fast agent whose step ``speed * T`` is several radii still
  switches instead of circling back. The previous position is memory. At most one switch per
  frame, so the waypoint index increases by one at a time and never skips; after a switch the
  swept segment of the next frame starts from the point of this frame's segment closest to the
  waypoint just switched, so a frame that crossed two circles switches the second one on the
  next frame.
- **Random offset** (the seed's PodBot note: "random variations at switching time on the actual
  destination waypoint based on its radius"). With ``offset_rng`` (a ``numpy.random.Generator``)
  each waypoint but the last gets an offset drawn uniformly in the disc of its switch radius,
  all drawn once at construction (in route order; for many routes, in packed order). The draw
  does not depend on the agent's state, so drawing it beforehand has the same law as drawing it
  at switch time, and it makes runs reproducible: the same Generator seed gives the same
  trajectory, and ``step_batch`` equals ``step`` when both use the same offsets (``offsets=``).
  The switch test still uses the waypoint's centre and radius; since the offset destination is
  inside that circle, the agent heading for it always enters the circle.
- **Speed to the next segment** (the seed's improvement, "to put it simply: speed proportional to
  the distance to the next segment"). Reading: with ``speed_to_next_segment=True`` the speed is
  ``min(k_D D, SPEEDBOUND)`` with ``D`` the distance from the agent to the next segment (the
  closed segment from the current waypoint to the one after), but at least the distance to the
  current waypoint's switching circle, so that an agent lying on the next segment's line short
  of the circle never stalls; on the final waypoint ``D = MQ``. ``k_D`` is the same gain as the
  law's: at its default ``1/T`` the speed saturates as the plain law's does, so pick a smaller
  gain (a few 1/s) to slow down before turns.
- **Speed floor** (``speed_floor``, default 0): the least speed commanded while moving. With
  ``speed_to_next_segment`` on Half-Life the command falls under ``stopspeed friction /
  accelerate`` before a turn and the agent stalls for good (seed 004's low-speed trap); seed
  002's along-segments code floors its speed there, and so can this navigator.
- **Final waypoint: stop on it** (SeekPoint's arrival latch). No offset on the last waypoint;
  once the swept segment comes within its switch radius, or it is within one frame of travel
  ``speed * T``, the navigator commands zero speed and holds the heading, latched until
  ``reset()``. The agent then stops within the radius plus one frame of travel plus its engine's
  stop distance (none on an ideal engine).
- **Touch points.** A waypoint of radius 0 ("touch this point", as bot files store it) would
  switch only when the swept segment passes exactly through it, which a real agent misses by
  rounding and then circles for ever. Such a waypoint switches at ``touch_radius`` instead (the
  seed's "generic value", ``navdata.TOUCH_RADIUS`` = 16 units, Half-Life's player half width, by
  default); its random offset is drawn in that disc too. ``switch_radius``, when given,
  overrides every waypoint's radius, 0 included.
- **Rally phase** (the seed: "for mobiles that cannot turn at null speed (cars, airplanes),
  having a minimum turn radius creates problem when there is no circle of radius >= minimum
  radius tangential to the starting yaw and passing through the starting position and the
  destination point. A first phase to reach such a configuration must be implemented (eg:
  rallying a circle) before switching to a move towards waypoint"). The circle tangent to the
  yaw through the agent and the destination has radius ``MQ / (2 |sin(Bear - yaw)|)``; while it
  is smaller than the turning radius (the destination inside the turning circle, which the
  seed's law would circle for ever), the agent runs straight on, and moves towards the
  waypoint again once that circle is ``RALLY_MARGIN`` wider. The turning radius is the largest
  of ``min_turn_radius``, ``speed / yaw_rate_max`` and one learnt by **orbit detection**: once
  the destination's bearing has swept two full turns without the waypoint being reached, the
  mean of the least and greatest distances over the second (the orbit's radius about its own
  centre, exact for a circular orbit; the first turn, which may hold the approach, is not used,
  and a circling that ends by itself within it is left alone) becomes a turning radius for that
  waypoint. A mobile that turns in place and never circles a waypoint twice never rallies.
- **Flags** (``navigation.flags``, which declares what each means in the plane). The speed bound
  while heading for a waypoint is that of the segment leading to it: ``walk`` and ``crouch``
  scale ``SPEEDBOUND``, a sloped ``ladder`` bounds it by ``climb_speed * run / length`` (the
  seed's ladder speed rule, ``UE_mVel = min(BotDistToIsec / T, UE_mVelMax)``, is this law's at
  ``k_D = 1/T``; its heading rule needs a line, which this law does not follow). Before a
  slower segment the speed is at most ``approach_bound`` of it, the entry being the switch
  circle of the segment's first waypoint. A vertical ladder's foot is approached and reached as
  the final waypoint is (so the agent stops within its radius plus one frame plus its engine's
  stop distance), then the agent holds there for the climb, ``length / climb_speed``, and
  switches to the top. ``jump`` segments are driven as any other. ``applied_flags`` in the
  memory reports the rules applied.
- **Short routes.** A one-waypoint route (``find_route`` with start == goal) is its final
  waypoint: the agent goes to it and stops. A route with no waypoint is a ``ValueError``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_nonnegative, check_positive, check_record
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, set_agent
from steerlab.geometry.kernels import closest_on_segment, wrap_pi
from steerlab.laws._common import (
    Target,
    check_flag,
    frame_gain,
    largest_finite,
    record_field,
    record_fields,
)
from steerlab.laws.point import AroundParams, _around_point_command
from steerlab.navigation._batch import Navigator, check_lists
from steerlab.navigation.flags import (
    CLIMB_SPEED,
    CROUCH_FACTOR,
    WALK_FACTOR,
    approach_bound,
    check_factor,
    climb_time,
    is_vertical_ladder,
    segment_bound,
    slope_of,
)
from steerlab.navigation.navdata import FLAG_BITS, TOUCH_RADIUS
from steerlab.navigation.route import check_routes, flag_mask, pack_routes

__all__ = ["RALLY_MARGIN", "TowardsMemory", "TowardsParams", "TowardsPoints"]

_LADDER = FLAG_BITS["ladder"]

RALLY_MARGIN = 0.25
"""The rally phase ends once the circle tangent to the heading through the destination is this
much wider than the turning circle: an engine's yaw lag turns wider than its bound, and a rally
that ends exactly on the bound would start again a few frames later."""


class TowardsParams(NamedTuple):
    """Parameters of ``TowardsPoints`` (seed 002, "Navigation towards points").

    Each field is a number (``speed_to_next_segment`` a bool), or in a navigator's batch one
    value per agent (a 1-D sequence).
    """

    # [1/s] k_D, 0 < k_D <= 1/T (checked at each step); inf: 1/T, the seed's "simplest form"
    k_d: float = math.inf
    speed_bound: float = 320.0  # [u/s] SPEEDBOUND > 0; inf: none
    # [u] > 0, the seed's "generic value" used for every waypoint; inf: each waypoint's own radius
    switch_radius: float = math.inf
    speed_to_next_segment: bool = False  # speed from the distance to the next segment
    speed_floor: float = 0.0  # [u/s] >= 0, the least speed commanded while moving
    # [u] > 0, finite: the switch radius of a waypoint of radius 0 ("touch this point")
    touch_radius: float = TOUCH_RADIUS
    min_turn_radius: float = 0.0  # [u] >= 0, the mobile's least turning radius (0: turns in place)
    yaw_rate_max: float = math.inf  # [rad/s] > 0, its yaw-rate bound: turning radius speed / rate
    walk_factor: float = WALK_FACTOR  # in (0, 1], the speed bound's scale on walk segments
    crouch_factor: float = CROUCH_FACTOR  # > 0, its scale on crouch segments
    climb_speed: float = CLIMB_SPEED  # [u/s] > 0, the ladder speed; inf: climbs take no time

    def validated(self) -> TowardsParams:
        """Return the fields as floats (the flag a bool); ``ValueError`` naming the first bad
        one."""
        return TowardsParams(
            k_d=check_positive("k_d", self.k_d, allow_inf=True),
            speed_bound=check_positive("speed_bound", self.speed_bound, allow_inf=True),
            switch_radius=check_positive("switch_radius", self.switch_radius, allow_inf=True),
            speed_to_next_segment=check_flag("speed_to_next_segment", self.speed_to_next_segment),
            speed_floor=check_nonnegative("speed_floor", self.speed_floor),
            touch_radius=check_positive("touch_radius", self.touch_radius),
            min_turn_radius=check_nonnegative("min_turn_radius", self.min_turn_radius),
            yaw_rate_max=check_positive("yaw_rate_max", self.yaw_rate_max, allow_inf=True),
            walk_factor=check_factor("walk_factor", self.walk_factor),
            crouch_factor=check_factor("crouch_factor", self.crouch_factor),
            climb_speed=check_positive("climb_speed", self.climb_speed, allow_inf=True),
        )


class TowardsRoutes(NamedTuple):
    """The packed routes as the kernels read them: one entry per waypoint, and each agent's
    ``(first, count)`` into them (one entry per agent, or one for all)."""

    points_x: np.ndarray  # [u] waypoint centres
    points_y: np.ndarray
    radii: np.ndarray  # [u] waypoint radii
    offset_x: np.ndarray  # [u] destination offsets
    offset_y: np.ndarray
    mask: np.ndarray  # int64, driven flags of the segment ending at the waypoint (FLAG_BITS)
    slope: np.ndarray  # run / 3-D length of that segment
    climb: np.ndarray  # [u] length of the vertical ladder leaving the waypoint (0: none)
    first: np.ndarray  # int64, each route's first waypoint in the packed arrays
    count: np.ndarray  # int64, its number of waypoints


class TowardsMemory(NamedTuple):
    """What ``TowardsPoints`` remembers between frames (scalars for ``step``, arrays in batch).

    Attributes
    ----------
    index : int
        Current waypoint, an index into the route (0 = its first waypoint).
    previous_x, previous_y : float
        [u] start of the next frame's swept segment: the previous position (NaN before the
        first frame), or after a switch the point of the frame's segment closest to the
        waypoint switched.
    target_x, target_y : float
        [u] the destination steered to: the current waypoint plus its random offset (NaN
        before the first frame).
    arrived : bool
        The final waypoint's arrival latch.
    rallying : bool
        The rally phase: the destination is inside the turning circle, the agent runs straight.
    last_bearing : float
        [rad] the destination's bearing from the agent last frame (NaN: none yet).
    turned : float
        [rad] the bearing swept since the current destination was taken, or since the last
        full turn counted (orbit detection).
    nearest, farthest : float
        [u] the least and greatest distance to the destination over that turn.
    turns : int
        Full turns about the current destination so far.
    orbit_radius : float
        [u] the turning radius learnt from the second full turn about the destination (0:
        none).
    climb_left : float
        [s] the climb still to hold after this frame (> 0: holding at a ladder's foot).
    climbed : int
        The last waypoint whose climb has begun (-1: none).
    applied_flags : int
        The flags whose rules shaped this frame's command, a ``FLAG_BITS`` mask
        (``navigation.flags.flag_names``): those of the segment to the current waypoint,
        ``ladder`` while holding for a climb.
    """

    index: int = 0
    previous_x: float = math.nan
    previous_y: float = math.nan
    target_x: float = math.nan
    target_y: float = math.nan
    arrived: bool = False
    rallying: bool = False
    last_bearing: float = math.nan
    turned: float = 0.0
    nearest: float = math.inf
    farthest: float = 0.0
    turns: int = 0
    orbit_radius: float = 0.0
    climb_left: float = 0.0
    climbed: int = -1
    applied_flags: int = 0


@kernel
def _switch_radius(params, route, i):
    """The switch radius of packed waypoint ``i``: the generic one, or the waypoint's own, or
    ``touch_radius`` for a waypoint of radius 0."""
    if params.switch_radius < math.inf:
        return params.switch_radius
    radius = route.radii[i]
    return radius if radius > 0.0 else params.touch_radius


@kernel
def _towards_command(state, memory, params, route, agent, dt):
    """Seed 002 "towards points" for one agent: command and new memory.

    ``state`` an ``AgentState``, ``memory`` a ``TowardsMemory``, ``params`` a ``TowardsParams``,
    ``route`` a ``TowardsRoutes`` whose ``first[agent] : first[agent] + count[agent]`` is the
    agent's route. Returns ``(UE_yaw, UE_mVel, *memory)``, the fields of ``TowardsMemory`` in
    order; a NaN previous position (first frame) means "the current one".
    """
    x = state.x
    y = state.y
    climb_left = memory.climb_left
    if climb_left > 0.0:  # climbing a vertical ladder: hold at its foot (navigation.flags)
        climb_left -= dt
        return (
            state.yaw,
            0.0,
            memory.index,
            x,
            y,
            memory.target_x,
            memory.target_y,
            memory.arrived,
            memory.rallying,
            memory.last_bearing,
            memory.turned,
            memory.nearest,
            memory.farthest,
            memory.turns,
            memory.orbit_radius,
            climb_left,
            memory.climbed,
            _LADDER,
        )
    climbed = memory.climbed
    previous_x = memory.previous_x
    previous_y = memory.previous_y
    if previous_x != previous_x or previous_y != previous_y:  # NaN: first frame
        previous_x = x
        previous_y = y
    index = memory.index
    arrived = memory.arrived
    points_x = route.points_x
    points_y = route.points_y
    last = route.count[agent] - 1
    i = route.first[agent] + index
    radius = _switch_radius(params, route, i)
    cx, cy, swept = closest_on_segment(previous_x, previous_y, x, y, points_x[i], points_y[i])
    new_previous_x = x
    new_previous_y = y
    rallying = memory.rallying
    last_bearing = memory.last_bearing
    turned = memory.turned
    nearest = memory.nearest
    farthest = memory.farthest
    turns = memory.turns
    orbit_radius = memory.orbit_radius
    climbing = False
    if index < last and climbed < index and route.climb[i] > 0.0:  # stop on a ladder's foot
        speed_now = math.sqrt(state.vx * state.vx + state.vy * state.vy)
        remaining = math.sqrt((points_x[i] - x) ** 2 + (points_y[i] - y) ** 2)
        if swept <= radius or remaining <= speed_now * dt:
            climbing = True
            climbed = index
            climb_left = climb_time(route.climb[i], params.climb_speed) - dt
    elif index < last:
        if swept <= radius:  # switch (no tunnelling: the whole frame's segment is tested)
            index += 1
            i += 1
            new_previous_x = cx  # the rest of this frame's travel is tested next frame
            new_previous_y = cy
            rallying = False  # a new destination: a new rally and orbit count
            last_bearing = math.nan
            turned = 0.0
            nearest = math.inf
            farthest = 0.0
            turns = 0
    else:
        speed_now = math.sqrt(state.vx * state.vx + state.vy * state.vy)
        remaining = math.sqrt((points_x[i] - x) ** 2 + (points_y[i] - y) ** 2)
        arrived = arrived | (swept <= radius) | (remaining <= speed_now * dt)
    target_x = points_x[i] + route.offset_x[i]
    target_y = points_y[i] + route.offset_y[i]
    applied = route.mask[i]
    bound = segment_bound(
        params.speed_bound,
        route.mask[i],
        route.slope[i],
        params.walk_factor,
        params.crouch_factor,
        params.climb_speed,
    )
    heading, speed = _around_point_command(
        state, AroundParams(0.0, 1.0, params.k_d, bound), Target(target_x, target_y), dt
    )
    gain = frame_gain(params.k_d, dt)
    if params.speed_to_next_segment and index < last:
        radius = _switch_radius(params, route, i)
        _, _, to_segment = closest_on_segment(
            points_x[i], points_y[i], points_x[i + 1], points_y[i + 1], x, y
        )
        to_circle = math.sqrt((points_x[i] - x) ** 2 + (points_y[i] - y) ** 2) - radius
        speed = min(gain * max(to_segment, to_circle), bound)
    speed = min(max(speed, params.speed_floor), bound)
    if index >= 2:  # short of the previous segment's end, its bound lasts to there
        k = i - 1
        ahead = (points_x[k] - points_x[k - 1]) * (points_x[k] - x) + (
            points_y[k] - points_y[k - 1]
        ) * (points_y[k] - y)
        if ahead > 0.0:
            before = segment_bound(
                params.speed_bound,
                route.mask[k],
                route.slope[k],
                params.walk_factor,
                params.crouch_factor,
                params.climb_speed,
            )
            speed = min(speed, before)
            applied |= route.mask[k] if before < bound else 0
    if index < last:  # slow down for a slower next segment (navigation.flags)
        next_bound = segment_bound(
            params.speed_bound,
            route.mask[i + 1],
            route.slope[i + 1],
            params.walk_factor,
            params.crouch_factor,
            params.climb_speed,
        )
        if next_bound < bound:
            to_circle = math.sqrt((points_x[i] - x) ** 2 + (points_y[i] - y) ** 2)
            to_circle -= _switch_radius(params, route, i)
            speed_now = math.sqrt(state.vx * state.vx + state.vy * state.vy)
            speed = min(speed, approach_bound(next_bound, gain, to_circle, speed_now * dt))
    # ---- the rally phase (module docstring): run straight while the destination lies inside
    # the turning circle, whose radius is given, follows from the yaw rate, or is learnt
    distance = math.sqrt((target_x - x) ** 2 + (target_y - y) ** 2)
    speed_now = math.sqrt(state.vx * state.vx + state.vy * state.vy)
    if distance > 0.0:
        if last_bearing == last_bearing:
            turned += wrap_pi(heading - last_bearing)
        last_bearing = heading
        nearest = min(nearest, distance)
        farthest = max(farthest, distance)
        if abs(turned) >= 2.0 * math.pi:  # a full turn about it without reaching it
            turns += 1
            if turns >= 2:  # a second one: an orbit, measured without the approach
                orbit_radius = max(orbit_radius, 0.5 * (nearest + farthest))
            turned = 0.0
            nearest = math.inf
            farthest = 0.0
    turn_radius = max(params.min_turn_radius, speed_now / params.yaw_rate_max, orbit_radius)
    sine = abs(math.sin(wrap_pi(heading - state.yaw)))
    needed = distance / (2.0 * sine) if sine > 0.0 else math.inf  # circle tangent to the yaw
    rallying = needed < turn_radius * (1.0 + RALLY_MARGIN if rallying else 1.0)
    if rallying:
        heading = state.yaw
    if arrived or climbing:
        heading = state.yaw
        speed = 0.0
    if climbing:
        applied = _LADDER
    return (
        heading,
        speed,
        index,
        new_previous_x,
        new_previous_y,
        target_x,
        target_y,
        arrived,
        rallying,
        last_bearing,
        turned,
        nearest,
        farthest,
        turns,
        orbit_radius,
        climb_left,
        climbed,
        applied,
    )


@batch_kernel
def _towards_batch(state, memory, params, route, dt, out):
    """``_towards_command`` for every agent: ``state`` an ``AgentState`` of arrays, ``memory`` a
    ``TowardsMemory`` of arrays (updated in place), ``out`` a ``Command`` of arrays (written), both
    written by index (``set_agent``)."""
    for i in numba.prange(state.x.size):
        command = _towards_command(
            agent_params(state, i), agent_params(memory, i), agent_params(params, i), route, i, dt
        )
        set_agent(out, i, command[:2])
        set_agent(memory, i, command[2:])


def _flag_columns(routes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per waypoint, packed: the driven flags (``FLAG_BITS``) and the run / length of the segment
    ending there, and the length of the vertical ladder leaving it (``navigation.flags``). A
    climbed ladder's segment keeps its other flags, not ``ladder``: once the climb is held, what
    is left of it in the plane is a plain move to the top."""
    masks, slopes, climbs = [], [], []
    for route in routes:
        masks.append(0)
        slopes.append(1.0)
        climbs.extend([0.0] * route.waypoint_count)
        positions = np.asarray(route.positions, dtype=float)
        for j, flags in enumerate(route.driven_flags):
            run = math.dist(positions[j, :2], positions[j + 1, :2])
            rise = positions[j + 1, 2] - positions[j, 2]
            if is_vertical_ladder(flags, run, rise):
                climbs[len(masks) - 1] = float(route.lengths[j])
                flags = flags - {"ladder"}
            masks.append(flag_mask(flags))
            slopes.append(slope_of(run, float(route.lengths[j])))
    return (
        np.array(masks, dtype=np.int64),
        np.array(slopes, dtype=np.float64),
        np.array(climbs, dtype=np.float64),
    )


class TowardsPoints(Navigator):
    """Navigation towards points (seed 002): seek each waypoint of a route in turn, then stop.

    Each frame the agent heads for its current waypoint with seed 000's "Moving towards a
    destination point" (``UE_yaw = Bear``, ``UE_mVel = min(k_D MQ, SPEEDBOUND)``); "the current
    destination is discarded for the next one whenever the distance between the mobile and its
    current destination is less than a pre-determined radius (the destination waypoint radius
    or a generic value)", tested on the segment swept during the frame (no tunnelling). The
    final waypoint is approached without offset and the agent stops on it. See the module
    docstring for every reading.

    Parameters
    ----------
    route : Route, or a sequence of Route
        The route (``find_route``); a sequence of routes gives one route per agent for
        ``step_batch`` (packed with ``pack_routes``); one route serves ``step``, and every agent
        of a batch. A route must have at least one waypoint.
    k_d : float or None
        ``k_D`` [1/s], ``0 < k_D <= 1/T`` (checked at each step); ``None`` (default) is ``1/T``.
    speed_bound : float
        ``SPEEDBOUND`` [u/s], the bot's speed bound (``inf`` allowed).
    switch_radius : float or None
        The seed's "generic value" [u] > 0 used for every waypoint; ``None`` (default) uses each
        waypoint's own radius.
    offset_rng : numpy.random.Generator or None
        Draws the PodBot random offsets of the destinations (module docstring); ``None``: no
        offset.
    speed_to_next_segment : bool
        The seed's improvement "speed proportional to the distance to the next segment"
        (module docstring for the reading; use a ``k_d`` well below ``1/T``).
    offsets : array_like of shape (N, 2) or None
        Explicit destination offsets [u], one row per waypoint in packed order (overrides
        ``offset_rng``); lets a batch navigator and scalar ones share the very same offsets.
    speed_floor : float
        [u/s] the least speed commanded while moving (default 0). On Half-Life pass
        ``steerlab.engines.halflife.low_speed_threshold(params)``: wished speeds below
        ``stopspeed friction / accelerate`` are never reached and the agent stalls (seed 004's
        low-speed trap; seed 002's along-segments code floors its speed there "to work around
        Half-life engine behavior"), which ``speed_to_next_segment`` otherwise runs into before
        turns.
    touch_radius : float
        [u] > 0, the switch radius of a waypoint whose radius is 0 ("touch this point", as the
        bots' files store it): without it such a waypoint switches only when the agent passes
        exactly over it. Default ``navdata.TOUCH_RADIUS`` (16 units, Half-Life's player half
        width); ``switch_radius``, when given, applies to every waypoint instead.
    min_turn_radius : float
        [u] >= 0, the least turning radius of a mobile that "cannot turn at null speed" (seed
        002: cars, airplanes); 0 (default): it turns in place.
    yaw_rate_max : float
        [rad/s] > 0, its yaw-rate bound (a ``BaseEngineParams.yaw_rate_max``): at speed ``v`` it
        turns no tighter than ``v / yaw_rate_max``. Default ``inf``. With either, or once the agent
        has circled a destination without reaching it, the rally phase (module docstring) runs
        straight until the destination can be reached.
    walk_factor, crouch_factor : float
        In (0, 1], the speed bound's scale on ``walk`` and ``crouch`` segments
        (``navigation.flags``); defaults Half-Life's ``cl_movespeedkey`` 0.3 and
        ``PLAYER_DUCKING_MULTIPLIER`` 0.333; 1 ignores the flag.
    climb_speed : float
        [u/s] > 0, the ladder speed: the agent stops on a vertical ladder's foot and holds there
        for its length over this; on a sloped ladder its speed is at most ``climb_speed * run /
        length``. Default Half-Life's ``MAX_CLIMB_SPEED``, 200; ``inf``: climbs take no time.

    Notes
    -----
    ``TowardsPoints.from_params(route, TowardsParams(...))`` builds the navigator from its
    record, in which any field may hold one value per agent (for ``step_batch``).

    Attributes: ``params`` (a ``TowardsParams``), ``memory``, ``batch_memory`` (``TowardsMemory``
    of numbers, of arrays), as every ``Navigator``.
    """

    MEMORY = TowardsMemory

    def __init__(
        self,
        route,
        k_d: float | None = None,
        speed_bound: float = 320.0,
        switch_radius: float | None = None,
        offset_rng: np.random.Generator | None = None,
        speed_to_next_segment: bool = False,
        offsets=None,
        speed_floor: float = 0.0,
        touch_radius: float = TOUCH_RADIUS,
        min_turn_radius: float = 0.0,
        yaw_rate_max: float = math.inf,
        walk_factor: float = WALK_FACTOR,
        crouch_factor: float = CROUCH_FACTOR,
        climb_speed: float = CLIMB_SPEED,
    ):
        k_d = math.inf if k_d is None else check_positive("k_d", k_d)
        switch_radius = (
            math.inf if switch_radius is None else check_positive("switch_radius", switch_radius)
        )
        if not isinstance(speed_to_next_segment, (bool, np.bool_)):
            raise ValueError(f"speed_to_next_segment must be a bool, got {speed_to_next_segment!r}")
        params = TowardsParams(
            k_d,
            speed_bound,
            switch_radius,
            speed_to_next_segment,
            speed_floor,
            touch_radius,
            min_turn_radius,
            yaw_rate_max,
            walk_factor,
            crouch_factor,
            climb_speed,
        )
        self._setup(route, params, offset_rng, offsets)

    @classmethod
    def from_params(
        cls, route, params: TowardsParams, offset_rng=None, offsets=None
    ) -> TowardsPoints:
        """The navigator over ``route`` with the record ``params``, whose fields may hold one
        value per agent (for ``step_batch``); ``offset_rng`` and ``offsets`` as in the
        constructor (per-agent switch radii draw offsets only with one route per agent)."""
        check_record("params", params, TowardsParams)
        navigator = cls.__new__(cls)
        navigator._setup(route, params, offset_rng, offsets)
        return navigator

    def _setup(self, route, params: TowardsParams, offset_rng, offsets) -> None:
        self.routes = check_routes(route)
        self.params = params.validated()
        self.agents = check_lists(self.params, len(self.routes), "route")
        self._kernel_record = self.params
        self._k_d_largest = largest_finite(self.params.k_d)
        if offset_rng is not None and not isinstance(offset_rng, np.random.Generator):
            raise ValueError(
                f"offset_rng must be a numpy.random.Generator or None, got {offset_rng!r}"
            )
        packed = pack_routes(self.routes)
        radii = np.ascontiguousarray(packed.radii, dtype=np.float64)
        total = radii.size
        last = packed.offsets[1:] - 1
        if offsets is not None:
            array = np.asarray(offsets, dtype=np.float64)
            if array.shape != (total, 2) or not np.isfinite(array).all():
                raise ValueError(
                    f"offsets must be a finite ({total}, 2) array (one row per waypoint), got "
                    f"shape {array.shape}"
                )
        elif offset_rng is not None:
            reach = self._offset_reach(radii, np.diff(packed.offsets))
            distance = reach * np.sqrt(offset_rng.random(total))
            angle = 2.0 * math.pi * offset_rng.random(total)
            array = np.column_stack((distance * np.cos(angle), distance * np.sin(angle)))
            array[last] = 0.0  # the final waypoint is stopped on, not around
        else:
            array = np.zeros((total, 2))
        self._data = TowardsRoutes(
            np.ascontiguousarray(packed.positions[:, 0]),
            np.ascontiguousarray(packed.positions[:, 1]),
            radii,
            np.ascontiguousarray(array[:, 0]),
            np.ascontiguousarray(array[:, 1]),
            *_flag_columns(self.routes),
            np.ascontiguousarray(packed.offsets[:-1]),
            np.ascontiguousarray(np.diff(packed.offsets)),
        )
        self.reset()

    def _offset_reach(self, radii: np.ndarray, count: np.ndarray) -> np.ndarray:
        """The radius of the disc each waypoint's offset is drawn in (packed order; ``count``
        waypoints per route)."""
        reach = []
        for name in ("switch_radius", "touch_radius"):
            value = getattr(self.params, name)
            if isinstance(value, np.ndarray):
                if len(self.routes) != value.size:
                    raise ValueError(
                        f"offset_rng with one {name} per agent needs one route per agent, got "
                        f"{len(self.routes)} route(s) for {value.size} agents"
                    )
                value = np.repeat(value, count)
            reach.append(value)
        generic, touch = reach
        return np.where(generic < math.inf, generic, np.where(radii > 0.0, radii, touch))

    k_d = record_field(
        "k_d", inf_is_none=True, doc="``k_D`` [1/s]; ``None`` for ``1/T`` (the record's ``inf``)."
    )
    speed_bound = record_field("speed_bound")
    switch_radius = record_field(
        "switch_radius",
        inf_is_none=True,
        doc="The generic switch radius [u]; ``None``: each waypoint's own (the record's ``inf``).",
    )
    speed_to_next_segment, speed_floor, touch_radius = record_fields(
        "speed_to_next_segment", "speed_floor", "touch_radius"
    )

    @property
    def offsets(self) -> np.ndarray:
        """The destination offsets [u], ``(N, 2)``, one row per waypoint in packed order."""
        return np.column_stack((self._data.offset_x, self._data.offset_y))

    @staticmethod
    def _kernels():
        return _towards_command, _towards_batch

    def __repr__(self) -> str:
        return (
            f"TowardsPoints({len(self.routes)} route(s), k_d={self.k_d}, "
            f"speed_bound={self.speed_bound}, switch_radius={self.switch_radius}, "
            f"speed_to_next_segment={self.speed_to_next_segment}, speed_floor={self.speed_floor}, "
            f"touch_radius={self.touch_radius})"
        )
