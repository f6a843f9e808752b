"""State and command records of heading/speed agents (seeds 000 and 004).

Scalar API: immutable ``NamedTuple`` records that flow (``new = engine.step(state, command,
dt)``). Batch API: ``AgentBatch``, one float64 array per field (struct of arrays), updated in
place by ``step_batch``.
"""

from __future__ import annotations

import math
import operator
from abc import ABC, abstractmethod
from typing import ClassVar, NamedTuple

import numpy as np

from steerlab._checks import FLOAT_TYPES, check_field_array, check_finite, check_state_record
from steerlab._jit import kernel
from steerlab.geometry.angles import wrap_pi

__all__ = ["AgentBatch", "AgentState", "Command", "StateArrays", "check_command", "check_state"]


class AgentState(NamedTuple):
    """State of a heading/speed agent, world units and radians.

    The seeds' ``M`` (position), ``vVel`` (velocity) and ``Yaw``.
    """

    x: float = 0.0  # [u] position, seeds' Mx
    y: float = 0.0  # [u] position, seeds' My
    vx: float = 0.0  # [u/s] velocity, seeds' vVel
    vy: float = 0.0  # [u/s]
    yaw: float = 0.0  # [rad] heading, counter-clockwise from +x, in [-pi, pi)

    @property
    def speed(self) -> float:
        """Velocity modulus, the seeds' ``mVel`` [u/s]."""
        return math.hypot(self.vx, self.vy)


class Command(NamedTuple):
    """What a guidance law asks of a heading/speed engine: the seeds' ``UE_yaw``, ``UE_mVel``."""

    yaw: float = 0.0  # [rad] wished heading (Half-Life: the wished velocity direction)
    speed: float = 0.0  # [u/s] wished speed, >= 0 (no backwards move)


_LARGE_YAW = 2.0**40  # [rad] above this the kernels' one-step wrap loses the angle


def check_state(state: AgentState, name: str = "state") -> AgentState:
    """Validate an ``AgentState`` (every field a finite number); return it with float fields,
    a yaw beyond 2^40 rad reduced exactly modulo 2 pi (``check_command``)."""
    state = check_state_record(name, state, AgentState)
    if -_LARGE_YAW <= state.yaw <= _LARGE_YAW:
        return state
    return state._replace(yaw=wrap_pi(state.yaw))


def check_command(command: Command, name: str = "command") -> Command:
    """Validate a ``Command`` (finite yaw, finite speed >= 0); return it with float fields.

    A yaw beyond 2^40 rad is reduced exactly modulo 2 pi here (``geometry.angles.wrap_pi``):
    the same heading, which the kernels' one-step wrap could not recover."""
    if not isinstance(command, Command):
        raise ValueError(f"{name} must be a Command, got {command!r}")
    yaw, speed = command
    if (
        type(yaw) in FLOAT_TYPES
        and type(speed) in FLOAT_TYPES
        and -_LARGE_YAW <= yaw <= _LARGE_YAW
        and math.isfinite(speed)
        and speed >= 0
    ):
        return command
    yaw = check_finite(f"{name}.yaw", command.yaw, per_agent=False)
    if abs(yaw) > _LARGE_YAW:
        yaw = wrap_pi(yaw)
    speed = check_finite(f"{name}.speed", command.speed, per_agent=False)
    if speed < 0.0:
        raise ValueError(f"{name}.speed must be >= 0 (no backwards move), got {command.speed!r}")
    return Command(yaw, speed)


@kernel(inline="never")
def _all_finite(arrays) -> bool:
    """Whether every entry of a tuple of float64 arrays is finite, in one pass (``a - a`` is 0
    for a finite ``a``, NaN for NaN and the infinities; the flags are or-ed without a branch,
    which the compiler vectorises)."""
    bad = False
    for array in arrays:
        for i in range(array.size):
            bad |= array[i] - array[i] != 0.0
    return not bad


class StateArrays(ABC):
    """Many agents' states as one float64 array per field of a state record, updated in place
    (struct of arrays).

    A subclass names its record (``STATE``) and the record's validation (``_check_state``), and
    holds one array per field, in the record's order, under the field's name.
    """

    __slots__ = ()
    STATE: ClassVar[type]

    @staticmethod
    @abstractmethod
    def _check_state(state, name: str):
        """Given by each subclass."""

    def _set_fields(self, values) -> None:
        """One array per field from ``values`` (in the record's order): 1-D float64 arrays of
        the first one's size (``check_field_array``: used as they are when they already are
        C-contiguous float64), zeros for ``None``."""
        size = None
        for field, value in zip(self.STATE._fields, values, strict=True):
            if value is None and size is not None:
                value = np.zeros(size)
            array = check_field_array(field, value, size)
            size = array.size
            object.__setattr__(self, field, array)

    def __setattr__(self, name: str, value) -> None:
        """A field replaced after construction is checked as the constructor checks it: 1-D,
        finite, float64, of the batch's size (a batch kernel would otherwise read and write past
        the end of the shorter arrays)."""
        if name in self.STATE._fields:
            value = check_field_array(name, value, self.size)
        object.__setattr__(self, name, value)

    @classmethod
    def from_states(cls, states):
        """A batch holding the given state records, in order."""
        states = [cls._check_state(state, f"states[{i}]") for i, state in enumerate(states)]
        width = len(cls.STATE._fields)
        columns = np.array(states, dtype=np.float64).reshape(len(states), width)
        return cls(*(np.ascontiguousarray(columns[:, j]) for j in range(width)))

    @property
    def size(self) -> int:
        return self.x.size

    def __len__(self) -> int:
        return self.x.size

    def fields(self, *, check: bool = True) -> tuple[np.ndarray, ...]:
        """The arrays in the state record's field order, what batch kernels read and write;
        ``check=False`` skips the check below (a caller reading what a kernel wrote, NaN
        included).

        Raises
        ------
        ValueError
            An entry is NaN or infinite: a value written into a field in place after
            construction (``batch.x[3] = nan``), which the constructor's and ``__setattr__``'s
            checks cannot see; the message names the field and the agent. One fused pass over
            the arrays per call (a small fraction of a batch step's cost).
        """
        arrays = self._FIELDS(self)
        if check and not _all_finite(arrays):
            for field, array in zip(self.STATE._fields, arrays, strict=True):
                check_field_array(f"{type(self).__name__}.{field}", array)
        return arrays

    def record(self, *, check: bool = True):
        """The state record holding the batch's arrays (``fields``, checked as there)."""
        return self.STATE._make(self.fields(check=check))

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._FIELDS = operator.attrgetter(*cls.STATE._fields)  # the arrays in the record's order

    def state(self, index: int):
        """The state record of agent ``index``."""
        return self.STATE(*(float(array[index]) for array in self._FIELDS(self)))

    def copy(self):
        return type(self)(*(array.copy() for array in self._FIELDS(self)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size})"


class AgentBatch(StateArrays):
    """Many heading/speed agents as one float64 array per ``AgentState`` field, updated in place.

    Arrays that already are 1-D C-contiguous float64 are used as they are (no copy), so the caller
    sees the updates; anything else is converted once here.
    """

    __slots__ = AgentState._fields
    STATE = AgentState
    _check_state = staticmethod(check_state)

    def __init__(self, x, y, vx, vy, yaw):
        self._set_fields((x, y, vx, vy, yaw))

    @classmethod
    def zeros(cls, size: int) -> AgentBatch:
        """``size`` agents at rest at the origin, heading +x."""
        if int(size) != size or size < 0:
            raise ValueError(f"size must be a non-negative integer, got {size!r}")
        return cls(*(np.zeros(int(size)) for _ in AgentState._fields))
