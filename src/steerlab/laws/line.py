"""Rallying and moving along a directed line (seed 000).

Seed 000, "Rallying & moving along a directed line": "Whatever the mobile current position, it
moves towards the line, and when on it, it moves along the line in the right direction." The line
runs from ``P`` to ``Q``; ``Course`` is its direction angle and ``uvPQ`` its unit vector.

Quantities (seed 000, same names):

- ``XTD`` = z of ``cross(uvPQ, vQM)``: the cross-track deviation, positive on the left of
  ``P -> Q`` (counter-clockwise side);
- ``XTDVel`` = z of ``cross(uvPQ, vVel)`` = ``mVel sin(aVel - Course)``: its rate;
- the **asin law** ``U_IcptAng = asin(clamp(-k_Y XTD / mVel, -1, 1))`` and the seed's "final
  control law", the **bounded linear law** ``U_IcptAng = clamp(-k_Y XTD / mVel,
  +-INTERCEPTANGLEMAX)``, ``0 < INTERCEPTANGLEMAX <= 90 deg``; then ``UE_yaw = Course +
  U_IcptAng``. Both are written in radians here (the seed's ``K_RadToDeg`` disappears);
- the **engine bound** (the section's "second bound IcptMax_Engine"): ``RadiusMin =
  max(mVel / OMEGAMAX, mVel^2 / ACCTMAX)``, ``xa = clamp(1 - |XTD| / RadiusMin, -1, 1)``,
  ``IcptMax_Engine = acos(xa)``, and the intercept angle is bounded by ``min(INTERCEPTANGLEMAX,
  IcptMax_Engine)``: the agent starts its final turn on the circle of radius ``RadiusMin``
  tangent to the line;
- the **prediction** ``XTDPred = XTD + (T / Ek_Yaw) XTDVel`` used instead of ``XTD`` in
  ``IcptMax_Engine`` (the seed writes ``vVely``: ``XTDVel`` in the line's frame).

The kernel ``_follow_line_command(state, params, line, dt)`` is all of it, with the law's
parameters in one record (``LineParams``) and the line in another (``LineData``);
``FollowLine.step`` calls it once, ``FollowLine.step_batch`` in ``prange`` over agents, one
directed line per agent or one for all. A law built from a record (``FollowLine.from_params``)
may hold one value per agent in any field of it, for ``step_batch``.

Where steerlab reads or departs from the seed's text (each said again where it applies):

1. ``xa = min(max(x, -1), +1)`` in the seed is a typo for ``xa``: ``xa`` is clamped.
2. **Both laws take the bound.** The asin law's angle is also clamped to ``min(intercept_max,
   IcptMax_Engine)``; with ``intercept_max = pi/2`` and no engine bound it is the seed's asin law
   exactly.
3. **Zero speed.** ``-k_Y XTD / mVel`` is undefined at ``mVel = 0``; the kernel uses its limit as
   ``mVel -> 0+``: ``-sign(XTD) inf``, i.e. the full bound towards the line (the course itself
   when ``XTD = 0``). At rest ``RadiusMin = 0`` and the engine bound imposes nothing (its limit
   too: ``acos(-1) = pi``). A slow agent heads for the line at the bound angle, as a fast one far
   from it does; nothing is divided by zero.
4. **Prediction on the same side.** With ``XTDPred`` of the other sign than ``XTD`` (the
   prediction already crosses the line) the seed's ``|XTDPred|`` would *loosen* the bound just
   when the final turn is late; steerlab uses ``max(sign(XTD) XTDPred, 0)``, i.e. ``|XTDPred|``
   while the prediction stays on the agent's side and 0 (bound 0: head along the course) once it
   crosses.
5. **Initial-turn rule** (seed: "The sign of this initial turn depends on the sign of
   (initialRBear - (180 +- INTERCEPTANGLEMAX)) ... It is possible to tune the limit angle
   independently from INTERCEPTANGLEMAX"). Reading: a heading/speed engine turns the shortest way
   towards ``UE_yaw = Course -+ INTERCEPTANGLEMAX``, so the direction of the initial turn flips
   where the agent's heading relative to the course (``RBear``) is opposite to that command:
   ``RBear = 180 - INTERCEPTANGLEMAX`` on the left of the line (``XTD > 0``), ``180 +
   INTERCEPTANGLEMAX`` on its right. Without any option this is what happens (the rule is the
   engine's shortest way). ``turn_limit = L`` moves that flip to ``180 -+ L``: the law never turns
   the agent through the heading ``Course + 180 - sign(XTD) L`` (pointing away from the line,
   ``L`` from straight backwards); when the engine's shortest way would sweep through it, the law
   commands ``yaw -+ 3/4 pi`` (the other way round, a step well inside ``(0, pi)`` so that the
   engine cannot take it the wrong way) until the shortest way goes round by itself. ``L = 90
   deg`` means "never turn through facing straight away from the line"; ``L = 0`` "never turn
   through facing backwards". No memory is needed: the turn carries the heading away from the
   avoided heading, so the per-frame rule never reverses a turn it started while the agent stays
   on one side of the line; ``reset()`` has nothing to clear.

Units: world units (``u``) and seconds; angles in radians, yaw counter-clockwise from +x.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_nonnegative, check_positive, check_record, check_timestep
from steerlab._jit import batch_kernel, kernel, run_entry
from steerlab._per_agent import agent_params, check_agent_count, check_shared
from steerlab.engines.base import BaseEngineParams, _lag_gain
from steerlab.engines.halflife import HalfLifeParams
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.geometry.kernels import wrap_pi
from steerlab.laws._common import (
    BatchOutput,
    check_batch_size,
    check_choice,
    check_flag,
    check_frame_gain,
    check_points,
    check_single,
    check_targets_and_params,
    choice_codes,
    columns,
    frame_gain,
    largest_finite,
    pick,
    record_field,
    record_fields,
)

__all__ = ["LAWS", "EngineBound", "FollowLine", "LineData", "LineParams", "half_life_k_y"]

LAWS = ("linear", "asin")
_ASIN = LAWS.index("asin")  # ``kernel_record().law`` of the asin law
# [rad] step of a forced turn (initial-turn rule): far enough inside (0, pi) that the engine's
# shortest way cannot round it the other way, large enough to saturate a yaw-rate bound
_FORCED_TURN = 0.75 * math.pi
_SEED_RULE = "seed 000: k_Y <= k_Ymax = 1/T"


class EngineBound(NamedTuple):
    """What ``FollowLine`` needs to know of the engine for ``IcptMax_Engine`` (seed 000).

    A ``BaseEngineParams`` has the same three fields and can be given instead.
    """

    yaw_rate_max: float = math.inf  # [rad/s] seed ENGINE_OMEGAMAX; inf: no yaw-rate bound
    accel_trans_max: float = math.inf  # [u/s^2] seed ENGINE_ACCTMAX; inf: no lateral bound
    # [1/s] yaw lag of the engine, Ek_Yaw = 1 - exp(-k_yaw T), for XTDPred's horizon T / Ek_Yaw;
    # inf (default, also for an engine without yaw lag): Ek_Yaw = 1, horizon T
    k_yaw: float = math.inf

    def validated(self) -> EngineBound:
        """Return the fields as floats; ``ValueError`` naming the first bad one."""
        return EngineBound(
            yaw_rate_max=check_positive(
                "engine_bound.yaw_rate_max", self.yaw_rate_max, allow_inf=True
            ),
            accel_trans_max=check_positive(
                "engine_bound.accel_trans_max", self.accel_trans_max, allow_inf=True
            ),
            k_yaw=check_positive("engine_bound.k_yaw", self.k_yaw, allow_inf=True),
        )


class LineParams(NamedTuple):
    """Parameters of ``FollowLine`` (seed 000, "Rallying & moving along a directed line").

    Each field is a number (``law`` a name, ``predict`` and ``turn_rule`` bools), or in a law's
    batch one value per agent (a 1-D sequence). The engine bound's three fields are those of
    ``EngineBound``; all ``inf`` (the defaults) is no engine bound, the seed's plain law.
    """

    # [1/s] k_Y > 0, 0 < k_Y <= k_Ymax = 1/T (checked at each step); inf: 1/T
    k_y: float = 1.0
    intercept_max: float = math.pi / 4.0  # [rad] INTERCEPTANGLEMAX, in (0, pi/2]
    yaw_rate_max: float = math.inf  # [rad/s] ENGINE_OMEGAMAX > 0; inf: no yaw-rate bound
    accel_trans_max: float = math.inf  # [u/s^2] ENGINE_ACCTMAX > 0; inf: no lateral bound
    k_yaw: float = math.inf  # [1/s] > 0, Ek_Yaw = 1 - exp(-k_yaw T) of XTDPred; inf: Ek_Yaw = 1
    predict: bool = False  # XTDPred = XTD + (T / Ek_Yaw) XTDVel in IcptMax_Engine
    speed: float = 320.0  # [u/s] UE_mVel >= 0, commanded every frame
    law: str = "linear"  # one of LAWS: the bounded linear law or the asin law
    turn_limit: float = math.pi / 2.0  # [rad] L in [0, pi/2], the initial-turn rule's limit
    turn_rule: bool = False  # the initial-turn rule with turn_limit; False: the shortest way

    def validated(self) -> LineParams:
        """Return the fields as floats (``law`` a name or a tuple of names, the flags bools);
        ``ValueError`` naming the first bad one."""
        intercept_max = check_positive("intercept_max", self.intercept_max)
        _check_at_most(
            "intercept_max",
            intercept_max,
            math.pi / 2.0,
            "(0, pi/2] (seed 000: 0 < INTERCEPTANGLEMAX <= 90 deg)",
        )
        turn_limit = check_nonnegative("turn_limit", self.turn_limit)
        _check_at_most("turn_limit", turn_limit, math.pi / 2.0, "[0, pi/2]")
        return LineParams(
            k_y=check_positive("k_y", self.k_y, allow_inf=True),
            intercept_max=intercept_max,
            yaw_rate_max=check_positive("yaw_rate_max", self.yaw_rate_max, allow_inf=True),
            accel_trans_max=check_positive("accel_trans_max", self.accel_trans_max, allow_inf=True),
            k_yaw=check_positive("k_yaw", self.k_yaw, allow_inf=True),
            predict=check_flag("predict", self.predict),
            speed=check_nonnegative("speed", self.speed),
            law=check_choice("law", self.law, LAWS),
            turn_limit=turn_limit,
            turn_rule=check_flag("turn_rule", self.turn_rule),
        )

    def kernel_record(self) -> LineParams:
        """The record as the kernels read it: ``law`` as its index in ``LAWS``."""
        return self._replace(law=choice_codes(self.law, LAWS))


def _check_at_most(name: str, value, bound: float, domain: str) -> None:
    if isinstance(value, np.ndarray):
        above = value > bound
        if above.any():
            index = int(np.argmax(above))
            name, value = f"{name}[{index}]", float(value[index])
    if np.any(value > bound):
        raise ValueError(f"{name} must be in {domain}, got {value!r}")


class LineData(NamedTuple):
    """A directed line ``P -> Q`` as the kernels read it: numbers for one line, arrays (one entry
    per line) in a batch loop."""

    q_x: float  # [u] the point Q
    q_y: float
    unit_x: float  # uvPQ, the unit vector of P -> Q
    unit_y: float
    course: float  # [rad] Course, the direction of P -> Q


@kernel
def _cross_track(state, line):
    """Seed 000: ``(XTD, XTDVel)``, z of ``cross(uvPQ, vQM)`` and of ``cross(uvPQ, vVel)``.

    ``state`` an ``AgentState``, ``line`` a ``LineData``. Positive on the left of ``P -> Q``
    [u] and [u/s].
    """
    cross_track_error = line.unit_x * (state.y - line.q_y) - line.unit_y * (state.x - line.q_x)
    cross_track_velocity = line.unit_x * state.vy - line.unit_y * state.vx
    return cross_track_error, cross_track_velocity


@kernel
def _follow_line_command(state, params, line, dt):
    """Seed 000: the ``Command`` ``(UE_yaw, UE_mVel)`` to rally and follow the directed line.

    ``state`` an ``AgentState``, ``params`` a ``LineParams`` as ``kernel_record()`` gives it,
    ``line`` a ``LineData``: ``course`` [rad] is the line's direction, ``k_y`` [1/s] ``k_Y``,
    ``intercept_max`` [rad] ``INTERCEPTANGLEMAX``; ``law`` picks the asin law or the bounded
    linear one; ``yaw_rate_max`` [rad/s] and ``accel_trans_max`` [u/s^2] are ``ENGINE_OMEGAMAX``
    and ``ENGINE_ACCTMAX`` (both ``inf``: no engine bound); ``predict`` uses ``XTDPred`` with
    ``Ek_Yaw = 1 - exp(-k_yaw T)``; ``turn_rule`` applies the initial-turn rule with the limit
    angle ``turn_limit`` [rad]. Module docstring for the departures from the seed's text.
    """
    cross_track_error, cross_track_velocity = _cross_track(state, line)
    vx, vy = state.vx, state.vy
    speed = math.sqrt(vx * vx + vy * vy)  # mVel
    if speed == 0.0 and (vx != 0.0 or vy != 0.0):
        speed = math.hypot(vx, vy)  # the squares underflowed (|v| < 1e-154): not at rest
    side = 1.0 if cross_track_error > 0.0 else (-1.0 if cross_track_error < 0.0 else 0.0)

    # engine bound: IcptMax_Engine from the circle of radius RadiusMin tangent to the line
    radius_min = max(speed / params.yaw_rate_max, speed * speed / params.accel_trans_max)
    horizon = dt / _lag_gain(params.k_yaw, dt) if params.predict else 0.0  # T / Ek_Yaw
    predicted = cross_track_error + horizon * cross_track_velocity  # XTDPred
    # |XTDPred| while on the agent's side of the line, 0 once it crosses (module docstring, 4)
    distance = max(math.copysign(1.0, cross_track_error) * predicted, 0.0)
    # at rest, or without engine bound, RadiusMin = 0: no limit, the limit acos(-1) = pi
    xa = min(max(1.0 - distance / radius_min, -1.0), 1.0) if radius_min > 0.0 else -1.0
    bound = min(params.intercept_max, math.acos(xa))  # min(INTERCEPTANGLEMAX, IcptMax_Engine)

    # the law: -k_Y XTD / mVel, its limit -sign(XTD) inf at mVel = 0 (module docstring, 3)
    numerator = -frame_gain(params.k_y, dt) * cross_track_error
    if speed > 0.0:
        ratio = numerator / speed
    else:
        ratio = math.copysign(math.inf, numerator) if numerator != 0.0 else 0.0
    angle = math.asin(min(max(ratio, -1.0), 1.0)) if params.law == _ASIN else ratio
    intercept = min(max(angle, -bound), bound)  # U_IcptAng
    command = wrap_pi(line.course + intercept)  # UE_yaw

    # initial-turn rule (module docstring, 5): never turn through the avoided heading
    if params.turn_rule:
        yaw = state.yaw
        natural = wrap_pi(command - yaw)  # the engine's shortest turn
        avoided = wrap_pi(line.course + math.pi - side * params.turn_limit - yaw)
        if (0.0 < avoided < natural) or (natural < avoided < 0.0):
            command = wrap_pi(yaw - math.copysign(_FORCED_TURN, natural))
    return Command(command, params.speed)


@kernel
def _agent_line(line, i):
    """Agent ``i``'s line from a ``LineData`` of arrays (one entry: the line of every agent)."""
    return LineData(
        pick(line.q_x, i),
        pick(line.q_y, i),
        pick(line.unit_x, i),
        pick(line.unit_y, i),
        pick(line.course, i),
    )


@batch_kernel
def _follow_line_batch(x, y, vx, vy, yaw, params, line, dt, out_yaw, out_speed):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i] = _follow_line_command(
            AgentState(x[i], y[i], vx[i], vy[i], yaw[i]),
            agent_params(params, i),
            _agent_line(line, i),
            dt,
        )


@batch_kernel
def _cross_track_batch(x, y, vx, vy, line, out_error, out_velocity):
    for i in numba.prange(x.size):
        out_error[i], out_velocity[i] = _cross_track(
            AgentState(x[i], y[i], vx[i], vy[i], 0.0), _agent_line(line, i)
        )


def half_life_k_y(dt: float, params: HalfLifeParams | None = None) -> float:
    """``k_Y`` [1/s] for the Half-Life engine at frame time ``dt``: seed 000, "k_Y should depend
    on Timestep, but k_Y = sv_friction/4 is a low conservative value, and twice that value is
    OK".

    The dependence on the frame time, derived: in seed 004's turns the velocity across a new
    wished direction decays by ``1 - F T`` per frame, a first-order lag of rate ``kYaw = -ln(1 -
    F T) / T``; the linearised loop ``XTD'' + kYaw XTD' + kYaw k_Y XTD = 0`` is critically damped
    at ``k_Y = kYaw / 4``. That is ``-ln(1 - F T) / (4 T)``, which tends to the seed's ``F / 4``
    as ``T -> 0`` and grows with ``T`` (``F / 4 (1 + F T / 2 + ...)``); it is capped at ``k_Ymax
    = 1 / T``, reached once ``F T >= 1 - exp(-4)`` (the lateral speed then goes in a frame).
    """
    dt = check_timestep(dt)
    if params is None:
        params = HalfLifeParams()
    if not isinstance(params, HalfLifeParams):
        raise ValueError(f"params must be a HalfLifeParams, got {params!r}")
    p = params.validated()
    check_shared(p, "half_life_k_y")
    if 1.0 - p.friction * dt <= math.exp(-4.0):
        return 1.0 / dt
    return -math.log1p(-p.friction * dt) / (4.0 * dt)  # log1p: exact for the smallest F T


def _check_engine_bound(engine_bound) -> EngineBound | None:
    if engine_bound is None:
        return None
    if isinstance(engine_bound, BaseEngineParams):
        params = engine_bound.validated()
        return EngineBound(params.yaw_rate_max, params.accel_trans_max, params.k_yaw)
    if isinstance(engine_bound, EngineBound):
        return engine_bound.validated()
    if isinstance(engine_bound, HalfLifeParams):
        raise ValueError(
            "engine_bound: the Half-Life engine has no yaw-rate or lateral-acceleration bound of "
            "the BaseEngine kind (and seed 000's Half-Life follower uses none); give an "
            "EngineBound(yaw_rate_max, accel_trans_max, k_yaw) explicitly if you want one"
        )
    raise ValueError(
        f"engine_bound must be None, an EngineBound or a BaseEngineParams, got {engine_bound!r}"
    )


class FollowLine:
    """Rally a directed line ``P -> Q`` and move along it (seed 000, "Rallying & moving along a
    directed line").

    Parameters
    ----------
    p, q : (x, y), or an (n, 2) array (one line per agent, for ``step_batch``)
        The seed's ``P`` and ``Q`` [u]; the agent moves in the direction ``P -> Q``. A single
        point is broadcast against an array of the other. ``P == Q`` is a ``ValueError``.
    k_y : float or None
        ``k_Y`` [1/s] > 0, the gain of ``U_XTDVel = -k_Y XTD``; for small angles the cross-track
        error decays at the rate ``k_Y``. ``0 < k_Y <= k_Ymax = 1/T`` (checked each step against
        ``dt``); ``None`` uses ``1/T``. Default 1.0: seed 000's Half-Life value "``k_Y =
        sv_friction / 4`` is a low conservative value" with ``sv_friction = 4``; on the
        BaseEngine with its tests' ``kYaw = 4`` it is also the critically damped gain of the
        linearised loop ``XTD'' + kYaw XTD' + kYaw k_Y XTD = 0`` (``k_Y = kYaw / 4``).
    intercept_max : float
        ``INTERCEPTANGLEMAX`` [rad], in ``(0, pi/2]``; default ``pi/4``, the low end of the
        seed's practice "45 <= INTERCEPTANGLEMAX <= 90".
    engine_bound : None, EngineBound or BaseEngineParams
        ``ENGINE_OMEGAMAX`` (``yaw_rate_max``) and ``ENGINE_ACCTMAX`` (``accel_trans_max``) for
        ``IcptMax_Engine``; ``None`` (default): no engine bound, the seed's plain law. With a
        ``BaseEngineParams`` pass the parameters of the engine that moves the agent.
    predict : bool
        Use ``XTDPred = XTD + (T / Ek_Yaw) XTDVel`` in ``IcptMax_Engine`` (needs
        ``engine_bound``). ``Ek_Yaw = 1 - exp(-k_yaw T)`` with ``engine_bound.k_yaw``; an
        ``EngineBound`` without ``k_yaw`` means ``Ek_Yaw = 1`` (no yaw lag), so the horizon is
        one frame. The Half-Life engine has no yaw lag and no bound of this kind, and seed 000
        uses neither with it; whoever gives one by hand (a finite ``yaw_rate_max`` or
        ``accel_trans_max``, without which the prediction has nothing to act on) can take
        ``k_yaw = -log(1 - F T) / T``: ``Ek_Yaw = F T``, the per-frame decay of the lateral speed
        in seed 004's turns, horizon ``1 / F``.
    speed : float
        ``UE_mVel`` [u/s] >= 0, the commanded speed, constant: the seed's law steers and
        "maintain[s] a constant speed modulus". Default 320, Half-Life's ``sv_maxspeed``.
    law : {"linear", "asin"}
        The bounded linear law (default, the seed's "final control law that works") or the
        asin law; both are clamped to the bound (module docstring, 2).
    turn_limit : float or None
        The initial-turn rule's limit angle ``L`` [rad] in ``[0, pi/2]``, or ``None`` (default):
        the engine turns the shortest way, which is the seed's rule with ``L =
        INTERCEPTANGLEMAX`` while the law is saturated (module docstring, 5).

    Notes
    -----
    ``FollowLine.from_params(p, q, LineParams(...))`` builds the law from its record, in which any
    field may hold one value per agent (for ``step_batch``).

    The law outputs the heading and the constant speed; it holds no memory between frames.
    Module docstring for how each formula reads the seed and where steerlab departs from it.

    Examples
    --------
    >>> law = FollowLine((0.0, 0.0), (1000.0, 0.0), speed=250.0)
    >>> command = law.step(AgentState(0.0, 500.0, 250.0, 0.0, 0.0), dt=0.05)
    >>> round(math.degrees(command.yaw), 6), command.speed
    (-45.0, 250.0)
    """

    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    def __init__(
        self,
        p,
        q,
        k_y: float | None = 1.0,
        intercept_max: float = math.pi / 4.0,
        engine_bound: EngineBound | BaseEngineParams | None = None,
        predict: bool = False,
        speed: float = 320.0,
        law: str = "linear",
        turn_limit: float | None = None,
    ):
        self._set_line(p, q)
        k_y = math.inf if k_y is None else check_positive("k_y", k_y)
        bound = _check_engine_bound(engine_bound)
        if not isinstance(predict, bool | np.bool_):
            raise ValueError(f"predict must be True or False, got {predict!r}")
        if predict and bound is None:
            raise ValueError(
                "predict=True needs an engine_bound: seed 000 uses XTDPred only in IcptMax_Engine"
            )
        if turn_limit is not None:
            turn_limit = check_nonnegative("turn_limit", turn_limit)
            if turn_limit > math.pi / 2.0:
                raise ValueError(f"turn_limit must be in [0, pi/2] or None, got {turn_limit!r}")
        params = LineParams(
            k_y=k_y,
            intercept_max=intercept_max,
            yaw_rate_max=EngineBound().yaw_rate_max if bound is None else bound.yaw_rate_max,
            accel_trans_max=(
                EngineBound().accel_trans_max if bound is None else bound.accel_trans_max
            ),
            k_yaw=EngineBound().k_yaw if bound is None else bound.k_yaw,
            predict=bool(predict),
            speed=speed,
            law=law,
        )
        if turn_limit is not None:
            params = params._replace(turn_limit=turn_limit, turn_rule=True)
        self._set_params(params)
        self.engine_bound = bound

    @classmethod
    def from_params(cls, p, q, params: LineParams) -> FollowLine:
        """The law along ``P -> Q`` with the record ``params`` (fields may be per agent).

        ``engine_bound`` is then ``EngineBound`` of the record's three fields.
        """
        check_record("params", params, LineParams)
        law = cls.__new__(cls)
        law._set_line(p, q)
        law._set_params(params)
        law.engine_bound = EngineBound(
            law.params.yaw_rate_max, law.params.accel_trans_max, law.params.k_yaw
        )
        return law

    def _set_line(self, p, q) -> None:
        start = check_points("p", p)
        end = check_points("q", q)
        if start.shape[0] != end.shape[0] and 1 not in (start.shape[0], end.shape[0]):
            raise ValueError(
                f"p holds {start.shape[0]} points and q {end.shape[0]}: give one line, or one "
                "point of each per agent (a single point is broadcast)"
            )
        count = max(start.shape[0], end.shape[0])
        # writable copies: numba compiles one signature for read-only and another for writable
        start = np.array(np.broadcast_to(start, (count, 2)))
        end = np.array(np.broadcast_to(end, (count, 2)))
        direction = end - start
        # |PQ| in units of its largest component (no overflow for huge coordinates), with
        # correctly rounded operations only: a line gives the same bits alone or among many
        scale = np.abs(direction).max(axis=1)
        if not (scale > 0.0).all():
            index = int(np.argmin(scale > 0.0))
            raise ValueError(
                f"p and q must differ (a directed line needs two points): line {index} has "
                f"p = q = {start[index].tolist()}"
            )
        scaled = direction / scale[:, None]
        length = scale * np.sqrt((scaled * scaled).sum(axis=1))
        unit = direction / length[:, None]
        self._p = start
        self._q = end
        q_x, q_y = columns(end)
        unit_x, unit_y = columns(unit)
        # libm's atan2 per line, not NumPy's SIMD loop (whose last bits may differ): Course
        unit_pairs = zip(unit_x.tolist(), unit_y.tolist(), strict=True)
        course = np.array([math.atan2(y, x) for x, y in unit_pairs])
        self._lines = LineData(q_x, q_y, unit_x, unit_y, course)
        # scalar path: plain floats, no array indexing per frame
        self._line = LineData(*(float(values[0]) for values in self._lines))

    def _set_params(self, params: LineParams) -> None:
        self.params = params.validated()
        self.agents = check_targets_and_params("p and q", self._q, self.params)
        self._kernel_record = self.params.kernel_record()
        self._k_y_largest = largest_finite(self.params.k_y)

    @property
    def p(self) -> np.ndarray:
        """The point(s) ``P``, ``(2,)`` for one line or ``(n, 2)`` for one per agent."""
        return self._p[0].copy() if self._p.shape[0] == 1 else self._p.copy()

    @property
    def q(self) -> np.ndarray:
        """The point(s) ``Q``, ``(2,)`` for one line or ``(n, 2)`` for one per agent."""
        return self._q[0].copy() if self._q.shape[0] == 1 else self._q.copy()

    @property
    def course(self) -> float | np.ndarray:
        """``Course`` [rad], the direction of ``P -> Q`` in ``[-pi, pi]`` (one per line)."""
        course = self._lines.course
        return float(course[0]) if course.size == 1 else course.copy()

    k_y = record_field(
        "k_y", inf_is_none=True, doc="``k_Y`` [1/s]; ``None`` for ``1/T`` (the record's ``inf``)."
    )
    intercept_max, predict, speed, law = record_fields("intercept_max", "predict", "speed", "law")
    turn_limit = record_field(
        "turn_limit",
        flag="turn_rule",
        doc="``L`` [rad]; ``None`` when the initial-turn rule is off (the engine's shortest way).",
    )

    def _check_dt(self, dt) -> float:
        return check_frame_gain("k_y", self.params.k_y, self._k_y_largest, dt, _SEED_RULE)

    def step(self, state: AgentState, dt: float) -> Command:
        """The command ``(UE_yaw, UE_mVel)`` for this frame of ``dt`` seconds."""
        check_single("p and q", self._q)
        if self.agents is not None:
            check_shared(self.params, "FollowLine.step")
        state = check_state(state)
        dt = self._check_dt(dt)
        arguments = (state, self._kernel_record, self._line, dt)
        return Command(*run_entry(self, _follow_line_command, arguments))

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch`` (``out`` reused when given)."""
        check_batch_size("p and q", self._q, batch)
        check_agent_count(self.params, batch.size)
        dt = self._check_dt(dt)
        out = BatchOutput.ensure(out, batch.size)
        _follow_line_batch(
            *batch.fields(), self._kernel_record, self._lines, dt, out.yaw, out.speed
        )
        return out

    def cross_track(self, state: AgentState) -> tuple[float, float]:
        """``(XTD, XTDVel)`` of ``state`` [u], [u/s]: positive on the left of ``P -> Q``."""
        check_single("p and q", self._q)
        state = check_state(state)
        error, velocity = _cross_track(state, self._line)
        return float(error), float(velocity)

    def cross_track_batch(self, batch: AgentBatch) -> tuple[np.ndarray, np.ndarray]:
        """``(XTD, XTDVel)`` of every agent of ``batch``, two new arrays."""
        check_batch_size("p and q", self._q, batch)
        error = np.empty(batch.size)
        velocity = np.empty(batch.size)
        _cross_track_batch(batch.x, batch.y, batch.vx, batch.vy, self._lines, error, velocity)
        return error, velocity

    def reset(self) -> None:
        """The law holds no memory between frames (module docstring, 5)."""

    def __repr__(self) -> str:
        return (
            f"FollowLine(p={self.p.tolist()}, q={self.q.tolist()}, k_y={self.k_y}, "
            f"intercept_max={self.intercept_max}, engine_bound={self.engine_bound}, "
            f"predict={self.predict}, speed={self.speed}, law={self.law!r}, "
            f"turn_limit={self.turn_limit})"
        )
