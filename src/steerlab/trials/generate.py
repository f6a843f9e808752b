"""Generated test paths: seeded paths of seed 001's kinds of difficulty, for Table I version 2.

Seed 001 tested its follower on ten paths "capturing a wide range of challenging environments
such as steep hills, narrow corridors, and sharp turns"; steerlab's own ten (``suites/table1.toml``)
are hand-made, too few for an interval over paths. This module draws paths of the same
kinds from a seed, each kind a small function with **declared** parameter ranges (the module
constants below, each with its reason, written before any result was seen and never moved toward
one):

- ``hill``: hills and hollows on a gently bending open road, each driven up and down (a hollow
  down and up) through its top, its steepest grade within the declared grades;
- ``narrow_walled``: a walled corridor in the narrowest quarter of the declared widths, legs
  joined by bends of 15 to 60 degrees;
- ``right_angles``: a walled staircase of 90-degree corners;
- ``hairpin``: legs joined by 180-degree turns round an apex, alternating sides (open road);
- ``s_bend``: circular arcs of alternating sign (an S) joined by short straights (open road);
- ``mixed``: a walled chain of two or three pieces of the other kinds, each with its own width.

Every path starts at ``(0, 0)`` with a straight lead-in, ends with a straight lead-out, has a
length drawn in ``LENGTH_RANGE`` and the whole drawing is turned by a heading drawn uniformly (no
direction is special for a vehicle or a follower). A draw whose corridor comes back near itself
(``_corridor_clear``) or whose hills overlap (their slopes would add beyond the declared grade)
is drawn again from the same stream, as is a ``mixed`` draw one of whose pieces got no element
(at most ``MAX_ATTEMPTS`` draws; each shipped path had at most one draw refused by the corridor
check, and none by the hills').

Determinism: path ``index`` of a kind draws from ``numpy.random.default_rng(SeedSequence([seed,
KIND_NUMBERS[kind], index]))``, so it depends only on ``(seed, kind, index)`` and the declared
ranges: asking for more paths, or for more of another kind, does not change it. Names are
``gen-<seed>-<index>-<kind>``; tags ``("generated", kind, "seed-<seed>")``.

In a suite file, a ``[generated]`` table declares generated paths beside (or instead of) the
hand-made ``[[paths]]`` (``GeneratedSpec``); ``steerlab.trials.suite.load_suite`` expands it into
``PathSpec`` entries after the hand-made ones, and the suite's hash covers the expanded paths::

    [generated]
    seed = 1                      # >= 0
    kinds = { hill = 17, ... }    # paths per kind (KINDS); or count = 100 (spread over KINDS)
    grades_deg = [5.0, 28.0]      # [degrees] hills' steepest grades, within GRADE_LIMITS_DEG
    widths = [6.0, 12.0]          # [m] corridor widths, within WIDTH_LIMITS

Tuning sees only generated paths of other seeds than the evaluation's (``generated_seeds``):
the shipped ``generated`` suite (seed 1) is for evaluation, ``train_generated`` (seed 2) for
tuning.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from steerlab.trials.suite import PathSpec, Suite, _FieldError

__all__ = [
    "GRADE_LIMITS_DEG",
    "KINDS",
    "KIND_NUMBERS",
    "LENGTH_RANGE",
    "WIDTH_LIMITS",
    "GeneratedFile",
    "GeneratedSpec",
    "generate_path",
    "generate_paths",
    "generated_seeds",
    "kind_counts",
]

# --------------------------------------------------------------------------------------------------
# declared ranges (each with its reason; a change is a new suite version)

GRADE_LIMITS_DEG = (5.0, 28.0)
"""[degrees] The steepest grades a suite may declare for its hills: the range the hand-made paths
use (``table1``: 5, switchback_climb, to 28, steep_ramps; ``train``: 6 to 26). Every wheeled and
tracked class climbs 28 degrees from rest (zaha 31.6, the weakest); the hovercraft only the
gentlest (7.2)."""

WIDTH_LIMITS = (4.0, 12.0)
"""[m] The full corridor widths a suite may declare: from just under the widest class (the
hovercraft, 4.1 m, then has 0.45 m to each wall at the suite's 0.5 m wall margin) to the widest
the hand-made paths use (12 m, mixed_course's hairpin); wider is an open road."""

LENGTH_RANGE = (250.0, 420.0)
"""[m] A path's length (uniform): the hand-made paths' range (table1 270 to 394 m, train 234 to
352 m), so that a trial lasts about as long as theirs."""

LEAD_IN_RANGE = (30.0, 60.0)
"""[m] The first straight: long enough to reach cruising speed before the first difficulty (from
rest to 7 m/s at 2 m/s^2 takes 12 m); the hand-made paths start with 40 to 90 m, or with the
difficulty itself (s_bends)."""

LEAD_OUT_MIN = 10.0
"""[m] The shortest last straight: the end is reached along a straight, not inside a bend."""

TIME_LIMIT_SPEED = 2.5
"""[m/s] A path's time limit is its length at this speed, rounded up to 10 s: the rule the
hand-made paths state ("about length / 2.5 m/s", table1.toml)."""

WALL_MARGIN = 0.5
"""[m] Between the corridor's edge and its walls: the hand-made paths' value."""

HILL_RADIUS_RANGE = (15.0, 40.0)
"""[m] A hill's radius ``R`` (flat beyond; ``steerlab.world.terrain.Hill``): the hand-made hills
span 17 to 47 m; capped at 40 m, the suites' ``terrain_margin``, so that a hill centred on the path
lies inside the path's terrain grid. The height follows: ``2 R tan(grade) / pi``."""

HILL_FLAT_RANGE = (10.0, 30.0)
"""[m] Flat road before each hill: the hand-made hill paths leave 10 to 40 m between hills."""

HILL_BEND_DEG = 20.0
"""[degrees] Largest bend of the road between hills (either way): "a gently bending road"
(hill_climb's legs bend by 6 to 17 degrees)."""

HOLLOW_SHARE = 0.25
"""Share of hollows among the hills: the hand-made paths have 2 hollows among 9 hills."""

NARROW_SHARE = 0.25
"""``narrow_walled`` draws its width from the lowest quarter of the declared widths: "narrow"
relative to the suite's corridors (table1 6 m and train 6.5 m, among 6 to 12 m)."""

NARROW_LEG_RANGE = (30.0, 50.0)
"""[m] Legs of a narrow corridor: narrow_corridor's 40 to 50 m, narrow_zigzag's 35 to 50 m."""

NARROW_BEND_DEG = (15.0, 60.0)
"""[degrees] Bends of a narrow corridor: narrow_corridor's 20 to 27, narrow_zigzag's about 60."""

HEADING_SPREAD_DEG = 90.0
"""[degrees] A staircase or zigzag keeps its heading within this of its first leg's (turns that
would leave it go the other way), so that the path moves on rather than winding back on itself
(right_angles' headings are 0 and +-90)."""

RIGHT_ANGLE_LEG_RANGE = (40.0, 70.0)
"""[m] Legs between 90-degree corners: right_angles' 40 to 60 m, box_turns' 50 to 70 m; at least
three times the largest turning radius (zaha, 11.9 m at 5 m/s) so that a corner is over before
the next."""

HAIRPIN_LEG_RANGE = (50.0, 100.0)
"""[m] Legs between hairpins: hairpins' 80 to 100 m, u_turns' 55 m."""

HAIRPIN_SPACING_RANGE = (22.0, 30.0)
"""[m] Distance between a hairpin's two legs: the hand-made hairpins' 24 to 30 m; at least the
widest corridor plus its walls (13 m), so that the legs' corridors stay apart."""

HAIRPIN_DEPTH_RANGE = (12.0, 16.0)
"""[m] How far the apex lies beyond the legs' ends: the hand-made apexes' 12 to 15 m."""

S_BEND_RADIUS_RANGE = (12.0, 30.0)
"""[m] Radius of an S-bend's arcs: s_bends' tightest 14.7 m, long_s' 12.4 m; at least zaha's
turning radius (11.9 m at 5 m/s)."""

S_BEND_ARC_DEG = (60.0, 120.0)
"""[degrees] Turn of each full arc (the first and last arcs turn half of it, so that the road
swings either side of its lead-in's heading): s_bends' half-periods turn about 88 degrees."""

S_BEND_STRAIGHT_RANGE = (5.0, 20.0)
"""[m] Straight between two arcs (non-zero, so that every vertex of an arc turns its arc's way)."""

ARC_STEP_DEG = 15.0
"""[degrees] Largest turn between two chords of an arc (the hand-made sinusoids turn up to about
30 degrees per vertex)."""

MIXED_PIECES = (2, 3)
"""Pieces of other kinds in a ``mixed`` path (uniform, distinct kinds): mixed_course chains four
features, mixed_loop five, on paths of 350 to 370 m; two or three pieces of a few elements each
fill the lengths here."""

MAX_ATTEMPTS = 500
"""Draws per path before ``generate_path`` gives up (``RuntimeError``)."""

# --------------------------------------------------------------------------------------------------
# a path under construction


class _Course:
    """A path drawn as a turtle: straights, turns, arcs and hills, in the path's own frame (start
    at the origin, heading +x)."""

    def __init__(self):
        self.points = [np.zeros(2)]
        self.widths: list[float] = []
        self.hills: list[tuple[np.ndarray, float, float]] = []  # (centre, height, grade [deg])
        self.heading = 0.0  # [rad] of the next straight
        self.length = 0.0  # [m]
        self._extendable = False  # the last segment may grow (no turn since, same width)

    def turn(self, angle: float) -> None:
        """Turn by ``angle`` [rad] (counter-clockwise positive) at the current point."""
        self.heading += angle
        self._extendable = False

    def forward(self, distance: float, width: float) -> None:
        """A straight of ``distance`` [m]; continues the last segment when nothing turned."""
        step = distance * np.array([math.cos(self.heading), math.sin(self.heading)])
        if self._extendable and self.widths[-1] == width:
            self.points[-1] = self.points[-1] + step
        else:
            self.points.append(self.points[-1] + step)
            self.widths.append(width)
        self.length += distance
        self._extendable = True

    def arc(self, radius: float, angle: float, width: float) -> None:
        """A circular arc of ``radius`` [m] turning by ``angle`` [rad], as chords: each chord's
        ends lie on the circle, each vertex turns by the chord angle (half of it at the arc's
        two ends)."""
        chords = max(1, math.ceil(abs(angle) / math.radians(ARC_STEP_DEG) - 1e-9))
        step = angle / chords
        chord = 2.0 * radius * math.sin(0.5 * abs(step))
        for _ in range(chords):
            self.turn(0.5 * step)
            self.forward(chord, width)
            self.turn(0.5 * step)

    def hill(self, radius: float, grade_deg: float, hollow: bool, width: float) -> None:
        """A straight of ``2 radius`` [m] through the top of a hill (or the bottom of a hollow)
        of that radius whose steepest grade is ``grade_deg``."""
        height = 2.0 * radius * math.tan(math.radians(grade_deg)) / math.pi
        self.forward(radius, width)
        self.hills.append((self.points[-1].copy(), -height if hollow else height, grade_deg))
        self.forward(radius, width)


class _Ranges:
    """The declared ranges a suite chose: hills' grades [degrees], corridor widths [m]."""

    def __init__(self, grades_deg: tuple[float, float], widths: tuple[float, float]):
        self.grades_deg = grades_deg
        self.widths = widths


def _uniform(rng: np.random.Generator, bounds) -> float:
    return float(rng.uniform(bounds[0], bounds[1]))


def _width(rng, ranges: _Ranges) -> float:
    return _uniform(rng, ranges.widths)


def _narrow_width(rng, ranges: _Ranges) -> float:
    low, high = ranges.widths
    return low + _uniform(rng, (0.0, NARROW_SHARE)) * (high - low)


def _bounded_turn(rng, course: _Course, magnitude: float, start_heading: float) -> float:
    """A turn of ``magnitude`` [rad], its way drawn, reversed when it would take the heading
    more than ``HEADING_SPREAD_DEG`` from ``start_heading``."""
    sign = 1.0 if rng.random() < 0.5 else -1.0
    spread = math.radians(HEADING_SPREAD_DEG) + 1e-9
    if abs(course.heading + sign * magnitude - start_heading) > spread:
        sign = -sign
    return sign * magnitude


# --------------------------------------------------------------------------------------------------
# the kinds' elements: each adds elements to a course, drawn one after the other, until the next
# would end beyond ``budget`` [m] of length, and returns how many it added


def _add_hills(rng, course: _Course, budget: float, ranges: _Ranges, width: float) -> int:
    added = 0
    while True:
        radius = _uniform(rng, HILL_RADIUS_RANGE)
        grade = _uniform(rng, ranges.grades_deg)
        hollow = bool(rng.random() < HOLLOW_SHARE)
        flat = _uniform(rng, HILL_FLAT_RANGE)
        bend = math.radians(_uniform(rng, (-HILL_BEND_DEG, HILL_BEND_DEG)))
        if course.length + flat + 2.0 * radius > budget:
            return added
        if added:
            course.turn(bend)
        course.forward(flat, width)
        course.hill(radius, grade, hollow, width)
        added += 1


def _add_narrow(rng, course: _Course, budget: float, ranges: _Ranges, width: float) -> int:
    start = course.heading
    added = 0
    while True:
        leg = _uniform(rng, NARROW_LEG_RANGE)
        bend = math.radians(_uniform(rng, NARROW_BEND_DEG))
        turn = _bounded_turn(rng, course, bend, start)
        if course.length + leg > budget:
            return added
        course.turn(turn)
        course.forward(leg, width)
        added += 1


def _add_right_angles(rng, course: _Course, budget: float, ranges: _Ranges, width: float) -> int:
    start = course.heading
    added = 0
    while True:
        leg = _uniform(rng, RIGHT_ANGLE_LEG_RANGE)
        turn = _bounded_turn(rng, course, 0.5 * math.pi, start)
        if course.length + leg > budget:
            return added
        course.turn(turn)
        course.forward(leg, width)
        added += 1


def _add_hairpins(rng, course: _Course, budget: float, ranges: _Ranges, width: float) -> int:
    side = 1.0 if rng.random() < 0.5 else -1.0
    added = 0
    while True:
        spacing = _uniform(rng, HAIRPIN_SPACING_RANGE)
        depth = _uniform(rng, HAIRPIN_DEPTH_RANGE)
        leg = _uniform(rng, HAIRPIN_LEG_RANGE)
        flank = math.hypot(depth, 0.5 * spacing)
        if course.length + 2.0 * flank + leg > budget:
            return added
        # out to the apex (depth ahead, half the spacing aside), back to the point the spacing
        # aside, then along the reversed heading: turns a, pi - 2 a, a, pi in all
        outward = math.atan2(0.5 * spacing, depth)
        course.turn(side * outward)
        course.forward(flank, width)
        course.turn(side * (math.pi - 2.0 * outward))
        course.forward(flank, width)
        course.turn(side * outward)
        course.forward(leg, width)
        side = -side
        added += 1


def _add_s_bends(rng, course: _Course, budget: float, ranges: _Ranges, width: float) -> int:
    radius = _uniform(rng, S_BEND_RADIUS_RANGE)
    swing = math.radians(_uniform(rng, S_BEND_ARC_DEG))
    straight = _uniform(rng, S_BEND_STRAIGHT_RANGE)
    sign = 1.0 if rng.random() < 0.5 else -1.0
    arc = radius * swing  # [m] the arc's length: its chords are shorter
    # a half arc, full arcs of alternating sign, a half arc back to the first heading, a straight
    # between each two
    room = budget - course.length - arc - straight
    if room < 0.0:
        return 0
    full = int(room // (arc + straight))
    course.arc(radius, sign * 0.5 * swing, width)
    for _ in range(full):
        sign = -sign
        course.forward(straight, width)
        course.arc(radius, sign * swing, width)
    course.forward(straight, width)
    course.arc(radius, -sign * 0.5 * swing, width)
    return 2 + full


_Adder = Callable[[np.random.Generator, _Course, float, _Ranges, float], int]
_Width = Callable[[np.random.Generator, _Ranges], float]

_PIECES: dict[str, tuple[_Adder, _Width]] = {
    "hill": (_add_hills, _width),
    "narrow_walled": (_add_narrow, _narrow_width),
    "right_angles": (_add_right_angles, _width),
    "hairpin": (_add_hairpins, _width),
    "s_bend": (_add_s_bends, _width),
}


def _add_mixed(rng, course: _Course, budget: float, ranges: _Ranges, width: float) -> int:
    """Two or three pieces of distinct other kinds, each with its own width, sharing the
    budget equally; 0 (the draw is redone) when a piece gets no element."""
    names = list(_PIECES)
    count = int(rng.integers(MIXED_PIECES[0], MIXED_PIECES[1] + 1))
    chosen = [names[int(i)] for i in rng.permutation(len(names))[:count]]
    share = (budget - course.length) / count
    for number, name in enumerate(chosen):
        add, piece_width = _PIECES[name]
        end = budget if number == count - 1 else course.length + share
        if add(rng, course, end, ranges, piece_width(rng, ranges)) == 0:
            return 0
    return count


KINDS: dict[str, tuple[_Adder, _Width, bool]] = {
    **{
        name: (add, width, name == "narrow_walled" or name == "right_angles")
        for name, (add, width) in _PIECES.items()
    },
    "mixed": (_add_mixed, _width, True),
}
"""The kinds of path: name -> (the function adding its elements, the draw of its width, walled).
Walls as on the hand-made paths of each kind: hills, hairpins and S-bends open (hill_climb,
hairpins, s_bends), narrow corridors, 90-degree staircases and mixes walled (narrow_corridor,
right_angles, mixed_course). A mixed path's lead-in has a width of its own."""

KIND_NUMBERS = {name: number for number, name in enumerate(KINDS)}
"""Each kind's number in its paths' seed sequences (``SeedSequence([seed, number, index])``):
fixed, so that a kind's paths never change when kinds are added after it."""


# --------------------------------------------------------------------------------------------------
# checks of a drawn path


def _samples(points: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``step`` [m] or less along a polyline, and their arc lengths [m]."""
    xy, arc = [points[:1]], [np.zeros(1)]
    travelled = 0.0
    for start, end in itertools.pairwise(points):
        length = float(np.hypot(*(end - start)))
        count = max(1, math.ceil(length / step))
        fractions = np.arange(1, count + 1) / count
        xy.append(start + fractions[:, None] * (end - start))
        arc.append(travelled + fractions * length)
        travelled += length
    return np.concatenate(xy), np.concatenate(arc)


def _corridor_clear(points: np.ndarray, clearance: float) -> bool:
    """Whether points of the path more than ``2 clearance`` apart along it are at least
    ``clearance`` apart in the plane (sampled every metre): the corridor with its walls does not
    come back onto itself. (A U-turn of diameter ``clearance`` joins points ``pi clearance / 2``
    apart along the path: nearer pairs are the same stretch of road.)"""
    xy, arc = _samples(points, 1.0)
    distance = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    far_along = np.abs(arc[:, None] - arc[None, :]) > 2.0 * clearance
    return bool(np.all(distance[far_along] >= clearance))


def _hill_radius(height: float, grade_deg: float) -> float:
    """[m] ``steerlab.world.terrain.Hill.radius``: ``pi |height| / (2 tan(grade))``."""
    return math.pi * abs(height) / (2.0 * math.tan(math.radians(grade_deg)))


def _hills_apart(hills) -> bool:
    """Whether no two hills overlap (centres at least the sum of their radii apart)."""
    for i, (centre, height, grade) in enumerate(hills):
        for other, other_height, other_grade in hills[:i]:
            reach = _hill_radius(height, grade) + _hill_radius(other_height, other_grade)
            if float(np.hypot(*(centre - other))) < reach:
                return False
    return True


def _path_spec(kind, seed, index, course: _Course, heading: float, walled: bool) -> PathSpec:
    """The course turned by ``heading`` [rad] about the origin, as a validated ``PathSpec``."""
    c, s = math.cos(heading), math.sin(heading)
    rotation = np.array([[c, -s], [s, c]])
    points = np.array(course.points) @ rotation.T
    widths = course.widths
    time_limit = 10.0 * math.ceil(course.length / TIME_LIMIT_SPEED / 10.0)
    data = {
        "name": f"gen-{seed}-{index}-{kind}",
        "tags": ["generated", kind, f"seed-{seed}"],
        "waypoints": [[float(x), float(y)] for x, y in points],
        "corridor_width": widths[0] if len(set(widths)) == 1 else list(widths),
        "walled": walled,
        "wall_margin": WALL_MARGIN,
        "time_limit": time_limit,
        "hills": [
            {
                "center": [float(v) for v in rotation @ centre],
                "height": float(height),
                "max_grade_deg": float(grade),
            }
            for centre, height, grade in course.hills
        ],
    }
    return PathSpec.model_validate(data)


# --------------------------------------------------------------------------------------------------
# public API


def _check_range(name: str, value, limits: tuple[float, float]) -> tuple[float, float]:
    try:
        low, high = (float(bound) for bound in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be [min, max], got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low > high:
        raise ValueError(f"{name} is an empty range (min > max), got {value!r}")
    if low < limits[0] or high > limits[1]:
        raise ValueError(f"{name} must lie within {list(limits)}, got {value!r}")
    return low, high


def _check_index(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def generate_path(
    kind: str,
    seed: int,
    index: int,
    *,
    grades_deg=GRADE_LIMITS_DEG,
    widths=WIDTH_LIMITS,
) -> PathSpec:
    """One generated path: path ``index`` of ``kind`` for ``seed``.

    Parameters
    ----------
    kind : str
        One of ``KINDS``.
    seed, index : int
        ``>= 0``; the path draws from ``default_rng(SeedSequence([seed, KIND_NUMBERS[kind],
        index]))`` only.
    grades_deg : (float, float), optional
        ``[min, max]`` [degrees] of the hills' steepest grades, within ``GRADE_LIMITS_DEG``.
    widths : (float, float), optional
        ``[min, max]`` [m] of the corridors' full widths, within ``WIDTH_LIMITS``.

    Returns
    -------
    PathSpec
        Named ``gen-<seed>-<index>-<kind>``, tagged ``generated``, the kind and ``seed-<seed>``;
        2-D waypoints from ``(0, 0)``; length in ``LENGTH_RANGE``; time limit the length at
        ``TIME_LIMIT_SPEED``, rounded up to 10 s.

    Raises
    ------
    ValueError
        An unknown kind; a seed or index not an integer ``>= 0``; a range not two finite numbers,
        empty (``min > max``) or outside its limits.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    seed, index = _check_index("seed", seed), _check_index("index", index)
    ranges = _Ranges(
        _check_range("grades_deg", grades_deg, GRADE_LIMITS_DEG),
        _check_range("widths", widths, WIDTH_LIMITS),
    )
    add, draw_width, walled = KINDS[kind]
    rng = np.random.default_rng(np.random.SeedSequence([seed, KIND_NUMBERS[kind], index]))
    for _ in range(MAX_ATTEMPTS):
        length = _uniform(rng, LENGTH_RANGE)
        heading = _uniform(rng, (0.0, 2.0 * math.pi))
        width = draw_width(rng, ranges)
        course = _Course()
        course.forward(_uniform(rng, LEAD_IN_RANGE), width)
        if add(rng, course, length - LEAD_OUT_MIN, ranges, width) == 0:
            continue
        course.forward(length - course.length, course.widths[-1])
        clearance = max(course.widths) + 2.0 * WALL_MARGIN
        if _corridor_clear(np.array(course.points), clearance) and _hills_apart(course.hills):
            return _path_spec(kind, seed, index, course, heading, walled)
    raise RuntimeError(f"no {kind} path for seed {seed}, index {index} in {MAX_ATTEMPTS} draws")


def kind_counts(count: int) -> dict[str, int]:
    """``count`` paths spread over ``KINDS`` in their order: each kind ``count // 6``, the first
    ``count % 6`` kinds one more."""
    count = _check_index("count", count)
    share, extra = divmod(count, len(KINDS))
    return {name: share + (number < extra) for number, name in enumerate(KINDS)}


def generate_paths(counts: int | Mapping[str, int], seed: int, **ranges) -> list[PathSpec]:
    """Generated paths: for each kind (in ``KINDS``' order) paths ``0 .. n - 1``.

    Parameters
    ----------
    counts : int or mapping of str to int
        Paths per kind (``>= 0``), or a total spread over the kinds (``kind_counts``).
    seed : int
        ``>= 0``.
    **ranges
        ``grades_deg``, ``widths``: as ``generate_path``.

    Returns
    -------
    list of PathSpec
        Kind by kind in ``KINDS``' order; path ``i`` of a kind is ``generate_path(kind, seed,
        i, **ranges)`` whatever the other counts.

    Raises
    ------
    ValueError
        An unknown kind (the message lists ``KINDS``), a count not an integer ``>= 0``; the
        errors of ``generate_path``.
    """
    if isinstance(counts, Mapping):
        unknown = [name for name in counts if name not in KINDS]
        if unknown:
            raise ValueError(f"counts: unknown kind {unknown[0]!r}; kinds: {list(KINDS)}")
        wanted = {name: _check_index(f"counts[{name!r}]", counts[name]) for name in counts}
    else:
        wanted = kind_counts(counts)
    return [
        generate_path(name, seed, index, **ranges)
        for name in KINDS
        for index in range(wanted.get(name, 0))
    ]


def generated_seeds(suite: Suite) -> frozenset[int]:
    """The seeds of a suite's generated paths (their ``seed-<seed>`` tags): tuning must see none
    of the evaluation's."""
    seeds = set()
    for name in suite.path_names:
        tags = suite.path(name).tags
        if "generated" in tags:
            seeds.update(int(tag[5:]) for tag in tags if tag.startswith("seed-"))
    return frozenset(seeds)


# --------------------------------------------------------------------------------------------------
# the suite file's [generated] table


class GeneratedSpec(BaseModel):
    """A suite file's ``[generated]`` table (module docstring): which paths to generate.

    ``seed`` (``>= 0``); either ``count`` (``>= 1``, spread over ``KINDS``) or ``kinds`` (a
    table of paths per kind, each ``>= 0``, at least one path); ``grades_deg`` and ``widths``:
    ``[min, max]``, finite, ``min <= max``, within ``GRADE_LIMITS_DEG`` and ``WIDTH_LIMITS``
    (defaults: those limits).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    seed: int = Field(ge=0)
    count: int | None = Field(None, ge=1)
    kinds: dict[str, Any] | None = None
    grades_deg: tuple[float, float] = GRADE_LIMITS_DEG
    widths: tuple[float, float] = WIDTH_LIMITS

    @field_validator("kinds")
    @classmethod
    def _kinds(cls, value):
        if value is None:
            return value
        for name, count in value.items():
            where = (f"[{name!r}]",)
            if name not in KINDS:
                raise _FieldError(where, f"unknown kind of path; kinds: {list(KINDS)}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise _FieldError(where, f"must be an integer >= 0, got {count!r}")
        if not sum(value.values()):
            raise ValueError(f"must ask for at least one path, got {value!r}")
        return value

    @field_validator("grades_deg")
    @classmethod
    def _grades(cls, value):
        return _declared(value, GRADE_LIMITS_DEG, "GRADE_LIMITS_DEG")

    @field_validator("widths")
    @classmethod
    def _widths(cls, value):
        return _declared(value, WIDTH_LIMITS, "WIDTH_LIMITS")

    @model_validator(mode="after")
    def _count_or_kinds(self):
        if (self.count is None) == (self.kinds is None):
            raise _FieldError(
                ("count",), "give either count (a total) or kinds (paths per kind), not both"
            )
        return self

    def paths(self) -> list[PathSpec]:
        """The declared paths (``generate_paths``)."""
        counts = self.count if self.kinds is None else self.kinds
        return generate_paths(counts, self.seed, grades_deg=self.grades_deg, widths=self.widths)


def _declared(value: tuple[float, float], limits: tuple[float, float], name: str):
    low, high = value
    if low > high:
        raise ValueError(f"is an empty range (min > max), got {list(value)!r}")
    if low < limits[0] or high > limits[1]:
        raise ValueError(f"must lie within {list(limits)} ({name}), got {list(value)!r}")
    return value


class GeneratedFile(BaseModel):
    """The part of a suite file that declares generated paths: its ``generated`` table (the
    other keys are the suite's own, validated by ``SuiteSpec``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    generated: GeneratedSpec
