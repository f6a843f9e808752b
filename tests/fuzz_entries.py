"""The public entry points of docs/api.md called with hostile arguments (run by tests/test_fuzz.py).

Each entry draws its arguments (mostly valid, each one hostile with a fixed chance: NaN, infinities,
1e308, -0.0, subnormals, huge and negative ints, bools, numeric strings, None, sequences of the
wrong length or shape, arrays of the wrong dtype, empty arrays, objects) and makes one or a few
calls. The property (``check_outcome``): the call returns finite numbers (where it returns numbers)
or raises a ``ValueError`` (or a public steerlab subclass) whose message names one of the
arguments drawn; nothing else.

Run as a script, ``python tests/fuzz_entries.py GROUP COUNT_FILE``, in a process of its own (a
crash then fails the test instead of killing pytest): every call runs under a watchdog (SIGALRM
for Python code; ``faulthandler``'s exit for compiled code, which a signal cannot interrupt). The
number of calls made is written to ``COUNT_FILE`` as JSON.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import math
import os
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from numba.core import event

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import conftest  # noqa: E402, F401  (the hypothesis profiles)

CALL_SECONDS = 30.0  # a call (first calls compile: FIRST_CALL_SECONDS); generous for a busy machine
FIRST_CALL_SECONDS = 300.0

# --------------------------------------------------------------------------------------------------
# hostile values


class Opaque:
    """An object that is no number, no sequence, no record."""

    def __repr__(self) -> str:
        return "Opaque()"


ATOMS = (
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    -0.0,
    1e-320,
    5e-324,
    2**63,
    -(2**63),
    10**400,
    -1,
    0,
    True,
    False,
    "3.0",
    "nan",
    "",
    None,
    b"1",
    1 + 1j,
    np.float32(math.nan),
    np.int64(-5),
    np.bool_(True),
)


def _shapes():
    return st.sampled_from(
        [
            [],
            [1.0],
            [1.0, 2.0, 3.0],
            [[1.0, 2.0], [3.0]],
            [math.nan, 0.0],
            ["1", "2"],
            [None, None],
            (True, False),
            np.array([]),
            np.zeros((0, 2)),
            np.zeros((2, 2, 2)),
            np.array(["a", "b"]),
            np.array([1, 2], dtype=np.int8),
            np.array([1.0, math.nan]),
            np.array([math.inf, 1.0, 2.0]),
            np.zeros(10_000),
            np.array([Opaque(), Opaque()], dtype=object),
            {"x": 1.0},
        ]
    )


def hostile():
    """One hostile value."""
    return st.one_of(st.sampled_from(ATOMS), _shapes(), st.builds(Opaque))


class Draw:
    """Draws an entry's arguments; records the names a ``ValueError`` may name."""

    def __init__(self, data):
        self.data = data
        self.names: set[str] = set()

    def _hostile_now(self) -> bool:
        # shrinks towards 0: towards valid arguments
        return self.data.draw(st.integers(0, 9)) >= 8

    def val(self, name: str, valid, *extra_names: str):
        """A value of ``valid`` (a strategy) or, with a fixed chance, a hostile one."""
        self.names.add(name)
        self.names.update(extra_names)
        value = self.data.draw(hostile() if self._hostile_now() else valid, label=name)
        if isinstance(value, str) and value:
            self.names.add(value)  # a name or a file the message may name instead
        return value

    def num(self, name: str, low=-1e4, high=1e4):
        return self.val(name, st.floats(low, high, allow_nan=False))

    def pos(self, name: str, high=1e3, low=1e-3):
        return self.val(name, st.floats(low, high))

    def dt(self):
        return self.val("dt", st.floats(1e-3, 0.1))

    def xy(self, name: str, scale=1e3):
        coordinate = st.floats(-scale, scale, allow_nan=False)
        point = st.tuples(coordinate, coordinate)
        if self._hostile_now():  # one coordinate hostile
            self.names.add(name)
            return self.data.draw(st.tuples(hostile(), coordinate), label=name)
        return self.val(name, point)

    def points(self, name: str, low=2, high=6, scale=1e3, dims=2):
        coordinate = st.floats(-scale, scale, allow_nan=False)
        rows = st.lists(
            st.lists(coordinate, min_size=dims, max_size=dims), min_size=low, max_size=high
        )
        return self.val(name, rows.map(lambda r: np.array(r, dtype=float)))

    def pick(self, name: str, options):
        return self.val(name, st.sampled_from(list(options)))

    def record(self, name: str, record_type, *, ranges=None):
        """A record of ``record_type``: its defaults, each float field scaled by 0.25..4 (or drawn
        from ``ranges[field]``), one field hostile with a fixed chance; or a hostile value."""
        self.names.add(name)
        self.names.update(record_type._fields)
        if self.data.draw(st.integers(0, 19)) == 19:
            return self.data.draw(hostile(), label=name)
        values = record_type()._asdict()
        ranges = ranges or {}
        for field, default in values.items():
            if field in ranges:
                values[field] = self.data.draw(ranges[field], label=f"{name}.{field}")
            elif type(default) is float and math.isfinite(default) and default != 0.0:
                factor = self.data.draw(st.floats(0.25, 4.0), label=f"{name}.{field}")
                values[field] = default * factor
        if self._hostile_now():
            field = self.data.draw(st.sampled_from(list(values)), label=f"{name} field")
            values[field] = self.data.draw(hostile(), label=f"{name}.{field}")
        return record_type(**values)

    def state(self, name: str, record_type, valid_fields: dict):
        """A state record: valid fields from ``valid_fields`` (strategies), one hostile with a
        fixed chance; or a hostile value."""
        self.names.add(name)
        self.names.update(record_type._fields)
        if self.data.draw(st.integers(0, 19)) == 19:
            return self.data.draw(hostile(), label=name)
        values = {f: self.data.draw(s, label=f"{name}.{f}") for f, s in valid_fields.items()}
        if self._hostile_now():
            field = self.data.draw(st.sampled_from(list(values)), label=f"{name} field")
            values[field] = self.data.draw(hostile(), label=f"{name}.{field}")
        return record_type(**values)

    def choice(self, label: str, options):
        """A plain choice between code paths (never hostile)."""
        return self.data.draw(st.sampled_from(list(options)), label=label)

    def integer(self, label: str, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high), label=label)


COORDINATE = st.floats(-1e3, 1e3, allow_nan=False)
VELOCITY = st.floats(-400.0, 400.0, allow_nan=False)
YAW = st.floats(-math.pi, math.pi, allow_nan=False)
SPEED = st.floats(0.0, 400.0, allow_nan=False)


# --------------------------------------------------------------------------------------------------
# the property


def _public_value_error(error: BaseException) -> bool:
    kind = type(error)
    if not isinstance(error, ValueError) or isinstance(error, UnicodeError):
        return False
    return kind is ValueError or (
        kind.__module__.startswith("steerlab") and not kind.__name__.startswith("_")
    )


def _non_finite(value, where="result", depth=0):
    """The first non-finite number in a returned value (numbers, arrays, tuples, named tuples,
    lists, dicts), or ``None``; other objects are not looked into."""
    if depth > 6:
        return None
    if isinstance(value, bool | np.bool_ | str | bytes) or value is None:
        return None
    if isinstance(value, float | np.floating):
        return None if math.isfinite(value) else f"{where} = {value!r}"
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.isfinite(value).all():
            return f"{where} holds {value[~np.isfinite(value)][:3]!r}"
        return None
    if isinstance(value, tuple | list):
        fields = getattr(value, "_fields", None)
        for index, item in enumerate(value):
            label = f"{where}.{fields[index]}" if fields else f"{where}[{index}]"
            found = _non_finite(item, label, depth + 1)
            if found:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _non_finite(item, f"{where}[{key!r}]", depth + 1)
            if found:
                return found
    return None


class HangError(Exception):
    """A call overran its time limit (raised by the SIGALRM handler)."""


def _alarm(signum, frame):
    raise HangError(f"the call took more than its time limit ({CALL_SECONDS} s)")


class _Compiling(event.Listener):
    """Stops a call's watchdogs while numba compiles (a new signature compiles for tens of
    seconds on a busy machine: not a hang of the library), and restarts them after."""

    depth = 0
    remaining = 0.0

    def on_start(self, event_):
        type(self).depth += 1
        if self.depth == 1:
            type(self).remaining = signal.setitimer(signal.ITIMER_REAL, 0)[0]
            faulthandler.dump_traceback_later(FIRST_CALL_SECONDS * 3, exit=True)

    def on_end(self, event_):
        type(self).depth -= 1
        if self.depth == 0 and self.remaining > 0.0:  # within a call: its watchdogs again
            signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
            faulthandler.dump_traceback_later(CALL_SECONDS * 3, exit=True)
        elif self.depth == 0:  # a compile outside any call
            faulthandler.cancel_dump_traceback_later()


COUNTS = {"calls": 0, "value_errors": 0}
_CALLED: set[str] = set()


def check_outcome(name: str, draw: Draw, call, *, allow_non_finite=()):
    """Run ``call()`` under the watchdogs; assert the property."""
    limit = CALL_SECONDS if name in _CALLED else FIRST_CALL_SECONDS
    _CALLED.add(name)
    COUNTS["calls"] += 1
    faulthandler.dump_traceback_later(limit * 3, exit=True)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        result = call()
    except HangError:
        raise
    except Exception as error:  # (what the property is about)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if not _public_value_error(error):
            raise AssertionError(
                f"{name}: {type(error).__module__}.{type(error).__name__} escaped: {error}"
            ) from error
        message = str(error)
        if not any(argument in message for argument in draw.names):
            raise AssertionError(
                f"{name}: the ValueError names none of {sorted(draw.names)}: {message}"
            ) from error
        COUNTS["value_errors"] += 1
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
    found = _non_finite(result)
    if found and not any(part in found for part in allow_non_finite):
        raise AssertionError(f"{name}: a non-finite result: {found}")
    return result


# --------------------------------------------------------------------------------------------------
# the entries

GROUPS: dict[str, list] = {}


def entry(group: str):
    def register(function):
        GROUPS.setdefault(group, []).append(function)
        return function

    return register


def call(name, draw, function, *args, allow_non_finite=(), **kwargs):
    return check_outcome(
        name, draw, lambda: function(*args, **kwargs), allow_non_finite=allow_non_finite
    )


@contextlib.contextmanager
def folder():
    with tempfile.TemporaryDirectory() as path:
        yield Path(path)


# geometry


@entry("geometry")
def geometry_functions(d: Draw):
    from steerlab.geometry import atan2, bezier_max_curvature, sincos, wrap_pi

    which = d.choice("function", ["wrap_pi", "atan2", "sincos", "bezier"])
    if which == "wrap_pi":
        call("wrap_pi", d, wrap_pi, d.val("angle", st.floats(-1e300, 1e300)))
    elif which == "atan2":
        call("atan2", d, atan2, d.num("y"), d.num("x"))
    elif which == "sincos":
        call("sincos", d, sincos, d.num("angle"))
    else:
        # inf: a curve that reverses (a cusp), as documented
        p1, p2, p3 = d.xy("p1"), d.xy("p2"), d.xy("p3")
        call(
            "bezier_max_curvature",
            d,
            bezier_max_curvature,
            p1,
            p2,
            p3,
            allow_non_finite=("result",),
        )


@entry("geometry")
def polyline(d: Draw):
    from steerlab.geometry import Polyline

    points = d.points("points", dims=d.choice("dims", [2, 3]))
    widths = d.val("widths", st.one_of(st.none(), st.floats(0.1, 50.0)))
    line = call("Polyline", d, Polyline, points, widths)
    if line is None:
        return
    method = d.choice(
        "method",
        [
            "project",
            "project_batch",
            "point_at",
            "heading_at",
            "segment_at",
            "width_at",
            "half_width_at",
            "next_point",
        ],
    )
    if method == "project":
        call("Polyline.project", d, line.project, d.xy("p"))
    elif method == "project_batch":
        call("Polyline.project_batch", d, line.project_batch, d.points("points", 1, 5))
    elif method == "next_point":
        call(
            "Polyline.next_point",
            d,
            line.next_point,
            d.xy("origin"),
            d.pos("dh"),
            d.val("s_from", st.one_of(st.none(), st.floats(0.0, 1e3))),
        )
    elif method in ("width_at", "half_width_at") and line.widths is None:
        return
    else:
        # an infinite width is a documented value ("inf: no corridor")
        unbounded = ("result",) if method in ("width_at", "half_width_at") else ()
        call(
            f"Polyline.{method}",
            d,
            getattr(line, method),
            d.num("s", -10.0, 5e3),
            allow_non_finite=unbounded,
        )


# engines


def agent_state(d: Draw, name="state"):
    from steerlab.engines import AgentState

    return d.state(
        name,
        AgentState,
        {"x": COORDINATE, "y": COORDINATE, "vx": VELOCITY, "vy": VELOCITY, "yaw": YAW},
    )


def agent_batch(d: Draw, name="batch"):
    """An AgentBatch of a few agents, sometimes with a field written (in place or replaced)
    after construction, or a hostile value."""
    from steerlab.engines import AgentBatch

    d.names.update({name, "x", "y", "vx", "vy", "yaw"})
    size = d.integer("size", 1, 4)
    arrays = [
        np.array(d.data.draw(st.lists(COORDINATE, min_size=size, max_size=size))) for _ in range(5)
    ]
    batch = call("AgentBatch", d, AgentBatch, *arrays)
    if batch is None:
        return d.data.draw(hostile())
    how = d.choice("batch damage", ["none", "none", "none", "in place", "replaced"])
    field = d.choice("field", ["x", "y", "vx", "vy", "yaw"])
    if how == "in place":
        getattr(batch, field)[d.integer("index", 0, size - 1)] = d.data.draw(
            st.sampled_from([math.nan, math.inf, -math.inf, 1e308])
        )
    elif how == "replaced":
        with contextlib.suppress(ValueError):
            setattr(batch, field, d.data.draw(hostile()))
    return batch


def engine_and_params(d: Draw):
    from steerlab.engines import BaseEngine, BaseEngineParams, HalfLifeEngine, HalfLifeParams

    kind = d.choice("engine", ["base", "halflife"])
    if kind == "base":
        params = d.record("params", BaseEngineParams)
        return call("BaseEngine", d, BaseEngine, params), params
    params = d.record(
        "params", HalfLifeParams, ranges={"model": st.sampled_from(["engine", "simplified"])}
    )
    return call("HalfLifeEngine", d, HalfLifeEngine, params), params


@entry("engines")
def engine_step(d: Draw):
    from steerlab.engines import Command

    engine, _ = engine_and_params(d)
    if engine is None:
        return
    command = d.state("command", Command, {"yaw": YAW, "speed": SPEED})
    call("engine.step", d, engine.step, agent_state(d), command, d.dt())


@entry("engines")
def engine_step_batch(d: Draw):
    engine, _ = engine_and_params(d)
    if engine is None:
        return
    batch = agent_batch(d)
    size = getattr(batch, "size", 1)
    yaw = d.val("yaw_command", st.one_of(YAW, st.lists(YAW, min_size=size, max_size=size)))
    speed = d.val("speed_command", st.one_of(SPEED, st.lists(SPEED, min_size=size, max_size=size)))
    call("engine.step_batch", d, engine.step_batch, batch, yaw, speed, d.dt())


@entry("engines")
def engine_formulas(d: Draw):
    from steerlab.engines import BaseEngineParams, HalfLifeParams, base, halflife
    from steerlab.laws import half_life_k_y
    from steerlab.navigation.prediction import half_life_prediction_horizon

    which = d.choice(
        "formula",
        [
            "stop_distance",
            "stop_speed",
            "emergency",
            "turn_crossing",
            "threshold",
            "steady",
            "base_stop",
            "base_speed",
            "k_y",
            "horizon",
        ],
    )
    if which in ("base_stop", "base_speed"):
        params = d.val(
            "params",
            st.one_of(st.none(), st.just(BaseEngineParams(decel_long_max=-800.0))),
            *BaseEngineParams._fields,
        )
        function = (
            base.base_engine_stop_distance if which == "base_stop" else base.base_engine_stop_speed
        )
        call(
            which,
            d,
            function,
            d.pos("speed" if which == "base_stop" else "distance", 1e3, 0.0),
            d.dt(),
            params,
        )
        return
    params = d.val(
        "params", st.one_of(st.none(), st.just(HalfLifeParams())), *HalfLifeParams._fields
    )
    dt = d.val("dt", st.one_of(st.floats(1e-3, 0.1), st.sampled_from([1e-17, 1e-160, 0.3, 1.0])))
    if which == "stop_distance":
        exact = d.val("exact", st.booleans())
        call(which, d, halflife.stop_distance, d.pos("speed", 1e3, 0.0), dt, params, exact)
    elif which == "stop_speed":
        # inf once friction * dt >= 1 (any speed stops within a frame), as documented
        distance = d.pos("distance", 1e4, 0.0)
        call(which, d, halflife.stop_speed, distance, dt, params, allow_non_finite=("result",))
    elif which == "emergency":
        call(
            which,
            d,
            halflife.emergency_stop_distance,
            d.pos("speed", 1e3, 0.0),
            d.pos("opposite_speed", 1e3, 0.0),
            dt,
            params,
        )
    elif which == "turn_crossing":
        call(which, d, halflife.turn_crossing_distance, d.pos("speed", 1e3, 0.0), dt, params)
    elif which == "threshold":
        call(which, d, halflife.low_speed_threshold, params)
    elif which == "steady":
        call(
            which, d, halflife.low_speed_steady_speed, d.pos("speed_command", 1e3, 0.0), dt, params
        )
    elif which == "k_y":
        call(which, d, half_life_k_y, dt, params)
    else:
        call(
            which,
            d,
            half_life_prediction_horizon,
            params if params is not None else HalfLifeParams(),
            dt,
        )


@entry("engines")
def unicycle(d: Draw):
    from steerlab.engines import Unicycle, UnicycleParams, UnicycleState
    from steerlab.engines.unicycle import UnicycleBatch, UnicycleCommand, turning_radius

    params = d.record("params", UnicycleParams)
    which = d.choice("call", ["step", "step_batch", "turning_radius"])
    if which == "turning_radius":
        call("turning_radius", d, turning_radius, d.pos("speed", 10.0, 0.0), params)
        return
    engine = call("Unicycle", d, Unicycle, params)
    if engine is None:
        return
    if which == "step":
        state = d.state(
            "state",
            UnicycleState,
            {
                "x": COORDINATE,
                "y": COORDINATE,
                "yaw": YAW,
                "v": st.floats(0, 2),
                "w": st.floats(-3, 3),
            },
        )
        command = d.state(
            "command",
            UnicycleCommand,
            {"accel": st.floats(-5, 5), "angular_accel": st.floats(-10, 10)},
        )
        call("Unicycle.step", d, engine.step, state, command, d.dt())
    else:
        size = d.integer("size", 1, 3)
        batch = call(
            "UnicycleBatch",
            d,
            UnicycleBatch,
            d.val("x", st.just(np.zeros(size))),
            np.zeros(size),
            np.zeros(size),
        )
        if batch is None:
            return
        if d.choice("damage", [False, False, True]):
            batch.v[0] = math.nan
            d.names.add("UnicycleBatch.v[0]")  # the batch's field written in place
        call(
            "Unicycle.step_batch",
            d,
            engine.step_batch,
            batch,
            d.num("accel", -5, 5),
            d.num("angular_accel", -5, 5),
            d.dt(),
        )


# laws


def law(d: Draw):
    from steerlab.engines import BaseEngineParams, HalfLifeParams
    from steerlab.laws import AroundPoint, FollowLine, ReachOriented, SeekPoint, StopAt

    kind = d.choice("law", ["seek", "around", "line", "oriented", "fitted", "stop"])
    if kind == "seek":
        engine = d.val("engine", st.sampled_from([None, HalfLifeParams(), BaseEngineParams()]))
        return call(
            "SeekPoint",
            d,
            SeekPoint,
            d.xy("target"),
            d.val("k_d", st.one_of(st.none(), st.floats(0.1, 10))),
            d.pos("speed_bound"),
            d.val("arrival_radius", st.floats(0, 50)),
            d.val("rearm_distance", st.just(math.inf)),
            engine,
        )
    if kind == "around":
        return call(
            "AroundPoint",
            d,
            AroundPoint,
            d.xy("center"),
            d.pos("distance"),
            d.pick("side", [1, -1]),
            None,
            d.pos("speed_bound"),
        )
    if kind == "line":
        return call(
            "FollowLine",
            d,
            FollowLine,
            d.xy("p"),
            d.xy("q"),
            k_y=d.val("k_y", st.one_of(st.none(), st.floats(0.01, 10))),
            intercept_max=d.val("intercept_max", st.floats(0.01, 1.5)),
            predict=d.val("predict", st.booleans()),
            speed=d.pos("speed"),
            law=d.pick("law", ["linear", "atan"]),
            turn_limit=d.val("turn_limit", st.one_of(st.none(), st.floats(0.1, 3))),
        )
    if kind == "oriented":
        return call(
            "ReachOriented",
            d,
            ReachOriented,
            d.xy("target"),
            d.num("course", -4, 4),
            d.pick("family", ["F1", "F2", "F3"]),
            d.val("k", st.one_of(st.none(), st.floats(0.1, 10))),
            d.pos("speed"),
            relative_bearing_max=d.val("relative_bearing_max", st.floats(0.1, 3)),
            arrival_radius=d.val("arrival_radius", st.floats(0, 20)),
        )
    if kind == "fitted":
        return call(
            "ReachOriented.fitted",
            d,
            ReachOriented.fitted,
            d.xy("target"),
            d.num("course", -4, 4),
            agent_state(d, "state_or_batch"),
            d.pos("speed"),
        )
    engine = d.val("engine", st.sampled_from([None, HalfLifeParams(), BaseEngineParams()]))
    return call(
        "StopAt",
        d,
        StopAt,
        d.xy("target"),
        d.pick("method", ["distance", "predict", "emergency"]),
        engine,
        d.pos("k_d", 5.0),
        d.pos("speed"),
    )


@entry("laws")
def law_step(d: Draw):
    controller = law(d)
    if controller is None:
        return
    if d.choice("call", ["step", "batch"]) == "step":
        call("law.step", d, controller.step, agent_state(d), d.dt())
    else:
        call("law.step_batch", d, controller.step_batch, agent_batch(d), d.dt())


@entry("laws")
def law_from_params(d: Draw):
    from steerlab.laws import FollowLine, ReachOriented, StopAt
    from steerlab.laws.line import LineParams
    from steerlab.laws.oriented import OrientedParams
    from steerlab.laws.stop import StopParams

    kind = d.choice("law", ["line", "oriented", "stop"])
    if kind == "line":
        params = d.record(
            "params",
            LineParams,
            ranges={
                "law": st.sampled_from(["linear", "atan"]),
                "predict": st.booleans(),
                "turn_rule": st.booleans(),
            },
        )
        controller = call(
            "FollowLine.from_params", d, FollowLine.from_params, d.xy("p"), d.xy("q"), params
        )
    elif kind == "oriented":
        params = d.record(
            "params",
            OrientedParams,
            ranges={
                "family": st.sampled_from(["F1", "F2", "F3"]),
                "adapt": st.booleans(),
                "arrive": st.booleans(),
            },
        )
        controller = call(
            "ReachOriented.from_params",
            d,
            ReachOriented.from_params,
            d.xy("target"),
            d.num("course", -4, 4),
            params,
        )
    else:
        params = d.record(
            "params",
            StopParams,
            ranges={
                "method": st.sampled_from(["distance", "predict", "emergency"]),
                "engine": st.sampled_from(["base", "halflife"]),
            },
        )
        controller = call("StopAt.from_params", d, StopAt.from_params, d.xy("target"), params)
    if controller is not None:
        call("law.step", d, controller.step, agent_state(d), d.dt())


@entry("laws")
def fit_conic(d: Draw):
    from steerlab.laws import fit_conic as fit

    call("fit_conic", d, fit, d.num("x"), d.num("y"), d.num("heading", -4, 4))


# navigation


def navdata(d: Draw):
    from steerlab.navigation import example_navdata, load_navdata

    name = d.choice("file", ["level.toml", "corridors1.toml", "corridors.json", "slalom.toml"])
    return load_navdata(example_navdata(name))


@entry("navigation")
def route_and_navigators(d: Draw):
    from steerlab.engines import BaseEngineParams, HalfLifeParams
    from steerlab.navigation import AlongSegments, AroundPoints, TowardsPoints, find_route

    nav = navdata(d)
    if nav.kind == "points":
        controller = call(
            "AroundPoints",
            d,
            AroundPoints,
            nav,
            d.val("k_d", st.one_of(st.none(), st.floats(0.1, 10))),
            d.pos("speed_bound"),
            d.pick("check", ["command", "position"]),
            d.val("prediction_horizon", st.floats(0, 1)),
            d.pos("max_turns", 5.0),
        )
    else:
        ids = _ids(nav)
        start = d.val(
            "start", st.one_of(st.sampled_from(ids), st.tuples(COORDINATE, COORDINATE, COORDINATE))
        )
        goal = d.val(
            "goal", st.one_of(st.sampled_from(ids), st.tuples(COORDINATE, COORDINATE, COORDINATE))
        )
        route = call(
            "find_route", d, find_route, nav, start, goal, touch_radius=d.pos("touch_radius", 50.0)
        )
        if route is None:
            return
        if d.choice("navigator", ["towards", "along"]) == "towards":
            controller = call(
                "TowardsPoints",
                d,
                TowardsPoints,
                route,
                d.val("k_d", st.one_of(st.none(), st.floats(0.1, 10))),
                d.pos("speed_bound"),
                d.val("switch_radius", st.one_of(st.none(), st.floats(0, 100))),
                speed_floor=d.val("speed_floor", st.floats(0, 50)),
                min_turn_radius=d.val("min_turn_radius", st.floats(0, 100)),
                yaw_rate_max=d.val(
                    "yaw_rate_max", st.one_of(st.just(math.inf), st.floats(0.1, 10))
                ),
            )
        else:
            controller = call(
                "AlongSegments",
                d,
                AlongSegments,
                route,
                d.pick("version", [1, 2]),
                d.val("engine", st.sampled_from([None, HalfLifeParams(), BaseEngineParams()])),
                k_d=d.pos("k_d", 10.0),
                speed_bound=d.pos("speed_bound"),
                prediction_horizon=d.val(
                    "prediction_horizon", st.one_of(st.none(), st.floats(0, 2))
                ),
            )
    if controller is None:
        return
    if d.choice("call", ["step", "batch"]) == "step":
        for _ in range(d.integer("frames", 1, 3)):
            if call("navigator.step", d, controller.step, agent_state(d), d.dt()) is None:
                break
    else:
        call("navigator.step_batch", d, controller.step_batch, agent_batch(d), d.dt())


def _ids(nav) -> list[str]:
    graph = nav.as_corridors1() if nav.kind == "corridors2" else nav
    return [waypoint.id for waypoint in graph.waypoints]


def _route(nav):
    """A route of a shipped file from its first waypoint to the farthest one reachable (set-up,
    not under test)."""
    from steerlab.navigation import NoRouteError, find_route

    ids = _ids(nav)
    for goal in reversed(ids[1:]):
        try:
            return find_route(nav, ids[0], goal)
        except NoRouteError:
            continue
    raise AssertionError("no route in a shipped file")


@entry("navigation")
def navigator_from_params(d: Draw):
    from steerlab.navigation import AlongSegments, TowardsPoints
    from steerlab.navigation.along import AlongParams
    from steerlab.navigation.towards import TowardsParams

    nav = navdata(d)
    if nav.kind == "points":
        return
    route = _route(nav)
    if d.choice("navigator", ["towards", "along"]) == "towards":
        params = d.record("params", TowardsParams, ranges={"speed_to_next_segment": st.booleans()})
        controller = call("TowardsPoints.from_params", d, TowardsPoints.from_params, route, params)
    else:
        params = d.record(
            "params",
            AlongParams,
            ranges={
                "version": st.sampled_from([1, 2]),
                "predict": st.booleans(),
                "speed_control": st.booleans(),
                "engine": st.sampled_from(["none", "halflife", "base"]),
            },
        )
        controller = call("AlongSegments.from_params", d, AlongSegments.from_params, route, params)
    if controller is not None:
        call("navigator.step", d, controller.step, agent_state(d), d.dt())


@entry("navigation")
def corridor_metrics(d: Draw):
    from steerlab.navigation import corridor_metrics as metrics

    nav = navdata(d)
    if nav.kind == "points":
        return
    route = _route(nav)
    positions = d.points("positions", 1, 8)
    call(
        "corridor_metrics",
        d,
        metrics,
        positions,
        route,
        goal_radius=d.val("goal_radius", st.one_of(st.none(), st.floats(0.1, 100))),
        shape=d.pick("shape", ["capsule", "box"]),
        allow_non_finite=("time_to_goal",),
    )


def _nav_text(d: Draw) -> tuple[str, str]:
    """A generated nav data file: a valid-looking structure with hostile values in it."""
    kind = d.choice("kind", ["waypoints", "corridors1", "corridors2", "points", "bad"])
    value = lambda name, valid: d.val(name, valid)  # noqa: E731
    number = st.floats(-500, 500, allow_nan=False)
    position = st.lists(number, min_size=3, max_size=3)
    if kind == "waypoints":
        data = {
            "kind": "waypoints",
            "waypoints": [
                {
                    "id": f"w{i}",
                    "position": value("position", position),
                    "radius": value("radius", st.floats(0, 50)),
                }
                for i in range(3)
            ],
            "connections": [{"from": "w0", "to": value("to", st.sampled_from(["w1", "w2"]))}],
        }
    elif kind == "corridors1":
        data = {
            "kind": "corridors1",
            "waypoints": [
                {"id": f"w{i}", "position": value("position", position)} for i in range(2)
            ],
            "segments": [{"from": "w0", "to": "w1", "width": value("width", st.floats(0, 50))}],
        }
    elif kind == "corridors2":
        data = {
            "kind": "corridors2",
            "segments": [
                {
                    "id": "a",
                    "start": value("start", position),
                    "end": [100.0, 0.0, 0.0],
                    "width": value("width", st.floats(0, 50)),
                },
                {
                    "id": "b",
                    "start": [50.0, -50.0, 0.0],
                    "end": value("end", position),
                    "width": 10.0,
                },
            ],
            "crossings": [["a", "b"]],
        }
    elif kind == "points":
        data = {
            "kind": "points",
            "points": [
                {
                    "position": value("position", position),
                    "side": value("side", st.sampled_from([1, -1])),
                    "radius": value("radius", st.floats(0, 50)),
                }
            ],
        }
    else:
        nested: object = 1.0
        for _ in range(d.integer("depth", 1, 5000)):
            nested = [nested]
        # the shape is drawn by name: hypothesis' own bookkeeping of a deeply nested value among
        # the choices recursed as deep as the nesting (a draw that failed or not by stack depth)
        shapes = {
            "kind-list": lambda: {"kind": ["waypoints"]},
            "kind-none": lambda: {"kind": None},
            "list": lambda: [1, 2],
            "nested": lambda: nested,
            "points-nested": lambda: {"kind": "points", "points": nested},
        }
        data = shapes[d.choice("data", list(shapes))]()
    suffix = d.choice("suffix", [".json", ".toml"])
    if suffix == ".json":
        try:
            text = json.dumps(data, default=repr)
        except (ValueError, RecursionError, TypeError):
            text = "[" * 100_000
    else:
        try:
            text = _toml(data)
        except RecursionError:  # this writer's own recursion: the deepest TOML it stands for
            text = "points = " + "[" * 100_000
    return text, suffix


def _toml(data) -> str:
    """A small TOML writer (enough for the generated nav and suite files)."""

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return (
                "nan"
                if math.isnan(v)
                else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
            )
        if isinstance(v, int):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list | tuple):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(repr(v))

    if not isinstance(data, dict):
        return f"x = {value(data)}"
    return "\n".join(f"{json.dumps(k)} = {value(v)}" for k, v in data.items()) + "\n"


@entry("files")
def load_navdata_files(d: Draw):
    from steerlab.navigation import find_route, load_navdata

    text, suffix = _nav_text(d)
    d.names.update(
        {"path", "map", "kind", "waypoints", "segments", "points", "crossings", "connections"}
    )
    with folder() as where:
        path = where / f"map{suffix}"
        path.write_text(text)
        nav = call("load_navdata", d, load_navdata, path)
    if nav is not None and nav.kind in ("waypoints", "corridors1", "corridors2"):
        ids = _ids(nav)
        d.names.update({"start", "goal"})
        call("find_route", d, find_route, nav, ids[0], ids[-1])


@entry("files")
def load_bot_files(d: Draw):
    from steerlab.navigation import load_navdata
    from test_navdata_bot_files import encode_graph, encode_wpt

    d.names.update(
        {
            "path",
            "map",
            "offset",
            "waypoint",
            "byte",
            "node",
            "version",
            "magic",
            "count",
            "gzip",
            "ULZ",
            "waypoints",
            "file",
        }
    )
    count = d.integer("count", 1, 4)
    coordinate = st.one_of(st.floats(-1e4, 1e4), st.sampled_from([math.nan, math.inf, 1e38]))
    origins = [
        tuple(d.data.draw(st.tuples(coordinate, coordinate, coordinate))) for _ in range(count)
    ]
    if d.choice("format", [".wpt", ".graph"]) == ".wpt":
        suffix = ".wpt"
        paths = [[d.integer("target", -2, count + 1)] for _ in range(count)]
        data = encode_wpt(
            [(d.integer("flags", 0, 2**32 - 1), o) for o in origins],
            paths,
            count=d.data.draw(st.one_of(st.none(), st.integers(-5, 10**6))),
            version=d.data.draw(st.sampled_from([5, 5, 4, -1])),
        )
    else:
        suffix = ".graph"
        nodes = [
            (
                d.integer("flags", 0, 2**32 - 1),
                o,
                d.data.draw(st.floats(-10, 1e4)),
                [(d.integer("link", -2, count + 1), 0)],
            )
            for o in origins
        ]
        data = encode_graph(
            nodes,
            count=d.data.draw(st.one_of(st.none(), st.integers(-5, 10**6))),
            version=d.data.draw(st.sampled_from([1, 2, 2, 3])),
        )
    if d.choice("damage", [False, True]):
        data = bytearray(data)
        for _ in range(d.integer("damaged bytes", 1, 8)):
            data[d.integer("at", 0, len(data) - 1)] = d.integer("byte", 0, 255)
        data = bytes(data)
    with folder() as where:
        path = where / f"map{suffix}"
        path.write_bytes(data)
        call("load_navdata", d, load_navdata, path)


def _toml_line(key: str, value) -> str:
    """``key = value`` in TOML for a hostile value (text as a string, the rest by repr, which
    may well not be TOML: the reader must say so)."""
    if isinstance(value, str):
        return f"{key} = {json.dumps(value)}"
    if isinstance(value, bool):
        return f"{key} = {str(value).lower()}"
    if isinstance(value, float) and math.isnan(value):
        return f"{key} = nan"
    if isinstance(value, float) and math.isinf(value):
        return f"{key} = {'inf' if value > 0 else '-inf'}"
    return f"{key} = {value!r}"


@entry("files")
def vehicle_and_follower_files(d: Draw):
    from steerlab.trials.followers import resolve_follower
    from steerlab.vehicles import VehicleParams, resolve_vehicle

    d.names.update({"path", "name", "kind", "follower", "file", "TOML", "unknown key"})
    if d.choice("which", ["vehicle", "follower"]) == "vehicle":
        fields = ["name", "kind", *d.data.draw(st.lists(st.sampled_from(VehicleParams._fields)))]
        lines = [_toml_line("name", d.val("name", st.sampled_from(["car", "my-car_2"])))]
        lines.append(_toml_line("kind", d.val("kind", st.sampled_from(["wheeled", "hover"]))))
        for field in fields[2:]:
            d.names.add(field)
            lines.append(_toml_line(field, d.val(field, st.floats(0.1, 1e3))))
        if d.choice("typo", [False, True]):
            lines.append("mas = 1.0")
        resolve = resolve_vehicle
    else:
        lines = [_toml_line("name", d.val("name", st.sampled_from(["far", "slow"])))]
        lines.append(
            _toml_line("follower", d.val("follower", st.sampled_from(["ours", "baseline"])))
        )
        for field in ("lookahead", "v_max", "a_lat"):
            d.names.add(field)
            lines.append(_toml_line(field, d.val(field, st.floats(0.1, 20.0))))
        resolve = resolve_follower
    with folder() as where:
        path = where / "mine.toml"
        path.write_text("\n".join(lines) + "\n")
        d.names.add(str(path))
        call("resolve", d, resolve, path)


@entry("files")
def circuit_files(d: Draw):
    from steerlab.trials.circuit import load_circuit

    d.names.update({"path", "line", "width", "column", "points", "file", "x_m", "empty"})
    count = d.integer("rows", 0, 6)
    rows = []
    for k in range(count):
        angle = 2.0 * math.pi * k / max(count, 1)
        cells = [
            d.val("x_m", st.just(100.0 * math.cos(angle))),
            d.val("y_m", st.just(100.0 * math.sin(angle))),
            d.val("w_tr_right_m", st.floats(1.0, 10.0)),
            d.val("w_tr_left_m", st.floats(1.0, 10.0)),
        ]
        rows.append(",".join(str(cell) for cell in cells[: d.integer("columns", 3, 4)]))
    text = "# x_m,y_m,w_tr_right_m,w_tr_left_m\n" + "\n".join(rows) + "\n"
    with folder() as where:
        path = where / "Track.csv"
        path.write_text(text)
        d.names.add(str(path))
        call("load_circuit", d, load_circuit, path)


@entry("files")
def load_navdata_argument(d: Draw):
    from steerlab.navigation import load_navdata

    names = ["no/such/file.toml", "x.yaml", ""]
    d.names.update(name for name in names if name)  # the error names the file
    call("load_navdata", d, load_navdata, d.val("path", st.sampled_from(names)))


# world, vehicles, sim


def world(d: Draw):
    from steerlab.world import Flat, Walls, World, hill

    terrain = d.val("terrain", st.sampled_from([None, Flat(), "hill"]))
    if isinstance(terrain, str):
        terrain = call(
            "hill",
            d,
            hill,
            d.xy("center"),
            d.num("height", -20, 20),
            d.val("max_slope", st.floats(0.01, 1)),
            d.pos("cell_size", 10.0, 0.5),
            d.val("margin", st.one_of(st.none(), st.floats(0, 20))),
        )
    walls = d.val("walls", st.sampled_from([None, "walls"]))
    if isinstance(walls, str):
        values = [
            d.val(name, st.lists(COORDINATE, min_size=2, max_size=2))
            for name in ("ax", "ay", "bx", "by")
        ]
        walls = call("Walls", d, Walls, *values)
    return call(
        "World",
        d,
        World,
        terrain,
        walls,
        cell_size=d.val("cell_size", st.one_of(st.none(), st.floats(0.5, 100))),
        skin=d.val("skin", st.floats(1e-9, 1e-3)),
        wall_friction=d.val("wall_friction", st.floats(0, 1)),
    )


@entry("world")
def world_calls(d: Draw):
    from steerlab.world import Footprint

    w = world(d)
    if w is None:
        return
    which = d.choice("call", ["height", "gradient", "slope", "move", "move_batch"])
    if which == "height":
        call("world.height", d, w.height, d.num("x"), d.num("y"))
    elif which == "gradient":
        call("world.gradient", d, w.gradient, d.num("x"), d.num("y"))
    elif which == "slope":
        call("world.slope_along", d, w.slope_along, d.num("x"), d.num("y"), d.num("yaw", -4, 4))
    else:
        footprint = d.state(
            "footprint",
            Footprint,
            {
                "shape": st.sampled_from(["circle", "box"]),
                "half_length": st.floats(0.1, 3),
                "half_width": st.floats(0.1, 3),
            },
        )
        if which == "move":
            call(
                "world.move",
                d,
                w.move,
                d.xy("position"),
                d.xy("displacement", 50.0),
                d.num("yaw", -4, 4),
                footprint,
            )
        else:
            call(
                "world.move_batch",
                d,
                w.move_batch,
                d.val("x", st.just(np.zeros(2))),
                np.zeros(2),
                d.val("dx", st.just(np.ones(2))),
                np.ones(2),
                d.val("yaw", st.just(np.zeros(2))),
                footprint,
            )


@entry("world")
def terrains(d: Draw):
    from steerlab.world import Heightfield, plane, ramp

    which = d.choice("terrain", ["heightfield", "plane", "ramp", "from_function"])
    if which == "heightfield":
        heights = d.val("heights", st.just(np.zeros((3, 4))))
        field = call(
            "Heightfield", d, Heightfield, heights, d.pos("cell_size", 1e3, 1e-300), d.xy("origin")
        )
        if field is not None:
            call("Heightfield.height", d, field.height, d.num("x"), d.num("y"))
    elif which == "plane":
        call(
            "plane",
            d,
            plane,
            d.num("slope", -2, 2),
            d.num("direction", -4, 4),
            d.xy("x_range"),
            d.xy("y_range"),
            d.val("cell_size", st.floats(1e-300, 1e3)),
        )
    elif which == "ramp":
        call(
            "ramp",
            d,
            ramp,
            d.num("max_slope", -2, 2),
            d.xy("start"),
            d.pos("length"),
            d.xy("x_range"),
            d.xy("y_range"),
            d.val("cell_size", st.floats(1e-300, 1e3)),
        )
    else:
        call(
            "Heightfield.from_function",
            d,
            Heightfield.from_function,
            lambda x, y: 0 * x,
            d.val("x_range", st.just((0.0, 100.0))),
            d.val("y_range", st.just((0.0, 100.0))),
            d.val("cell_size", st.floats(1e-300, 10)),
        )


def vehicle_state(d: Draw, name="state"):
    from steerlab.vehicles import VehicleState

    return d.state(
        name,
        VehicleState,
        {
            "x": COORDINATE,
            "y": COORDINATE,
            "yaw": YAW,
            "v": st.floats(-5, 40),
            "v_lat": st.floats(-5, 5),
            "yaw_rate": st.floats(-2, 2),
            "steer": st.floats(-0.5, 0.5),
        },
    )


def vehicle_params(d: Draw):
    from steerlab.vehicles import PRESETS, VehicleParams

    if d.choice("preset", [True, True, False]):
        return d.val("params", st.sampled_from(list(PRESETS)), *VehicleParams._fields)
    return d.record("params", VehicleParams, ranges={"kind": st.sampled_from([0, 1, 2, 3])})


@entry("vehicles")
def vehicle_step(d: Draw):
    from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch

    params = vehicle_params(d)
    vehicle = call(
        "Vehicle",
        d,
        Vehicle,
        PRESETS[params] if isinstance(params, str) and params in PRESETS else params,
    )
    if vehicle is None:
        return
    w = world(d) if d.choice("world", [False, True]) else d.val("world", st.none())
    if d.choice("call", ["step", "batch"]) == "step":
        command = d.state(
            "command", DriveCommand, {"steer": st.floats(-1, 1), "throttle": st.floats(-1, 1)}
        )
        call("Vehicle.step", d, vehicle.step, vehicle_state(d), command, d.dt(), world=w)
    else:
        size = d.integer("size", 1, 3)
        batch = call(
            "VehicleBatch",
            d,
            VehicleBatch,
            d.val("x", st.just(np.zeros(size))),
            np.zeros(size),
            np.zeros(size),
        )
        if batch is None:
            return
        if d.choice("damage", [False, False, True]):
            batch.steer[0] = math.nan
            d.names.add("VehicleBatch.steer[0]")  # the batch's field written in place
        d.names.add("the batch")  # a record of per-vehicle values for another batch size
        call(
            "Vehicle.step_batch",
            d,
            vehicle.step_batch,
            batch,
            d.num("steer", -1, 1),
            d.num("throttle", -1, 1),
            d.dt(),
            world=w,
        )


@entry("vehicles")
def sim_calls(d: Draw):
    from steerlab.engines import Command, HalfLifeEngine
    from steerlab.sim import simulate, step_vehicle, step_vehicles
    from steerlab.sim.simulate import ConstantCommand
    from steerlab.vehicles import PRESETS, DriveCommand, VehicleBatch

    which = d.choice("call", ["simulate", "step_vehicle", "step_vehicles"])
    if which == "simulate":
        command = d.state("command", Command, {"yaw": YAW, "speed": SPEED})
        plant = d.val("plant", st.just(HalfLifeEngine()))
        controller = d.val("controller", st.just(ConstantCommand(command)))
        call(
            "simulate",
            d,
            simulate,
            plant,
            controller,
            agent_state(d),
            d.dt(),
            d.val("steps", st.integers(0, 50)),
        )
        return
    params = d.val("vehicle_params", st.sampled_from([PRESETS["storm"], PRESETS["hovercraft"]]))
    w = world(d)
    if w is None:
        return
    if which == "step_vehicle":
        command = d.state(
            "command", DriveCommand, {"steer": st.floats(-1, 1), "throttle": st.floats(-1, 1)}
        )
        call("step_vehicle", d, step_vehicle, params, w, vehicle_state(d), command, d.dt())
    else:
        batch = VehicleBatch(np.zeros(2), np.zeros(2), np.zeros(2))
        if d.choice("damage", [False, False, True]):
            batch.x[1] = math.inf
            d.names.add("VehicleBatch.x[1]")  # the batch's field written in place
        call(
            "step_vehicles",
            d,
            step_vehicles,
            params,
            w,
            d.val("batch", st.just(batch)),
            d.num("steer", -1, 1),
            d.num("throttle", -1, 1),
            d.dt(),
        )


# follower


@entry("follower")
def stall_counts_entry(d: Draw):
    from steerlab.trials.stalls import stall_counts

    n = d.integer("frames", 1, 40)
    t = d.val("t", st.just(0.02 * np.arange(n)))
    x = d.val("x", st.just(np.linspace(0.0, 10.0, n)))
    y = d.val("y", st.just(np.zeros(n)))
    s_ = d.val("s", st.just(np.linspace(0.0, 10.0, n)))
    events = d.val("stuck_event", st.just(np.arange(n) % 7 == 3))
    call(
        "stall_counts",
        d,
        stall_counts,
        t,
        x,
        y,
        s_,
        events,
        end=d.val("end", st.one_of(st.none(), st.integers(0, n - 1))),
        ended=d.val("ended", st.sampled_from(["arrived", "time_limit"])),
        distance=d.pos("distance", 10.0),
        allow_non_finite=("per_km", "per_minute"),
    )


@entry("follower")
def follower_functions(d: Draw):
    from steerlab.follower import sampled_path, target_speed

    path = d.points("path_points", 2, 6, 100.0)
    if d.choice("call", ["target_speed", "sampled_path"]) == "target_speed":
        call(
            "target_speed",
            d,
            target_speed,
            d.xy("position", 100.0),
            path,
            d.pos("a_lat", 5.0),
            d.pos("dh", 20.0),
            d.val("n", st.integers(2, 10)),
            d.pos("v_min", 5.0),
            d.pos("v_max", 50.0),
        )
    else:
        call(
            "sampled_path",
            d,
            sampled_path,
            d.xy("position", 100.0),
            path,
            d.pos("dh", 20.0),
            d.val("n", st.integers(2, 10)),
        )


@entry("follower")
def path_follower(d: Draw):
    from steerlab.follower import FollowerParams, PathFollower
    from steerlab.vehicles import PRESETS, VehicleBatch

    params = d.record(
        "follower_params",
        FollowerParams,
        ranges={
            "n": st.integers(2, 10),
            "recovery_frames": st.integers(0, 100),
            "teleport_after": st.integers(0, 5),
            "pure_pursuit_all": st.booleans(),
        },
    )
    vehicle = d.val("vehicle_params", st.sampled_from([PRESETS["storm"], PRESETS["zaha"]]))
    path = d.val("path", st.one_of(st.none(), st.just([(0.0, 0.0), (50.0, 0.0), (50.0, 40.0)])))
    follower = call(
        "PathFollower",
        d,
        PathFollower,
        vehicle,
        params,
        path,
        variant=d.pick("variant", ["ours", "baseline", "stanley", "regulated"]),
    )
    if follower is None:
        return
    which = d.choice("call", ["step", "batch", "set_path", "set_paths"])
    if which == "set_path":
        call(
            "set_path",
            d,
            follower.set_path,
            d.points("points", 2, 5, 100.0),
            d.val("widths", st.one_of(st.none(), st.floats(1, 10))),
        )
    elif which == "set_paths":
        paths = d.val("paths", st.lists(st.just([(0.0, 0.0), (30.0, 5.0)]), min_size=1, max_size=3))
        call("set_paths", d, follower.set_paths, paths)
        return
    if which in ("step", "set_path") and follower.path is not None:
        call("follower.step", d, follower.step, vehicle_state(d), d.dt())
    elif which == "batch" and follower.path is not None:
        batch = VehicleBatch(np.zeros(2), np.array([0.0, 1.0]), np.zeros(2))
        if d.choice("damage", [False, False, True]):
            batch.yaw[0] = math.nan
        batch = d.val("batch", st.just(batch))
        call(
            "follower.step_batch",
            d,
            follower.step_batch,
            batch,
            d.dt(),
            allow_non_finite=("teleport_",),  # NaN where no teleport is asked (documented)
        )


# funnel


_TABLE = []


def eta_table():
    from steerlab.engines import UnicycleParams
    from steerlab.funnel import EtaTable, SeekParams

    if not _TABLE:
        cache = Path(tempfile.gettempdir()) / f"steerlab-fuzz-eta-{os.getuid()}"
        _TABLE.append(EtaTable.load_or_build(UnicycleParams(), SeekParams(), cache))
    return _TABLE[0]


@entry("funnel")
def funnel_calls(d: Draw):
    from steerlab.engines import UnicycleState
    from steerlab.funnel import Funnel, FunnelSettings, SeekController, SeekControllerParams

    which = d.choice("controller", ["funnel", "funnel_params", "seek", "seek_params"])
    if which == "funnel":
        controller = call(
            "Funnel",
            d,
            Funnel,
            eta_table(),
            d.xy("target", 20.0),
            d.num("course", -4, 4),
            target_velocity=d.xy("target_velocity", 1.0),
            desired_speed=d.val("desired_speed", st.one_of(st.none(), st.floats(0.1, 2))),
            d_tol=d.pos("d_tol", 1.0),
            eps_tol=d.pos("eps_tol", 1.0),
        )
    elif which == "funnel_params":
        settings_record = d.record("settings", FunnelSettings, ranges={"halt": st.booleans()})
        controller = call(
            "Funnel.from_params",
            d,
            Funnel.from_params,
            eta_table(),
            d.xy("target", 20.0),
            d.num("course", -4, 4),
            settings_record,
        )
    elif which == "seek":
        controller = call(
            "SeekController",
            d,
            SeekController,
            d.xy("target", 20.0),
            d.val("desired_speed", st.one_of(st.none(), st.floats(0.1, 2))),
        )
    else:
        params = d.val("params", st.just(SeekControllerParams()), *SeekControllerParams._fields)
        controller = call(
            "SeekController.from_params",
            d,
            SeekController.from_params,
            d.xy("target", 20.0),
            params,
        )
    if controller is None:
        return
    state = d.state(
        "state",
        UnicycleState,
        {
            "x": st.floats(-20, 20),
            "y": st.floats(-20, 20),
            "yaw": YAW,
            "v": st.floats(0, 2),
            "w": st.floats(-3, 3),
        },
    )
    call("funnel.step", d, controller.step, state, d.dt())


# envs


@entry("envs")
def envs(d: Draw):
    from steerlab.envs import PathFollowingEnv

    env = call(
        "PathFollowingEnv",
        d,
        PathFollowingEnv,
        vehicle=d.pick("vehicle", ["storm", "zaha"]),
        curvature_samples=d.val("curvature_samples", st.integers(1, 8)),
        curvature_spacing=d.pos("curvature_spacing", 10.0, 0.5),
        time_limit=d.val("time_limit", st.one_of(st.none(), st.floats(1, 100))),
        cross_track_limit=d.pos("cross_track_limit", 100.0, 1.0),
    )
    if env is None:
        return
    try:
        if call("env.reset", d, env.reset, seed=d.val("seed", st.integers(0, 2**31))) is None:
            return
        for _ in range(d.integer("frames", 1, 3)):
            action = d.val(
                "action", st.lists(st.floats(-1, 1), min_size=2, max_size=2).map(np.array)
            )
            if call("env.step", d, env.step, action) is None:
                break
    finally:
        env.close()


@entry("envs")
def vector_env(d: Draw):
    from steerlab.envs import PathFollowingVectorEnv

    env = call(
        "PathFollowingVectorEnv", d, PathFollowingVectorEnv, d.val("num_envs", st.integers(1, 3))
    )
    if env is None:
        return
    try:
        seed = d.val("seed", st.one_of(st.none(), st.integers(0, 100)))
        if call("vec.reset", d, env.reset, seed=seed) is None:
            return
        actions = d.val("actions", st.just(np.zeros((env.num_envs, 2))))
        call("vec.step", d, env.step, actions)
    finally:
        env.close()


# trials, runner


def _suite_data(d: Draw) -> dict:
    number = st.floats(-200, 200, allow_nan=False)
    return {
        "name": d.val("name", st.sampled_from(["fuzz", "a-b"])),
        "version": d.val("version", st.integers(1, 3)),
        "dt": d.val("dt", st.floats(0.005, 0.1)),
        "seeds": d.val("seeds", st.integers(1, 3)),
        "terrain_cell": d.val(
            "terrain_cell", st.one_of(st.floats(0.5, 5), st.sampled_from([1e-3, 1e-6, 1e-300]))
        ),
        "terrain_margin": d.val("terrain_margin", st.floats(0, 50)),
        "paths": [
            {
                "name": "p",
                "waypoints": d.val(
                    "waypoints",
                    st.lists(st.lists(number, min_size=2, max_size=2), min_size=2, max_size=4),
                ),
                "corridor_width": d.val("corridor_width", st.floats(1, 20)),
                "hills": [
                    {
                        "center": [0.0, 0.0],
                        "height": d.val("height", st.floats(1, 10)),
                        "max_grade_deg": d.val("max_grade_deg", st.floats(1, 30)),
                    }
                ],
            }
        ],
    }


@entry("files")
def suites(d: Draw):
    from steerlab.trials.suite import load_suite

    data = _suite_data(d)
    d.names.update({"suite", "paths", "path", "p", "fuzz"})
    suffix = d.choice("suffix", [".toml", ".json"])
    with folder() as where:
        path = where / f"suite{suffix}"
        text = (
            json.dumps(data, default=repr)
            if suffix == ".json"
            else _toml({k: v for k, v in data.items() if k != "paths"})
            + "\n"
            + "\n".join("[[paths]]\n" + _toml(p) for p in data["paths"])
        )
        path.write_text(text)
        suite = call("load_suite", d, load_suite, path)
        if suite is not None:
            call("Suite.world", d, suite.world, suite.path_names[0])


@entry("files")
def trial_specs(d: Draw):
    from steerlab.trials.trial import TrialSpec, run_trial, trials

    if d.choice("call", ["trials", "run_trial"]) == "trials":
        call(
            "trials",
            d,
            trials,
            d.pick("suite", ["table1"]),
            vehicles=d.val("vehicles", st.just(["storm"])),
            followers=d.val("followers", st.just(["ours"])),
            seeds=d.val("seeds", st.just([0])),
        )
        return
    spec = d.state(
        "spec",
        TrialSpec,
        {
            "suite": st.just("train"),
            "path": st.sampled_from(["no_such_path"]),
            "vehicle": st.sampled_from(["storm", "no_such_vehicle"]),
            "follower": st.sampled_from(["ours", "no_such_follower"]),
            "seed": st.integers(-1, 3),
        },
    )
    call("run_trial", d, run_trial, spec)


@entry("files")
def runner_resume(d: Draw):
    from steerlab.runner import Task, read_results, run_tasks

    d.names.update({"results.csv", "run.json", "line", "column", "out_dir"})
    tasks = [Task((i,), i) for i in range(3)]
    columns = {"i": int, "value": int, "label": str}
    with folder() as where:
        results = where / "results.csv"
        header = "i,value,label,error\n"
        rows = [f"{i},{i * i},x,\n" for i in range(3)]
        text = header + "".join(rows[: d.integer("rows", 0, 3)])
        damage = d.choice("damage", ["none", "field", "bytes", "cut"])
        if damage == "field":
            text = text.replace(
                text.splitlines()[-1],
                d.data.draw(
                    st.sampled_from(
                        [
                            "12x,1,x,",
                            "0,12x,x,",
                            "0,1.5,x,",
                            "0,,x,",
                            "0,1,x,y,z",
                            "0,nan,x,",
                            "\x00,1,x,",
                        ]
                    )
                ),
                1,
            )
        elif damage == "bytes":
            raw = bytearray(text.encode())
            raw[d.integer("at", 0, len(raw) - 1)] = d.integer("byte", 0, 255)
            text = raw.decode("latin-1")
        elif damage == "cut":
            text = text[: d.integer("cut", 0, len(text))]
        (where / "run.json").write_text(json.dumps(_run_record(columns, len(tasks))))
        results.write_bytes(text.encode("latin-1"))
        if d.choice("call", ["read_results", "run_tasks"]) == "read_results":
            call("read_results", d, read_results, where)
        else:
            call(
                "run_tasks",
                d,
                run_tasks,
                tasks,
                _row,
                where,
                columns=columns,
                manifest={"fuzz": 1},
                workers=1,
                progress=False,
                parquet=False,
            )


def _row(payload):
    return {"value": payload * payload, "label": "x"}


def _run_record(columns, count):
    """The run.json run_tasks writes for these tasks (read back from a real run)."""
    from steerlab.runner import Task, run_tasks

    with folder() as where:
        run_tasks(
            [Task((i,), i) for i in range(count)],
            _row,
            where,
            columns=columns,
            manifest={"fuzz": 1},
            workers=1,
            progress=False,
            parquet=False,
        )
        return json.loads((where / "run.json").read_text())


# --------------------------------------------------------------------------------------------------
# the worker


def _as_test(function):
    # STEERLAB_FUZZ_TRIAGE=1: report the first failure of each entry unshrunk (a quick survey)
    # no explain phase: it traces every line (sys.settrace), which slows numba's compiler tenfold
    # and trips the watchdogs while a failure is being shrunk
    phases = [phase for phase in Phase if phase is not Phase.explain]
    if os.environ.get("STEERLAB_FUZZ_TRIAGE"):
        phases = [Phase.explicit, Phase.reuse, Phase.generate]

    @settings(database=None, phases=phases)
    @given(st.data())
    def test(data):
        function(Draw(data))

    return test


def run_group(group: str) -> list[str]:
    """Run every entry of ``group`` under the current hypothesis profile; the failures' texts."""
    failures = []
    for function in GROUPS[group]:
        try:
            _as_test(function)()
        except Exception:  # (reported to the parent test)
            failures.append(f"{function.__name__}:\n{traceback.format_exc()}")
    return failures


def main() -> int:
    group, count_file = sys.argv[1], sys.argv[2]
    import test_navdata_bot_files  # noqa: F401  (its encoders; imported before any @given runs)

    faulthandler.enable()
    signal.signal(signal.SIGALRM, _alarm)
    event.register("numba:compile", _Compiling())  # (install_listener is a context manager)
    start = time.perf_counter()
    failures = run_group(group)
    COUNTS["seconds"] = time.perf_counter() - start
    COUNTS["failures"] = len(failures)
    Path(count_file).write_text(json.dumps(COUNTS))
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
