"""The one place where steerlab configures numba.

Every formula is written once as a numba-compilable kernel (``docs/design.md``, "One
implementation, two speeds"). ``kernel`` compiles a scalar formula, ``batch_kernel`` a loop over
agents that calls scalar kernels in ``prange`` (twice: multi-threaded, and serial for small
batches). Neither uses ``fastmath``: the batch result must
equal the scalar one bit for bit, and re-association or fused multiply-add would break that.

``pure_python`` returns the uncompiled Python version of a kernel, with every kernel it calls also
uncompiled, so that benchmarks can time a plain-Python loop of *the same* formula without a second
copy of it.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba.core.registry import CPUDispatcher

__all__ = [
    "HEAVY_SERIAL_LIMIT",
    "SERIAL_LIMIT",
    "BatchKernel",
    "batch_kernel",
    "inlined",
    "kernel",
    "kernel_not_inlined",
    "pure_python",
    "uncompiled",
]


def kernel(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile a scalar kernel: nopython, cached on disk, inlined into its callers."""
    return numba.njit(cache=True, inline="always", nogil=True, error_model="numpy")(function)


def kernel_not_inlined(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile a scalar kernel that its callers call instead of inlining: for a large kernel
    (a collision sweep over a grid) that several kernels use, where inlining it at every call site
    would multiply the compile time. Same options as ``kernel`` otherwise (no ``fastmath``), so
    results are the same bits either way; without numba's reference counting, as batch loops
    (``BatchKernel``): such a kernel must not allocate an array."""
    return numba.njit(cache=True, nogil=True, _nrt=False, error_model="numpy")(function)


SERIAL_LIMIT = 8192  # agents: below, the batch loop runs on the calling thread
HEAVY_SERIAL_LIMIT = 1024  # agents: the same for composites costing ~0.3-1 us per agent (a
#   vehicle in a world, an environment's observation): 1,024 of them are ~0.5 ms of work, far
#   above a parallel region's start; measured: the vector environment at 4,096 envs went from
#   0.7-1.1 M to 1.8-2.7 M env steps/s on 2 cores


class BatchKernel:
    """A loop over agents compiled twice from one source: multi-threaded and serial.

    Calls with fewer than ``serial_limit`` agents (the size of the first argument; default
    ``SERIAL_LIMIT``, ``HEAVY_SERIAL_LIMIT`` for costly composites) run the serial build: a
    parallel region costs tens of microseconds to start, and far more when the cores are busy (a
    game's own threads), which dwarfs a few hundred agents' work. So do calls while numba runs one
    thread (``numba.set_num_threads(1)``: a process per core, as benchmark workers are), where the
    parallel build only adds its scheduling (measured: Algorithm 1's batch 4 % faster). Both builds
    run the same scalar kernel per agent, so they give the same bits.

    ``serial_globals``: names the serial build sees bound otherwise, e.g. a composite called
    (not inlined) by the parallel build, whose parfor passes would take minutes to compile it
    inlined, and inlined in the serial build (``inlined``), where it compiles in seconds and
    saves the call. The serial build then reads a copy of the module's globals taken when the
    loop is decorated: it may only use names defined above it (as every loop here does).
    """

    def __init__(
        self,
        function: Callable[..., Any],
        serial_limit: int = SERIAL_LIMIT,
        nrt: bool = False,
        serial_globals: dict[str, Any] | None = None,
    ):
        self.py_func = function
        self.serial_limit = serial_limit
        # numba's runtime (NRT) reference-counts every array a kernel holds; an array passed to an
        # inlined scalar kernel is counted in and out once per agent (two atomic operations, each
        # a memory barrier that stops the processor overlapping one agent's work with the next),
        # and numba's pruning pass misses the pairs in branchy code (numba issue #2350). A batch
        # loop only reads and writes arrays its caller owns, so it needs no counting: compiled
        # without NRT (``_nrt=False``, numba's own switch) unless it allocates (``nrt=True``: a
        # ``prange`` reduction does, for its per-thread partial results). Kernels it calls that
        # are not inlined keep NRT and receive arrays without a count (NRT ignores those).
        options = {"cache": True, "nogil": True, "error_model": "numpy"}
        if not nrt:
            options["_nrt"] = False
        self.parallel = numba.njit(parallel=True, **options)(function)
        namespace = function.__globals__
        if serial_globals:
            namespace = {**namespace, **serial_globals}
        # its own name, so that numba's on-disk cache keeps the two builds apart
        self.serial = numba.njit(**options)(_twin(function, namespace, "__serial"))
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        self.__module__ = function.__module__

    def __call__(self, *args):
        # the module's SERIAL_LIMIT also bounds a kernel's own (tests set it to 0 to force the
        # parallel build, whatever the number of threads)
        limit = min(self.serial_limit, SERIAL_LIMIT)
        if limit > 0 and (getattr(args[0], "size", limit) < limit or numba.get_num_threads() == 1):
            return self.serial(*args)
        return self.parallel(*args)

    def __repr__(self) -> str:
        return f"BatchKernel({self.__module__}.{self.__qualname__})"


def batch_kernel(
    function: Callable[..., Any] | None = None,
    *,
    serial_limit: int = SERIAL_LIMIT,
    nrt: bool = False,
    serial_globals: dict[str, Any] | None = None,
):
    """Compile a loop over agents (``numba.prange``), cached on disk; serial for small batches
    (fewer than ``serial_limit`` agents: ``@batch_kernel`` or ``@batch_kernel(serial_limit=
    HEAVY_SERIAL_LIMIT)`` for costly composites) and on one thread. Without numba's reference
    counting unless ``nrt=True`` (a loop that allocates, e.g. a ``prange`` reduction);
    ``serial_globals`` rebinds names for the serial build only (``BatchKernel``)."""
    if function is None:
        return lambda inner: BatchKernel(inner, serial_limit, nrt, serial_globals)
    return BatchKernel(function, serial_limit, nrt, serial_globals)


def inlined(dispatcher: Any) -> Any:
    """The inlined build (``kernel``) of a kernel compiled to be called (``kernel_not_inlined``):
    the same source under its own name (``<name>__inlined``, so that numba's on-disk cache keeps
    the builds apart); for a serial batch build (``BatchKernel``'s ``serial_globals``)."""
    source = dispatcher.py_func
    return kernel(_twin(source, source.__globals__, "__inlined"))


def _twin(function: Callable[..., Any], namespace: dict[str, Any], suffix: str = "") -> Any:
    """``function`` rebuilt from its code, reading the globals ``namespace``; ``suffix`` appended
    to its qualified name gives the twin its own entry in numba's on-disk cache."""
    twin = types.FunctionType(
        function.__code__,
        namespace,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    if suffix:
        twin.__qualname__ = function.__qualname__ + suffix
        twin.__module__ = function.__module__
    return twin


def pure_python(function: Callable[..., Any]) -> Callable[..., Any]:
    """The plain-Python version of a compiled kernel, its callees plain Python too.

    Used by ``benchmarks/`` to time "a plain-Python loop of the same formula". ``prange`` is
    replaced by ``range``.
    """
    cache: dict[int, Callable[..., Any]] = {}
    return _to_python(function, cache)


@contextlib.contextmanager
def uncompiled(*modules: types.ModuleType) -> Iterator[None]:
    """Within the block, every kernel defined in ``modules`` runs as plain Python.

    Swaps each compiled kernel found in the modules' globals for its ``pure_python`` version and
    restores them on exit. Benchmarks use it to time a public method (``law.step_batch``) as a
    plain-Python loop of the same formula, in the same process. Not thread-safe.
    """
    saved = []
    cache: dict[int, Callable[..., Any]] = {}
    for module in modules:
        for name, value in list(vars(module).items()):
            if isinstance(value, CPUDispatcher | BatchKernel):
                saved.append((module, name, value))
                setattr(module, name, _to_python(value, cache))
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def _to_python(function: Any, cache: dict[int, Callable[..., Any]]) -> Any:
    if isinstance(function, BatchKernel):
        function = function.parallel
    if not isinstance(function, CPUDispatcher):
        return function
    key = id(function)
    if key in cache:
        return cache[key]
    source = function.py_func
    namespace: dict[str, Any] = dict(source.__globals__)
    plain = _twin(source, namespace)
    cache[key] = plain
    for name, value in list(namespace.items()):
        if isinstance(value, CPUDispatcher | BatchKernel):
            namespace[name] = _to_python(value, cache)
        elif value is numba.prange:
            namespace[name] = range
        elif isinstance(value, types.ModuleType) and value is numba:
            namespace[name] = _NumbaShim
    return plain


class _NumbaShim:
    """Stands in for the ``numba`` module inside a pure-Python kernel (``numba.prange``)."""

    prange = range
