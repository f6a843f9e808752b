"""What every guidance law shares: targets, batch output arrays, gain and flag checks.

A law's kernel takes ``(state, [memory,] params, data, dt)``: ``params`` its parameter record
(``SeekParams``, ``LineParams``, ...), in which a batch may hold one value per agent in any field
(``steerlab._per_agent``), and ``data`` the record of what it steers to (``Target``, a line, a
destination and course). A law holds one target (shape ``(2,)``) for ``step``, or one per agent
(shape ``(n, 2)``) for ``step_batch``; a single target is broadcast to every agent of a batch.
Batch loops receive the data as records of arrays and read agent ``i``'s entry with
``pick(array, i)`` (index 0 when there is one entry).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from steerlab._checks import as_float_array, check_finite_array, check_timestep
from steerlab._jit import kernel
from steerlab._per_agent import per_agent_size
from steerlab.engines.state import AgentBatch, Command

__all__ = [
    "BatchOutput",
    "Target",
    "check_choice",
    "check_flag",
    "check_frame_gain",
    "check_gain_against_frame",
    "check_points",
    "check_targets_and_params",
    "choice_codes",
    "frame_gain",
    "largest_finite",
    "pick",
    "public_field",
    "record_field",
    "record_fields",
]


class Target(NamedTuple):
    """The point a law steers to [u]: numbers for one agent, arrays in a batch loop's data."""

    x: float
    y: float


@kernel
def pick(values, index):
    """``values[index]``, or ``values[0]`` when one value serves every agent."""
    return values[index] if values.size > 1 else values[0]


def check_points(name: str, points) -> np.ndarray:
    """Validate one point ``(2,)`` or one per agent ``(n, 2)``; return an ``(m, 2)`` array."""
    array = as_float_array(name, points, "an (x, y) point or an (n, 2) array")
    if array.ndim == 1 and array.shape == (2,):
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] == 0:
        raise ValueError(
            f"{name} must be an (x, y) point or an (n, 2) array, got shape {array.shape}"
        )
    for column, axis in enumerate("xy"):
        check_finite_array(f"{name}[:, {column}] ({axis})", array[:, column])
    return np.ascontiguousarray(array)


def columns(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y columns of an ``(m, 2)`` array, each contiguous."""
    return np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])


def check_single(name: str, points: np.ndarray) -> None:
    """``step`` needs exactly one target."""
    if points.shape[0] != 1:
        raise ValueError(
            f"{name} holds {points.shape[0]} targets (one per agent): use step_batch, or build "
            f"the law with a single (x, y) target for step"
        )


def check_batch_size(name: str, points: np.ndarray, batch: AgentBatch) -> None:
    if not isinstance(batch, AgentBatch):
        raise ValueError(f"batch must be an AgentBatch, got {batch!r}")
    if points.shape[0] not in (1, batch.size):
        raise ValueError(
            f"{name} holds {points.shape[0]} targets but the batch has {batch.size} agents"
        )


def check_gain_against_frame(name: str, gain: float, dt: float, seed_rule: str) -> float:
    """The seeds bound distance gains by the frame time (``k_D <= 1/T``); ``None`` means 1/T."""
    dt = check_frame_gain(name, gain, 0.0 if gain is None else gain, dt, seed_rule)
    return 1.0 / dt if gain is None else gain


@kernel
def frame_gain(gain, dt):
    """A distance gain [1/s] as the laws apply it: ``gain``, or ``1/T`` where it is ``inf``.

    Seed 000 bounds the gains by the frame time, ``0 < k_D <= 1/T``, and calls ``k_D = 1/T`` the
    law's "simplest form"; ``inf`` in a parameter record stands for that bound (the frame time
    is only known at the step). A finite gain is used as given: ``check_frame_gain`` has refused
    one above ``1/T``, up to rounding (``min(gain, 1/T)`` would replace a gain within that
    rounding, e.g. ``k_D = 43`` at ``T = 1/43``, by ``1/T``, a different float).
    """
    return gain if gain < math.inf else 1.0 / dt


def largest_finite(gain) -> float:
    """The largest finite value of a gain (a number, or one per agent); 0 when there is none."""
    values = np.asarray(gain, dtype=np.float64)
    finite = values[np.isfinite(values)]
    return float(finite.max()) if finite.size else 0.0


def check_frame_gain(name: str, gain, largest: float, dt: float, seed_rule: str) -> float:
    """Return ``dt`` checked; ``ValueError`` when a finite ``gain`` exceeds ``1/dt``.

    ``gain`` is a number or one per agent (``inf``: ``1/T``, always allowed); ``largest`` is
    ``largest_finite(gain)``, computed once per law, so that a frame costs one comparison.
    """
    dt = check_timestep(dt)
    limit = 1.0 / dt * (1.0 + 1e-12)
    if largest > limit:
        if isinstance(gain, np.ndarray):
            index = int(np.argmax(np.isfinite(gain) & (gain > limit)))
            name, gain = f"{name}[{index}]", float(gain[index])
        raise ValueError(f"{name} must be <= 1/dt = {1.0 / dt!r} ({seed_rule}), got {gain!r}")
    return dt


def check_flag(name: str, value: Any) -> bool | np.ndarray:
    """``value`` as a bool, or a read-only bool array for one value per agent; ``ValueError``
    naming the first entry that is not ``True`` or ``False``."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, str | bytes) or np.ndim(value) != 1 or np.size(value) == 0:
        raise ValueError(f"{name} must be True or False, or one of them per agent, got {value!r}")
    entries = list(value)
    for index, entry in enumerate(entries):
        if not isinstance(entry, bool | np.bool_):
            raise ValueError(f"{name}[{index}] must be True or False, got {entry!r}")
    array = np.array(entries, dtype=np.bool_)
    array.setflags(write=False)
    return array


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str | tuple[str, ...]:
    """A categorical field: one of ``choices``, or a sequence of them (one per agent)."""
    if isinstance(value, str):
        if value not in choices:
            raise ValueError(f"{name} must be one of {choices}, got {value!r}")
        return value
    try:
        entries = tuple(value)
    except TypeError:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}") from None
    if not entries:
        raise ValueError(f"{name} must be one of {choices}, or one of them per agent, got ()")
    for index, entry in enumerate(entries):
        if entry not in choices:
            raise ValueError(f"{name}[{index}] must be one of {choices}, got {entry!r}")
    return entries


def choice_codes(value: str | tuple[str, ...], choices: tuple[str, ...]) -> int | np.ndarray:
    """A categorical field as the kernels read it: its index in ``choices`` (an integer, or a
    read-only array of them for one per agent)."""
    if isinstance(value, str):
        return choices.index(value)
    codes = np.array([choices.index(entry) for entry in value], dtype=np.int64)
    codes.setflags(write=False)
    return codes


def public_field(value: Any) -> Any:
    """A record's field as a law's attribute shows it: a number, or a copy of the per-agent
    array (the law's own stays read-only)."""
    return value.copy() if isinstance(value, np.ndarray) else value


def record_field(
    name: str, *, inf_is_none: bool = False, flag: str | None = None, doc: str | None = None
) -> property:
    """A read-only attribute showing field ``name`` of the instance's ``params`` record as
    ``public_field`` does (a law's ``k_d``, a navigator's ``speed_bound``).

    ``None`` where the record marks an option off and one value serves every agent: with
    ``inf_is_none`` when the field is ``inf`` (``k_d=None`` is ``1/T``), with ``flag`` when that
    bool field is False (``arrival_radius`` without ``arrive``).
    """

    def read(self) -> Any:
        value = getattr(self.params, name)
        marker = getattr(self.params, flag) if flag is not None else value
        if isinstance(marker, np.ndarray):  # one value per agent: shown as they are
            return public_field(value)
        off = (inf_is_none and marker == math.inf) or (flag is not None and not marker)
        return None if off else public_field(value)

    return property(read, doc=doc or f"The record's ``{name}`` (``params.{name}``).")


def record_fields(*names: str) -> tuple[property, ...]:
    """``record_field(name)`` for each of ``names``, in order (the plain ones of a class)."""
    return tuple(record_field(name) for name in names)


def check_targets_and_params(name: str, points: np.ndarray, params: Any) -> int | None:
    """The number of agents a law serves (``None``: any): ``ValueError`` when its targets and its
    per-agent parameters hold different numbers of agents."""
    agents = per_agent_size(params)
    if agents is not None and points.shape[0] not in (1, agents):
        raise ValueError(
            f"{name} holds {points.shape[0]} targets but {type(params).__name__} holds {agents} "
            "values per field (one per agent)"
        )
    return agents


class BatchOutput:
    """Reusable output arrays of a law's ``step_batch``: no allocation per frame."""

    __slots__ = ("speed", "yaw")

    def __init__(self, size: int):
        self.yaw = np.empty(size)
        self.speed = np.empty(size)

    def record(self):
        """The arrays as a ``Command`` record of arrays (what batch loops write)."""
        return Command(self.yaw, self.speed)

    @classmethod
    def ensure(cls, out: BatchOutput | None, size: int) -> BatchOutput:
        if out is None:
            return cls(size)
        if not isinstance(out, BatchOutput) or out.yaw.size != size:
            raise ValueError(f"out must be a BatchOutput of size {size}, got {out!r}")
        return out
