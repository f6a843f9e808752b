"""Seed 000, "Reaching a point in a given direction": every claim of the section, measured.

Each claim is checked by simulating ``steerlab.laws.oriented.ReachOriented`` on steerlab's
engines from a grid of start states around the destination:

``ideal``
    BaseEngine with ``Ek_Yaw = 1`` and no bound (``k_yaw = k_speed = inf``): the agent heads
    exactly where the law says, the seed's curves themselves;
``lag``
    BaseEngine with the seed's test lag ``kYaw = 4`` and a yaw-rate bound of 180 deg/s (turn
    radius 102 u at 320 u/s): an engine that cannot turn on the spot;
``half-life``
    the Half-Life engine of seed 004 (``model="engine"``, the page's cvars), whose velocity turns
    through friction and acceleration.

Set-up (the seed gives none; each value is a choice named in the constants below): the law's
constant speed 320 u/s (Half-Life's ``sv_maxspeed``), frame time ``T = 0.02 s``, destination at
the origin with course 0 (the law's local frame: every case is a rotation and translation of
this one), starts at 250 .. 2000 u every 10 degrees around it, each with 8 initial headings
(45 degrees apart) and the velocity along the heading at 320 u/s, 60 s of simulated time.

Definitions used in every table:

- **arrives**: the agent comes within ``3 v T = 19.2 u`` (three frames of travel) of the
  destination within the 60 s. The *pass* is that first approach: the frames from the first one
  within 19.2 u while the distance still decreases; its closest frame gives the **heading
  error** (velocity direction minus course, absolute) and the **lateral speed** (velocity across
  the course, absolute: the seed's ``vVely`` at ``x = y = 0``).
- **aligned**: arrives with a heading error of at most 10 degrees.
- **seed** law: ``relative_bearing_max=None`` (the seed's heading fields exactly); **adapted**:
  the default bound of the relative bearing (``steerlab.laws.oriented``). Both run with
  ``arrival_radius=None``: the arrival rule would hold the course within one frame of the
  destination and hide what the family itself delivers.

``measure_reach_oriented()`` returns one ``Claim`` per claim (keys ``a`` .. ``g``);
``render_markdown(claims)`` renders the "Reach a point in a given direction" subsection of
``docs/fidelity.md``. Reproduce with ``steerlab fidelity 000``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from steerlab._per_agent import agent_params, check_agent_count
from steerlab.engines import (
    AgentBatch,
    AgentState,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeParams,
)
from steerlab.engines.base import _base_engine_step
from steerlab.engines.halflife import _half_life_step
from steerlab.experiments.fidelity.claims import Claim, render_claims
from steerlab.experiments.fidelity.claims import format_number as _number
from steerlab.experiments.markdown import markdown_table as _table
from steerlab.geometry.kernels import wrap_pi
from steerlab.laws.oriented import (
    DEFAULT_RELATIVE_BEARING_MAX,
    OrientedData,
    ReachOriented,
    _reach_oriented_command,
    fit_conic,
)

__all__ = [
    "ALIGNED_ERROR",
    "ARRIVAL_DISTANCE",
    "COMMAND",
    "ENGINES",
    "FAMILY_CASES",
    "FIGURES_COMMAND",
    "FRAME_TIME",
    "SPEED",
    "PassRun",
    "fit_conic",
    "measure_reach_oriented",
    "render_markdown",
    "simulate_passes",
    "start_grid",
    "write_markdown",
]

COMMAND = "steerlab fidelity 000"
FIGURES_COMMAND = "steerlab figures 000 --out out/figures"
SPEED = 320.0  # [u/s] UE_mVel: Half-Life's sv_maxspeed, ReachOriented's default
FRAME_TIME = 0.02  # [s] T: a choice (50 frames per second); the seed gives none
DURATION = 60.0  # [s] simulated time per start: about 20 times the farthest start distance
ARRIVAL_DISTANCE = 3.0 * SPEED * FRAME_TIME  # [u] "arrives": within three frames of travel
ALIGNED_ERROR = math.radians(10.0)  # [rad] "aligned": heading error at the pass at most this
APPROACH_DISTANCE = SPEED * 1.0  # [u] the final approach: the last second of travel
K_YAW = 4.0  # [1/s] the seed's tests: "kYaw = 4"
YAW_RATE_MAX = math.pi  # [rad/s] lag engine's YAWRATEMAX: a choice, 102 u turn radius at 320 u/s

# name -> (label, engine params); BaseEngineParams for the BaseEngine, HalfLifeParams for Half-Life
ENGINES = {
    "ideal": ("BaseEngine, Ek_Yaw = 1", BaseEngineParams(k_yaw=math.inf, k_speed=math.inf)),
    "lag": (
        "BaseEngine, kYaw = 4, yaw rate <= 180 deg/s",
        BaseEngineParams(k_yaw=K_YAW, yaw_rate_max=YAW_RATE_MAX),
    ),
    "half-life": ("Half-Life (engine), seed 004 cvars", HalfLifeParams(model="engine")),
}

# (label, family, keyword arguments): the seed's three curves and each family for several K or
# (B, c); K = 2 of F3, F4 is CIRCLE and K = 2 of F5 is PARABOLA (the seed's "K=2 for ...")
FAMILY_CASES = (
    ("LINE", "LINE", {}),
    ("CIRCLE", "CIRCLE", {}),
    ("PARABOLA", "PARABOLA", {}),
    ("F1 B=0.5 c=1 (ellipse)", "F1", {"b": 0.5, "c": 1.0}),
    ("F1 B=1 c=1 (parabola)", "F1", {"b": 1.0, "c": 1.0}),
    ("F1 B=2 c=1 (hyperbola)", "F1", {"b": 2.0, "c": 1.0}),
    ("F2 K=1.5", "F2", {"k": 1.5}),
    ("F2 K=2", "F2", {"k": 2.0}),
    ("F2 K=3", "F2", {"k": 3.0}),
    ("F2 K=4", "F2", {"k": 4.0}),
    ("F2 K=6", "F2", {"k": 6.0}),
    ("F3 K=1.5", "F3", {"k": 1.5}),
    ("F3 K=3", "F3", {"k": 3.0}),
    ("F3 K=5", "F3", {"k": 5.0}),
    ("F4 K=1.5", "F4", {"k": 1.5}),
    ("F4 K=3", "F4", {"k": 3.0}),
    ("F4 K=5", "F4", {"k": 5.0}),
    ("F5 K=1.5", "F5", {"k": 1.5}),
    ("F5 K=3", "F5", {"k": 3.0}),
    ("F5 K=5", "F5", {"k": 5.0}),
)
_F2_KS = (1.5, 2.0, 3.0, 4.0, 6.0)
_SWEEP_BOUNDS = (0.5 * math.pi, 0.6 * math.pi, 2.0 * math.pi / 3.0, 0.75 * math.pi, 0.9 * math.pi)


# ---------------------------------------------------------------------------------------------
# simulation: the law's and the engines' kernels, one agent per start state
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _simulate_passes_kernel(
    start_x,
    start_y,
    start_yaw,
    law_params,
    dt,
    frames,
    engine_code,
    base_params,
    half_life_params,
    arrival_distance,
    approach_distance,
    out,
):
    """Law + engine for each start; ``out[i]`` = (pass distance, heading error, lateral speed,
    pass time, first commanded turn, peak turn rate in the final approach), NaN when no pass.

    ``law_params`` is the law's ``OrientedParams.kernel_record()``, whose fields may hold one value
    per start (``b`` and ``c`` of fitted conics). ``engine_code`` 0: the BaseEngine with
    ``base_params``; 1: Half-Life with ``half_life_params`` (``HalfLifeParams.kernel_record()``);
    the record of the other engine is not read.
    """
    destination = OrientedData(0.0, 0.0, 0.0, 1.0, 0.0)  # the origin, course 0
    for i in range(start_x.size):
        params = agent_params(law_params, i)
        speed = params.speed
        x = start_x[i]
        y = start_y[i]
        yaw = start_yaw[i]
        vx = speed * math.cos(yaw)
        vy = speed * math.sin(yaw)
        direction = math.atan2(vy, vx)
        entered = False
        best = math.inf
        heading_error = math.nan
        lateral = math.nan
        time = math.nan
        peak = 0.0
        first_turn = math.nan
        for frame in range(frames):
            yaw_command, speed_command = _reach_oriented_command(
                AgentState(x, y, vx, vy, yaw), params, destination, dt
            )
            if frame == 0:
                first_turn = abs(wrap_pi(yaw_command - direction))
            state = AgentState(x, y, vx, vy, yaw)
            command = Command(yaw_command, speed_command)
            if engine_code == 0:
                state = _base_engine_step(state, command, base_params, dt)
            else:
                state = _half_life_step(state, command, half_life_params, dt)
            x, y, vx, vy, yaw = state
            distance = math.hypot(x, y)
            new_direction = math.atan2(vy, vx)
            if arrival_distance < distance <= approach_distance and not entered:
                peak = max(peak, abs(wrap_pi(new_direction - direction)) / dt)
            direction = new_direction
            if entered and distance >= best:
                break
            if distance <= arrival_distance:
                entered = True
            if entered:
                best = distance
                heading_error = abs(direction)  # course 0
                lateral = abs(vy)
                time = (frame + 1) * dt
        out[i, 0] = best if entered else math.nan
        out[i, 1] = heading_error
        out[i, 2] = lateral
        out[i, 3] = time
        out[i, 4] = first_turn
        out[i, 5] = peak


class PassRun(NamedTuple):
    """What happened to each start state (arrays, one entry per start; NaN: no pass).

    Attributes
    ----------
    start_x, start_y, start_yaw : numpy.ndarray
        Start states [u, u, rad] in the local frame (destination at the origin, course 0).
    pass_distance : numpy.ndarray
        Closest distance [u] of the first pass within ``ARRIVAL_DISTANCE``.
    heading_error : numpy.ndarray
        |velocity direction - course| [rad] at that closest frame.
    lateral_speed : numpy.ndarray
        |velocity across the course| [u/s] at that frame (the seed's vVely at x = y = 0).
    pass_time : numpy.ndarray
        Time [s] of that frame.
    first_turn : numpy.ndarray
        |first UE_yaw - initial velocity direction| [rad]: the heading jump when the curve starts.
    peak_turn_rate : numpy.ndarray
        Largest velocity turn rate [rad/s] between ``APPROACH_DISTANCE`` and
        ``ARRIVAL_DISTANCE`` from the destination, before the pass (the final approach, without
        the frames on the destination where every field is singular).
    """

    start_x: np.ndarray
    start_y: np.ndarray
    start_yaw: np.ndarray
    pass_distance: np.ndarray
    heading_error: np.ndarray
    lateral_speed: np.ndarray
    pass_time: np.ndarray
    first_turn: np.ndarray
    peak_turn_rate: np.ndarray

    @property
    def arrived(self) -> np.ndarray:
        return np.isfinite(self.pass_distance)

    @property
    def aligned(self) -> np.ndarray:
        return self.arrived & (np.nan_to_num(self.heading_error, nan=math.inf) <= ALIGNED_ERROR)


def start_grid(fast: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start states ``(x, y, yaw)`` [u, u, rad] around the destination (origin, course 0).

    Full: distances 250, 500, 1000, 2000 u, positions every 10 degrees (offset 5), headings every
    45 degrees: 1152 starts. Fast: 400 and 1200 u, every 30 degrees (offset 15), every 90: 96.
    """
    if fast:
        distances, step, headings = (400.0, 1200.0), 30.0, 4
    else:
        distances, step, headings = (250.0, 500.0, 1000.0, 2000.0), 10.0, 8
    angles = np.radians(np.arange(step / 2.0, 360.0, step))
    yaws = np.arange(headings) * (2.0 * math.pi / headings)
    distance, angle, yaw = np.meshgrid(distances, angles, yaws, indexing="ij")
    distance, angle, yaw = distance.ravel(), angle.ravel(), yaw.ravel()
    return distance * np.cos(angle), distance * np.sin(angle), np.array([_wrap(a) for a in yaw])


def _wrap(angle: float) -> float:
    return float(wrap_pi(float(angle)))


def _engine_arguments(engine: str) -> tuple[int, BaseEngineParams, HalfLifeParams]:
    """The engine's code for ``_simulate_passes_kernel`` and both records (the unused one at its
    defaults)."""
    _, params = ENGINES[engine]
    if isinstance(params, BaseEngineParams):
        return 0, params.validated(), HalfLifeParams().validated().kernel_record()
    return 1, BaseEngineParams().validated(), params.validated().kernel_record()


def simulate_passes(
    law: ReachOriented,
    engine: str,
    starts: tuple[np.ndarray, np.ndarray, np.ndarray],
    b=None,
    c=None,
    dt: float = FRAME_TIME,
    duration: float = DURATION,
) -> PassRun:
    """Run ``law`` (destination at the origin, course 0) on ``engine`` from every start.

    Parameters
    ----------
    law : ReachOriented
        Its family, parameters, speed and adaptation are used; its target and course must be
        the origin and 0, and its arrival rule is switched off (module docstring).
    engine : {"ideal", "lag", "half-life"}
        Key of ``ENGINES``.
    starts : tuple of numpy.ndarray
        ``(x, y, yaw)`` [u, u, rad], one entry per agent; the velocity is ``law.speed`` along
        ``yaw``.
    b, c : numpy.ndarray or None
        Per-agent F1 parameters (``fit_conic``) instead of the law's.
    dt, duration : float
        Frame time and simulated time [s].

    Returns
    -------
    PassRun
    """
    if law.target.shape != (2,) or law.target.any() or np.ndim(law.course) or law.course != 0.0:
        raise ValueError("simulate_passes needs a law with target (0, 0) and course 0")
    x, y, yaw = (np.ascontiguousarray(a, dtype=np.float64) for a in starts)
    code, base_params, half_life_params = _engine_arguments(engine)
    # the law's record, its arrival rule off, with one (B, c) per start when given
    law_params = law.params.kernel_record()._replace(arrive=False)
    b = np.full(x.size, law.b) if b is None else np.ascontiguousarray(b, dtype=np.float64)
    c = np.full(x.size, law.c) if c is None else np.ascontiguousarray(c, dtype=np.float64)
    law_params = law_params._replace(b=b, c=c)
    check_agent_count(law_params, x.size, "the start grid")
    out = np.empty((x.size, 6))
    _simulate_passes_kernel(
        x,
        y,
        yaw,
        law_params,
        dt,
        math.ceil(duration / dt),
        code,
        base_params,
        half_life_params,
        ARRIVAL_DISTANCE,
        APPROACH_DISTANCE,
        out,
    )
    return PassRun(x, y, yaw, *(out[:, j].copy() for j in range(6)))


def _law(family: str, adapted: bool, **parameters) -> ReachOriented:
    bound = DEFAULT_RELATIVE_BEARING_MAX if adapted else None
    return ReachOriented(
        (0.0, 0.0),
        0.0,
        family,
        speed=SPEED,
        relative_bearing_max=bound,
        arrival_radius=None,
        **parameters,
    )


# ---------------------------------------------------------------------------------------------
# summaries and formatting
# ---------------------------------------------------------------------------------------------


def _claim(key, claim, engines, measured, verdict, note, details=""):
    return Claim(key, claim, engines, measured, verdict, note, details, COMMAND)


def _engine_labels(engines=tuple(ENGINES)) -> str:
    return "; ".join(ENGINES[engine][0] for engine in engines)


def _share(mask: np.ndarray) -> str:
    return f"{100.0 * float(np.mean(mask)):.0f}%" if mask.size else "n/a"


def _degrees(values: np.ndarray, q: float) -> str:
    values = values[np.isfinite(values)]
    return _number(float(np.degrees(np.percentile(values, q))), 3) if values.size else "n/a"


def _median(values: np.ndarray, digits: int = 3) -> str:
    values = values[np.isfinite(values)]
    return _number(float(np.median(values)), digits) if values.size else "n/a"


def _failures(run: PassRun) -> str:
    """Where the starts that do not arrive aligned start from, and how they fail."""
    failed = ~run.aligned
    if not failed.any():
        return "none"
    ahead = run.start_x[failed] > 0.0
    never = ~run.arrived[failed]
    return (
        f"{int(failed.sum())}: {_share(ahead)} ahead; {int(never.sum())} never within "
        f"{_number(ARRIVAL_DISTANCE)} u, {int((~never).sum())} arrive off course"
    )


def _run_row(label: str, variant: str, run: PassRun) -> list[str]:
    arrived = run.arrived
    return [
        label,
        variant,
        _share(arrived),
        _share(run.aligned),
        _degrees(run.heading_error[arrived], 50),
        _degrees(run.heading_error[arrived], 95),
        _median(run.lateral_speed[arrived]),
        _median(run.pass_time[arrived]),
        _failures(run),
    ]


_RUN_HEADER = [
    "family",
    "law",
    "arrives",
    "aligned (<= 10 deg)",
    "heading error median [deg]",
    "p95 [deg]",
    "lateral speed median [u/s]",
    "time median [s]",
    "not aligned: count, share starting ahead, how",
]


def _grid_note(fast: bool) -> str:
    x, _, _ = start_grid(fast)
    distances = "400, 1200" if fast else "250, 500, 1000, 2000"
    every = "30" if fast else "10"
    headings = "4" if fast else "8"
    return (
        f"{x.size} start states: distances {distances} u, every {every} deg around the "
        f"destination, {headings} initial headings; speed {SPEED:g} u/s, T = {FRAME_TIME:g} s, "
        f"{DURATION:g} s; arrives = within {_number(ARRIVAL_DISTANCE)} u (3 v T), aligned = "
        f"heading error <= {math.degrees(ALIGNED_ERROR):g} deg at the pass."
    )


# ---------------------------------------------------------------------------------------------
# the claims
# ---------------------------------------------------------------------------------------------


def _deviation_runs(family: str, starts_x, starts_y, dt, reference):
    """Max distance of each ideal-engine trajectory from ``reference(x, y) -> distance``."""
    law = _law(family, adapted=False)
    engine = BaseEngine(ENGINES["ideal"][1])
    size = starts_x.size
    batch = AgentBatch(
        starts_x.copy(), starts_y.copy(), np.full(size, SPEED), np.zeros(size), np.zeros(size)
    )
    deviation = np.zeros(size)
    done = np.zeros(size, dtype=bool)
    out = None
    frames = math.ceil(DURATION / dt)
    for _ in range(frames):
        out = law.step_batch(batch, dt, out)
        engine.step_batch(batch, out.yaw, out.speed, dt)
        now = reference(batch.x, batch.y)
        deviation = np.where(done, deviation, np.maximum(deviation, now))
        done |= np.hypot(batch.x, batch.y) <= 2.0 * SPEED * dt
        if family == "PARABOLA":
            done |= batch.x >= 0.0
        if done.all():
            break
    return deviation, done


def _claim_circle(fast: bool) -> Claim:
    step_degrees = 10.0 if fast else 2.0
    angles = np.radians(np.arange(30.0, 330.0 + 1e-9, step_degrees))  # position angles
    angles = angles[np.abs(np.sin(angles)) > 1e-9]
    distances = (300.0, 1000.0)
    distance, angle = np.meshgrid(distances, angles, indexing="ij")
    x, y = (distance * np.cos(angle)).ravel(), (distance * np.sin(angle)).ravel()
    rad = -(x * x + y * y) / (2.0 * y)  # the seed's Rad
    rows = []
    worst_behind = 0.0
    worst_ratio = 0.0
    for dt in (0.005, 0.02, 0.05):
        step = SPEED * dt

        def distance_to_circle(px, py, rad=rad):
            return np.abs(np.hypot(px, py + rad) - np.abs(rad))

        deviation, done = _deviation_runs("CIRCLE", x, y, dt, distance_to_circle)
        bearing = np.arctan2(-y, -x)
        bound = step * (0.5 + np.abs(1.0 / np.tan(bearing)))
        behind = x < 0.0
        worst_behind = max(worst_behind, float((deviation[behind] / step).max()))
        worst_ratio = max(worst_ratio, float((deviation / bound).max()))
        rows.append(
            [
                _number(dt),
                _number(step),
                _share(done),
                _number(float((deviation[behind] / step).max()), 3),
                _number(float((deviation[~behind] / step).max()), 3),
                _number(float((deviation / bound).max()), 3),
            ]
        )
    holds = worst_behind <= 0.5 * 1.05 and worst_ratio <= 1.05
    measured = (
        f"ideal engine: the trajectory stays within {_number(worst_behind, 3)} v T of the seed's "
        f"circle from behind the destination, and within {_number(worst_ratio, 3)} times the "
        "first-order bound v T (1/2 + |cot Bearing0|) from every start"
    )
    return _claim(
        "a",
        '"CIRCLE tangential to x-axis for x=y=0: UE_yaw= 2* Bearing ... The radius is '
        "implicitely determined by the initial values of x and y not null as Rad= -( x*x+y*y)/"
        '(2*y)"',
        ENGINES["ideal"][0],
        measured,
        (
            "holds: on the ideal engine, with Rad signed (the centre is (0, -Rad)), within the "
            "first-order drift bound of a discrete step"
            if holds
            else "does not hold: the ideal engine leaves the circle by more than the first-order "
            "drift bound"
        ),
        "Starts 300 and 1000 u from the destination, position angles 30..330 deg (every "
        f"{step_degrees:g}); nearer the course line ahead the circle's radius grows without "
        "bound. Discrete steps drift off the circle: each frame moves v T along the tangent and "
        "leaves the circle by (v T)^2 / (2R); carried to the original circle and summed that is "
        "at most v T (1/2 + |cot Bearing0|) to first order, v T / 2 from behind (x < 0). The "
        "heading is read with Bearing = atan2(-y, -x), the direction to the destination (the "
        "seed's atan2(y, x) differs by pi, which 2 Bearing cannot see).",
        _table(
            [
                "T [s]",
                "v T [u]",
                "arrived",
                "max distance to circle / v T, from behind",
                "from ahead",
                "max distance / first-order bound",
            ],
            rows,
        ),
    )


def _claim_parabola(fast: bool, runs) -> Claim:
    step_degrees = 10.0 if fast else 2.0
    angles = np.radians(np.arange(95.0, 265.0 + 1e-9, step_degrees))  # behind: x < 0
    distance, angle = np.meshgrid((300.0, 1000.0), angles, indexing="ij")
    x, y = (distance * np.cos(angle)).ravel(), (distance * np.sin(angle)).ravel()
    a = y / (x * x)
    rows = []
    worst = 0.0
    for dt in (0.005, 0.02, 0.05):
        step = SPEED * dt

        def distance_to_parabola(px, py, a=a):
            return np.abs(py - a * px * px) / np.sqrt(1.0 + 4.0 * a * a * px * px)

        deviation, done = _deviation_runs("PARABOLA", x, y, dt, distance_to_parabola)
        worst = max(worst, float((deviation / step).max()))
        rows.append(
            [_number(dt), _number(step), _share(done), _number(float((deviation / step).max()), 3)]
        )
    seed_run = runs[("PARABOLA", "ideal", "seed")]
    ahead = seed_run.start_x > 0.0
    ahead_arrived = float(np.mean(seed_run.arrived[ahead]))
    behind_aligned = float(np.mean(seed_run.aligned[~ahead]))
    measured = (
        f"ideal engine, starts behind the destination: within {_number(worst, 3)} v T of the "
        f"parabola y = (y0 / x0^2) x^2; of the grid's starts, {100 * behind_aligned:.0f}% of "
        f"those behind arrive aligned and {100 * ahead_arrived:.0f}% of those ahead arrive"
    )
    holds = worst <= 0.5 * 1.05
    return _claim(
        "b",
        '"PARABOLA tangential to x-axis for x=y=0: UE_yaw= atan(2* tan(Bearing)); or '
        'vVely/vVelx= 2* y/x"',
        ENGINES["ideal"][0],
        measured,
        (
            "holds in part: from behind the destination; from ahead of it (x > 0) the parabola "
            "through the agent has already passed the destination and leads away"
            if holds
            else "does not hold: the ideal engine leaves the parabola by more than v T / 2 from "
            "behind the destination"
        ),
        "First-order drift bound from behind: each frame leaves the current parabola by "
        "(v T)^2 kappa / 2, which carried to the original parabola and summed stays under "
        "v T / 2. atan(2 tan(Bearing)) has vVelx > 0 everywhere: behind the destination the "
        "agent closes in, ahead of it it moves away along the other branch (the adapted law "
        "takes it round instead, see e). From near x = 0 behind, the parabola through the agent "
        "is narrow (curvature 2 y0 / x0^2 at the vertex) and the agent reaches the destination "
        "almost across the course: the p95 heading errors of the table in e.",
        _table(["T [s]", "v T [u]", "reached x >= 0", "max distance to parabola / v T"], rows),
    )


def _claim_line(runs) -> Claim:
    rows = []
    for engine in ENGINES:
        run = runs[("LINE", engine, "seed")]
        rows.append(_run_row(ENGINES[engine][0], "seed", run))
    ideal = runs[("LINE", "ideal", "seed")]
    errors = ideal.heading_error[ideal.arrived]
    measured = (
        f"ideal engine: arrives from {_share(ideal.arrived)} of the starts, with a heading error "
        f"of median {_degrees(errors, 50)} deg (p95 {_degrees(errors, 95)}); aligned from "
        f"{_share(ideal.aligned)}"
    )
    return _claim(
        "c",
        '"LINE: ... move straight to the destination, then change yaw to the given direction ... '
        "This works if a stop on the destination is possible or turns are instantaneous, which is "
        'barely the case."',
        _engine_labels(),
        measured,
        "holds: the agent arrives along its approach bearing, and only a stop or an instantaneous "
        "turn on the destination gives the course",
        "The seed's LINE; the heading error at the pass is the angle between the approach and "
        "the course, so only starts already on the course line behind the destination arrive "
        "aligned. ReachOriented's arrival rule then commands the course, which only an engine "
        "with Ek_Yaw = 1 takes at once.",
        _table(["engine", *_RUN_HEADER[1:]], rows),
    )


def _claim_conics(runs) -> Claim:
    rows = []
    cases = [case for case in FAMILY_CASES if case[1] == "F1" or case[0] in ("CIRCLE", "PARABOLA")]
    for label, _, _ in cases:
        for variant in ("seed", "adapted"):
            rows.append(_run_row(label, variant, runs[(label, "ideal", variant)]))
    ellipse = runs[("F1 B=0.5 c=1 (ellipse)", "ideal", "seed")]
    hyperbola = runs[("F1 B=2 c=1 (hyperbola)", "ideal", "seed")]
    parabola = runs[("F1 B=1 c=1 (parabola)", "ideal", "seed")]
    lateral = ellipse.lateral_speed[ellipse.aligned]
    measured = (
        f"ideal engine, seed law: aligned from {_share(ellipse.aligned)} of the starts with an "
        f"ellipse (B=0.5, c=1; lateral speed at the pass median {_median(lateral)} u/s), "
        f"{_share(parabola.aligned)} with a parabola (B=c=1), {_share(hyperbola.aligned)} with a "
        "hyperbola (B=2, c=1)"
    )
    return _claim(
        "d",
        '"F1: CONICS FAMILY: ( insures vVely=0 on x=y=0) vVely/vVelx= 2*y*(x+ B*y)/( x*x-(c*y*c*y))'
        ';B> c: hyperbolas, B= c: parabolas, B< c: ellipses."',
        ENGINES["ideal"][0],
        measured,
        "holds: every conic of F1 is tangent to the course at the destination; only the ellipses "
        "(closed) lead there from every start, parabolas and hyperbolas from part of the plane",
        "The conics are x^2 + 2Bxy + c^2 y^2 = lambda y (discriminant B^2 - c^2: the seed's "
        "classification holds for |B|, B < -c also gives hyperbolas). Their tangent oriented "
        "through the destination towards the course is atan2(N, D) with the seed's N and D. On "
        "a parabola or hyperbola the agent follows its branch; the part past the destination, "
        "and the hyperbola's other branch, lead away (seed law) or, adapted, round to a branch "
        "that arrives, near the asymptote x^2 + 2Bxy + c^2 y^2 = 0 where it turns sharply.",
        _table(_RUN_HEADER, rows),
    )


def _engine_row(label: str, variant: str, runs) -> list[str]:
    """A row of e's second table: arrives / aligned / median error on each engine."""
    row = [label, variant]
    for engine in ENGINES:
        run = runs[(label, engine, variant)]
        row.append(
            f"{_share(run.arrived)} / {_share(run.aligned)} / "
            f"{_degrees(run.heading_error[run.arrived], 50)}"
        )
    return row


def _claim_families(runs, fast: bool) -> Claim:
    rows = []
    for label, _, _ in FAMILY_CASES:
        for variant in ("seed", "adapted"):
            rows.append(_run_row(label, variant, runs[(label, "ideal", variant)]))
    engine_rows = [
        _engine_row(label, variant, runs)
        for label, _, _ in FAMILY_CASES
        for variant in ("seed", "adapted")
    ]
    tangent = [label for label, _, _ in FAMILY_CASES if label != "LINE"]
    aligned_lateral = np.concatenate(
        [
            runs[(label, "ideal", "adapted")].lateral_speed[
                runs[(label, "ideal", "adapted")].aligned
            ]
            for label in tangent
        ]
    )

    def everywhere(engine, share):
        return [
            label
            for label in tangent
            if float(np.mean(runs[(label, engine, "adapted")].aligned)) >= share
        ]

    ideal_all = everywhere("ideal", 0.99)
    lag_most = everywhere("lag", 0.9)
    lateral_p95 = _number(float(np.percentile(aligned_lateral, 95)), 3)
    measured = (
        f"ideal engine, adapted law: lateral speed at the aligned passes median "
        f"{_median(aligned_lateral)} u/s, p95 {lateral_p95} u/s (speed {SPEED:g} u/s); "
        "aligned from at least 99% of the starts: "
        f"{', '.join(ideal_all) if ideal_all else 'none'}; on the lag engine from at least 90%: "
        f"{', '.join(lag_most) if lag_most else 'none'}"
    )
    return _claim(
        "e",
        '"A key point to check when choosing/testing a family is that vVely=0 on x=y=0."',
        _engine_labels(),
        measured,
        "holds: for every family along its curves (vVely -> 0 at the destination); whether a "
        "start reaches it along a curve depends on the family, see the tables",
        _grid_note(fast) + " First table: ideal engine; second: arrives / aligned / median "
        "heading error [deg] on each engine. On the engines with lag the circle-like families "
        "arrive some degrees off (the yaw lags the steady turn, the seed's ramp error); the "
        "families with K > 2 end with a straight approach and suffer least. K < 2 curves turn "
        "without bound at the destination (heading ~ (distance)^(K - 1)): a finite frame or a lag "
        "leaves a few degrees.",
        _table(_RUN_HEADER, rows)
        + "\n\n"
        + _table(
            [
                "family",
                "law",
                *(f"{ENGINES[e][0]}: arrives / aligned / median error" for e in ENGINES),
            ],
            engine_rows,
        ),
    )


def _f2_row(label: str, engine: str, variant: str, run: PassRun) -> list[str]:
    """A row of f's first table: one F2 family on one engine."""
    arrived = run.arrived
    return [
        label,
        ENGINES[engine][0],
        variant,
        _share(arrived),
        _share(run.aligned),
        _degrees(run.heading_error[arrived], 50),
        _degrees(run.heading_error[arrived], 95),
        _median(run.pass_time[arrived]),
        _degrees(run.peak_turn_rate[run.aligned], 50),
        _failures(run),
    ]


def _sweep_grid(fast: bool) -> tuple[tuple[float, ...], tuple[float, ...], tuple[str, ...]]:
    """f's sweep of the adaptation bound: ``(ks, bounds [rad], engines)``."""
    ks = (3.0, 6.0) if fast else (3.0, 4.0, 6.0)
    bounds = (0.5 * math.pi, DEFAULT_RELATIVE_BEARING_MAX, 0.9 * math.pi) if fast else _SWEEP_BOUNDS
    engines = ("ideal", "lag") if fast else tuple(ENGINES)
    return ks, bounds, engines


def _sweep_row(bound: float, engines, ks, starts) -> list[str]:
    """A row of f's second table: aligned shares per K and mean median time, per engine."""
    row = [
        _number(math.degrees(bound), 4)
        + (" (default)" if bound == DEFAULT_RELATIVE_BEARING_MAX else "")
    ]
    for engine in engines:
        shares = []
        times = []
        for k in ks:
            law = ReachOriented(
                (0.0, 0.0),
                0.0,
                "F2",
                k=k,
                speed=SPEED,
                relative_bearing_max=bound,
                arrival_radius=None,
            )
            run = simulate_passes(law, engine, starts)
            shares.append(float(np.mean(run.aligned)))
            times.append(float(np.median(run.pass_time[run.arrived])))
        row.append(
            " / ".join(f"{100 * s:.0f}%" for s in shares)
            + f" ({_number(float(np.mean(times)), 3)} s)"
        )
    return row


def _claim_f2(runs, fast: bool) -> Claim:
    starts = start_grid(fast)
    rows = [
        _f2_row(f"F2 K={k:g}", engine, variant, runs[(f"F2 K={k:g}", engine, variant)])
        for k in _F2_KS
        for engine in ENGINES
        for variant in ("seed", "adapted")
    ]
    ks, bounds, engines = _sweep_grid(fast)
    sweep_rows = [_sweep_row(bound, engines, ks, starts) for bound in bounds]
    seed_3 = runs[("F2 K=3", "ideal", "seed")]
    adapted = {k: runs[(f"F2 K={k:g}", "ideal", "adapted")] for k in _F2_KS if k > 2}
    lag = {k: runs[(f"F2 K={k:g}", "lag", "adapted")] for k in _F2_KS if k > 2}
    seed_big = {k: runs[(f"F2 K={k:g}", "ideal", "seed")] for k in _F2_KS if k > 2}
    failed_3 = ~seed_3.aligned
    measured = (
        "ideal engine, aligned share for K = "
        + ", ".join(f"{k:g}" for k in adapted)
        + ": seed law "
        + " / ".join(_share(r.aligned) for r in seed_big.values())
        + ", adapted "
        + " / ".join(_share(r.aligned) for r in adapted.values())
        + "; lag engine, adapted "
        + " / ".join(_share(r.aligned) for r in lag.values())
        + f". Seed law at K = 3: {_share(seed_3.start_x[failed_3] > 0.0)} of the failures start "
        f"ahead of the destination, median heading error at their pass "
        f"{_degrees(seed_3.heading_error[failed_3 & seed_3.arrived], 50)} deg"
    )
    adapted_ok = all(float(np.mean(r.aligned)) >= 0.95 for r in adapted.values())
    seed_fails = all(float(np.mean(r.aligned)) < 0.75 for r in seed_big.values())
    verdict = (
        "holds: with the adaptation; for K > 2 the seed's UE_yaw = K Bearing arrives off course "
        "from most starts ahead of the destination; with the relative bearing bounded F2 "
        "arrives along the course from (almost) every start, with the gentlest final approach"
        if adapted_ok and seed_fails
        else "does not hold: F2 with the adaptation misses 5 % of the starts or more, or the "
        "seed's law arrives aligned from 75 % or more (see the tables)"
    )
    return _claim(
        "f",
        '"I only tested F2 family, which is absolutely great (with some adaptation, especially '
        'for K > 2) to insure smooth turns in various initial conditions."',
        _engine_labels(),
        measured,
        verdict,
        "What goes wrong for K > 2 (steerlab.laws.oriented): UE_yaw - Bearing = (K - 1) Bearing "
        "exceeds 180 deg where |Bearing| > 180 / (K - 1) deg; the agent turns the wrong way "
        "round and runs into the destination along a ray |Bearing| = 360 m / (K - 1) deg, that "
        "far off the course. Adaptation: |UE_yaw - Bearing| (the seed's |U_VelRBear|) <= "
        f"{_number(math.degrees(DEFAULT_RELATIVE_BEARING_MAX), 4)} deg with the sign of Bearing. "
        "'Smooth': peak turn rate in the last 320 u before an aligned pass (median over starts): "
        "K > 2 curves end straight (curvature 0 at the destination), K = 2 is a circle, K < 2 "
        "turns without bound at the end. Second table, the adaptation bound: aligned share for "
        f"K = {' / '.join(f'{k:g}' for k in ks)} (mean of the median arrival times) per engine; "
        "the default bound (steerlab.laws.oriented) was chosen from this table. "
        + _grid_note(fast),
        _table(
            [
                "family",
                "engine",
                "law",
                "arrives",
                "aligned",
                "heading error median [deg]",
                "p95 [deg]",
                "time median [s]",
                "peak turn rate, final approach [deg/s]",
                "not aligned: count, share ahead, how",
            ],
            rows,
        )
        + "\n\n"
        + _table(
            ["relative bearing bound [deg]", *(ENGINES[e][0] for e in engines)],
            sweep_rows,
        ),
    )


def _claim_jump(runs, fast: bool) -> Claim:
    starts = start_grid(fast)
    x, y, yaw = starts
    # the law's own bearing (``laws.oriented``: C's atan2, a -0.0 made 0.0); numpy's arctan2 may
    # take another route on some processors, and LINE's jump (exactly 0) would show its last bit
    bearing = np.array(
        [math.atan2(-(float(b) + 0.0), -float(a)) for a, b in zip(x, y, strict=True)]
    )
    rows = []
    for label, family, parameters in FAMILY_CASES:
        law = _law(family, adapted=True, **parameters)
        batch = AgentBatch(x.copy(), y.copy(), np.zeros(x.size), np.zeros(x.size), np.zeros(x.size))
        command = law.step_batch(batch, FRAME_TIME).yaw
        at_destination = np.abs(np.array([_wrap(a) for a in command - bearing]))
        along_course = np.abs(np.array([_wrap(a) for a in command]))
        rows.append(
            [
                label,
                _number(float(np.degrees(at_destination.mean())), 3),
                _number(float(np.degrees(at_destination.max())), 3),
                _share(at_destination > math.pi / 4.0),
                _number(float(np.degrees(along_course.mean())), 3),
            ]
        )
    b, c, fitted = fit_conic(x, y, yaw)
    hyperbolas = np.abs(b) > c
    fitted_rows = []
    worst_fit = 0.0
    aligned_fit = {}
    for engine in ENGINES:
        for variant in ("seed", "adapted"):
            law = _law("F1", adapted=variant == "adapted")
            run = simulate_passes(law, engine, starts, b=b, c=c)
            first_turn = float(np.nanmax(run.first_turn[fitted]))
            if variant == "seed":
                worst_fit = max(worst_fit, first_turn)
            aligned_fit[(engine, variant)] = float(np.mean(run.aligned[fitted]))
            fitted_rows.append(
                [
                    ENGINES[engine][0],
                    variant,
                    _number(float(np.degrees(first_turn)), 3),
                    _share(run.arrived[fitted]),
                    _share(run.aligned[fitted]),
                ]
            )
    circle = next(row for row in rows if row[0] == "CIRCLE")
    f2 = next(row for row in rows if row[0] == "F2 K=3")
    measured = (
        f"first commanded turn for an agent heading at the destination: mean {circle[1]} deg "
        f"(max {circle[2]}) for CIRCLE, {f2[1]} deg (max {f2[2]}) for F2 K=3; F1 with (B, c) "
        f"fitted to the agent's velocity: a conic fits {_share(fitted)} of the starts, first "
        f"turn at most {_number(math.degrees(worst_fit), 3)} deg, {_share(hyperbolas[fitted])} "
        f"of them hyperbolas; those conics arrive aligned from "
        f"{100 * aligned_fit[('ideal', 'seed')]:.0f}% of the starts on the ideal engine "
        f"({100 * aligned_fit[('ideal', 'adapted')]:.0f}% adapted)"
    )
    return _claim(
        "g",
        '"Except for the F1 family thanks to more parameters, the velocity angles are set by the '
        "equations, ie they can be quite different from the bot current ones when initiating the "
        'curve."',
        _engine_labels(),
        measured,
        "holds: a fixed family commands its own heading whatever the agent's (turns of 90 deg "
        "and more are common); F1's two parameters can take the agent's current heading, but "
        "many of the fitted conics are hyperbolas whose branch does not lead along the course",
        "First table, adapted law (default), start positions of the grid: the first turn "
        "|UE_yaw - heading| for an agent heading straight at the destination (the state SeekPoint "
        "leaves) and for one heading along the course. Second table: "
        "F1 with (B, c) from fit_conic for each start's own heading: no turn at the start with "
        "the seed law (the adapted law turns where the conic leads away by more than the bound), "
        "then how those conics end on each engine. " + _grid_note(fast),
        _table(
            [
                "family",
                "turn, heading at destination: mean [deg]",
                "max [deg]",
                "> 45 deg",
                "turn, heading along course: mean [deg]",
            ],
            rows,
        )
        + "\n\n"
        + _table(
            ["engine", "law", "first turn, max [deg]", "arrive", "aligned"],
            fitted_rows,
        ),
    )


class FamilyRuns(dict):
    """``{(label, engine, variant): PassRun}`` over the start grid, each run simulated when first
    read: a claim (or a test) that reads a few of them pays for those only."""

    def __init__(self, fast: bool = False):
        super().__init__()
        self.starts = start_grid(fast)

    def __missing__(self, key: tuple[str, str, str]) -> PassRun:
        label, engine, variant = key
        family, parameters = next((f, p) for name, f, p in FAMILY_CASES if name == label)
        law = _law(family, adapted=variant == "adapted", **parameters)
        run = self[key] = simulate_passes(law, engine, self.starts)
        return run


def _family_runs(fast: bool) -> FamilyRuns:
    return FamilyRuns(fast)


def measure_reach_oriented(fast: bool = False) -> list[Claim]:
    """Measure every claim of seed 000's "Reaching a point in a given direction".

    Parameters
    ----------
    fast : bool
        Coarser grids (96 start states instead of 1152, fewer adaptation bounds): for tests,
        a few seconds.

    Returns
    -------
    list of Claim
        Keys ``a`` (CIRCLE), ``b`` (PARABOLA), ``c`` (LINE), ``d`` (F1 conics), ``e`` (vVely = 0
        at the destination, every family), ``f`` (F2 and its adaptation), ``g`` (initial heading
        jump), in that order.
    """
    runs = _family_runs(fast)
    return [
        _claim_circle(fast),
        _claim_parabola(fast, runs),
        _claim_line(runs),
        _claim_conics(runs),
        _claim_families(runs, fast),
        _claim_f2(runs, fast),
        _claim_jump(runs, fast),
    ]


def render_markdown(claims: Sequence[Claim], heading_level: int = 3) -> str:
    """Markdown subsection "Reach a point in a given direction": summary table, then claims."""
    return render_claims(
        "Reach a point in a given direction",
        claims,
        heading_level,
        intro=(
            'Seed 000, "Reaching a point in a given direction", measured with '
            "`steerlab.laws.oriented.ReachOriented`."
            f" Reproduce: `{COMMAND}` (these tables); figures: `{FIGURES_COMMAND}` (reach_*)."
        ),
        models_label="engine",
    )


def write_markdown(path, fast: bool = False) -> str:
    """Measure, render and write the subsection to ``path``; return the text."""
    text = render_markdown(measure_reach_oriented(fast=fast))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return text
