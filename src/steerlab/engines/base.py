"""BaseEngine: the two-channel heading/speed motion model of seed 000.

Seed 000 ("Trajectory control", "the Base engine pseudo-code") controls the velocity modulus and
the velocity angle through two independent first-order channels, "like a simplified model of an
airplane". The kernel ``_base_engine_step`` is that pseudo-code line by line; ``BaseEngine.step``
calls it once, ``BaseEngine.step_batch`` calls it in ``prange`` over agents.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba

from steerlab._checks import (
    check_negative,
    check_nonnegative,
    check_positive,
    check_record,
    check_timestep,
)
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, check_shared
from steerlab.engines._batch import engine_params, run_step, run_step_batch
from steerlab.engines.state import AgentBatch, AgentState, Command
from steerlab.geometry.kernels import sincos, wrap_pi

__all__ = ["BaseEngine", "BaseEngineParams", "base_engine_stop_distance", "base_engine_stop_speed"]


class BaseEngineParams(NamedTuple):
    """Parameters of the BaseEngine (seed 000). World units, seconds, radians.

    ``inf`` (``-inf`` for the deceleration) means "no bound"; the seed gives no values for the
    bounds, so the defaults are unbounded, the case the seed's figures start from.
    """

    # [1/s] yaw lag, Ek_Yaw = 1 - exp(-k_yaw T); seed: "kYaw = 4 in tests"; inf -> Ek_Yaw = 1
    k_yaw: float = 4.0
    # [1/s] speed lag, Ek_mVel = 1 - exp(-k_speed T); the seed says "a constant": kYaw's 4
    k_speed: float = 4.0
    yaw_rate_max: float = math.inf  # [rad/s] YAWRATEMAX
    accel_trans_max: float = math.inf  # [u/s^2] ACCTRANSMAX, lateral acceleration bound
    accel_long_max: float = math.inf  # [u/s^2] ACCLONGMAX > 0
    decel_long_max: float = -math.inf  # [u/s^2] DECELLONGMAX < 0

    def validated(self) -> BaseEngineParams:
        """Return the parameters as floats; ``ValueError`` naming the first bad one."""
        return BaseEngineParams(
            k_yaw=check_positive("k_yaw", self.k_yaw, allow_inf=True),
            k_speed=check_positive("k_speed", self.k_speed, allow_inf=True),
            yaw_rate_max=check_positive("yaw_rate_max", self.yaw_rate_max, allow_inf=True),
            accel_trans_max=check_positive("accel_trans_max", self.accel_trans_max, allow_inf=True),
            accel_long_max=check_positive("accel_long_max", self.accel_long_max, allow_inf=True),
            decel_long_max=check_negative("decel_long_max", self.decel_long_max, allow_inf=True),
        )


@kernel
def _lag_gain(rate, dt):
    """Seed 000: ``Ek = 1 - exp(-k T)``; ``k = inf`` gives exactly 1 (no lag)."""
    return 1.0 - math.exp(-rate * dt)


@kernel
def _base_engine_step(state, command, params, dt):
    """One frame of the BaseEngine, seed 000 pseudo-code: the ``AgentState`` a frame later.

    ``state`` an ``AgentState``, ``command`` a ``Command``, ``params`` a ``BaseEngineParams``
    (validated); ``Ek_Yaw`` and ``Ek_mVel`` are ``_lag_gain`` of its rates (a batch whose agents
    share the rates computes them once: the exponentials do not depend on the agent).

    Departures from the seed's text, each deliberate:

    - ``YawRateMax = (YAWRATEMAX, ACCTRANSMAX / mVel)`` lost its ``min``: restored, as its
      comment "yaw-rate bound" requires;
    - ``Yaw = wrap360(...)`` becomes ``wrap_pi`` (steerlab's convention); same direction;
    - the speed is floored at 0 ("no backwards move"). With ``0 < Ek_mVel <= 1`` and a command
      ``>= 0`` the seed's update never goes negative anyway; the floor only guards rounding;
    - the velocity direction is the (updated) yaw, as the position update writes it; an initial
      state whose velocity points elsewhere keeps only its modulus.
    """
    gain_yaw = _lag_gain(params.k_yaw, dt)
    gain_speed = _lag_gain(params.k_speed, dt)
    speed = math.sqrt(state.vx * state.vx + state.vy * state.vy)
    if speed == math.inf:  # the squares overflowed (|v| > 1e154): the same norm, scaled
        speed = math.hypot(state.vx, state.vy)
    # velocity direction control
    delta_yaw = wrap_pi(command.yaw - state.yaw)
    yaw_rate = gain_yaw * delta_yaw / dt
    yaw_rate_bound = params.yaw_rate_max
    if speed != 0.0:
        yaw_rate_bound = min(params.yaw_rate_max, params.accel_trans_max / speed)
    yaw_rate = min(max(yaw_rate, -yaw_rate_bound), yaw_rate_bound)
    yaw = wrap_pi(state.yaw + dt * yaw_rate)
    # velocity modulus control
    accel = gain_speed * (command.speed - speed) / dt
    accel = min(max(accel, params.decel_long_max), params.accel_long_max)
    speed = max(speed + dt * accel, 0.0)
    # updating position, with the updated speed and yaw
    sin_yaw, cos_yaw = sincos(yaw)
    vx = speed * cos_yaw
    vy = speed * sin_yaw
    return AgentState(state.x + dt * vx, state.y + dt * vy, vx, vy, yaw)


@batch_kernel
def _base_engine_batch(x, y, vx, vy, yaw, yaw_command, speed_command, params, dt):
    for i in numba.prange(x.size):
        x[i], y[i], vx[i], vy[i], yaw[i] = _base_engine_step(
            AgentState(x[i], y[i], vx[i], vy[i], yaw[i]),
            Command(yaw_command[i], speed_command[i]),
            agent_params(params, i),
            dt,
        )


class BaseEngine:
    """Seed 000's BaseEngine: yaw and speed as two first-order channels with bounds.

    ``params`` may hold one value per agent in any field (a sequence or array); such an engine
    steps batches of that many agents (``step_batch``), each agent with its own values.

    Examples
    --------
    >>> engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
    >>> engine.step(AgentState(), Command(yaw=0.0, speed=100.0), dt=0.1).x
    10.0
    """

    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    def __init__(self, params: BaseEngineParams | None = None):
        self.params, self.agents = engine_params(params, BaseEngineParams)

    def step(self, state: AgentState, command: Command, dt: float) -> AgentState:
        """The state one frame of ``dt`` seconds later; ``state`` is not modified."""
        return run_step(self, _base_engine_step, self.params, state, command, dt, "BaseEngine.step")

    def step_batch(self, batch: AgentBatch, yaw_command, speed_command, dt: float) -> None:
        """Step every agent of ``batch`` in place (arrays of commands, or scalars for all)."""
        run_step_batch(_base_engine_batch, self.params, batch, yaw_command, speed_command, dt)

    def __repr__(self) -> str:
        return f"BaseEngine({self.params!r})"


@kernel
def _base_engine_stop_distance(speed, dt, gain_speed, decel_long_max):
    """Distance the BaseEngine runs from ``speed`` after a zero-speed command.

    Derived from the seed 000 pseudo-code with ``UE_mVel = 0``: per frame the speed becomes
    ``max(v - Ek v, v + T DECELLONGMAX)`` (floored at 0), so it falls linearly by
    ``T |DECELLONGMAX|`` while ``v > v* = T |DECELLONGMAX| / Ek_mVel``, then geometrically by
    ``1 - Ek_mVel``. Positions use the updated speed, so with ``n`` linear frames ending at
    ``v_L``: ``T (n v0 + T D n (n + 1) / 2) + T v_L (1 - Ek) / Ek``. The geometric tail never
    reaches 0 exactly; the sum is its limit.
    """
    if speed <= 0.0:
        return 0.0
    distance = 0.0
    last_speed = speed
    if decel_long_max > -math.inf:
        step = -dt * decel_long_max  # > 0, speed lost per frame in the linear phase
        threshold = step / gain_speed  # v*: below it the lag, not the bound, limits braking
        if speed > threshold:
            frames = math.ceil((speed - threshold) / step)
            last_speed = max(speed - frames * step, 0.0)
            distance = dt * (frames * speed - step * frames * (frames + 1.0) / 2.0)
    if gain_speed < 1.0:  # (no lag: nothing after the linear phase, even for a huge dt)
        distance += dt * last_speed * (1.0 - gain_speed) / gain_speed
    return distance


def base_engine_stop_distance(
    speed: float, dt: float, params: BaseEngineParams | None = None
) -> float:
    """Distance the BaseEngine runs from ``speed`` until rest after a zero-speed command.

    Not in seed 000 (which only says the distance law "works with an engine such as the base
    engine without bound on deceleration"): derived from its pseudo-code, see
    ``_base_engine_stop_distance``. Used by ``StopAt(method="predict")``.
    """
    if params is None:
        params = BaseEngineParams()
    check_record("params", params, BaseEngineParams)
    p = params.validated()
    check_shared(p, "base_engine_stop_distance")
    speed = check_nonnegative("speed", speed, per_agent=False)
    dt = check_timestep(dt)
    gain = _lag_gain(p.k_speed, dt)
    if gain == 0.0:  # a frame too short for float64 to see the lag: the sum's limit as T -> 0
        return _stop_distance_limit(speed, p.k_speed, p.decel_long_max)
    return float(_base_engine_stop_distance(speed, dt, gain, p.decel_long_max))


def _stop_distance_limit(speed: float, rate: float, decel_long_max: float) -> float:
    """``_base_engine_stop_distance`` as ``T -> 0``: ``dv/dt = max(-k v, DECELLONGMAX)``, a
    constant deceleration ``|D|`` down to ``v* = |D| / k``, then ``v* e^{-k t}``: ``(v0^2 -
    v*^2) / (2 |D|) + v* / k`` above ``v*``, ``v0 / k`` below."""
    threshold = -decel_long_max / rate  # 0 for an unbounded deceleration
    if speed <= threshold:
        return speed / rate
    return (speed * speed - threshold * threshold) / (-2.0 * decel_long_max) + threshold / rate


@kernel
def _linear_piece_end(n, c, threshold, step, dt):
    """``D_n``: the BaseEngine's stop distance from ``v* + n s`` (``_base_engine_stop_speed``)."""
    return c * threshold + dt * n * threshold + dt * step * n * (n - 1.0) / 2.0


@kernel
def _base_engine_stop_speed(distance, dt, gain_speed, decel_long_max):
    """The largest speed from which the BaseEngine stops within ``distance`` after a zero-speed
    command: the inverse of ``_base_engine_stop_distance`` (continuous and increasing in the
    speed, piecewise linear), ``inf`` when every speed stops within it.

    With ``c = T (1 - Ek) / Ek``: ``D(v) = c v`` up to ``v* = T |DECELLONGMAX| / Ek``; past it,
    ``n`` linear frames (``v`` in ``(v* + (n - 1) s, v* + n s]``, ``s = T |DECELLONGMAX|``) give
    ``D(v) = (T n + c) v - T s n (n + 1) / 2 - c n s``, which reaches ``D_n = c v* + T n v* + T s
    n (n - 1) / 2`` at the end of its piece. The piece is the smallest ``n`` with ``D_n >=
    distance`` (a root of that quadratic, corrected by whole frames), then the linear piece is
    solved for ``v``.
    """
    c = dt * (1.0 - gain_speed) / gain_speed
    if decel_long_max == -math.inf:  # the lag alone brakes: D = c v
        return distance / c if c > 0.0 else math.inf
    step = -dt * decel_long_max
    threshold = step / gain_speed  # v*
    if distance <= c * threshold:
        return distance / c if c > 0.0 else threshold

    a = dt * step / 2.0
    b = dt * threshold - dt * step / 2.0
    constant = c * threshold - distance
    n = max(math.ceil((-b + math.sqrt(b * b - 4.0 * a * constant)) / (2.0 * a)), 1.0)
    while n > 1.0 and _linear_piece_end(n - 1.0, c, threshold, step, dt) >= distance:
        n -= 1.0
    while _linear_piece_end(n, c, threshold, step, dt) < distance:
        n += 1.0
    return (distance + dt * step * n * (n + 1.0) / 2.0 + c * n * step) / (dt * n + c)


def base_engine_stop_speed(
    distance: float, dt: float, params: BaseEngineParams | None = None
) -> float:
    """The largest speed from which the BaseEngine comes to rest within ``distance`` after a
    zero-speed command: the inverse of ``base_engine_stop_distance`` (``inf`` when its speed lag
    and deceleration bound are both off, so that any speed stops at once).

    What an engine-aware law needs to brake ahead of a point (``SeekPoint(engine=...)``).
    """
    if params is None:
        params = BaseEngineParams()
    check_record("params", params, BaseEngineParams)
    p = params.validated()
    check_shared(p, "base_engine_stop_speed")
    distance = check_nonnegative("distance", distance, per_agent=False)
    dt = check_timestep(dt)
    return float(_base_engine_stop_speed(distance, dt, _lag_gain(p.k_speed, dt), p.decel_long_max))
