"""Half-Life ground movement (seed 004) and its stopping, turning and low-speed analytics.

Two models, chosen by ``HalfLifeParams.model``:

``"engine"``
    The Half-Life 1 SDK's ground move (``pm_shared.c``: ``PM_CheckVelocity``, ``PM_Friction``,
    ``PM_WalkMove``, ``PM_Accelerate``) in its order: bound each velocity axis to
    ``sv_maxvelocity``; friction, skipped under 0.1 unit/s; bound again; accelerate, which only
    ever adds speed along the wish direction, up to the wished speed capped at ``maxspeed``; move
    with the new velocity unless it is under 1 unit/s (then it is zeroed and the agent does not
    move); bound again. Edge friction, base velocity, steps, traces and ``pmove->friction`` (1 on
    ordinary ground) are left out: steerlab's world handles walls, and bots walk on flat ground
    here.
``"simplified"``
    The seed page's pseudo-code: friction ``max(0, |v| - T F max(|v|, S))`` along the velocity,
    then a velocity change along the wish direction clamped to ``+-DeltaVelMax`` (so it can also
    brake along the wish direction), then ``M += T v``.

**Reading of ``DeltaVelMax``.** The page writes ``DeltaVelMax = AccelCoeff * UE_mVel``, without
the frame time. Its own closed forms need ``DeltaVelMax = AccelCoeff * T * UE_mVel``: the
emergency stop's ``EquivSpeed = OppositeVelCmd * AccelCoeff / Friction`` is the fixed point of
``v <- (1 - F T) v + A T U`` (without ``T`` it would be ``A U / (F T)``); its ``Decel = Friction *
StopSpeed - AccelCoeff * OppositeVelCmd`` is a deceleration per second applied as ``Decel * T``
per frame; and the low-speed trap (threshold ``S F / A`` = 60, steady speed ``A T U``) only comes
out with ``T``. The SDK agrees: ``accelspeed = accel * frametime * wishspeed``. Both models use
``A T U``.

In both models the wished speed is capped at ``maxspeed`` (the engine caps the player's input
there), the wish direction is the command's yaw, and the returned yaw is the command's yaw (a
bot sets its view angles directly). Units are the game's (about an inch); floats are 64-bit
where the game uses 32-bit.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numba
import numpy as np

from steerlab._checks import check_bool, check_nonnegative, check_positive, check_timestep
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, check_shared
from steerlab.engines._batch import engine_params, run_step, run_step_batch
from steerlab.engines.state import AgentBatch, AgentState, Command
from steerlab.geometry.kernels import sincos, wrap_pi

__all__ = [
    "HalfLifeEngine",
    "HalfLifeParams",
    "emergency_stop_distance",
    "low_speed_steady_speed",
    "low_speed_threshold",
    "stop_distance",
    "stop_speed",
    "turn_crossing_distance",
]

MODELS = ("engine", "simplified")


class HalfLifeParams(NamedTuple):
    """Half-Life cvars and the model variant. Game units, seconds.

    Defaults are the seed page's values (``sv_accelerate`` 5, ``sv_friction`` 4, ``sv_stopspeed``
    75); ``stock()`` gives the game's shipped values.
    """

    accelerate: float = 5.0  # [1/s] sv_accelerate, seed 004 ("the values currently used here")
    friction: float = 4.0  # [1/s] sv_friction, seed 004
    stopspeed: float = 75.0  # [u/s] sv_stopspeed, seed 004
    maxspeed: float = 320.0  # [u/s] sv_maxspeed, Half-Life default
    maxvelocity: float = 2000.0  # [u/s] sv_maxvelocity, per-axis bound, Half-Life default
    model: Literal["engine", "simplified"] = "engine"

    @classmethod
    def stock(cls, model: Literal["engine", "simplified"] = "engine") -> HalfLifeParams:
        """The game's stock cvars: ``sv_accelerate`` 10, ``sv_friction`` 4, ``sv_stopspeed`` 100."""
        return cls(accelerate=10.0, friction=4.0, stopspeed=100.0, model=model)

    def validated(self) -> HalfLifeParams:
        """Return the parameters as floats; ``ValueError`` naming the first bad one.

        Each field may hold one value per agent (a sequence; ``model`` a sequence of names), for
        a batch whose agents differ (``steerlab._per_agent``)."""
        if isinstance(self.model, str):
            models = [self.model]
        elif (
            isinstance(self.model, list | tuple | np.ndarray)
            and np.ndim(self.model) == 1
            and len(self.model)
        ):
            models = list(self.model)
        else:
            raise ValueError(
                f"model must be one of {MODELS} or a sequence of them (one per agent), got "
                f"{self.model!r}"
            )
        for index, model in enumerate(models):
            if model not in MODELS:
                name = "model" if isinstance(self.model, str) else f"model[{index}]"
                raise ValueError(f"{name} must be one of {MODELS}, got {model!r}")
        return HalfLifeParams(
            accelerate=check_positive("accelerate", self.accelerate),
            friction=check_positive("friction", self.friction),
            stopspeed=check_positive("stopspeed", self.stopspeed),
            maxspeed=check_positive("maxspeed", self.maxspeed),
            maxvelocity=check_positive("maxvelocity", self.maxvelocity),
            model=self.model if isinstance(self.model, str) else tuple(models),
        )

    def kernel_record(self) -> HalfLifeParams:
        """The record as the kernels read it: ``model`` as its index in ``MODELS`` (an integer,
        or an array of them for one model per agent); the numbers as they are."""
        if isinstance(self.model, str):
            return self._replace(model=MODELS.index(self.model))
        codes = np.array([MODELS.index(model) for model in self.model], dtype=np.int64)
        codes.setflags(write=False)
        return self._replace(model=codes)


ENGINE_MODEL = MODELS.index("engine")  # ``kernel_record().model`` of the SDK's order


# ---------------------------------------------------------------------------------------------
# the step
# ---------------------------------------------------------------------------------------------


@kernel
def _clamp(value, low, high):
    return min(max(value, low), high)


@kernel
def _half_life_step(state, command, params, dt):
    """One frame of Half-Life ground movement: the ``AgentState`` a frame later.

    ``state`` an ``AgentState``, ``command`` a ``Command``, ``params`` a ``HalfLifeParams`` as
    ``kernel_record()`` gives it: seed 004, "Model pseudo-code" (``model`` "simplified"), or the
    SDK order described in the module docstring (``model`` "engine").
    """
    accelerate, friction, stopspeed = params.accelerate, params.friction, params.stopspeed
    maxvelocity = params.maxvelocity
    x, y, vx, vy = state.x, state.y, state.vx, state.vy
    wish_speed = min(command.speed, params.maxspeed)
    wish_sin, wish_cos = sincos(command.yaw)
    if params.model == ENGINE_MODEL:
        vx = _clamp(vx, -maxvelocity, maxvelocity)
        vy = _clamp(vy, -maxvelocity, maxvelocity)
        speed = math.sqrt(vx * vx + vy * vy)
        if speed >= 0.1:  # PM_Friction: "if (speed < 0.1f) return;"
            drop = max(speed, stopspeed) * friction * dt
            scale = max(speed - drop, 0.0) / speed
            vx *= scale
            vy *= scale
        vx = _clamp(vx, -maxvelocity, maxvelocity)
        vy = _clamp(vy, -maxvelocity, maxvelocity)
        add_speed = wish_speed - (vx * wish_cos + vy * wish_sin)  # PM_Accelerate
        if add_speed > 0.0:
            accel_speed = min(accelerate * dt * wish_speed, add_speed)
            vx += accel_speed * wish_cos
            vy += accel_speed * wish_sin
        if math.sqrt(vx * vx + vy * vy) < 1.0:  # PM_WalkMove: "if (spd < 1.0f) VectorClear"
            vx = 0.0
            vy = 0.0
        x += dt * vx
        y += dt * vy
        vx = _clamp(vx, -maxvelocity, maxvelocity)
        vy = _clamp(vy, -maxvelocity, maxvelocity)
    else:
        speed = math.sqrt(vx * vx + vy * vy)
        # a velocity whose square underflows (|v| < 1e-154) counts as rest, not as a speed
        # that friction can never reach
        scale = (
            max(speed - dt * friction * max(speed, stopspeed), 0.0) / speed if speed > 0.0 else 0.0
        )
        vx *= scale
        vy *= scale
        if wish_speed != 0.0:
            delta_max = accelerate * dt * wish_speed  # A T U: see the module docstring
            delta = _clamp(wish_speed - (vx * wish_cos + vy * wish_sin), -delta_max, delta_max)
            vx += delta * wish_cos
            vy += delta * wish_sin
        x += dt * vx  # "integration uses the updated velocity"
        y += dt * vy
    return AgentState(x, y, vx, vy, wrap_pi(command.yaw))


@batch_kernel
def _half_life_batch(x, y, vx, vy, yaw, yaw_command, speed_command, params, dt):
    for i in numba.prange(x.size):
        x[i], y[i], vx[i], vy[i], yaw[i] = _half_life_step(
            AgentState(x[i], y[i], vx[i], vy[i], yaw[i]),
            Command(yaw_command[i], speed_command[i]),
            agent_params(params, i),
            dt,
        )


class HalfLifeEngine:
    """Half-Life 1 ground movement, the SDK's (``model="engine"``) or seed 004's ("simplified").

    ``params`` may hold one value per agent in any field (a sequence or array); such an engine
    steps batches of that many agents (``step_batch``), each agent with its own values.
    """

    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    def __init__(self, params: HalfLifeParams | None = None):
        self.params, self.agents = engine_params(params, HalfLifeParams)
        self._kernel_record = self.params.kernel_record()

    def step(self, state: AgentState, command: Command, dt: float) -> AgentState:
        """The state one frame of ``dt`` seconds later; ``state`` is not modified."""
        record = self._kernel_record
        return run_step(self, _half_life_step, record, state, command, dt, "HalfLifeEngine.step")

    def step_batch(self, batch: AgentBatch, yaw_command, speed_command, dt: float) -> None:
        """Step every agent of ``batch`` in place (arrays of commands, or scalars for all)."""
        run_step_batch(_half_life_batch, self._kernel_record, batch, yaw_command, speed_command, dt)

    def stop_distance(self, speed: float, dt: float, exact: bool = True) -> float:
        """``stop_distance(speed, dt, self.params, exact)``."""
        return stop_distance(speed, dt, self.params, exact)

    def __repr__(self) -> str:
        return f"HalfLifeEngine({self.params!r})"


# ---------------------------------------------------------------------------------------------
# analytics (seed 004): kernels, so that laws can call them per agent inside numba
# ---------------------------------------------------------------------------------------------


@kernel
def _decay_frames(speed, limit, ratio, offset):
    """Frames of ``v_n = ratio^n (speed - offset) + offset`` until ``v_n <= limit`` (``n >= 1``).

    The smallest ``n >= 1`` with ``v_n <= limit``, for ``0 < ratio < 1`` and
    ``speed > limit > offset``: the seed's ``ceil(log(...)/log(K))``, corrected by one where the
    logarithm rounds across an integer.
    """
    n = max(math.ceil(math.log((limit - offset) / (speed - offset)) / math.log(ratio)), 1.0)
    while n > 1.0 and ratio ** (n - 1.0) * (speed - offset) + offset <= limit:
        n -= 1.0
    while ratio**n * (speed - offset) + offset > limit:
        n += 1.0
    return n


@kernel
def _linear_stop_distance(speed, decrement, dt):
    """Distance run while the speed falls by ``decrement`` per frame from ``speed`` to zero.

    Seed 004: ``N2 = (int)(NumStopSpeed / (Decel T))``, ``N2 T (NumStopSpeed - 0.5 T (1 + N2)
    Decel)`` with ``decrement = Decel T``; positions use the updated speed, so the frames with a
    positive speed are ``speed - k decrement`` for ``k = 1 .. N2``.
    """
    if speed <= 0.0:
        return 0.0
    frames = math.floor(speed / decrement)
    return frames * dt * (speed - 0.5 * (1.0 + frames) * decrement)


@kernel
def _continuous_stop_distance(speed, equivalent, decel, friction, stopspeed):
    """Distance to rest (or to the sign change) of the per-frame laws as the frame time goes to
    zero: ``dv/dt = -F (v - E)`` above ``stopspeed`` (``E`` the fixed point, 0 under a zero
    command), then ``dv/dt = -decel``: ``(v - S)/F + E ln((v - E)/(S - E))/F + S^2 / (2 decel)``
    from above ``S``, ``v^2 / (2 decel)`` from below.

    The exact sums use it when ``1 - F T`` rounds to 1 (``F T`` under about 1.1e-16): a frame's
    decay is then below float64's resolution, a simulated speed never falls, and the frame count
    (``_decay_frames``) has no finite value; the sums tend to this limit as ``T`` shrinks."""
    if speed <= 0.0:
        return 0.0
    if speed <= stopspeed:
        return speed * speed / (2.0 * decel)
    decay = (speed - stopspeed) / friction
    decay += equivalent * math.log((speed - equivalent) / (stopspeed - equivalent)) / friction
    return max(0.0, decay) + stopspeed * stopspeed / (2.0 * decel)


@kernel
def _stop_distance_exact(speed, dt, friction, stopspeed):
    """Seed 004 ``getStopDistDetailed``: distance run after a zero-speed command.

    Exact for the page's (``"simplified"``) model with ``UE_mVel = 0``: proportional decay
    ``v <- (1 - F T) v`` above ``stopspeed``, then ``v <- v - F S T``. ``F T >= 1`` stops in one
    frame (distance 0); the seed's formula assumes ``F T < 1`` (its ``log(K)``).
    """
    ratio = 1.0 - friction * dt
    if speed <= 0.0 or ratio <= 0.0:
        return 0.0
    if ratio == 1.0:  # no decay a float64 can show: the limit of the sum
        return _continuous_stop_distance(speed, 0.0, friction * stopspeed, friction, stopspeed)
    distance = 0.0
    last_speed = speed
    if speed > stopspeed:
        frames = _decay_frames(speed, stopspeed, ratio, 0.0)
        last_speed = speed * ratio**frames  # NumStopSpeed: first value at or below stopspeed
        distance = (speed - last_speed) * (1.0 / friction - dt)
    return distance + _linear_stop_distance(last_speed, friction * stopspeed * dt, dt)


@kernel
def _stop_distance_approx(speed, dt, friction, stopspeed):
    """Seed 004 ``getStopDist``: the continuous approximation of the stop distance.

    Departure: the seed's first branch, ``(speed - S/2)(1/F - T)``, turns negative once ``F T >
    1``, where its derivation (``K = 1 - F T`` in ``(0, 1)``) no longer holds and any speed stops
    in one frame without moving; it is 0 there, as its second branch already was."""
    if speed > stopspeed:
        return max(0.0, (speed - 0.5 * stopspeed) * (1.0 / friction - dt))
    return max(0.0, 0.5 * speed * (speed / (stopspeed * friction) - dt))


@kernel
def _stop_speed_approx(distance, dt, friction, stopspeed):
    """The inverse of seed 004's ``getStopDist``: the largest speed whose continuous stop
    distance is at most ``distance`` (the seed's reason for the continuous form: "one can compute
    the reciprocal function").

    Above ``stopspeed`` (distances past ``D(S) = S (1/F - T) / 2``): ``v = D / (1/F - T) + S/2``.
    At or below: the root of ``v^2 / (S F) - T v - 2 D = 0``, ``v = S F (T + sqrt(T^2 + 8 D / (S
    F))) / 2`` (``S F T`` at ``D = 0``, the speeds the formula stops in place). ``inf`` once ``F T
    >= 1``, where every speed stops in one frame.
    """
    horizon = 1.0 / friction - dt
    if horizon <= 0.0:
        return math.inf
    if distance > 0.5 * stopspeed * horizon:
        return distance / horizon + 0.5 * stopspeed
    scale = stopspeed * friction
    return 0.5 * scale * (dt + math.sqrt(dt * dt + 8.0 * distance / scale))


@kernel
def _emergency_stop_distance_exact(speed, opposite_speed, dt, accelerate, friction, stopspeed):
    """Seed 004 ``getEmergStopDistDetailed``: distance run until the speed changes sign.

    The wished speed ``opposite_speed > 0`` points against the motion (the seed's
    ``OppositeVelCmd = -opposite_speed``). Per frame above ``stopspeed``: ``v <- K v - A T U``
    (fixed point ``EquivSpeed = -A U / F``); at or below: ``v <- v - Decel T`` with ``Decel = F S
    + A U``. Departure from the seed's code: it sums every frame of the decay phase, including
    the last one even when that frame's speed is already negative (a large ``A T U`` takes the
    speed from above ``stopspeed`` straight below zero); the distance "at which actual speed
    changes sign" stops before that frame, so this sum does. The seed's ``max(0, ...)`` only
    hides the case when the whole sum turns negative.
    """
    ratio = 1.0 - friction * dt
    decel = friction * stopspeed + accelerate * opposite_speed
    if speed <= 0.0 or ratio <= 0.0:
        return 0.0
    if ratio == 1.0:  # no decay a float64 can show: the limit of the sum
        equivalent = -accelerate * opposite_speed / friction
        return _continuous_stop_distance(speed, equivalent, decel, friction, stopspeed)
    distance = 0.0
    last_speed = speed
    if speed > stopspeed:
        equivalent = -accelerate * opposite_speed / friction  # EquivSpeed
        frames = _decay_frames(speed, stopspeed, ratio, equivalent)
        last_speed = ratio**frames * (speed - equivalent) + equivalent
        if last_speed <= 0.0:  # the sign changed during the decay phase: stop the sum before
            frames -= 1.0
            last_speed = ratio**frames * (speed - equivalent) + equivalent
            return (speed - last_speed) * (1.0 / friction - dt) + frames * dt * equivalent
        distance = (speed - last_speed) * (1.0 / friction - dt) + frames * dt * equivalent
    return distance + _linear_stop_distance(last_speed, decel * dt, dt)


@kernel
def _emergency_stop_distance_approx(speed, opposite_speed, dt, accelerate, friction, stopspeed):
    """Seed 004 ``getEmergStopDist``: the continuous approximation, as written."""
    decel = friction * stopspeed + accelerate * opposite_speed
    if 1.0 - friction * dt == 1.0:  # log(K) = 0: the formula's limit as T -> 0
        equivalent = -accelerate * opposite_speed / friction
        return _continuous_stop_distance(speed, equivalent, decel, friction, stopspeed)
    if speed > stopspeed:
        distance = (speed - stopspeed) * (1.0 / friction - dt)
        ratio = 1.0 - friction * dt
        equivalent = -accelerate * opposite_speed / friction
        frames = math.log((stopspeed - equivalent) / (speed - equivalent)) / math.log(ratio)
        distance += frames * dt * equivalent
        distance += 0.5 * stopspeed * (-dt + stopspeed / decel)
    else:
        distance = 0.5 * speed * (-dt + speed / decel)
    return max(0.0, distance)


def _analytics_args(speed, dt, params, name="speed"):
    speed = check_nonnegative(name, speed, per_agent=False)
    dt = check_timestep(dt)
    if params is None:
        params = HalfLifeParams()
    if not isinstance(params, HalfLifeParams):
        raise ValueError(f"params must be a HalfLifeParams, got {params!r}")
    params = params.validated()
    check_shared(params, "the stopping and turning analytics")
    return speed, dt, params


def stop_distance(
    speed: float, dt: float, params: HalfLifeParams | None = None, exact: bool = True
) -> float:
    """Distance run from ``speed`` until rest after a zero-speed command (seed 004).

    ``exact=True``: ``getStopDistDetailed``, the piecewise sum, exact for the ``"simplified"``
    model (the ``"engine"`` model stops at most ``dt`` units shorter, because it zeroes speeds
    under 1 unit/s without moving). ``exact=False``: ``getStopDist``, continuous and invertible.
    Needs ``friction * dt < 1`` to be meaningful; beyond, any speed stops in one frame (0).
    """
    speed, dt, p = _analytics_args(speed, dt, params)
    if check_bool("exact", exact):
        return float(_stop_distance_exact(speed, dt, p.friction, p.stopspeed))
    return float(_stop_distance_approx(speed, dt, p.friction, p.stopspeed))


def stop_speed(distance: float, dt: float, params: HalfLifeParams | None = None) -> float:
    """The largest speed from which a bot stops within ``distance`` after a zero-speed command:
    the inverse of ``stop_distance(..., exact=False)`` (seed 004's ``getStopDist``, continuous "ie
    one can compute the reciprocal function"); see ``_stop_speed_approx``.

    The exact stop distance (``getStopDistDetailed``) from this speed may differ from
    ``distance`` by the seed's approximation error (under 1.5 units at ``T = 0.2`` s, it says).
    ``inf`` once ``friction * dt >= 1`` (any speed stops in one frame).
    """
    distance, dt, p = _analytics_args(distance, dt, params, name="distance")
    return float(_stop_speed_approx(distance, dt, p.friction, p.stopspeed))


def emergency_stop_distance(
    speed: float,
    opposite_speed: float,
    dt: float,
    params: HalfLifeParams | None = None,
    exact: bool = True,
) -> float:
    """Distance run until the velocity changes sign under a wished speed against the motion.

    ``opposite_speed > 0`` is the wished speed pointing backwards (capped at ``maxspeed`` like
    any wished speed); the seed's ``OppositeVelCmd`` is its negative. ``exact=True`` is
    ``getEmergStopDistDetailed`` (with the fix described in ``_emergency_stop_distance_exact``),
    ``exact=False`` is ``getEmergStopDist``.
    """
    speed, dt, p = _analytics_args(speed, dt, params)
    opposite_speed = min(
        check_positive("opposite_speed", opposite_speed, per_agent=False), p.maxspeed
    )
    exact = check_bool("exact", exact)
    function = _emergency_stop_distance_exact if exact else _emergency_stop_distance_approx
    return float(function(speed, opposite_speed, dt, p.accelerate, p.friction, p.stopspeed))


def turn_crossing_distance(speed: float, dt: float, params: HalfLifeParams | None = None) -> float:
    """Seed 004, "Turns": ``(1/friction - T) * speed``.

    After a step change of the wished direction from a straight move at ``speed``, the agent ends
    on a line that crosses its initial trajectory this far from where the command changed. Holds
    exactly while the speed stays above ``stopspeed`` (the velocity component across the new
    direction then decays by ``1 - F T`` per frame); see ``docs/fidelity.md`` for the range.
    Departure: 0 once ``F T >= 1`` (the formula turns negative there): friction then removes
    the whole velocity in the first frame, and the agent leaves along the new direction from
    where the command changed.
    """
    speed, dt, p = _analytics_args(speed, dt, params)
    return max(0.0, (1.0 / p.friction - dt) * speed)


def low_speed_threshold(params: HalfLifeParams | None = None) -> float:
    """Seed 004, "Low speed commands": wished speeds below ``stopspeed * friction / accelerate``
    (60 with the seed's cvars) are not reached; see ``low_speed_steady_speed``."""
    if params is None:
        params = HalfLifeParams()
    if not isinstance(params, HalfLifeParams):
        raise ValueError(f"params must be a HalfLifeParams, got {params!r}")
    p = params.validated()
    check_shared(p, "low_speed_threshold")
    return p.stopspeed * p.friction / p.accelerate


def low_speed_steady_speed(
    speed_command: float, dt: float, params: HalfLifeParams | None = None
) -> float:
    """Steady speed of a straight move under a wished speed at or below ``low_speed_threshold``:
    ``accelerate * T * speed_command`` (seed 004). Above the threshold the command is reached and
    this returns ``speed_command``, capped at ``maxspeed`` as the engine caps every wished speed.
    The ``"engine"`` model zeroes a steady speed under 1 unit/s."""
    speed_command, dt, p = _analytics_args(speed_command, dt, params, name="speed_command")
    speed_command = min(speed_command, p.maxspeed)
    if speed_command * p.accelerate > p.stopspeed * p.friction:  # at it, friction cancels
        return speed_command
    steady = min(p.accelerate * dt, 1.0) * speed_command
    if p.model == "engine" and steady < 1.0:  # PM_WalkMove zeroes speeds under 1 unit/s
        return 0.0
    return steady
