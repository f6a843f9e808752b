"""Validation at the public boundary: clear ``ValueError`` naming the argument and the value.

Kernels never validate; the thin public classes call these once per call (scalar API) or once per
batch call (batch API), never per agent inside a kernel.

The checks of a parameter (``check_positive``, ``check_negative``, ``check_nonnegative``,
``check_finite``) take a number, or a 1-D sequence holding one value per agent
(``steerlab._per_agent``): that is returned as a read-only float64 copy, and the error names the
first bad entry, ``friction[3] must be > 0 and finite, got -1.0``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "FLOAT_TYPES",
    "as_float_array",
    "batch_array",
    "check_finite",
    "check_finite_array",
    "check_negative",
    "check_nonnegative",
    "check_positive",
    "check_record",
    "check_state_record",
    "check_timestep",
    "check_xy",
]


def as_float_array(name: str, value: Any, what: str, *, copy: bool = False) -> np.ndarray:
    """``value`` as a float64 array (a copy with ``copy``); ``ValueError`` ``"{name} must be
    {what}, got {value!r}"`` when it holds anything but numbers."""
    try:
        return np.array(value, dtype=np.float64) if copy else np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {value!r}") from None


def batch_array(name: str, values: Any, size: int) -> np.ndarray:
    """A batch argument with one value per agent: a number broadcast to ``size`` values, or a
    1-D sequence of ``size`` numbers, as a C-contiguous float64 array (no copy when it already is
    one). Finiteness is the caller's check (one fused pass with its other checks)."""
    array = as_float_array(name, values, f"a number or {size} numbers")
    if array.ndim == 0:
        return np.full(size, float(array))
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},) like the batch, got {array.shape}")
    return np.ascontiguousarray(array)


def _per_agent(name: str, value: Any, valid, check, **options) -> np.ndarray | None:
    """``value`` as a read-only float64 copy if it is a sequence of values, each passing ``valid``
    (vectorised); ``None`` for a single value. The first failing entry is reported by the scalar
    ``check``, so both forms give the same message."""
    if isinstance(value, float | int | str | bytes) or np.ndim(value) == 0:
        return None  # (the first test is the fast path of every frame's ``dt``)
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        message = f"{name} must be a number or one number per agent, got {value!r}"
        raise ValueError(message) from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"{name} must be a number or a 1-D sequence of one number per agent, got shape "
            f"{array.shape}"
        )
    ok = valid(array)
    if not ok.all():
        index = int(np.argmin(ok))
        check(f"{name}[{index}]", float(array[index]), **options)
    array.setflags(write=False)
    return array


def check_finite(name: str, value: Any) -> float:
    """Return ``value`` as a float; raise if it is not a finite real number."""
    array = _per_agent(name, value, np.isfinite, check_finite)
    if array is not None:
        return array
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def check_xy(name: str, value: Any) -> tuple[float, float]:
    """Return a point or vector ``(x, y)`` as two floats; raise unless it is two finite numbers."""
    try:
        first, second = value
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be two numbers (x, y), got {value!r}") from None
    return check_finite(f"{name}[0]", first), check_finite(f"{name}[1]", second)


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float; raise unless ``value > 0`` (``inf`` only if allowed)."""
    return _check_signed(name, value, 1.0, allow_inf, check_positive)


def check_negative(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float; raise unless ``value < 0`` (``-inf`` only if allowed)."""
    return _check_signed(name, value, -1.0, allow_inf, check_negative)


def _check_signed(name: str, value: Any, sign: float, allow_inf: bool, check) -> float:
    """``check_positive`` (``sign`` 1) and ``check_negative`` (-1): ``sign * value > 0``."""
    array = _per_agent(
        name,
        value,
        lambda a: (sign * a > 0.0) & (allow_inf | np.isfinite(a)),
        check,
        allow_inf=allow_inf,
    )
    if array is not None:
        return array
    word, relation, infinity = (
        ("positive", "> 0", "inf") if sign > 0 else ("negative", "< 0", "-inf")
    )
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a {word} number, got {value!r}") from None
    if math.isnan(number) or sign * number <= 0.0 or (math.isinf(number) and not allow_inf):
        bound = f"{relation} ({infinity} allowed)" if allow_inf else f"{relation} and finite"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return number


def check_nonnegative(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float; raise unless it is ``>= 0`` and finite (``inf`` only if
    allowed)."""
    array = _per_agent(
        name,
        value,
        lambda a: (a >= 0.0) & (allow_inf | np.isfinite(a)),
        check_nonnegative,
        allow_inf=allow_inf,
    )
    if array is not None:
        return array
    if not allow_inf:
        number = check_finite(name, value)
        if number < 0.0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")
        return number
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number >= 0, got {value!r}") from None
    if math.isnan(number) or number < 0.0:
        raise ValueError(f"{name} must be >= 0 (inf allowed), got {value!r}")
    return number


def check_record(name: str, value: Any, record_type: type) -> None:
    """``ValueError`` unless ``value`` is a ``record_type`` (a parameter or state record)."""
    if not isinstance(value, record_type):
        kind = record_type.__name__
        article = "an" if kind[0] in "AEIOU" else "a"
        raise ValueError(f"{name} must be {article} {kind}, got {value!r}")


FLOAT_TYPES = frozenset({float, np.float64})  # numbers numba reads as float64, passed as they are


def check_state_record(name: str, value: Any, record_type: type) -> Any:
    """Validate a state record of ``record_type`` (every field a finite number); return it with
    float fields."""
    # fast path (one call per frame in a game loop): plain finite floats pass as they are;
    # anything else is converted to float, so kernels see one type signature
    if (
        type(value) is record_type
        and FLOAT_TYPES.issuperset(map(type, value))
        and all(map(math.isfinite, value))
    ):
        return value
    check_record(name, value, record_type)
    return record_type(
        *(check_finite(f"{name}.{field}", getattr(value, field)) for field in record_type._fields)
    )


def check_timestep(dt: Any) -> float:
    """The frame time ``dt`` (seconds) as a float: a real number (not a bool, a string or an
    array: one frame time for every agent), finite and > 0."""
    if type(dt) is float and 0.0 < dt < math.inf:  # every frame's case, first
        return dt
    if isinstance(dt, bool) or not isinstance(dt, numbers.Real):
        raise ValueError(f"dt must be a number > 0 and finite, got {dt!r}")
    return check_positive("dt", float(dt))


def check_finite_array(name: str, values: Any, *, size: int | None = None) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array (no copy if it already is one); raise on NaN/inf.

    The error names the first offending index and its value.
    """
    array = as_float_array(name, values, "a 1-D array of numbers")
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {array.shape}")
    if size is not None and array.size != size:
        raise ValueError(f"{name} must have {size} entries, got {array.size}")
    finite = np.isfinite(array)
    if not finite.all():
        index = int(np.argmin(finite))
        raise ValueError(f"{name}[{index}] must be finite, got {float(array[index])!r}")
    return array


def check_field_array(name: str, values: Any, size: int | None = None) -> np.ndarray:
    """``check_finite_array``, made C-contiguous: one field of a struct-of-arrays batch (updated in
    place by the batch kernels, so a strided view is copied once here)."""
    array = check_finite_array(name, values, size=size)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return array
