"""What the navigators' ``step_batch`` share: checks, per-agent memory arrays, ragged spans."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from steerlab._per_agent import per_agent_size
from steerlab.engines.state import AgentBatch

__all__ = ["agent_spans", "check_batch", "check_lists", "memory_arrays"]


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
