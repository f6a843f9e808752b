"""What the nav-data flags ``ladder``, ``jump``, ``walk`` and ``crouch`` mean to an agent that
moves in the plane, and the kernels the navigators share to honour them (seed 002).

The engines (seed 000's BaseEngine, seed 004's Half-Life) move in the plane: they have no ladder,
jump or duck physics. What each flag does to a planar agent, declared here and used by
``TowardsPoints``, ``AlongSegments`` and ``AroundPoints``:

- **Which segments carry a flag** (``driven_flags``). A segment ``A -> B`` of a route is driven
  by the flags of its connection, and by the bots' waypoint flags read as their files mean them:
  ``ladder`` when both ends are ladder waypoints (JK_Botti's ``W_FL_LADDER``, "waypoint on a
  ladder", YaPB's ``Ladder``: a segment between two of them is a climb); ``jump`` when ``B`` is a
  jump waypoint (JK_Botti's ``W_FL_JUMP``: "must jump to reach this waypoint"; YaPB's jump is a
  link flag, the connection's own); ``crouch`` and ``walk`` when either end carries it (JK_Botti's
  and YaPB's crouch: "must crouch to reach this node"; a player stays ducked until it has left
  the low ceiling, so the segment leaving a crouch waypoint is crouched too).
- **walk**: seed 002, "UE_mVelMax is the max speed wished by the bot, which can be lower then the
  engine bound (eg: walk to be silent)". On a walk segment the speed bound is ``walk_factor *
  speed_bound``; ``WALK_FACTOR`` = 0.3 is Half-Life's ``cl_movespeedkey`` (the walk key scales the
  movement command by it, HL SDK ``cl_dll/input.cpp``).
- **crouch**: Half-Life scales a ducked player's movement command by
  ``PLAYER_DUCKING_MULTIPLIER`` = 0.333 (``pm_shared.c``, ``PM_Duck``): on a crouch segment the
  speed bound is ``crouch_factor * speed_bound`` (``CROUCH_FACTOR``), times ``walk_factor`` as
  well when both apply (the two scalings multiply in Half-Life). The height limit (a ducked
  hull is 36 units high, a standing one 72) is the reason for the flag; a planar agent has no
  height, so the flag is honoured by its speed and reported.
- **ladder**: Half-Life moves a player on a ladder at a preset speed ``MAX_CLIMB_SPEED`` = 200
  u/s (``pm_shared.c``, ``PM_LadderMove``; no friction, no acceleration; the seed: "a preset
  velocity modulus"), up or down alike (``CLIMB_SPEED``). A ladder segment whose horizontal run
  is at most ``VERTICAL_RUN`` times its rise is a **vertical ladder** (Half-Life's ladders are
  vertical brushes; the bots' ladder waypoints stand off them by a few units, up to 31 over a
  rise of 65 to 370 on the shared maps): the navigator drives the agent to its foot and stops
  there as on a final waypoint, then *holds* (zero speed, heading kept, ``ladder`` reported) for
  the climb, ``length / climb_speed`` seconds (3-D length: the run is placement noise), then goes
  on from the top, whose ``x, y`` it takes as the foot's. The hold lasts ``ceil(time / T)``
  frames, the first the frame the foot is reached. On a **sloped ladder** (a longer run) the
  agent climbs at the preset speed along the 3-D segment, so its speed in the plane is bounded
  by ``climb_speed * run / length`` (``AlongSegments`` also applies the seed's ladder mode).
- **jump**: Half-Life keeps a player's horizontal velocity through a jump or a drop and the
  engines have no airborne phase, so a jump segment is driven in the plane as any other, and
  reported. A jump is one way: a ``jump`` connection is directed (a type-2 corridor flagged
  ``jump`` is, ``Corridors2.as_corridors1``); a bot that cannot jump (or climb, or crouch) asks
  ``find_route(..., avoid=("jump",))`` for a route without such segments.
- **Slowing down for a slower segment.** The bound of a segment applies from the point where
  the navigator may enter it (``AlongSegments``: the next corridor's half width or the
  waypoint's reach before its start; ``TowardsPoints``: the switch radius of its first
  waypoint; ``AroundPoints``: the circle of a flagged point). Before it the command is at most
  ``bound + k_D max(d - v T, 0)`` (``approach_bound``), ``d`` the distance to that entry and
  ``v T`` this frame's travel: an engine that sheds speed at least ``k_D`` per unit of distance
  (Half-Life above ``stopspeed``: ``friction`` per unit, 4 by default, so ``k_D <= 4``) enters at
  no more than the bound. The navigators switch to the next segment before its start (within a
  radius or a corridor's half width of it): ``TowardsPoints`` and ``AlongSegments`` keep the
  previous segment's bound, when lower, until the agent has crossed the plane through its end
  perpendicular to it, so a walk or crouch segment is driven slowly to its very end.

Each navigator reports the flags whose rules shaped its command this frame in its memory's
``applied_flags`` (a ``FLAG_BITS`` mask; ``navigation.flags.flag_names`` decodes it): the
current segment's (or point's) driven flags, ``ladder`` during a climb.

Units: world units (Half-Life units) and seconds.
"""

from __future__ import annotations

import numpy as np

from steerlab._checks import check_positive
from steerlab._jit import kernel
from steerlab.navigation.navdata import FLAG_BITS

__all__ = [
    "CLIMB_SPEED",
    "CROUCH_FACTOR",
    "DRIVEN_FLAGS",
    "VERTICAL_RUN",
    "WALK_FACTOR",
    "approach_bound",
    "check_factor",
    "climb_time",
    "driven_flags",
    "flag_names",
    "is_vertical_ladder",
    "segment_bound",
    "slope_of",
]

CLIMB_SPEED = 200.0
"""[u/s] Half-Life's ladder speed, ``MAX_CLIMB_SPEED`` of ``pm_shared.c`` (``PM_LadderMove``),
below its default ``sv_maxspeed`` of 320."""

WALK_FACTOR = 0.3
"""Half-Life's ``cl_movespeedkey`` default: the walk key scales the movement command by it."""

CROUCH_FACTOR = 0.333
"""Half-Life's ``PLAYER_DUCKING_MULTIPLIER`` (``pm_shared.c``): a ducked player's command scale."""

VERTICAL_RUN = 0.25
"""A ladder segment whose horizontal run is at most this times its rise is vertical: climbed in
place (module docstring)."""

DRIVEN_FLAGS = ("ladder", "jump", "walk", "crouch")
"""The flags the navigators honour (module docstring); the others are carried, not driven."""

_LADDER = FLAG_BITS["ladder"]
_WALK = FLAG_BITS["walk"]
_CROUCH = FLAG_BITS["crouch"]


def driven_flags(connection_flags, from_flags, to_flags) -> frozenset:
    """The flags a segment ``A -> B`` is driven by (module docstring).

    Parameters
    ----------
    connection_flags, from_flags, to_flags : set of str
        The flags of the connection followed, of ``A`` and of ``B``.

    Returns
    -------
    frozenset of str
        ``connection_flags`` plus ``ladder`` if both ends are ladder waypoints, ``jump`` if ``B``
        is a jump waypoint, ``crouch`` and ``walk`` if either end carries it.
    """
    flags = set(connection_flags)
    if "ladder" in from_flags and "ladder" in to_flags:
        flags.add("ladder")
    if "jump" in to_flags:
        flags.add("jump")
    for name in ("crouch", "walk"):
        if name in from_flags or name in to_flags:
            flags.add(name)
    return frozenset(flags)


def check_factor(name: str, value):
    """A speed scale ``walk_factor`` or ``crouch_factor`` in ``(0, 1]`` (a number, or one per
    agent); ``ValueError`` naming it otherwise."""
    value = check_positive(name, value)
    above = np.asarray(value) > 1.0
    if above.any():
        if np.ndim(value) == 0:
            raise ValueError(f"{name} must be in (0, 1] (it lowers the speed bound), got {value!r}")
        index = int(np.argmax(above))
        raise ValueError(
            f"{name}[{index}] must be in (0, 1] (it lowers the speed bound), got {value[index]!r}"
        )
    return value


def flag_names(mask: int) -> frozenset:
    """The flag names of a ``FLAG_BITS`` mask (a navigator's ``applied_flags``)."""
    return frozenset(name for name, bit in FLAG_BITS.items() if int(mask) & bit)


def is_vertical_ladder(flags, run: float, rise: float) -> bool:
    """Whether a segment with ``flags``, horizontal ``run`` and vertical ``rise`` [u] is a
    vertical ladder, climbed in place: flagged ``ladder``, ``run <= VERTICAL_RUN |rise|``,
    ``rise != 0``."""
    return "ladder" in flags and rise != 0.0 and run <= VERTICAL_RUN * abs(rise)


@kernel
def segment_bound(speed_bound, mask, slope, walk_factor, crouch_factor, climb_speed):
    """The speed bound [u/s] on a segment with driven flags ``mask`` (module docstring).

    ``speed_bound`` the navigator's ``UE_mVelMax``; ``slope`` the segment's run / 3-D length (its
    speed in the plane per unit of speed along it); on a ladder ``min(speed_bound, climb_speed
    slope)``, else ``speed_bound`` times ``walk_factor`` on walk and ``crouch_factor`` on crouch.
    """
    if mask & _LADDER:
        return min(speed_bound, climb_speed * slope)
    bound = speed_bound
    if mask & _WALK:
        bound = bound * walk_factor
    if mask & _CROUCH:
        bound = bound * crouch_factor
    return bound


@kernel
def approach_bound(bound, gain, distance, travel):
    """The most a command may be ``distance`` [u] before a stretch bounded by ``bound`` [u/s]:
    ``bound + gain max(distance - travel, 0)`` (``gain`` [1/s], ``travel`` [u] this frame's)."""
    return bound + gain * max(distance - travel, 0.0)


@kernel
def climb_time(length, climb_speed):
    """[s] The time a climb of ``length`` [u] takes at ``climb_speed`` [u/s] (0: none)."""
    return length / climb_speed if length > 0.0 else 0.0


def slope_of(run: float, length: float) -> float:
    """``run / length``, 1 for a zero-length segment (speed in the plane per unit of 3-D speed)."""
    return run / length if length > 0.0 else 1.0
