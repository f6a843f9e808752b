"""Seed 001's vehicle classes, measured: which presets are easy to drive and which are hard.

Seed 001: "six different vehicles ... Storm, Bolte, Panhard Crab, Zaha, Armata, and Hovercraft.
The first three vehicles were deemed easily maneuverable, while the latter three presented
greater challenges due to slower turning rate, larger turning radius, poor traction, etc."

``measure_vehicle_classes()`` drives every preset through the same manoeuvres by simulation
(``_vehicle_dynamics``, ``dt = 0.01 s``, flat ground unless a grade is given) and returns one row
per preset; ``render_markdown`` gives the table of ``docs/fidelity.md``. The manoeuvres:

- **min turning radius at low speed**: full lock (``steer = +1``) held 30 s at 1 and 2 m/s
  (throttle from a proportional speed hold, ``throttle = clamp(target - v, -1, 1)`` per m/s), and
  at rest with the throttle at 0 (only a vehicle that turns in place rotates then); radius =
  ground speed / yaw rate at the end (steady state); the smallest;
- **at 5 m/s, full lock**: the same at 5 m/s: yaw rate and radius;
- **max lateral acceleration at 10 m/s** (the paper's ``v_max``): from 10 m/s straight, the
  steer ramps from 0 to +1 in 20 s (quasi-steady) then holds 5 s, the speed hold on; the largest
  ``speed * |course rate|`` (the path's centripetal acceleration; the course is the direction of
  the velocity, ``yaw + atan2(v_lat, v)``), and the largest sideslip ``|atan2(v_lat, v)|`` on the
  way (drift);
- **0-10 m/s**: from rest, full throttle, flat: time until ``v >= 10 m/s`` (interpolated);
- **top speed**: full throttle 120 s;
- **steepest climbable slope from rest**: facing straight uphill on a constant grade
  (``gravity_forward = -g sin(grade)``), full throttle from rest: does ``v`` reach 1 m/s within
  20 s? Bisection on the grade (0 to 60 degrees, 16 halvings).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba

from steerlab._per_agent import check_shared
from steerlab.experiments.fidelity.claims import format_number as _number
from steerlab.experiments.markdown import markdown_table as _table
from steerlab.vehicles import EASY, GRAVITY, PRESETS, DriveCommand, VehicleParams, VehicleState
from steerlab.vehicles.dynamics import _vehicle_dynamics

__all__ = [
    "DT",
    "VehicleClassRow",
    "hard_reasons",
    "measure_vehicle",
    "measure_vehicle_classes",
    "render_markdown",
]

DT = 0.01  # [s] frame time of every manoeuvre
COMMAND = (
    '.venv/bin/python -c "from steerlab.experiments.fidelity.vehicle_classes import '
    'measure_vehicle_classes, render_markdown; print(render_markdown(measure_vehicle_classes()))"'
)


class VehicleClassRow(NamedTuple):
    """One preset's measured handling."""

    name: str
    kind: str  # "wheeled", "tracked", "hover"
    paper_class: str  # "easy" (seed 001's first three) or "hard"
    min_radius: float  # [m] smallest steady full-lock radius at low speed (0, 1, 2 m/s)
    turns_in_place: bool  # yaw rate > 0.05 rad/s at rest, throttle 0, full steer
    radius_5: float  # [m] steady full-lock radius at 5 m/s
    yaw_rate_5: float  # [deg/s] steady full-lock yaw rate at 5 m/s
    max_lateral_acceleration: float  # [m/s^2] speed x course rate, 10 m/s, steer ramp
    max_sideslip: float  # [deg] largest |atan2(v_lat, v)| during that ramp
    time_0_to_10: float  # [s] full throttle from rest on flat ground (inf: never)
    top_speed: float  # [m/s] after 120 s of full throttle
    max_climb: float  # [deg] steepest grade on which it reaches 1 m/s from rest within 20 s


@numba.njit(cache=True)
def _manoeuvre(params, start_speed, steer_end, ramp_time, hold_speed, target, duration, threshold):
    """Simulate on flat ground from ``v = start_speed`` facing +x.

    Steer command: ``steer_end * min(1, t / ramp_time)`` (``ramp_time = 0``: at once). Throttle:
    ``clamp(target - v, -1, 1)`` if ``hold_speed``, else ``target``. Returns ``(speed, yaw_rate,
    max speed * |course rate|, max |sideslip| [rad], first time v >= threshold (interpolated)
    or inf, v)``; the course (direction of the velocity) rate and the sideslip count only above
    0.5 m/s.
    """
    state = VehicleState(0.0, 0.0, 0.0, float(start_speed), 0.0, 0.0, 0.0)
    steps = round(duration / DT)
    largest_lateral = 0.0
    largest_slip = 0.0
    reached = math.inf
    course = 0.0
    for k in range(steps):
        t = k * DT
        steer_command = steer_end * min(1.0, t / ramp_time) if ramp_time > 0.0 else steer_end
        throttle = min(max(target - state.v, -1.0), 1.0) if hold_speed else target
        previous = state.v
        state = _vehicle_dynamics(
            state, DriveCommand(steer_command, throttle), params, 0.0, 0.0, DT
        )
        yaw, v, v_lat = state.yaw, state.v, state.v_lat
        speed = math.sqrt(v * v + v_lat * v_lat)
        previous_course = course
        course = yaw + math.atan2(v_lat, v)
        if speed > 0.5:
            # centripetal acceleration of the path: speed x course rate
            turn = (course - previous_course + math.pi) % (2.0 * math.pi) - math.pi
            largest_lateral = max(largest_lateral, speed * abs(turn) / DT)
            largest_slip = max(largest_slip, abs(math.atan2(v_lat, v)))
        if reached == math.inf and v >= threshold:
            reached = t + DT * (threshold - previous) / (v - previous)
    speed = math.sqrt(state.v * state.v + state.v_lat * state.v_lat)
    return speed, state.yaw_rate, largest_lateral, largest_slip, reached, state.v


@numba.njit(cache=True)
def _reaches_speed_on_grade(params, grade_sin, speed, duration):
    """From rest facing uphill at full throttle: does ``v`` reach ``speed`` within ``duration``?"""
    state = VehicleState(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    full_throttle = DriveCommand(0.0, 1.0)
    gravity_forward = -GRAVITY * grade_sin
    for _ in range(round(duration / DT)):
        state = _vehicle_dynamics(state, full_throttle, params, gravity_forward, 0.0, DT)
        if state.v >= speed:
            return True
    return False


def _steady_radius(params: VehicleParams, hold: float) -> tuple[float, float]:
    """(radius [m], yaw rate [rad/s]) after 30 s of full lock at speed ``hold`` (0: throttle 0)."""
    if hold == 0.0:
        speed, yaw_rate, *_ = _manoeuvre(params, 0.0, 1.0, 0.0, False, 0.0, 30.0, math.inf)
    else:
        speed, yaw_rate, *_ = _manoeuvre(params, hold, 1.0, 0.0, True, hold, 30.0, math.inf)
    if abs(yaw_rate) < 1e-6:
        return math.inf, yaw_rate
    return speed / abs(yaw_rate), yaw_rate


def _max_climb(params: VehicleParams, halvings: int = 16) -> float:
    """Steepest grade [rad] on which the vehicle reaches 1 m/s from rest within 20 s."""
    low, high = 0.0, math.radians(60.0)
    if not _reaches_speed_on_grade(params, 0.0, 1.0, 20.0):
        return 0.0
    for _ in range(halvings):
        middle = 0.5 * (low + high)
        if _reaches_speed_on_grade(params, math.sin(middle), 1.0, 20.0):
            low = middle
        else:
            high = middle
    return low


def measure_vehicle(name: str, params: VehicleParams) -> VehicleClassRow:
    """Every manoeuvre of the module docstring for one vehicle."""
    params = params.validated()
    check_shared(params, "measure_vehicle")
    radius_rest, yaw_rate_rest = _steady_radius(params, 0.0)
    radii = [radius_rest, _steady_radius(params, 1.0)[0], _steady_radius(params, 2.0)[0]]
    radius_5, yaw_rate_5 = _steady_radius(params, 5.0)
    _, _, lateral, slip, _, _ = _manoeuvre(params, 10.0, 1.0, 20.0, True, 10.0, 25.0, math.inf)
    _, _, _, _, reached, top_speed = _manoeuvre(params, 0.0, 0.0, 0.0, False, 1.0, 120.0, 10.0)
    return VehicleClassRow(
        name=name,
        kind=params.kind_name,
        paper_class="easy" if name in EASY else "hard",
        min_radius=min(radii),
        turns_in_place=abs(yaw_rate_rest) > 0.05,
        radius_5=radius_5,
        yaw_rate_5=math.degrees(abs(yaw_rate_5)),
        max_lateral_acceleration=lateral,
        max_sideslip=math.degrees(slip),
        time_0_to_10=reached,
        top_speed=top_speed,
        max_climb=math.degrees(_max_climb(params)),
    )


def measure_vehicle_classes(presets=None) -> list[VehicleClassRow]:
    """One row per preset (default: ``steerlab.vehicles.PRESETS``, in the seed's order)."""
    presets = PRESETS if presets is None else presets
    return [measure_vehicle(name, params) for name, params in presets.items()]


def hard_reasons(rows: list[VehicleClassRow]) -> dict[str, list[str]]:
    """For each vehicle, the seed's challenges on which it is worse than every easy vehicle."""
    easy = [row for row in rows if row.paper_class == "easy"]
    if not easy:
        return {row.name: [] for row in rows}
    reasons = {}
    for row in rows:
        mine = []
        if row.yaw_rate_5 < min(e.yaw_rate_5 for e in easy):
            mine.append("slower turning rate")
        if row.radius_5 > max(e.radius_5 for e in easy):
            mine.append("larger turning radius")
        if row.max_lateral_acceleration < min(e.max_lateral_acceleration for e in easy) or (
            row.max_climb < min(e.max_climb for e in easy)
        ):
            mine.append("poor traction")
        if row.time_0_to_10 > max(e.time_0_to_10 for e in easy):
            mine.append("slower to accelerate")
        reasons[row.name] = mine
    return reasons


def render_markdown(rows: list[VehicleClassRow], heading_level: int = 2) -> str:
    """The section "Seed 001: vehicle classes" of ``docs/fidelity.md``."""
    section = "#" * heading_level
    reasons = hard_reasons(rows)
    header = [
        "vehicle",
        "kind",
        "seed 001",
        "min turning radius, low speed [m]",
        "turns in place",
        "radius at 5 m/s, full lock [m]",
        "yaw rate at 5 m/s [deg/s]",
        "max lateral acc. at 10 m/s [m/s^2]",
        "max sideslip [deg]",
        "0-10 m/s [s]",
        "top speed [m/s]",
        "steepest climb from rest [deg]",
        "worse than every easy vehicle on",
    ]
    body = [
        [
            row.name,
            row.kind,
            row.paper_class,
            _number(row.min_radius),
            "yes" if row.turns_in_place else "no",
            _number(row.radius_5),
            _number(row.yaw_rate_5),
            _number(row.max_lateral_acceleration),
            _number(row.max_sideslip),
            _number(row.time_0_to_10),
            _number(row.top_speed),
            _number(row.max_climb),
            ", ".join(reasons[row.name]) or "-",
        ]
        for row in rows
    ]
    hard = [row for row in rows if row.paper_class == "hard"]
    holds = all(reasons[row.name] for row in hard) and not any(
        reasons[row.name] for row in rows if row.paper_class == "easy"
    )
    lines = [
        f"{section} Seed 001: vehicle classes",
        "",
        'Seed 001: "The first three vehicles were deemed easily maneuverable, while the latter '
        "three presented greater challenges due to slower turning rate, larger turning radius, "
        "poor traction, etc.\" The game's vehicle numbers are not public; the presets "
        "(`steerlab.vehicles.PRESETS`) take real vehicles of each class (sources in "
        "`src/steerlab/vehicles/presets.py`), and this table measures them by simulation "
        "(`steerlab.experiments.fidelity.vehicle_classes`, "
        f"dt = {DT} s, flat ground unless climbing).",
        "",
        f"- verdict: **{'holds' if holds else 'does not hold'}**: every hard vehicle is worse "
        "than every easy one on at least one of the seed's challenges, and no easy vehicle is; "
        "Armata turns in place (radius ~0) but turns slowly at speed; the hovercraft drifts "
        "(sideslip far above the wheeled vehicles') and grips poorly; Zaha's radius is the "
        "largest of the wheeled vehicles.",
        f"- reproduce: `{COMMAND}`",
        "- manoeuvres: full lock held 30 s at rest (throttle 0), 1, 2 and 5 m/s (speed hold "
        "`throttle = clamp(v_target - v, -1, 1)`), radius = speed / yaw rate; lateral "
        "acceleration (speed x course rate): steer ramped 0 to full lock in 20 s at 10 m/s; "
        "0-10 m/s and top speed at full throttle; "
        "climb: bisection on the grade, full throttle from rest, must reach 1 m/s within 20 s. "
        "'Worse than every easy vehicle' compares yaw rate and radius at 5 m/s (turning rate, "
        "radius), lateral acceleration or climb (traction), 0-10 m/s (acceleration).",
        "",
        _table(header, body),
        "",
    ]
    return "\n".join(lines)
