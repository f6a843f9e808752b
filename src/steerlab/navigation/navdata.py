"""Precomputed nav data of seed 002: waypoint graphs, corridors of type 1 and 2, points to go round.

Seed 002 describes four kinds of nav data, one per navigation system:

- ``"waypoints"`` (``WaypointGraph``), "Navigation towards points": waypoints (3-D coordinates,
  radius, flags) and connections (``WptFrom``, ``WptTo``, flags) describing paths free from static
  obstacles. The radius is "the maximum error allowed to consider that the waypoint is reached"
  (the seed's first definition); 0 means "touch this point" (bot files store it), and navigators
  then switch at their ``touch_radius`` (the seed's "generic value", ``TOUCH_RADIUS`` = 16 units,
  Half-Life's player half width, by default); a route's default width counts it as that radius
  too, so a corridor through touch points is never zero wide. steerlab adds an optional corridor
  ``width`` per connection, a ``bidirectional`` switch, and ``raw_flags`` (bits of a bot file
  that have no steerlab name, in the layout its ``source_format`` names).
- ``"corridors1"`` (``Corridors1``), "Navigation along segments", type 1: waypoints (3-D
  coordinates, flags; a radius is optional, "a radius attached to a waypoint might be needed in
  some cases") and path segments (``WptFrom``, ``WptTo``, ``Width``, flags).
- ``"corridors2"`` (``Corridors2``), type 2: segments (``Start``, ``End``, ``Width``, flags) and
  the pairs of segments that cross.
- ``"points"`` (``PointsNav``), "Navigation around points": points (3-D coordinates, flags) or
  (close-to-)vertical "poles" (a segment), each with a turning sign, around which the agent
  slaloms in file order, and a radius kept around each.

Units: world units throughout (metres, or Half-Life units of about an inch; nothing assumes
one). Positions are 3-D ``[x, y, z]`` with ``z`` up. Every ``width`` is the *full* corridor width,
wall to wall, as in ``steerlab.geometry.Polyline``; the seed's ``Width`` is compared with an
absolute cross-track distance (``abs(XTD) < Width``), so a navigator porting those lines uses half
of it (``Polyline.half_width_at``).

Flags are a set of names from ``FLAG_NAMES``; an unknown name is an error. The seed names
``ladder`` (ladder moves: horizontal input turned into vertical speed), ``jump`` and ``walk`` (a
bot that walks to be silent); ``crouch``, ``door``, ``lift``, ``camp`` and ``goal`` are the usual
waypoint flags of Half-Life bots such as the PodBot the seed mentions, carried for users. The
bots' files add YaPB's ``button``, ``crossing``, ``rescue``, ``no_hostage``, ``double_jump``,
``narrow``, ``sniper``, ``terrorist_only``, ``counter_terrorist_only`` and JK_Botti's
``long_jump_module``, ``health``, ``armor``, ``ammo``, ``weapon`` (items lying there), ``aiming``
(a point to aim at), ``lift_start``, ``lift_end`` (``bot_files`` maps each file bit). Each name
has a fixed bit in ``FLAG_BITS`` (new names take new bits).

Files are TOML or JSON (chosen by the suffix) with a top-level ``kind`` key, loaded by
``load_navdata``, which also reads the waypoint files of two Half-Life bots as ``WaypointGraph``:
JK_Botti ``.wpt`` (version 5, gzip) and YaPB ``.graph`` (versions 1 and 2, ULZ-compressed).
Their waypoint ids are the file's node indices as strings (``"0"``, ``"1"``, ...; JK_Botti's
deleted slots are left out with their paths), positions are in the file's units (Half-Life
units, ``z`` up), YaPB radii as stored (0 included), JK_Botti radii 0 (it stores none);
``steerlab.navigation.bot_files`` gives the layouts and rules.

Every error, whether syntax, a field's type or range, or a cross-reference, is a ``ValueError``
naming the file, the entry and the field, e.g. ``level.toml: connections[7].to: unknown waypoint
id 'w42'`` (a damaged bot file: the byte offset or the waypoint); all the problems of a file are
listed, one per line (cross-references are checked once every entry is valid on its own, so a
file with both kinds of problems reports the entries' first). Waypoint ids are strings.
Degenerate but legal data is accepted: two waypoints at the same position (a zero-length
connection), a zero width. Self-connections, duplicate connections (a bidirectional one counts
both ways) and duplicate crossing pairs are errors, since they are ambiguous.
"""

from __future__ import annotations

import itertools
import json
import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)

from steerlab.navigation import bot_files

__all__ = [
    "FLAG_BITS",
    "FLAG_NAMES",
    "TOUCH_RADIUS",
    "Connection",
    "CorridorSegment",
    "Corridors1",
    "Corridors1Waypoint",
    "Corridors2",
    "NavData",
    "PathSegment",
    "PointsNav",
    "SlalomPoint",
    "Waypoint",
    "WaypointGraph",
    "load_navdata",
]

Flag = Literal[
    # seed 002 and the usual Half-Life bot flags (bits 0 to 7, unchanged)
    "ladder",
    "jump",
    "walk",
    "crouch",
    "door",
    "lift",
    "camp",
    "goal",
    # YaPB nodes (Counter-Strike)
    "button",
    "crossing",
    "rescue",
    "no_hostage",
    "double_jump",
    "narrow",
    "sniper",
    "terrorist_only",
    "counter_terrorist_only",
    # JK_Botti waypoints (Half-Life deathmatch)
    "long_jump_module",
    "health",
    "armor",
    "ammo",
    "weapon",
    "aiming",
    "lift_start",
    "lift_end",
]
"""A flag name; see the module docstring for where each comes from."""

FLAG_NAMES: tuple[str, ...] = Flag.__args__
"""Every accepted flag name, in the order of their bits in ``FLAG_BITS``."""

FLAG_BITS: dict[str, int] = {name: 1 << index for index, name in enumerate(FLAG_NAMES)}
"""Bit of each flag in the integer masks of ``pack_routes`` (``ladder`` is 1, ``jump`` 2, ...);
new names take the next bits, so a name's bit never changes (all fit an ``int64``)."""

TOUCH_RADIUS = 16.0
"""[world units] The generic radius at which a waypoint of radius 0 ("touch this point") counts
as reached, and the radius it stands for in a route's default width: half the width of
Half-Life's player hull (32 x 32 units), so the point is inside the player when it is reached.
The navigators' ``touch_radius`` and ``find_route``'s default to it; give another for other
units."""

SourceFormat = Literal["steerlab", "jk_botti", "yapb"]
"""Whose bit layout a graph's ``raw_flags`` follow (``WaypointGraph.source_format``)."""

RawFlags = Annotated[int, Field(strict=True, ge=0, lt=1 << 32)]
"""Bits of a file's own flag word that have no steerlab name, at their own positions."""

Position = tuple[float, float, float]
"""``[x, y, z]`` in world units, finite, ``z`` up."""

Flags = frozenset[Flag]
Identifier = Annotated[str, Field(min_length=1)]

_CONFIG = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, populate_by_name=True)


class _ProblemsError(ValueError):
    """Cross-reference problems of one model: ``(location, message)`` pairs.

    Raised by the model validators; ``load_navdata`` unpacks it so that each problem names its
    own entry and field (pydantic would report them all at the model's root).
    """

    def __init__(self, problems: list[tuple[tuple, str]]):
        self.problems = problems
        super().__init__("\n".join(f"{_location(where)}: {message}" for where, message in problems))


def _raise_problems(problems: list[tuple[tuple, str]]) -> None:
    if problems:
        raise _ProblemsError(problems)


# --------------------------------------------------------------------------------------------------
# waypoint graph (seed 002, "Navigation towards points")


class Waypoint(BaseModel):
    """A waypoint of a ``WaypointGraph`` (seed 002: "3D coordinates, radius, flags").

    Attributes
    ----------
    id : str
        Unique, non-empty name.
    position : (x, y, z)
        World units, finite.
    radius : float
        ``>= 0`` [world units]: the distance within which the waypoint counts as reached (the
        seed's first definition of the radius). 0 means "touch this point" (bot files store it):
        navigators switch at their ``touch_radius`` (``TOUCH_RADIUS`` by default), the seed's
        "generic value".
    flags : set of str
        Names from ``FLAG_NAMES``; default none.
    raw_flags : int
        ``0 <= raw_flags < 2**32``: the bits of the source file's flag word that have no steerlab
        name, at their own positions (the graph's ``source_format`` says whose layout); default
        0.
    """

    model_config = _CONFIG

    id: Identifier
    position: Position
    radius: float = Field(ge=0.0)
    flags: Flags = frozenset()
    raw_flags: RawFlags = 0


class Connection(BaseModel):
    """A connection ``from -> to`` of a ``WaypointGraph`` (seed 002: ``WptFrom, WptTo, Flags``).

    Attributes
    ----------
    from, to : str
        Waypoint ids (Python attributes ``source`` and ``target``); distinct.
    flags : set of str
        Names from ``FLAG_NAMES`` (``ladder`` marks a ladder, ``jump`` a jump).
    width : float or None
        Full corridor width [world units] along the connection, ``>= 0``; ``None`` (default): the
        route uses twice the smaller radius of its two waypoints, a radius of 0 counting as the
        route's ``touch_radius`` (``find_route``).
    bidirectional : bool
        ``True``: also ``to -> from``, with the same width and flags. Default ``False``: the seed's
        connections are directed.
    raw_flags : int
        As ``Waypoint.raw_flags``, for the source file's link flags; default 0.
    """

    model_config = _CONFIG

    source: Identifier = Field(alias="from")
    target: Identifier = Field(alias="to")
    flags: Flags = frozenset()
    width: float | None = Field(default=None, ge=0.0)
    bidirectional: bool = False
    raw_flags: RawFlags = 0


def _check_graph(waypoints, edges, edges_name: str) -> list[tuple[tuple, str]]:
    """Duplicate ids, unknown ids, self-connections and duplicate connections."""
    problems: list[tuple[tuple, str]] = []
    first_index: dict[str, int] = {}
    for index, waypoint in enumerate(waypoints):
        if waypoint.id in first_index:
            problems.append(
                (
                    ("waypoints", index, "id"),
                    f"duplicate waypoint id {waypoint.id!r} (first at "
                    f"waypoints[{first_index[waypoint.id]}])",
                )
            )
        else:
            first_index[waypoint.id] = index
    seen: dict[tuple[str, str], int] = {}
    for index, edge in enumerate(edges):
        known = True
        for field, value in (("from", edge.source), ("to", edge.target)):
            if value not in first_index:
                problems.append(((edges_name, index, field), f"unknown waypoint id {value!r}"))
                known = False
        if not known:
            continue
        if edge.source == edge.target:
            problems.append(
                ((edges_name, index, "to"), f"connects waypoint {edge.source!r} to itself")
            )
            continue
        directions = [(edge.source, edge.target)]
        if edge.bidirectional:
            directions.append((edge.target, edge.source))
        for direction in directions:
            if direction in seen:
                problems.append(
                    (
                        (edges_name, index, "to"),
                        f"duplicate connection {direction[0]!r} -> {direction[1]!r} (first at "
                        f"{edges_name}[{seen[direction]}])",
                    )
                )
            else:
                seen[direction] = index
    return problems


class _GraphNav(BaseModel):
    """Common part of the two graph kinds: the cross-references of the waypoints and their
    edges, a cache for the route search.

    Each subclass (``WaypointGraph``, ``Corridors1``) holds ``waypoints`` and its edges in the
    field named by ``_EDGES``: the directed edges the route search builds its graph from
    (``_edges()``).
    """

    model_config = _CONFIG
    _EDGES: ClassVar[str]
    _cache: dict = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _cross_references(self):
        _raise_problems(_check_graph(self.waypoints, self._edges(), self._EDGES))
        return self

    def _edges(self):
        return getattr(self, self._EDGES)


class WaypointGraph(_GraphNav):
    """Waypoints and connections (seed 002, "Navigation towards points", precomputed nav data).

    Attributes
    ----------
    kind : "waypoints"
    name : str
        Optional free text.
    waypoints : list of Waypoint
        At least one; ids unique.
    connections : list of Connection
        Between known, distinct waypoints; no connection twice in the same direction.
    source_format : "steerlab", "jk_botti" or "yapb"
        Whose bit layout the ``raw_flags`` follow: ``"jk_botti"`` (``W_FL_*`` of JK_Botti's
        ``waypoint.h``), ``"yapb"`` (YaPB's ``NodeFlag`` and ``PathFlag``), set by the readers
        of those files; ``"steerlab"`` (default): the user's own bits.
    """

    kind: Literal["waypoints"] = "waypoints"
    name: str = ""
    waypoints: tuple[Waypoint, ...] = Field(min_length=1)
    connections: tuple[Connection, ...] = ()
    source_format: SourceFormat = "steerlab"
    _EDGES = "connections"


class Corridors1Waypoint(BaseModel):
    """A waypoint of ``Corridors1`` (seed 002, type 1: "3D coordinates, flags").

    Attributes
    ----------
    id : str
        Unique, non-empty name.
    position : (x, y, z)
        World units, finite.
    radius : float or None
        Optional, ``> 0`` (the seed: "a radius attached to a waypoint might be needed in some
        cases"). ``None`` (default): a route uses half the narrowest width of its segments that
        meet here.
    flags : set of str
        Names from ``FLAG_NAMES``.
    """

    model_config = _CONFIG

    id: Identifier
    position: Position
    radius: float | None = Field(default=None, gt=0.0)
    flags: Flags = frozenset()


class PathSegment(BaseModel):
    """A path segment of ``Corridors1`` (seed 002, type 1: ``WptFrom, WptTo, Width, Flags``).

    Attributes
    ----------
    from, to : str
        Waypoint ids (attributes ``source`` and ``target``); distinct.
    width : float
        Full corridor width [world units], ``>= 0``; required (the seed's "basic key parameter").
    flags : set of str
        Names from ``FLAG_NAMES``.
    bidirectional : bool
        ``True``: also ``to -> from``. Default ``False``.
    """

    model_config = _CONFIG

    source: Identifier = Field(alias="from")
    target: Identifier = Field(alias="to")
    width: float = Field(ge=0.0)
    flags: Flags = frozenset()
    bidirectional: bool = False


class Corridors1(_GraphNav):
    """Corridors of type 1: waypoints and path segments with widths (seed 002).

    Attributes
    ----------
    kind : "corridors1"
    name : str
        Optional free text.
    waypoints : list of Corridors1Waypoint
        At least one; ids unique.
    segments : list of PathSegment
        Between known, distinct waypoints; no segment twice in the same direction.
    """

    kind: Literal["corridors1"] = "corridors1"
    name: str = ""
    waypoints: tuple[Corridors1Waypoint, ...] = Field(min_length=1)
    segments: tuple[PathSegment, ...] = ()
    _EDGES = "segments"


# --------------------------------------------------------------------------------------------------
# corridors of type 2


def _closest_points(p0, p1, q0, q1):
    """Closest points of 3-D segments ``p0 p1`` and ``q0 q1``: ``(s, t, point_p, point_q)``.

    ``s, t`` in ``[0, 1]`` are the parameters along each segment; zero-length segments and
    parallel ones are handled (Ericson, Real-Time Collision Detection, 5.1.9).
    """
    d1 = [b - a for a, b in zip(p0, p1, strict=True)]
    d2 = [b - a for a, b in zip(q0, q1, strict=True)]
    r = [a - b for a, b in zip(p0, q0, strict=True)]

    def dot(u, v):
        return sum(x * y for x, y in zip(u, v, strict=True))

    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    if a <= 1e-18 and e <= 1e-18:
        s = t = 0.0
    elif a <= 1e-18:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = dot(d1, r)
        if e <= 1e-18:
            s, t = min(max(-c / a, 0.0), 1.0), 0.0
        else:
            b = dot(d1, d2)
            denominator = a * e - b * b
            s = min(max((b * f - c * e) / denominator, 0.0), 1.0) if denominator > 0.0 else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                s, t = min(max(-c / a, 0.0), 1.0), 0.0
            elif t > 1.0:
                s, t = min(max((b - c) / a, 0.0), 1.0), 1.0
    point_p = tuple(u + s * v for u, v in zip(p0, d1, strict=True))
    point_q = tuple(u + t * v for u, v in zip(q0, d2, strict=True))
    return s, t, point_p, point_q


class CorridorSegment(BaseModel):
    """A segment of ``Corridors2`` (seed 002, type 2: ``Start, End, Width, Flags``).

    Attributes
    ----------
    id : str
        Unique, non-empty name, used by ``crossings``.
    start, end : (x, y, z)
        World units, finite; they may coincide (a degenerate segment).
    width : float
        Full corridor width [world units], ``>= 0``.
    flags : set of str
        Names from ``FLAG_NAMES``.
    """

    model_config = _CONFIG

    id: Identifier
    start: Position
    end: Position
    width: float = Field(ge=0.0)
    flags: Flags = frozenset()


class Corridors2(BaseModel):
    """Corridors of type 2: segments and the pairs that cross (seed 002, "segments pairings").

    Attributes
    ----------
    kind : "corridors2"
    name : str
        Optional free text.
    segments : list of CorridorSegment
        At least one; ids unique.
    crossings : list of [id, id]
        Unordered pairs of distinct known segment ids, each pair at most once, whose corridors
        meet: the segments' closest points at most the sum of their half widths apart (checked
        at load, so the route search never meets a crossing that does not cross).
    """

    model_config = _CONFIG
    _cache: dict = PrivateAttr(default_factory=dict)

    kind: Literal["corridors2"] = "corridors2"
    name: str = ""
    segments: tuple[CorridorSegment, ...] = Field(min_length=1)
    crossings: tuple[tuple[Identifier, Identifier], ...] = ()

    def as_corridors1(self) -> Corridors1:
        """The same corridors as type 1 (waypoints and path segments), for the route search.

        Each segment is cut at its crossings: its waypoints are its two ends (ids ``"seg:start"``
        and ``"seg:end"``) and one waypoint per crossing (id ``"a+b"``, shared by both segments,
        in the order of the file's pair), placed at the midpoint of the two segments' closest
        points (3-D); a crossing within ``1e-9`` of a segment's end replaces that end, and
        crossings at one place along a segment are one waypoint (the first pair's id). Path
        segments join consecutive waypoints along each segment, with its width and flags, both
        ways, except on ``jump`` segments (a drop is taken from start to end only). Waypoints
        get no radius (a route gives them half the narrowest width that meets there) and no
        flags.

        Raises
        ------
        ValueError
            A crossing whose two corridors do not meet: the segments' closest points are more
            than the sum of their half widths apart (the message names ``crossings[i]``).
        """
        cached = self._cache.get("corridors1")
        if cached is not None:
            return cached
        segments = {segment.id: segment for segment in self.segments}
        cuts: dict[str, list[tuple[float, str, Position]]] = {sid: [] for sid in segments}
        problems, meetings = self._meetings(segments)
        _raise_problems(problems)
        for (first, second), (s, t, point) in zip(self.crossings, meetings, strict=True):
            name = f"{first}+{second}"
            cuts[first].append((s, name, point))
            cuts[second].append((t, name, point))
        parent: dict[str, str] = {}  # union-find: crossings that coincide are one waypoint

        def find(name: str) -> str:
            while parent.get(name, name) != name:
                name = parent[name]
            return name

        chains: dict[str, list[tuple[float, str, Position]]] = {}
        for sid, segment in segments.items():
            length = sum((u - v) ** 2 for u, v in zip(segment.start, segment.end, strict=True))
            length = length**0.5
            stops = [(0.0, f"{sid}:start", segment.start), *sorted(cuts[sid])]
            stops.append((1.0, f"{sid}:end", segment.end))
            chain: list[tuple[float, str, Position]] = []
            for stop in stops:
                if chain and abs(stop[0] - chain[-1][0]) * length <= 1e-9:
                    if chain[-1][1].endswith(":start"):
                        chain[-1] = stop  # a crossing at the start replaces it
                    elif not stop[1].endswith(":end"):
                        parent[find(stop[1])] = find(chain[-1][1])  # two crossings: one point
                    continue  # a crossing at the end replaces it
                chain.append(stop)
            chains[sid] = chain
        waypoints: dict[str, Corridors1Waypoint] = {}
        paths: list[PathSegment] = []
        for sid, chain in chains.items():
            segment = segments[sid]
            names = [find(name) for _, name, _ in chain]
            for name, (_, _, point) in zip(names, chain, strict=True):
                waypoints.setdefault(name, Corridors1Waypoint(id=name, position=point))
            for here, there in itertools.pairwise(names):
                if here != there:
                    paths.append(
                        PathSegment(
                            source=here,
                            target=there,
                            width=segment.width,
                            flags=segment.flags,
                            bidirectional="jump" not in segment.flags,
                        )
                    )
        result = Corridors1(
            name=self.name, waypoints=tuple(waypoints.values()), segments=tuple(paths)
        )
        self._cache["corridors1"] = result
        return result

    def _meetings(self, segments: dict) -> tuple[list, list]:
        """``(problems, meetings)``: per crossing, the fractions along its two segments and the
        point where they meet (the midpoint of their closest points); a problem for each
        crossing whose corridors do not meet."""
        problems: list[tuple[tuple, str]] = []
        meetings = []
        for index, (first, second) in enumerate(self.crossings):
            a, b = segments[first], segments[second]
            s, t, pa, pb = _closest_points(a.start, a.end, b.start, b.end)
            gap = sum((u - v) ** 2 for u, v in zip(pa, pb, strict=True)) ** 0.5
            if not gap <= 0.5 * (a.width + b.width):
                problems.append(
                    (
                        ("crossings", index),
                        f"segments {first!r} and {second!r} are {gap:.6g} apart, more than the "
                        f"sum of their half widths {0.5 * (a.width + b.width):.6g}: their "
                        "corridors do not cross",
                    )
                )
            meetings.append((s, t, tuple(0.5 * (u + v) for u, v in zip(pa, pb, strict=True))))
        return problems, meetings

    @model_validator(mode="after")
    def _cross_references(self):
        problems: list[tuple[tuple, str]] = []
        first_index: dict[str, int] = {}
        for index, segment in enumerate(self.segments):
            if segment.id in first_index:
                problems.append(
                    (
                        ("segments", index, "id"),
                        f"duplicate segment id {segment.id!r} (first at "
                        f"segments[{first_index[segment.id]}])",
                    )
                )
            else:
                first_index[segment.id] = index
        seen: dict[frozenset, int] = {}
        for index, pair in enumerate(self.crossings):
            unknown = [side for side in (0, 1) if pair[side] not in first_index]
            for side in unknown:
                problems.append((("crossings", index, side), f"unknown segment id {pair[side]!r}"))
            if unknown:
                continue
            if pair[0] == pair[1]:
                problems.append(
                    (("crossings", index, 1), f"segment {pair[0]!r} paired with itself")
                )
                continue
            key = frozenset(pair)
            if key in seen:
                problems.append(
                    (
                        ("crossings", index),
                        f"duplicate crossing {pair[0]!r}, {pair[1]!r} (first at "
                        f"crossings[{seen[key]}])",
                    )
                )
            else:
                seen[key] = index
        _raise_problems(problems)
        _raise_problems(self._meetings({segment.id: segment for segment in self.segments})[0])
        return self


# --------------------------------------------------------------------------------------------------
# points and poles


class SlalomPoint(BaseModel):
    """A point or pole to go around (seed 002, "Navigation around points").

    Attributes
    ----------
    position : (x, y, z) or None
        A point [world units].
    pole : ((x, y, z), (x, y, z)) or None
        A (close-to-)vertical segment, bottom and top [world units]. Exactly one of ``position``
        and ``pole`` is given.
    side : +1 or -1
        The seed's turning sign, as ``steerlab.laws.AroundPoint``'s ``side``: +1 keeps the point on
        the agent's left (counter-clockwise turn), -1 on its right.
    radius : float
        ``>= 0`` [world units], the distance kept around the point (``AroundPoint``'s ``distance``).
    flags : set of str
        Names from ``FLAG_NAMES``.
    """

    model_config = _CONFIG

    position: Position | None = None
    pole: tuple[Position, Position] | None = None
    side: Literal[1, -1]
    radius: float = Field(ge=0.0)
    flags: Flags = frozenset()

    @model_validator(mode="after")
    def _one_location(self):
        if (self.position is None) == (self.pole is None):
            raise _ProblemsError(
                [((), "give exactly one of 'position' (a point) and 'pole' (a segment)")]
            )
        return self

    @property
    def center(self) -> Position:
        """The point, or the pole's bottom end ``pole[0]`` (the seed's poles are near-vertical)."""
        return self.position if self.position is not None else self.pole[0]


class PointsNav(BaseModel):
    """Points and poles to slalom around, in order (seed 002, "Navigation around points").

    Attributes
    ----------
    kind : "points"
    name : str
        Optional free text.
    points : list of SlalomPoint
        At least one, in the order the agent goes around them.
    """

    model_config = _CONFIG

    kind: Literal["points"] = "points"
    name: str = ""
    points: tuple[SlalomPoint, ...] = Field(min_length=1)


NavData = WaypointGraph | Corridors1 | Corridors2 | PointsNav
"""Any of the four kinds of nav data."""

_MODELS: dict[str, type[BaseModel]] = {
    "waypoints": WaypointGraph,
    "corridors1": Corridors1,
    "corridors2": Corridors2,
    "points": PointsNav,
}


# --------------------------------------------------------------------------------------------------
# loading


def _location(where: tuple) -> str:
    """``("connections", 7, "to")`` -> ``"connections[7].to"``; ``()`` -> ``"(top level)"``."""
    text = ""
    for part in where:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def _entry_id(data, where: tuple) -> str:
    """`` (id 'w3')`` when ``where`` starts at an entry of a list whose entries have ids."""
    if len(where) >= 2 and isinstance(data, dict) and isinstance(where[1], int):
        entries = data.get(where[0])
        if isinstance(entries, list) and 0 <= where[1] < len(entries):
            entry = entries[where[1]]
            named = isinstance(entry, dict) and isinstance(entry.get("id"), str)
            if named and len(where) > 2 and where[2] != "id":
                return f" (id {entry['id']!r})"
    return ""


def _describe(data, where: tuple, message: str) -> str:
    """``entry.field (id 'x'): message``."""
    location = _location(where)
    suffix = _entry_id(data, where)
    return f"{location}{suffix}: {message}"


def _validation_lines(data, error: ValidationError) -> list[str]:
    details = error.errors()
    locations = [tuple(detail["loc"]) for detail in details]
    lines = []
    for detail in details:
        where = tuple(detail["loc"])
        inner = any(len(other) > len(where) and other[: len(where)] == where for other in locations)
        if detail["type"] == "too_short" and inner:
            continue  # "at least 1 item" because an item failed: that item's error says why
        cause = (detail.get("ctx") or {}).get("error")
        prefix = tuple(detail["loc"])
        if isinstance(cause, _ProblemsError):
            for where, message in cause.problems:
                lines.append(_describe(data, prefix + tuple(where), message))
            continue
        message = detail["msg"]
        if detail["type"] == "value_error":
            message = message.removeprefix("Value error, ")
        if detail["type"] in ("finite_number",):
            message = f"{message}, got {detail['input']!r}"
        elif "input" in detail and detail["type"] not in ("missing", "extra_forbidden"):
            shown = repr(detail["input"])
            if len(shown) <= 60:
                message = f"{message}, got {shown}"
        lines.append(_describe(data, prefix, message))
    return lines


_READERS = {".wpt": bot_files.jk_botti_data, ".graph": bot_files.yapb_data}
"""Binary bot waypoint files, by suffix: each gives the data of a ``"waypoints"`` file."""


def _parse(path: Path):
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json", *_READERS):
        raise ValueError(
            f"{path}: nav data files are .toml, .json, .wpt (JK_Botti) or .graph (YaPB), got "
            f"suffix {path.suffix!r}"
        )
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ValueError(f"{path}: cannot read the file: {error.strerror or error}") from None
    if suffix in _READERS:
        return _READERS[suffix](path, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text: {error}") from None
    try:
        if suffix == ".toml":
            return tomllib.loads(text)
        return json.loads(text)  # NaN and Infinity parse; validation then names their field
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: TOML syntax error: {error}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: JSON syntax error: {error}") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to be nav data") from None


def load_navdata(path) -> NavData:
    """Load and validate a nav data file of any of the four kinds of seed 002.

    Parameters
    ----------
    path : str or os.PathLike
        Chosen by suffix, case-insensitive. A ``.toml`` or ``.json`` file whose top level has
        ``kind = "waypoints" | "corridors1" | "corridors2" | "points"``, an optional ``name``, and
        the lists of that kind (see ``WaypointGraph``, ``Corridors1``, ``Corridors2``,
        ``PointsNav``); unknown keys are errors (they are usually typos). Or a bot's waypoint
        file, read as a ``WaypointGraph``: ``.wpt`` (JK_Botti, version 5) or ``.graph`` (YaPB,
        versions 1 and 2); see ``steerlab.navigation.bot_files``.

    Returns
    -------
    WaypointGraph, Corridors1, Corridors2 or PointsNav
        Frozen pydantic models.

    Raises
    ------
    ValueError
        Another suffix; an unreadable file; a syntax error; a missing or unknown ``kind``; any
        invalid entry. The message starts with the file, then gives each problem as
        ``entry.field: what is wrong``, e.g. ``level.toml: connections[7].to: unknown waypoint
        id 'w42'``; an entry with an id shows it, ``waypoints[3].radius (id 'w3')``. Non-finite
        numbers (TOML ``nan``/``inf``, JSON ``NaN``/``Infinity``, a NaN in a bot file) are
        errors. A damaged bot file (gzip or ULZ, magic, version, counts that do not fit its
        bytes, a link out of range) names the byte offset or the waypoint.
    """
    if not isinstance(path, str | os.PathLike) or not os.fspath(path):
        raise ValueError(f"path must be a file path (str or os.PathLike), got {path!r}")
    path = Path(path)
    data = _parse(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the top level must be a table/object, got {type(data).__name__}")
    kind = data.get("kind")
    if kind is None:
        raise ValueError(f"{path}: kind: missing; one of {sorted(_MODELS)!r}")
    if not isinstance(kind, str) or kind not in _MODELS:
        raise ValueError(f"{path}: kind: unknown kind {kind!r}; one of {sorted(_MODELS)!r}")
    try:
        return _MODELS[kind].model_validate(data)
    except ValidationError as error:
        lines = _validation_lines(data, error)
        if len(lines) == 1:
            raise ValueError(f"{path}: {lines[0]}") from None
        listed = "\n".join(f"{path}: {line}" for line in lines)
        raise ValueError(f"{path}: {len(lines)} problems\n{listed}") from None


EXAMPLE_FILES = ("level.toml", "corridors1.toml", "corridors.json", "slalom.toml")


def example_navdata(name: str) -> Path:
    """The path of a nav data file shipped with steerlab, for ``load_navdata``.

    ``level.toml`` (24 waypoints, widths 8 to 96 units, a ladder and a jump), ``corridors1.toml``
    (seed 002's first corridor type), ``corridors.json`` (the second type) and ``slalom.toml``
    (points to pass around). A source checkout also shows them as ``examples/navdata/``.
    """
    if name not in EXAMPLE_FILES:
        raise ValueError(f"name must be one of {', '.join(EXAMPLE_FILES)}, got {name!r}")
    return Path(str(resources.files("steerlab.navigation").joinpath("examples", name)))


def shipped_maps() -> list[Path]:
    """The real bot waypoint files shipped with steerlab, sorted by name: thirteen Half-Life
    deathmatch maps of the JK_Botti bot (``.wpt``, BSD licence beside them in the package's
    ``navigation/maps/``), for ``load_navdata`` and ``steerlab bench --suite maps``."""
    folder = resources.files("steerlab.navigation").joinpath("maps")
    return sorted(Path(str(entry)) for entry in folder.iterdir() if entry.name.endswith(".wpt"))
