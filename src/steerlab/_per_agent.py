"""Parameter records that hold one value for every agent, or one value per agent, field by field.

A kernel reads its parameters from one immutable record (a ``NamedTuple``: ``HalfLifeParams``,
``BaseEngineParams``, ...). A batch passes the same record to its loop, where any field may be a
1-D array with one value per agent instead of a number shared by all; the loop hands agent ``i``
its own record, ``agent_params(params, i)``, and calls the scalar kernel with it. So a sweep
over parameters is one batch, and a batch equals each agent's scalar step with its own values.

Which fields are arrays is a matter of type: numba compiles the loop once per pattern of array
and number fields, and reads a number field without indexing (a loop whose fields are all
numbers runs as it would with the values written in). Arrays stay the caller's (validated
copies, read-only; the kernels never write them). A field may itself be such a record (a
composite's record of its modules' records): it is read the same way, recursively.

A batch loop's state, memory and outputs travel the same way, as records of arrays (one entry
per agent): ``agent_params(memory, i)`` reads agent ``i``'s entries, ``set_agent(memory, i,
values)`` writes them back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import types
from numba.extending import overload

__all__ = [
    "RecordMemo",
    "agent_params",
    "check_agent_count",
    "check_shared",
    "per_agent_size",
    "set_agent",
]


def _is_record(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def agent_params(params: Any, i: int) -> Any:
    """Agent ``i``'s record: each array field read at ``i``, each record field read the same
    way, every other field as it is."""
    return type(params)(
        *(
            f[i] if isinstance(f, np.ndarray) else agent_params(f, i) if _is_record(f) else f
            for f in params
        )
    )


def _has_per_agent(record_type) -> bool:
    """Whether a numba record type holds an array field, in itself or in a record field."""
    return any(
        isinstance(field, types.Array)
        or (isinstance(field, types.BaseNamedTuple) and _has_per_agent(field))
        for field in record_type.types
    )


_IMPLEMENTATIONS: dict[tuple[Any, tuple[bool, ...]], Any] = {}


@overload(agent_params, inline="always")
def _agent_params_compiled(params, i):
    if not isinstance(params, types.BaseNamedTuple):
        return None
    arrays = tuple(isinstance(field, types.Array) for field in params.types)
    records = tuple(
        isinstance(field, types.BaseNamedTuple) and _has_per_agent(field) for field in params.types
    )
    if not any(arrays) and not any(records):
        return lambda params, i: params
    key = (params.instance_class, arrays, records)
    if key not in _IMPLEMENTATIONS:
        # the record's constructor called with each field, indexed where it is an array, read
        # recursively where it is a record with per-agent fields: a numba implementation is a
        # Python function, written here for this pattern of fields
        fields = ", ".join(
            f"params[{k}][i]" if a else f"agent_params(params[{k}], i)" if r else f"params[{k}]"
            for k, (a, r) in enumerate(zip(arrays, records, strict=True))
        )
        namespace = {"record": params.instance_class, "agent_params": agent_params}
        exec(f"def implementation(params, i):\n    return record({fields})\n", namespace)
        _IMPLEMENTATIONS[key] = namespace["implementation"]
    return _IMPLEMENTATIONS[key]


def set_agent(record: Any, i: int, values: tuple) -> None:
    """Write ``values`` (one per field, in order) into entry ``i`` of the arrays of ``record``: a
    batch loop's memory or output record of arrays (the inverse of ``agent_params``).

    Compiled, each field is written by its index in the record, ``record[k][i] = value``: in a
    ``prange`` loop numba 0.68 loses writes made through a record's attribute (``record.field[i]
    = value``, numba issue #7135), not those made through its index. A tuple built of a record's
    attributes (``set_agent((record.a, record.b), i, values)``) loses them too, even outside
    ``prange`` (seen in a called kernel); pass the record or a slice of it (``record[:2]``)."""
    for array, value in zip(record, values, strict=True):
        array[i] = value


_SETTERS: dict[int, Any] = {}


@overload(set_agent, inline="always")
def _set_agent_compiled(record, i, values):
    if not isinstance(record, types.BaseTuple):
        return None
    count = len(record)
    if count not in _SETTERS:
        # one assignment per field: a numba implementation is a Python function, written here
        # for this number of fields (a tuple's fields are indexed by constants)
        body = "".join(f"    record[{k}][i] = values[{k}]\n" for k in range(count))
        namespace: dict[str, Any] = {}
        exec(f"def implementation(record, i, values):\n{body}    return None\n", namespace)
        _SETTERS[count] = namespace["implementation"]
    return _SETTERS[count]


def _array_fields(params: Any, prefix: str = ""):
    """``(name, array)`` of every array field, records' fields included (``a.b`` names)."""
    for name, value in zip(params._fields, params, strict=True):
        if isinstance(value, np.ndarray):
            yield prefix + name, value
        elif _is_record(value):
            yield from _array_fields(value, f"{prefix}{name}.")


def per_agent_size(params: Any) -> int | None:
    """The number of agents a record's array fields hold; ``None`` when every field is a number.

    ``ValueError`` when two array fields hold different numbers of values.
    """
    size = None
    first = ""
    for name, value in _array_fields(params):
        if size is None:
            size, first = value.size, name
        elif value.size != size:
            raise ValueError(
                f"every per-agent field of {type(params).__name__} must hold the same number "
                f"of values: {first} has {size}, {name} has {value.size}"
            )
    return size


class RecordMemo:
    """``compute(record)`` remembered per record object, for values a record's object fixes: a
    record is an immutable tuple, and an array it holds can be neither resized nor swapped while
    held. A batch step sees the same parameter records at every frame. Each record is kept with
    its value, so its ``id`` cannot be reused while remembered; at most ``kept`` records (then
    the memory starts afresh)."""

    __slots__ = ("_compute", "_kept", "_known")

    def __init__(self, compute: Callable[[Any], Any], kept: int = 256):
        self._compute = compute
        self._kept = kept
        self._known: dict[int, tuple[Any, Any]] = {}  # id -> (record, value)

    def __call__(self, record: Any) -> Any:
        known = self._known.get(id(record))
        if known is not None and known[0] is record:
            return known[1]
        value = self._compute(record)
        if len(self._known) >= self._kept:
            self._known.clear()
        self._known[id(record)] = (record, value)
        return value


_known_size = RecordMemo(per_agent_size)  # a batch step checks the same record every frame


def check_agent_count(params: Any, size: int, what: str = "the batch") -> None:
    """``ValueError`` unless the record's per-agent fields hold exactly ``size`` values."""
    count = _known_size(params)
    if count is not None and count != size:
        raise ValueError(
            f"{type(params).__name__} holds {count} values per field, one per agent, but {what} "
            f"has {size} agents"
        )


def check_shared(params: Any, use: str) -> None:
    """``ValueError`` if the record holds one value per agent in any field: ``use`` (a scalar step,
    a closed form) takes one value per parameter."""
    count = per_agent_size(params)
    if count is not None:
        per_agent = [name for name, _ in _array_fields(params)]
        raise ValueError(
            f"{use} takes one value per parameter, but {type(params).__name__}."
            f"{per_agent[0]} holds {count} (one per agent): use the batch step"
        )
