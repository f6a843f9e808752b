"""Parameters of the path followers (seed 001): one immutable record, defaults with sources.

Seed 001 (de Schaetzen & Sestini, "Efficient Ground Vehicle Path Following in Game AI", CoG
2023), Section III gives the target-speed parameters: ``a_lat = 0.4``, ``dh = 6 m``, ``N = 5``,
``v_min = 1 m/s``, ``v_max = 10 m/s``. The paper gives no value for the other modules; each
default below says where it comes from. Units: metres, seconds, radians; throttle and steer are
the game's normalised inputs in ``[-1, 1]``.

``FollowerParams`` is the flat, user-facing record (tuned presets, the tuner's search space and
the external suite use its names); ``check_follower_params`` validates it once, at the public
boundary, and returns it with exact types (any field may hold one value per vehicle, for
``step_batch``). A follower converts it once into ``FollowerRecords``, one record per module of
the chain, each read by one step of ``follower._follow``; the variant (seed 001's follower, its
baseline, Stanley, regulated pure pursuit) is the laws those records hold, chosen by the
variant's line of ``VARIANTS``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from steerlab._checks import _real

# g of seed 001's Eq. 1 and the kinds of VehicleParams: the vehicles' own constants, one copy
from steerlab.vehicles.params import GRAVITY, HOVER, TRACKED, WHEELED

__all__ = [
    "GRAVITY",
    "MOST_SAMPLES",
    "VARIANTS",
    "VARIANT_FIELDS",
    "ArrivalParams",
    "FollowerParams",
    "FollowerRecords",
    "SpeedControlParams",
    "SteeringParams",
    "StuckParams",
    "TargetPointParams",
    "TargetSpeedParams",
    "check_axles",
    "check_follower_params",
    "check_vehicle_params",
]


class FollowerParams(NamedTuple):
    """Every setting of the path followers, flat (converted into ``FollowerRecords``).

    Target speed (seed 001, Algorithm 1, Section III values)
    ----------------------------------------------------------
    a_lat : maximum lateral acceleration [g], Eq. 1 ``v = sqrt(a_lat g / kappa)``; 0.4 g is the
        paper's value ("the maximum lateral acceleration found in human normal driving"). Note
        that on a circular arc Algorithm 1 sees about half the arc's curvature (``docs/
        fidelity.md``, "Seed 001"), so the lateral acceleration actually reached there is about
        ``2 a_lat g`` for radii well above ``dh``.
    dh : spacing [m] of the points of the sampled path ``P~``.
    n : number of points of ``P~`` (the vehicle position included): ``n - 2`` Bezier curves.
    v_min, v_max : clamp of the target speed [m/s]; shared with the baseline (the paper: "the
        same values were set to ensure fair comparisons"). ``v_max`` is also the desired speed
        of regulated pure pursuit.

    The peers: ``stanley_*`` for ``StanleyFollower`` (``steerlab.follower.stanley``),
    ``regulated_*`` for ``RegulatedPurePursuitFollower`` (``steerlab.follower.regulated``); the
    other followers ignore them.
    """

    # -- target speed: seed 001, Section III ------------------------------------------------
    a_lat: float = 0.4  # [g] seed 001, Section III
    dh: float = 6.0  # [m] seed 001, Section III
    n: int = 5  # [-] seed 001, Section III (N)
    v_min: float = 1.0  # [m/s] seed 001, Section III
    v_max: float = 10.0  # [m/s] seed 001, Section III
    # -- end of the path (not in the paper: the trials there end at the final waypoint) -----
    stop_decel: float = 2.0  # [m/s^2] target speed <= sqrt(2 stop_decel remaining), floored at
    #   v_min: the vehicle reaches the end at v_min; 0.2 g, a gentle brake; inf: no taper
    arrival_radius: float = 2.0  # [m] arrived within this distance of the last waypoint (or past
    #   its end plane): target speed 0 and straight wheels from then on; about a car length
    # -- target point ------------------------------------------------------------------------
    lookahead: float = 6.0  # [m] arc length ahead of the projection; the paper gives none: dh,
    #   the spacing at which the target speed already reads the path (2 to 3 wheelbases of a car)
    lookahead_time: float = 0.0  # [s] speed-scaled lookahead: l = max(lookahead, lookahead_time
    #   |v|); 0 (default) keeps the lookahead fixed, as the paper's "some lookahead distance"
    projection_back: float = 2.0  # [m] the projection is searched in [s - back, s + ahead] around
    #   the previous frame's s (never jumps back onto an earlier leg of a hairpin); 2 m per frame
    #   covers reversing at 20 m/s with 0.1 s frames
    projection_ahead: float = 20.0  # [m] forward reach of that search: several frames of travel
    #   at v_max plus corner cutting; a path change or a teleport searches the whole path
    # -- speed control (PI) ------------------------------------------------------------------
    kp_speed: float = 0.5  # [1/(m/s)] throttle per m/s of speed error: full throttle at 2 m/s;
    #   with a car's ~4 m/s^2 at full throttle, a 0.5 s closed-loop time constant
    ti_speed: float = 2.0  # [s] integral time T_i of u = kp (e + (1/T_i) int e dt); four times
    #   that 0.5 s time constant (no overshoot to speak of); inf: P only
    # -- steering ------------------------------------------------------------------------------
    heading_gain: float = 1.0  # [-] tracked and hover: steer = heading_gain alpha / max_steer,
    #   i.e. the heading error is commanded as if it were a road-wheel angle (full steer at
    #   alpha = max_steer); no time constant without the vehicle's yaw rate at full steer
    pure_pursuit_all: bool = False  # True: pure pursuit for tracked and hover vehicles too, with
    #   their wheelbase and max_steer (steerlab.vehicles gives every kind the full-steer path
    #   curvature tan(max_steer) / wheelbase); False (the choice): heading-error law
    # -- stuck manager -------------------------------------------------------------------------
    stuck_distance: float = 1.0  # [m] d: less progress than this along the path ...
    stuck_window: float = 3.0  # [s] w: ... within this time is a stuck event; a vehicle at
    #   v_min (1 m/s) makes 3 m in a window, three times d, so slow driving is never "stuck"
    recovery_frames: int = 60  # [frames] throttle sign inverted (steer mirrored) for this many
    #   frames after a stuck event: 1 s at a 60 Hz game frame
    teleport_after: int = 0  # [-] teleport to the nearest path point after this many failed
    #   recoveries in a row; 0: never (off in the paper's benchmark)
    # -- baseline follower (seed 001, Section III) -----------------------------------------------
    baseline_k: float = 2.5  # [m rad/s] v = baseline_k / max_angle ("inversely proportional"):
    #   v_max = 10 m/s up to 0.25 rad (14 deg), v_min = 1 m/s from 2.5 rad (143 deg)
    baseline_horizon: float = 30.0  # [m] the angles are taken over the path up to this arc
    #   length ahead of the projection: dh N, the horizon of Algorithm 1 in the paper's words
    # -- Stanley steering (Hoffmann, Tomlin, Montemerlo, Thrun 2007), StanleyFollower ----------
    stanley_gain: float = 1.0  # [1/s] k of delta = psi_e + atan(k e / (k_soft + |v|)): near the
    #   path the front axle's error decays at about this rate (kinematic bicycle, at speed).
    #   Assumed, not taken from Hoffmann et al.: a 1 s time constant, twice the 0.44 s the
    #   Storm's steering takes from centre to lock (steer_rate), and about pure pursuit's rate
    #   v / lookahead with seed 001's 6 m at 6 m/s
    stanley_softening: float = 1.0  # [m/s] k_soft > 0: keeps the gain k e / (k_soft + |v|) bounded
    #   at standstill (0 would turn a rounding error into full lock); assumed: v_min, the slowest
    #   the followers are asked to drive
    # -- regulated pure pursuit (Macenski et al. 2023; Nav2), RegulatedPurePursuitFollower ------
    #   Nav2's defaults are for 0.5 m/s indoor robots; lengths and speeds are scaled by v_max /
    #   0.5 m/s = 20 and times kept (steerlab.follower.regulated); the desired speed is v_max.
    #   Changing v_max does not rescale them.
    regulated_lookahead_time: float = 1.5  # [s] l = clamp(|v| t, min, max); Nav2 lookahead_time
    regulated_min_lookahead: float = 6.0  # [m] Nav2 min_lookahead_dist 0.3 m x 20 (= lookahead)
    regulated_max_lookahead: float = 18.0  # [m] Nav2 max_lookahead_dist 0.9 m x 20
    regulated_min_radius: float = 18.0  # [m] below this arc radius the speed scales with the
    #   radius; Nav2 regulated_linear_scaling_min_radius 0.9 m x 20 (0.57 g at 10 m/s on it)
    regulated_min_speed: float = 5.0  # [m/s] floor of the curvature-regulated speed; Nav2
    #   regulated_linear_scaling_min_speed 0.25 m/s x 20 (half the desired speed, as in Nav2)
    regulated_approach_distance: float = 12.0  # [m] slow-down over the last metres of the path,
    #   speed x remaining / this; Nav2 approach_velocity_scaling_dist 0.6 m x 20
    regulated_approach_min_speed: float = 1.0  # [m/s] floor of that slow-down; Nav2
    #   min_approach_linear_velocity 0.05 m/s x 20 (= v_min)


_INTEGERS = ("n", "recovery_frames", "teleport_after")
MOST_SAMPLES = 1000
"""The most path points Algorithm 1 may look at a frame (``n``; the paper: 5): a bound on its
loop."""
_MOST = {"n": MOST_SAMPLES}
_MOST_FRAMES = 2**31 - 1  # frame counts: years of frames, and an integer the kernels hold
_MAY_BE_INF = {
    "v_max",
    "stop_decel",
    "ti_speed",
    "projection_ahead",
    "baseline_horizon",
    "regulated_max_lookahead",
}
_POSITIVE = (
    "a_lat",
    "dh",
    "v_max",
    "stop_decel",
    "lookahead",
    "projection_ahead",
    "kp_speed",
    "ti_speed",
    "heading_gain",
    "stuck_distance",
    "stuck_window",
    "baseline_k",
    "baseline_horizon",
    "stanley_gain",
    "stanley_softening",
    "regulated_min_lookahead",
    "regulated_max_lookahead",
    "regulated_approach_min_speed",
)
_NONNEGATIVE = (
    "v_min",
    "arrival_radius",
    "lookahead_time",
    "projection_back",
    "regulated_lookahead_time",
    "regulated_min_radius",
    "regulated_min_speed",
    "regulated_approach_distance",
)


def _scalar_field(name: str, value: Any, label: str = ""):
    """One field's value with its exact type (bool, int or float); ``ValueError`` naming it
    (``label``: the field and entry as the message names them, default ``name``)."""
    label = label or name
    if name == "pure_pursuit_all":
        if not isinstance(value, bool | np.bool_):
            raise ValueError(f"follower_params.{label} must be a bool, got {value!r}")
        return bool(value)
    if name in _INTEGERS:
        if (
            isinstance(value, bool | np.bool_)
            or not isinstance(value, int | float | np.integer | np.floating)
            or not math.isfinite(value)  # int() of inf or NaN raises its own error
            or value != int(value)
        ):
            raise ValueError(f"follower_params.{label} must be an integer, got {value!r}")
        value = int(value)
        least = 2 if name == "n" else 0
        most = _MOST.get(name, _MOST_FRAMES)
        if not least <= value <= most:
            raise ValueError(
                f"follower_params.{label} must be an integer from {least} to {most}, got {value!r}"
            )
        return value
    number = _real(f"follower_params.{label}", value, "a number")
    if math.isnan(number):
        raise ValueError(f"follower_params.{label} must not be NaN")
    if name in _POSITIVE and (number <= 0.0 or (math.isinf(number) and name not in _MAY_BE_INF)):
        bound = "> 0 (inf allowed)" if name in _MAY_BE_INF else "> 0 and finite"
        raise ValueError(f"follower_params.{label} must be {bound}, got {number!r}")
    if name in _NONNEGATIVE and not 0.0 <= number < math.inf:
        raise ValueError(f"follower_params.{label} must be >= 0 and finite, got {number!r}")
    return number


def _field(name: str, value: Any):
    """A field: one value for every vehicle (``_scalar_field``) or one per vehicle, a read-only
    1-D array of the field's type, each entry checked as a single value would be."""
    if isinstance(value, str | bytes) or np.ndim(value) == 0:
        return _scalar_field(name, value)
    values = np.asarray(value)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(
            f"follower_params.{name} must be a value or a 1-D sequence of one value per "
            f"vehicle, got shape {values.shape}"
        )
    checked = [_scalar_field(name, item, f"{name}[{i}]") for i, item in enumerate(values.tolist())]
    dtype = np.bool_ if name == "pure_pursuit_all" else np.int64 if name in _INTEGERS else float
    array = np.array(checked, dtype=dtype)
    array.setflags(write=False)
    return array


def _ordered(values: dict, low: str, high: str) -> None:
    """``ValueError`` unless ``values[low] <= values[high]`` for every vehicle."""
    lows, highs = np.broadcast_arrays(values[low], values[high])
    below = lows <= highs
    if not below.all():
        index = int(np.argmin(below.ravel()))
        where = "" if below.ndim == 0 else f"[{index}]"
        raise ValueError(
            f"follower_params.{low}{where} must be <= {high} "
            f"({float(highs.ravel()[index])!r}), got {float(lows.ravel()[index])!r}"
        )


def check_follower_params(params: Any) -> FollowerParams:
    """Validate a ``FollowerParams``; return it with exact bool / int / float fields.

    Any field may hold one value per vehicle (a 1-D sequence, for ``step_batch``): it is
    returned as a read-only array, each entry checked like a single value. Raises ``ValueError``
    naming the field (and the entry) and its value.
    """
    if not isinstance(params, FollowerParams):
        raise ValueError(f"follower_params must be a FollowerParams, got {params!r}")
    values = {name: _field(name, getattr(params, name)) for name in FollowerParams._fields}
    _ordered(values, "v_min", "v_max")
    _ordered(values, "regulated_min_lookahead", "regulated_max_lookahead")
    return FollowerParams(**values)


# --------------------------------------------------------------------------------------------------
# the modules' records: what each kernel of the chain reads (``follower._follow``)

# target point laws
LOOKAHEAD, CARROT, STEERING_AXLE = 0, 1, 2
# target speed laws
ALGORITHM_1, ANGLE_HEURISTIC, REGULATED_SPEED = 0, 1, 2
# steering laws
SEED_STEERING, PURE_PURSUIT, STANLEY = 0, 1, 2


class TargetPointParams(NamedTuple):
    """The projection and the target point (``steerlab.follower.target_point``).

    ``law``: ``LOOKAHEAD`` (seed 001: the path point ``max(lookahead, lookahead_time |v|)`` of arc
    length ahead of the projection), ``CARROT`` (regulated pure pursuit: the first path point at
    least ``clamp(lookahead_time |v|, lookahead, max_lookahead)`` from the vehicle) or
    ``STEERING_AXLE`` (none here: Stanley's steering reports its axle's closest path point).
    ``projection_back``, ``projection_ahead``: the projection's search window around the last
    frame's arc length (``FollowerParams``).
    """

    law: int = LOOKAHEAD
    lookahead: float = 6.0  # [m]
    lookahead_time: float = 0.0  # [s]
    max_lookahead: float = math.inf  # [m] CARROT only
    projection_back: float = 2.0  # [m]
    projection_ahead: float = 20.0  # [m]


class TargetSpeedParams(NamedTuple):
    """The target speed (``steerlab.follower.target_speed``, ``baseline``, ``regulated``).

    ``law``: ``ALGORITHM_1`` (seed 001, Algorithm 1: ``a_lat``, ``dh``, ``n``), ``ANGLE_HEURISTIC``
    (seed 001's baseline: ``baseline_k``, ``baseline_horizon``), each clamped to ``[v_min,
    v_max]`` and capped by the end of the path (``stop_decel``); or ``REGULATED_SPEED``
    (regulated pure pursuit: ``v_max`` regulated by the carrot arc's curvature below
    ``min_radius``, floored at ``min_speed``, slowed over the last ``approach_distance``, floored
    at ``approach_min_speed``; no end cap). Values as in ``FollowerParams``.
    """

    law: int = ALGORITHM_1
    a_lat: float = 0.4
    dh: float = 6.0
    n: int = 5
    v_min: float = 1.0
    v_max: float = 10.0
    stop_decel: float = 2.0
    baseline_k: float = 2.5
    baseline_horizon: float = 30.0
    min_radius: float = 18.0
    min_speed: float = 5.0
    approach_distance: float = 12.0
    approach_min_speed: float = 1.0


class SpeedControlParams(NamedTuple):
    """The speed loop ``u = kp (e + (1/ti) int e dt)`` (``steerlab.follower.speed_control``);
    ``ti = inf``: P only (seed 001's baseline)."""

    kp: float = 0.5  # [1/(m/s)]
    ti: float = 2.0  # [s]


class SteeringParams(NamedTuple):
    """The steering (``steerlab.follower.steering``, ``stanley``).

    ``law``: ``SEED_STEERING`` (seed 001: pure pursuit for a wheeled vehicle, the heading-error
    law with ``heading_gain`` for tracked and hover ones), ``PURE_PURSUIT`` (pure pursuit for
    every kind) or ``STANLEY`` (``stanley_gain``, ``stanley_softening``; its axles are projected
    in the window ``window_back``, ``window_ahead`` [m] around the vehicle's own projection,
    widened by the axle offsets).
    """

    law: int = SEED_STEERING
    heading_gain: float = 1.0
    stanley_gain: float = 1.0  # [1/s]
    stanley_softening: float = 1.0  # [m/s]
    window_back: float = 2.0  # [m]
    window_ahead: float = 20.0  # [m]


class StuckParams(NamedTuple):
    """The stuck manager (``steerlab.follower.stuck``): ``FollowerParams.stuck_distance``,
    ``stuck_window``, ``recovery_frames``, ``teleport_after``."""

    distance: float = 1.0  # [m]
    window: float = 3.0  # [s]
    recovery_frames: int = 60
    teleport_after: int = 0


class ArrivalParams(NamedTuple):
    """The end of the path: arrived within ``radius`` [m] (``follower._arrived``)."""

    radius: float = 2.0  # [m]


class FollowerRecords(NamedTuple):
    """Every module's record: what one follower runs (``follower._follow``). The variant is in
    the records' ``law`` fields (and ``speed_control.ti``), not in a class. Any field of any
    record may hold one value per vehicle in a batch (``steerlab._per_agent``)."""

    target_point: TargetPointParams = TargetPointParams()
    target_speed: TargetSpeedParams = TargetSpeedParams()
    speed_control: SpeedControlParams = SpeedControlParams()
    stuck: StuckParams = StuckParams()
    steering: SteeringParams = SteeringParams()
    arrival: ArrivalParams = ArrivalParams()


def _laws(value, choose):
    """``choose(flag)`` for one value, an int64 array for one value per vehicle."""
    if isinstance(value, np.ndarray):
        laws = np.where(value, choose(True), choose(False)).astype(np.int64)
        laws.setflags(write=False)
        return laws
    return choose(value)


def _records(
    p: FollowerParams, target_point: int, target_speed: int, steering, integral: bool = True
) -> FollowerRecords:
    """The modules' records of a validated ``FollowerParams`` with the given laws."""
    carrot = target_point == CARROT
    return FollowerRecords(
        TargetPointParams(
            target_point,
            p.regulated_min_lookahead if carrot else p.lookahead,
            p.regulated_lookahead_time if carrot else p.lookahead_time,
            p.regulated_max_lookahead if carrot else math.inf,
            p.projection_back,
            p.projection_ahead,
        ),
        TargetSpeedParams(
            target_speed,
            p.a_lat,
            p.dh,
            p.n,
            p.v_min,
            p.v_max,
            p.stop_decel,
            p.baseline_k,
            p.baseline_horizon,
            p.regulated_min_radius,
            p.regulated_min_speed,
            p.regulated_approach_distance,
            p.regulated_approach_min_speed,
        ),
        SpeedControlParams(p.kp_speed, p.ti_speed if integral else math.inf),
        StuckParams(p.stuck_distance, p.stuck_window, p.recovery_frames, p.teleport_after),
        SteeringParams(
            steering,
            p.heading_gain,
            p.stanley_gain,
            p.stanley_softening,
            p.projection_back,
            p.projection_ahead,
        ),
        ArrivalParams(p.arrival_radius),
    )


def _seed_steering(p: FollowerParams):
    return _laws(
        p.pure_pursuit_all, lambda every_kind: PURE_PURSUIT if every_kind else SEED_STEERING
    )


def seed_records(p: FollowerParams) -> FollowerRecords:
    """Seed 001's follower: Algorithm 1, PI, the lookahead point, pure pursuit (heading law)."""
    return _records(p, LOOKAHEAD, ALGORITHM_1, _seed_steering(p))


def baseline_records(p: FollowerParams) -> FollowerRecords:
    """Seed 001's baseline: the angle heuristic's speed, a P loop (PI without integral)."""
    return _records(p, LOOKAHEAD, ANGLE_HEURISTIC, _seed_steering(p), integral=False)


def stanley_records(p: FollowerParams) -> FollowerRecords:
    """Stanley steering with seed 001's speed (Algorithm 1, PI)."""
    return _records(p, STEERING_AXLE, ALGORITHM_1, STANLEY)


def regulated_records(p: FollowerParams) -> FollowerRecords:
    """Regulated pure pursuit: the carrot, its own speed law, pure pursuit for every kind."""
    return _records(p, CARROT, REGULATED_SPEED, PURE_PURSUIT)


def seed_p_records(p: FollowerParams) -> FollowerRecords:
    """Ablation of seed 001's follower: Algorithm 1 with the baseline's P loop (``ti = inf``),
    everything else ``seed_records``. Against ``ours`` it isolates the integral term."""
    return _records(p, LOOKAHEAD, ALGORITHM_1, _seed_steering(p), integral=False)


def baseline_pi_records(p: FollowerParams) -> FollowerRecords:
    """Ablation of seed 001's baseline: its angle heuristic's speed with the follower's PI loop
    (``ti_speed``), everything else ``baseline_records``. Against ``baseline`` it isolates the
    integral term; against ``ours`` the target speed law."""
    return _records(p, LOOKAHEAD, ANGLE_HEURISTIC, _seed_steering(p))


VARIANTS = {
    "ours": seed_records,
    "baseline": baseline_records,
    "stanley": stanley_records,
    "regulated_pure_pursuit": regulated_records,
    "ours_p": seed_p_records,
    "baseline_pi": baseline_pi_records,
}
"""A follower variant's name -> the function that turns (validated) ``FollowerParams`` into its
modules' records. A new variant: its law's kernel (one branch of a step of ``follower._follow``)
and one line here. ``ours_p`` and ``baseline_pi`` are the ablations that test seed 001's two
attributions apart (the target speed law, the speed loop's integral term): each differs from
``ours`` or ``baseline`` in the speed loop only."""

_EVERY_VARIANT = (
    "projection_back",
    "projection_ahead",
    "kp_speed",
    "stuck_distance",
    "stuck_window",
    "recovery_frames",
    "teleport_after",
    "arrival_radius",
)
_LOOKAHEAD_POINT = ("lookahead", "lookahead_time")
_ALGORITHM_1 = ("a_lat", "dh", "n", "v_min", "v_max", "stop_decel")
_ANGLE_HEURISTIC = ("baseline_k", "baseline_horizon", "v_min", "v_max", "stop_decel")
_SEED_STEERING = ("heading_gain", "pure_pursuit_all")
VARIANT_FIELDS = {
    name: frozenset(_EVERY_VARIANT + fields)
    for name, fields in {
        "ours": ("ti_speed", *_LOOKAHEAD_POINT, *_ALGORITHM_1, *_SEED_STEERING),
        "baseline": (*_LOOKAHEAD_POINT, *_ANGLE_HEURISTIC, *_SEED_STEERING),
        "stanley": ("ti_speed", *_ALGORITHM_1, "stanley_gain", "stanley_softening"),
        "regulated_pure_pursuit": (
            "ti_speed",
            "regulated_min_lookahead",
            "regulated_lookahead_time",
            "regulated_max_lookahead",
            "v_max",
            "regulated_min_radius",
            "regulated_min_speed",
            "regulated_approach_distance",
            "regulated_approach_min_speed",
        ),
        "ours_p": (*_LOOKAHEAD_POINT, *_ALGORITHM_1, *_SEED_STEERING),
        "baseline_pi": ("ti_speed", *_LOOKAHEAD_POINT, *_ANGLE_HEURISTIC, *_SEED_STEERING),
    }.items()
}
"""A variant's name -> the ``FollowerParams`` fields its laws read; any other field changes
nothing it does (``tests/test_follower_fields.py`` drives every variant with each other field
changed). A benchmark protocol refuses to sweep a field its follower does not read."""


def check_vehicle_params(vehicle_params: Any) -> tuple[int, float, float]:
    """``(kind, wheelbase, max_steer)`` read from any object with those attributes.

    The follower reads nothing else of a ``steerlab.vehicles.VehicleParams`` (duck typing).
    ``kind``: 0 wheeled, 1 tracked, 2 hover. ``max_steer`` [rad] > 0 (below pi/2 for a wheeled
    vehicle); ``wheelbase`` [m] > 0 for a wheeled vehicle (unused otherwise).
    """
    try:
        kind = vehicle_params.kind
        wheelbase = vehicle_params.wheelbase
        max_steer = vehicle_params.max_steer
    except AttributeError as error:
        raise ValueError(
            "vehicle_params must have kind, wheelbase and max_steer (a VehicleParams), got "
            f"{vehicle_params!r}"
        ) from error
    if isinstance(kind, bool) or kind not in (WHEELED, TRACKED, HOVER):
        raise ValueError(
            f"vehicle_params.kind must be 0 (wheeled), 1 (tracked) or 2 (hover), got {kind!r}"
        )
    kind = int(kind)
    try:
        wheelbase = float(wheelbase)
        max_steer = float(max_steer)
    except (TypeError, ValueError):
        raise ValueError(
            f"vehicle_params.wheelbase and max_steer must be numbers, got {wheelbase!r}, "
            f"{max_steer!r}"
        ) from None
    if not (max_steer > 0.0 and math.isfinite(max_steer)):
        raise ValueError(f"vehicle_params.max_steer must be > 0 and finite, got {max_steer!r}")
    if kind == WHEELED:
        if not (wheelbase > 0.0 and math.isfinite(wheelbase)):
            raise ValueError(
                f"vehicle_params.wheelbase must be > 0 and finite for a wheeled vehicle, got "
                f"{wheelbase!r}"
            )
        if max_steer >= 0.5 * math.pi:
            raise ValueError(
                f"vehicle_params.max_steer must be < pi/2 for a wheeled vehicle, got {max_steer!r}"
            )
    elif not math.isfinite(wheelbase):
        wheelbase = 0.0
    return kind, wheelbase, max_steer


def check_axles(vehicle_params: Any, kind: int, wheelbase: float) -> tuple[float, float]:
    """``(front_axle, rear_axle)`` [m]: how far the front axle lies ahead of the vehicle's
    reference position, and the rear axle behind it (Stanley steering, ``follower.stanley``).

    Wheeled: ``cg_to_front`` and ``wheelbase - cg_to_front`` when the record has ``cg_to_front``
    (a ``VehicleParams``: the position is the centre of mass), else ``wheelbase`` and 0 (the
    position is read as the rear axle, pure pursuit's reference). Tracked and hover: ``wheelbase``
    and 0, the virtual front axle of the bicycle whose curvature their steer input commands.
    ``kind``, ``wheelbase`` as returned by ``check_vehicle_params``.
    """
    if kind != WHEELED:
        return wheelbase, 0.0
    cg_to_front = getattr(vehicle_params, "cg_to_front", None)
    if cg_to_front is None:
        return wheelbase, 0.0
    try:
        cg_to_front = float(cg_to_front)
    except (TypeError, ValueError):
        raise ValueError(
            f"vehicle_params.cg_to_front must be a number, got {cg_to_front!r}"
        ) from None
    if not 0.0 <= cg_to_front <= wheelbase:
        raise ValueError(
            f"vehicle_params.cg_to_front must be in [0, wheelbase] ({wheelbase!r}), got "
            f"{cg_to_front!r}"
        )
    return cg_to_front, wheelbase - cg_to_front
