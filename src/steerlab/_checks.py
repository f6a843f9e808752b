"""Validation at the public boundary: clear ``ValueError`` naming the argument and the value.

Kernels never validate; the thin public classes call these once per call (scalar API) or once per
batch call (batch API), never per agent inside a kernel.

The checks of a parameter (``check_positive``, ``check_negative``, ``check_nonnegative``,
``check_finite``) take a number, or a 1-D sequence holding one value per agent
(``steerlab._per_agent``): that is returned as a read-only float64 copy, and the error names the
first bad entry, ``friction[3] must be > 0 and finite, got -1.0``.

One rule for what a number is, in every check: a real number (``int``, ``float``, NumPy integer
and floating scalars, 0-d arrays of them; arrays of integer or floating dtype). Text (``"3.0"``),
booleans, ``None``, complex numbers and objects are refused, never converted; an integer too large
for a float is refused as not finite.
"""

from __future__ import annotations

import math
import numbers
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "FLOAT_TYPES",
    "as_float_array",
    "batch_array",
    "check_bool",
    "check_finite",
    "check_finite_array",
    "check_index",
    "check_name",
    "check_negative",
    "check_nonnegative",
    "check_positive",
    "check_record",
    "check_state_record",
    "check_timestep",
    "check_xy",
    "read_toml",
]


NUMBER_KINDS = frozenset("iuf")  # NumPy dtype kinds that hold numbers (not bool, text, objects)


def as_float_array(name: str, value: Any, what: str, *, copy: bool = False) -> np.ndarray:
    """``value`` as a float64 array (a copy with ``copy``); ``ValueError`` ``"{name} must be
    {what}, got {value!r}"`` when it holds anything but numbers (text and booleans included)."""
    if type(value) is np.ndarray and value.dtype == np.float64:  # the batch paths' case, first
        return value.copy() if copy else value
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in NUMBER_KINDS or (
            isinstance(value, list | tuple) and _holds_bool(value)
        ):
            raise TypeError
        return np.array(raw, dtype=np.float64) if copy else np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be {what}, got {_shown(value)}") from None


def _holds_bool(values: list | tuple) -> bool:
    """Whether nested lists and tuples hold a boolean (NumPy reads ``[True, 1.5]`` as floats)."""
    for item in values:
        if isinstance(item, bool | np.bool_):
            return True
        if isinstance(item, list | tuple) and _holds_bool(item):
            return True
    return False


def _shown(value: Any) -> str:
    """``repr(value)``, cut to 200 characters (an array of a million entries is named, not
    printed)."""
    text = repr(value)
    return text if len(text) <= 200 else f"{text[:200]}..."


def _real(name: str, value: Any, what: str) -> float:
    """``value`` as a float if it is a real number (module docstring); ``ValueError`` ``"{name}
    must be {what}, got {value!r}"`` otherwise. Not-a-number and infinities pass (the callers
    check the range)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {what}, got {_shown(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got {_shown(value)}") from None


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
    if isinstance(value, float | int | str | bytes) or value is None:
        return None  # (the first test is the fast path of every frame's ``dt``)
    try:
        if np.ndim(value) == 0:
            return None
    except ValueError:
        pass  # a ragged sequence: refused by name below
    array = as_float_array(name, value, "a number or one number per agent", copy=True)
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


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool: ``True`` or ``False`` (or NumPy's), nothing else (not 0 or 1, not
    text, not an array: one switch for the whole call)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {_shown(value)}")


def check_index(name: str, value: Any, count: int, what: str = "an index") -> int:
    """``value`` as an int in ``[0, count)``: an integer (Python's or NumPy's, not a bool), e.g.
    a frame of records ``count`` frames long, before compiled code reads there unchecked."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value < count:
        raise ValueError(f"{name} must be {what} in [0, {count}), got {_shown(value)}")
    return int(value)


def check_finite(name: str, value: Any, *, per_agent: bool = True) -> float:
    """Return ``value`` as a float; raise if it is not a finite real number (``per_agent=False``:
    one number, never a sequence)."""
    array = _per_agent(name, value, np.isfinite, check_finite) if per_agent else None
    if array is not None:
        return array
    number = value if type(value) is float else _real(name, value, "a finite number")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def check_xy(name: str, value: Any) -> tuple[float, float]:
    """Return a point or vector ``(x, y)`` as two floats; raise unless it is two finite numbers."""
    try:
        first, second = value
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be two numbers (x, y), got {value!r}") from None
    return (
        check_finite(f"{name}[0]", first, per_agent=False),
        check_finite(f"{name}[1]", second, per_agent=False),
    )


def check_positive(
    name: str, value: Any, *, allow_inf: bool = False, per_agent: bool = True
) -> float:
    """Return ``value`` as a float; raise unless ``value > 0`` (``inf`` only if allowed;
    ``per_agent=False``: one number, never a sequence)."""
    return _check_signed(name, value, 1.0, allow_inf, check_positive, per_agent)


def check_negative(
    name: str, value: Any, *, allow_inf: bool = False, per_agent: bool = True
) -> float:
    """Return ``value`` as a float; raise unless ``value < 0`` (``-inf`` only if allowed)."""
    return _check_signed(name, value, -1.0, allow_inf, check_negative, per_agent)


def _check_signed(
    name: str, value: Any, sign: float, allow_inf: bool, check, per_agent: bool = True
) -> float:
    """``check_positive`` (``sign`` 1) and ``check_negative`` (-1): ``sign * value > 0``."""
    array = None
    if per_agent:
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
    number = value if type(value) is float else _real(name, value, f"a {word} number")
    if math.isnan(number) or sign * number <= 0.0 or (math.isinf(number) and not allow_inf):
        bound = f"{relation} ({infinity} allowed)" if allow_inf else f"{relation} and finite"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return number


def check_nonnegative(
    name: str, value: Any, *, allow_inf: bool = False, per_agent: bool = True
) -> float:
    """Return ``value`` as a float; raise unless it is ``>= 0`` and finite (``inf`` only if
    allowed; ``per_agent=False``: one number, never a sequence)."""
    array = None
    if per_agent:
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
        number = check_finite(name, value, per_agent=False)
        if number < 0.0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")
        return number
    number = value if type(value) is float else _real(name, value, "a number >= 0")
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
        *(
            check_finite(f"{name}.{field}", getattr(value, field), per_agent=False)
            for field in record_type._fields
        )
    )


def check_timestep(dt: Any) -> float:
    """The frame time ``dt`` (seconds) as a float: a real number (not a bool, a string or an
    array: one frame time for every agent), finite and > 0."""
    if type(dt) is float and 0.0 < dt < math.inf:  # every frame's case, first
        return dt
    if isinstance(dt, bool) or not isinstance(dt, numbers.Real):
        raise ValueError(f"dt must be a number > 0 and finite, got {dt!r}")
    return check_positive("dt", dt, per_agent=False)  # an int too large for a float: not finite


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


_NAME = re.compile(r"[A-Za-z0-9_-]+")


def check_name(name: Any, where: str) -> str:
    """A name a file gives what it describes (a vehicle, a follower): letters, digits, ``_`` and
    ``-`` (it names results and files); ``ValueError`` ``"{where} must be a name ..."``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{where} must be a name of letters, digits, '_' and '-', got {name!r}")
    return name


def read_toml(path: Any, what: str) -> dict:
    """The table of a TOML file; ``ValueError`` naming the file: missing (``"{what} file ...
    not found"``), unreadable, not UTF-8 or not TOML."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} file {str(path)!r} not found")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"{path}: cannot read the file: {error.strerror or error}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: not a TOML file: {error}") from None
