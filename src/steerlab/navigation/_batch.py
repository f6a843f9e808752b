"""What the navigators share: ``step``, ``step_batch`` and ``reset`` around their kernels, the
checks of a batch, per-agent memory arrays, ragged spans."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, NamedTuple

import numpy as np

from steerlab._jit import run_batch_entry, run_entry
from steerlab._per_agent import check_agent_count, check_shared, per_agent_size
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.laws._common import BatchOutput, check_frame_gain

__all__ = [
    "Navigator",
    "agent_spans",
    "check_batch",
    "check_lists",
    "memory_arrays",
]

_SEED_RULE = "seed 000: 0 < k_D <= 1/T"


class Navigator(ABC):
    """The frame loop of a navigator (``TowardsPoints``, ``AlongSegments``, ``AroundPoints``).

    A navigator's kernels are ``command(state, memory, params, data, agent, dt)``, which returns
    ``(UE_yaw, UE_mVel, *memory)`` (the fields of its memory record, in order), and the batch loop
    ``loop(state, memory, params, data, dt, out)`` over records of arrays (``AgentState``, the
    memory record, ``Command``), which writes each agent's new memory and command in place.

    A subclass gives ``_kernels()`` (the two, read from its module at each call: ``uncompiled``
    swaps them), ``MEMORY`` (its memory record), ``_LISTS`` (what its data holds, for messages:
    the argument, its entries, the type of one; routes by default) and ``_check_dt(dt)`` unless
    seed 000's ``k_D <= 1/T`` applies; its constructors set ``params`` (the validated record),
    ``agents`` (``check_lists``), ``_kernel_record`` (the record the kernels read) and ``_data``
    (the packed lists, with each list's ``first`` and ``count``), then call ``reset()``. The
    batch loop runs through ``run_batch_entry``: its arguments' types are the navigator's.

    Attributes
    ----------
    params : NamedTuple
        The navigator's validated parameter record.
    memory : NamedTuple
        The scalar navigator's memory record (``step``).
    batch_memory : NamedTuple of arrays or None
        The same record with one array per field, one entry per agent (``step_batch``; ``None``
        before the first batch and after ``reset()``).
    """

    MEMORY: ClassVar[type]
    _LISTS: ClassVar[tuple[str, str, str]] = ("route", "routes", "Route")
    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)
    _batch_entry = None  # the batch loop's (steerlab._jit.run_batch_entry)

    @staticmethod
    @abstractmethod
    def _kernels() -> tuple[Any, Any]:
        """Given by each subclass."""

    def _check_dt(self, dt) -> float:
        """``dt`` checked against seed 000's bound of the distance gain, ``k_D <= 1/T``
        (``_k_d_largest``: ``largest_finite(params.k_d)``)."""
        return check_frame_gain("k_d", self.params.k_d, self._k_d_largest, dt, _SEED_RULE)

    @property
    def list_count(self) -> int:
        """How many lists (routes, point lists) the navigator holds (1, or one per agent)."""
        return self._data.first.size

    def step(self, state: AgentState, dt: float) -> Command:
        """The command for this frame; updates ``memory``.

        Raises
        ------
        ValueError
            Several lists or per-agent parameters (use ``step_batch``), a non-finite ``state``
            field, a bad ``dt`` or a gain too large for it.
        """
        if self.list_count != 1:
            name, entries, single = self._LISTS
            raise ValueError(
                f"{name} holds {self.list_count} {entries} (one per agent): use step_batch, or "
                f"build the navigator with a single {single} for step"
            )
        if self.agents is not None:
            check_shared(self.params, f"{type(self).__name__}.step")
        state = check_state(state)
        dt = self._check_dt(dt)
        command, _ = self._kernels()
        arguments = (state, self.memory, self._kernel_record, self._data, 0, dt)
        result = run_entry(self, command, arguments)
        self.memory = self.MEMORY._make(result[2:])  # the kernel's ints, floats and bools
        return Command(result[0], result[1])

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch``, each on its own list (or all on the one), each
        with its own parameters where the record holds one value per agent.

        Per-agent memory lives in ``batch_memory`` (arrays) until ``reset()``.
        """
        size = check_batch(batch, self.list_count, self._LISTS[0])
        check_agent_count(self.params, size)
        dt = self._check_dt(dt)
        out = BatchOutput.ensure(out, size)
        memory = self.batch_memory
        if memory is None or memory.index.size != size:
            memory = self.batch_memory = memory_arrays(self.MEMORY, size)
        first, count = agent_spans(self._data.first, self._data.count, size)
        _, loop = self._kernels()
        data = self._data._replace(first=first, count=count)
        arguments = (batch.record(), memory, self._kernel_record, data, dt, out.record())
        run_batch_entry(self, loop, arguments)
        return out

    def reset(self) -> None:
        """Back to the start of the lists, every latch and count released (scalar and batch);
        the lists (and random offsets) are kept."""
        self.memory = self.MEMORY()
        self.batch_memory = None


def check_batch(batch: AgentBatch, lists: int, what: str) -> int:
    """The batch's size, after checking it is an ``AgentBatch`` matching ``lists`` routes (or
    point lists, ``what``): one per agent, or one for all."""
    if not isinstance(batch, AgentBatch):
        raise ValueError(f"batch must be an AgentBatch, got {batch!r}")
    size = batch.size
    if lists not in (1, size):
        raise ValueError(f"{what} holds {lists} entries but the batch has {size} agents")
    return size


def memory_arrays(memory_type: type[NamedTuple], size: int) -> NamedTuple:
    """One array per field of a memory record, each filled with the field's default (bool,
    int64 or float64 after the default's type)."""
    arrays = []
    for value in memory_type():
        if isinstance(value, (bool, np.bool_)):
            dtype = np.bool_
        elif isinstance(value, (int, np.integer)):
            dtype = np.int64
        else:
            dtype = np.float64
        arrays.append(np.full(size, value, dtype=dtype))
    return memory_type(*arrays)


def agent_spans(first: np.ndarray, count: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each agent's ``(first, count)`` into the packed arrays: the packed ones when there is one
    entry per agent, else the single entry repeated."""
    if first.size == size:
        return first, count
    return np.zeros(size, dtype=np.int64), np.full(size, count[0], dtype=np.int64)


def check_lists(params: NamedTuple, lists: int, what: str) -> int | None:
    """The number of agents a navigator serves (``None``: any): ``ValueError`` when its routes
    (or point lists, ``what``) and its per-agent parameters hold different numbers of agents."""
    agents = per_agent_size(params)
    if agents is not None and lists not in (1, agents):
        raise ValueError(
            f"{what} holds {lists} entries but {type(params).__name__} holds {agents} values per "
            "field (one per agent)"
        )
    return agents
