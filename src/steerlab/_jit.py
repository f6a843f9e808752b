"""The one place where steerlab configures numba.

Every formula is written once as a numba-compilable kernel (``docs/design.md``, "One
implementation, two speeds"). Two decorators: ``kernel`` compiles a scalar formula,
``batch_kernel`` a loop over agents that calls scalar kernels in ``prange``. Neither uses
``fastmath``: the batch result must equal the scalar one bit for bit, and re-association or fused
multiply-add would break that.

Builds. A kernel called from Python (a class's scalar ``step``) is compiled by itself; every
kernel it calls, directly or not, in its *linked* build (``_linked``): numba types and lowers that
kernel once per signature, without the CPython and C wrappers a function called from Python
needs, and never optimises it as a module nor makes machine code of it; the kernel compiled by
itself links them all and LLVM optimises and compiles the whole once, inlining across kernels.
(numba's own way finalises every function it compiles: each kernel optimised and made machine
code, its wrappers too, then optimised again inside every caller: ``docs/performance.md``, cold
start.) A batch loop has up to three builds, chosen per call by ``BatchKernel``: *quick* (the
same calls, for small batches of costly composites: compiled in seconds), *serial* (every kernel
inlined into the loop: the fastest per agent, for large batches on one thread) and *parallel*
(the serial build's compiled loop body, rewritten over a range of agents, run in ``prange`` over
chunks of them, ``_ranged``: numba's parfor passes over a whole inlined loop body take minutes).
A kernel that fast builds call rather than inline (a large shared kernel; a composite inside
another called kernel, as the trial loop's follower) has a *called* build of its own for them,
its formulas inlined (``_CalledKernel``). Each build but the linked ones is compiled on its
first use and cached on disk under its own name (a linked build lives inside the cached code
that links it); all run the same scalar kernels, so they give the same bits. Which kernel is
inlined where is the kernel's ``inline`` option (``kernel``), decided inside this module while a
build compiles (``_Inline``); which build a kernel named in a kernel being compiled stands for
is its numba type (``_Kernel``, ``_CalledKernel``); call sites only name kernels.

``uncompiled`` runs kernels as plain Python (numba's own ``py_func``), so that benchmarks can
time a plain-Python loop of *the same* formula without a second copy of it.

A first compile that misses the cache logs one line per kernel family (logger ``steerlab``,
level WARNING: ``logging.getLogger("steerlab").setLevel(logging.ERROR)`` silences it);
``steerlab warmup`` compiles everything ahead.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import logging
import textwrap
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numba
import numpy as np
from filelock import FileLock
from llvmlite import ir as llvmir
from numba.core import cgutils, event
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler, DefaultPassBuilder
from numba.core.compiler_machinery import register_pass
from numba.core.extending import intrinsic
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NativeLowering

from steerlab._per_agent import RecordMemo

__all__ = [
    "HEAVY_SERIAL_LIMIT",
    "SERIAL_LIMIT",
    "BatchKernel",
    "batch_kernel",
    "cached_entry",
    "entry_point",
    "fetch_add",
    "kernel",
    "pure_python",
    "run_batch_entry",
    "run_entry",
    "uncompiled",
]

SERIAL_LIMIT = 8192  # agents: below, the batch loop runs on the calling thread
PARALLEL_CHUNKS = 256  # a parallel build's chunks of agents (``_ranged``): numba gives each
#   thread a contiguous block of them; at most 256 threads are kept busy
HEAVY_SERIAL_LIMIT = 1024  # agents: the same for composites, hundreds of times costlier per
#   agent than an engine (a vehicle in a world, an environment's observation): 1,024 of them
#   far outweigh a parallel region's start (benchmarks/gym_env.py measures the vector env)

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}
_INLINE_CHOICES = ("always", "serial", "never")
_log = logging.getLogger("steerlab")


# --------------------------------------------------------------------------------------------------
# which build is compiling


class _Compiling(threading.local):
    """The dispatchers numba is compiling in this thread, innermost last (numba compiles a called
    kernel while it types its caller), from numba's ``numba:compile`` events, which fire on a
    compile only (not on a load from the on-disk cache)."""

    def __init__(self):
        self.stack: list[Any] = []


_compiling = _Compiling()
_noticed: set[str] = set()  # kernel families whose compile was announced


class _CompileListener(event.Listener):
    def on_start(self, event_):
        dispatcher = event_.data["dispatcher"]
        if not _compiling.stack:
            _notice(dispatcher)
        _compiling.stack.append(dispatcher)

    def on_end(self, event_):
        _compiling.stack.pop()


event.register("numba:compile", _CompileListener())


def _notice(dispatcher: Any) -> None:
    """One line when a steerlab kernel family compiles for the first time in this process and
    the on-disk cache does not hold it (a cache hit fires no compile event)."""
    module = getattr(dispatcher.py_func, "__module__", "")
    parts = module.split(".")
    if parts[0] != "steerlab" or len(parts) < 2:
        return
    family = parts[1]
    if family in _noticed:
        return
    _noticed.add(family)
    _log.warning(
        "steerlab: compiling the %s kernels (first use: seconds to a minute; "
        "`steerlab warmup` compiles every kernel ahead)",
        family,
    )


def _fast_build() -> str | None:
    """``"serial"`` or ``"parallel"`` while numba compiles (innermost) that build of a batch
    loop in this thread, ``"called"`` while it compiles a called kernel's build for them
    (``_CalledKernel``); None otherwise (a kernel by itself, a quick build)."""
    if not _compiling.stack:
        return None
    return getattr(_compiling.stack[-1], "_steerlab_build", None)


class _Inline:
    """numba's ``inline`` option of a kernel, decided by the build being compiled.

    ``"always"``: inlined into serial and parallel builds and into the builds of called kernels
    they call (``_CalledKernel``); ``"serial"``: into serial builds only (a large composite:
    numba's parfor passes over it would take minutes); ``"never"``: always called (a large kernel
    several kernels use, or on a rare path). Anywhere else (a kernel compiled by itself, a quick
    build), called. numba reads the option by comparing it with
    ``"always"`` and ``"never"`` when it meets a call; the comparison answers for the build being
    compiled, so numba neither inlines nor reads the callee's code when the answer is no. It is
    also numba's cost-model callable, giving the same answer, for numba versions that call it.
    """

    def __init__(self, choice: str):
        self.choice = choice

    def wanted(self) -> bool:
        build = _fast_build()
        if build is None or self.choice == "never":
            return False
        return self.choice == "always" or build == "serial"

    def __eq__(self, other):
        if other == "always":
            return self.wanted()
        if other == "never":
            return not self.wanted()
        return NotImplemented

    __hash__ = object.__hash__

    def __call__(self, expression, caller, callee) -> bool:
        return self.wanted()

    def __repr__(self) -> str:
        return f"_Inline({self.choice!r})"


class _IndexDataFile(IndexDataCacheFile):
    """numba's index and data files of one function's cache, each save under a file lock.

    numba's save reads the index, numbers a new data file after the entries it found, writes the
    index, then the data: two processes compiling the same function for different types at once
    (test workers, benchmark workers, ``steerlab warmup --jobs``) can both take the same number,
    and the index one wrote may then name the code the other wrote, for other types. Under the
    lock the second save reads the first's index and takes the next number."""

    def save(self, key, data):
        with FileLock(self._index_path + ".lock"):
            super().save(key, data)


class _Cache(FunctionCache):
    """numba's on-disk cache of a function, saved under a lock (``_IndexDataFile``), in files of
    the build's own name when ``build`` is given: numba names cache files after the function
    alone, and one function has up to three builds."""

    def __init__(self, py_func, build: str | None = None):
        super().__init__(py_func)
        suffix = f"-{build}" if build else ""
        self._cache_file = _IndexDataFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base + suffix,
            source_stamp=self._impl.locator.get_source_stamp(),
        )


def _build(function: Callable[..., Any], build: str, **options) -> Any:
    dispatcher = numba.njit(**options)(function)
    dispatcher._cache = _Cache(function, build)
    if build != "quick":
        dispatcher._steerlab_build = build
    return dispatcher


class _LinkedLibrary(JITCodeLibrary):
    """The code of a linked build: its IR (numba's per-function passes run) and the libraries it
    calls, linked, never optimised as a module nor turned into machine code by itself; the
    library that links it (a kernel compiled by itself, a batch loop's build) does both, once,
    over all the code it reaches."""

    def finalize(self):
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                seen.add(library)
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalized = True


class _LinkedKey:
    """What numba's lowering finds a linked build's code by (numba keys a compiled function by
    its machine-code entry point, which a linked build has none of)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"_LinkedKey({self.name!r})"


@register_pass(mutates_CFG=True, analysis_only=False)
class _LinkedLowering(NativeLowering):
    """numba's lowering into a ``_LinkedLibrary``, without machine code (numba's ``no_compile``)."""

    _name = "steerlab_linked_lowering"

    def run_pass(self, state):
        state.library = _LinkedLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        state.flags.no_compile = True
        super().run_pass(state)
        lowered = state["cr"]
        key = _LinkedKey(lowered.fndesc.qualname)
        state.targetctx.insert_user_function(key, lowered.fndesc, [state.library])
        state["cr"] = lowered._replace(cfunc=key)
        return True


class _LinkedCompiler(Compiler):
    """numba's nopython pipeline with ``_LinkedLowering`` for its lowering."""

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.passes = [
            (_LinkedLowering if pass_ is NativeLowering else pass_, description)
            for pass_, description in pipeline.passes
        ]
        pipeline.finalize()
        return [pipeline]


class _LinkedDispatcher(CPUDispatcher):
    """A kernel's linked build: typed by the kernels that call it, never called from Python (it
    has no entry point for numba's dispatch table)."""

    def add_overload(self, cres):
        self.overloads[tuple(cres.signature.args)] = cres


def _linked(dispatcher: Any) -> Any:
    """``dispatcher``'s linked build (module docstring, "Builds"), made on first need: the same
    function and options, without CPython and C wrappers, not cached on disk (the libraries
    linking it are)."""
    linked = dispatcher.__dict__.get("_steerlab_linked")
    if linked is None:
        options = {
            key: value for key, value in dispatcher.targetoptions.items() if key != "nopython"
        }
        options.update(cache=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
        linked = numba.njit(pipeline_class=_LinkedCompiler, **options)(dispatcher.py_func)
        linked.__class__ = _LinkedDispatcher
        dispatcher._steerlab_linked = linked
    return linked


class _PythonCalls:
    """Arguments a kernel cannot be compiled for, when Python calls it (``atan2(y, [1, 2])``):
    a ``ValueError`` naming the kernel, each argument and its type, instead of numba's
    ``TypingError``. Only a failed compile comes here; calls of a compiled signature do not."""

    def _compile_for_args(self, *args, **kwargs):
        try:
            return super()._compile_for_args(*args, **kwargs)
        except numba.core.errors.TypingError:
            names = list(inspect.signature(self.py_func).parameters)
            shown = ", ".join(
                f"{name} = {_short(value)} ({type(value).__name__})"
                for name, value in zip(names, args, strict=False)
            )
            raise ValueError(
                f"{self.py_func.__name__}: its arguments must be numbers (float) or float64 "
                f"arrays as documented, got {shown}"
            ) from None


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:80]}..."


class _Kernel(_PythonCalls, CPUDispatcher):
    """A formula (``inline="always"``): called from Python, numba's dispatcher; named in a kernel
    being compiled, its linked build (fast builds inline it: numba reads the function, not this
    type)."""

    @property
    def _numba_type_(self):
        if not _compiling.stack:
            return numba.types.Dispatcher(self)
        return numba.types.Dispatcher(_linked(self))


class _CalledKernel(_PythonCalls, CPUDispatcher):
    """A kernel that fast builds call instead of inlining (``inline="serial"`` in a called build
    or numba's own parallel build, ``"never"`` in every one), with three builds: by itself
    (called from Python), linked (named in a scalar step or a quick build: its kernels called,
    compiled in seconds) and *called* (its ``"always"`` kernels inlined, the kernels it calls in
    their own called builds: the fastest per call). numba types a kernel named in a kernel it
    compiles by the value's ``_numba_type_``; while a serial, parallel or called build compiles,
    this one answers with its called build, which numba then compiles (on first need, cached on
    disk under its own name) and calls; while another build compiles, with its linked build."""

    @property
    def _numba_type_(self):
        if _fast_build() is None:
            if not _compiling.stack:
                return numba.types.Dispatcher(self)
            return numba.types.Dispatcher(_linked(self))
        called = self.__dict__.get("_steerlab_called")
        if called is None:
            called = _build(self.py_func, "called", **_OPTIONS, _nrt=False)
            self._steerlab_called = called
        return numba.types.Dispatcher(called)


# --------------------------------------------------------------------------------------------------
# decorators


def kernel(function: Callable[..., Any] | None = None, *, inline: str = "always"):
    """Compile a scalar kernel: nopython, cached on disk, no ``fastmath``.

    ``inline``: where batch loops inline it (``_Inline``): ``"always"`` (a formula), ``"serial"``
    (a large composite: a follower frame, a vehicle in a world; called by called builds and by
    numba's own parallel builds of reductions) or ``"never"`` (a large kernel several kernels
    use, or on a rare path: compiled once, called). Called from Python, or from a kernel compiled
    by itself, it is called. Composites (``"serial"``, ``"never"``) are compiled without numba's
    reference counting, as batch loops (``BatchKernel``): such a kernel must not allocate an
    array; fast builds call their called build (``_CalledKernel``).
    """
    if inline not in _INLINE_CHOICES:
        raise ValueError(f"inline must be one of {_INLINE_CHOICES}, got {inline!r}")

    def decorate(inner: Callable[..., Any]) -> Any:
        options = {**_OPTIONS, "inline": _Inline(inline)}
        if inline == "always":
            dispatcher = numba.njit(**options)(inner)
            dispatcher.__class__ = _Kernel
        else:
            dispatcher = numba.njit(**options, _nrt=False)(inner)
            dispatcher.__class__ = _CalledKernel  # numba's dispatcher, with the called build
        dispatcher._cache = _Cache(inner)
        return dispatcher

    return decorate if function is None else decorate(function)


class BatchKernel:
    """A loop over agents with up to three builds from one source (module docstring).

    Calls with fewer than ``serial_limit`` agents (the size of the first argument, or of its
    first field when it is a record of arrays; default
    ``SERIAL_LIMIT``, ``HEAVY_SERIAL_LIMIT`` for composites) run on the calling thread: a
    parallel region costs tens of microseconds to start, and far more when the cores are busy (a
    game's own threads), which dwarfs a few hundred agents' work. So do calls while numba runs one
    thread (``numba.set_num_threads(1)``: a process per core, as benchmark workers are), where the
    parallel build only adds its scheduling (Algorithm 1's batch runs faster serial there). A
    composite's small batches run the quick build (kernels called, compiled in seconds), its
    large ones on one thread the serial build (kernels inlined). Each build compiles on first
    use. All run the same scalar kernels per agent, so they give the same bits.

    numba's runtime (NRT) reference-counts every array a kernel holds; an array passed to a
    scalar kernel is counted in and out once per agent (two atomic operations, each a memory
    barrier that stops the processor overlapping one agent's work with the next), and numba's
    pruning pass misses the pairs in branchy code (numba issue #2350). A batch loop only reads and
    writes arrays its caller owns, so it needs no counting: compiled without NRT (``_nrt=False``,
    numba's own switch) unless it allocates (``nrt=True``: a ``prange`` reduction does, for its
    per-thread partial results). Kernels it calls keep NRT or not as compiled and receive arrays
    without a count (NRT ignores those).
    """

    def __init__(
        self,
        function: Callable[..., Any],
        serial_limit: int = SERIAL_LIMIT,
        nrt: bool = False,
        composite: bool = False,
    ):
        self.py_func = function
        self.serial_limit = min(serial_limit, HEAVY_SERIAL_LIMIT) if composite else serial_limit
        options = dict(_OPTIONS)
        if not nrt:
            options["_nrt"] = False
        self.quick = _build(function, "quick", **options) if composite else None
        self._serial_cached: bool | None = None  # the serial build in numba's cache (probed once)
        self._serial_for: dict[tuple, bool] = {}  # per argument key: the serial build is ready
        ranged = None if nrt else _ranged(function)
        if ranged is None:
            self.range = None
            self.serial = _build(function, "serial", **options)
            self.parallel = _build(function, "parallel", parallel=True, **options)
        else:
            # one compiled loop body, the serial build's, for both (``_ranged``)
            self.range = _build(ranged.range, "serial", **options)
            callee = f"{function.__name__}__range"
            self.serial = _build(_calling(ranged.serial, callee, self.range), "serial", **options)
            chunked = _calling(ranged.chunks, callee, self.range)
            self.parallel = _build(chunked, "parallel", parallel=True, **options)
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        self.__module__ = function.__module__

    def build_for(self, size: int) -> Any:
        """The build that runs a batch of ``size`` agents with numba's current thread count:
        for a composite's small batches, the quick build until the serial one is compiled (in
        this process, or found in numba's on-disk cache at the first call)."""
        # the module's SERIAL_LIMIT also bounds a kernel's own (tests set it to 0 to force the
        # parallel build, whatever the number of threads)
        limit = min(self.serial_limit, SERIAL_LIMIT)
        if limit <= 0:
            return self.parallel
        if size < limit:
            if self.quick is None or self._serial_cached or self.serial.overloads:
                return self.serial
            return self.quick
        return self.serial if numba.get_num_threads() == 1 else self.parallel

    def __call__(self, *args):
        size = _batch_size(args[0])
        build = self.build_for(size)
        if self.quick is not None and build is not self.parallel:
            # a composite: its small batches take the serial build only where it is compiled (or
            # cached) for these argument types: a new pattern of per-agent records would
            # otherwise compile the slow, fully inlined build first. Keyed by the arguments'
            # pattern (``_pattern``: cheaper than numba's typing of every record field; records
            # built afresh each frame find their key again).
            key = tuple(_pattern(a) for a in args)
            if build is self.serial and size >= min(self.serial_limit, SERIAL_LIMIT):
                self._serial_for[key] = True  # compiled (now, if not before) for these types
            else:
                ready = self._serial_for.get(key)
                if ready is None:
                    ready = self._serial_for[key] = _load_cached(self.serial, args)
                build = self.serial if ready else self.quick
        return build(*args)

    def __repr__(self) -> str:
        return f"BatchKernel({self.__module__}.{self.__qualname__})"


def _pattern(value: Any) -> Any:
    """What numba's type of ``value`` depends on, for a batch loop's argument: an array's dtype,
    dimensions, layout and writability; a record's class and its fields' patterns (remembered
    per record object, ``_record_pattern``: a composite's parameter records are the same objects
    at every frame); else the Python type. Only the choice of build reads the pattern
    (``BatchKernel``): were an array's writability changed since, numba's dispatch still types
    the call itself."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (value.dtype, value.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable)
    if isinstance(value, tuple):
        return _record_pattern(value)
    return type(value)


_record_pattern = RecordMemo(lambda record: (type(record), *(_pattern(f) for f in record)))


def _batch_size(first: Any) -> int:
    """The number of agents of a batch loop: the size of its first argument, an array or a record
    of arrays (its first field's)."""
    if isinstance(first, tuple) and first:
        first = first[0]
    return getattr(first, "size", 0)


@intrinsic
def _chunk_index(typingctx, first, k):
    """``first + k`` for a range build's agent index (``_ranged``), with what the loop knows told to
    LLVM: ``first >= 0`` and no overflow. numba wraps a negative index around at every array
    access (a select); a loop from 0 lets LLVM prove the index non-negative and drop it, then
    vectorise; a loop from an unknown start does not (an engine's formula runs unvectorised)."""
    if not (first == numba.types.int64 and isinstance(k, numba.types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        start = args[0]
        step = context.cast(builder, args[1], signature.args[1], numba.types.int64)
        assume = cgutils.get_or_insert_function(
            builder.module,
            llvmir.FunctionType(llvmir.VoidType(), [llvmir.IntType(1)]),
            "llvm.assume",
        )
        builder.call(assume, [builder.icmp_signed(">=", start, start.type(0))])
        builder.call(assume, [builder.icmp_signed(">=", step, step.type(0))])
        return builder.add(start, step, flags=["nsw", "nuw"])

    return numba.types.int64(first, k), codegen


_CHUNK_INDEX = "_steerlab_chunk_index"  # ``_chunk_index``'s name in a range build's module


class _Ranged(NamedTuple):
    """A batch loop rewritten over a range of its agents (``_ranged``)."""

    range: Callable[..., Any]  # the loop over agents [first, stop): (first, stop, *arguments)
    serial: Callable[..., Any]  # (*arguments): the range function over every agent
    chunks: Callable[..., Any]  # (*arguments): prange over chunks, each the range function


def _ranged(function: Callable[..., Any]) -> _Ranged | None:
    """The loop ``function`` rewritten over a range of its agents, for the serial and parallel
    builds to share one compiled loop body (``BatchKernel``): its ``prange`` over all agents
    becomes a ``range`` over agents ``[first, stop)``, two arguments put first; the serial
    function calls it over every agent, the chunks function in ``prange`` over at most
    ``PARALLEL_CHUNKS`` contiguous chunks (numba gives each thread a block of them).

    numba's parfor passes then see a call, not the whole inlined loop body: a parallel build
    compiles in seconds where the inlined body took up to minutes (a navigator's per-agent
    pattern, a composite), and each thread runs the serial build's code; the agents are
    independent (a ``prange``'s iterations are), so every build gives the same bits. The
    function must end with its one ``for ... in numba.prange(size)`` loop; statements before it
    (reads of its arguments) run in each function. ``None`` (the function's own builds) for any
    other shape, or when a name of the function starts with ``chunk_`` (the written code's)."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
        filename = inspect.getsourcefile(function)
    except (OSError, TypeError):
        return None
    tree = ast.parse(source)
    ast.increment_lineno(tree, function.__code__.co_firstlineno - 1)
    definition = tree.body[0]
    if not isinstance(definition, ast.FunctionDef) or filename is None:
        return None
    loop = definition.body[-1]
    iterator = getattr(loop, "iter", None)
    if not (
        isinstance(loop, ast.For)
        and isinstance(iterator, ast.Call)
        and ast.unparse(iterator.func) == "numba.prange"
        and len(iterator.args) == 1
        and not iterator.keywords
        and not any(
            isinstance(node, ast.Call) and ast.unparse(node.func) == "numba.prange"
            for statement in definition.body[:-1] + loop.body
            for node in ast.walk(statement)
        )
    ):
        return None
    before = definition.body[:-1]
    if before and isinstance(before[0], ast.Expr) and isinstance(before[0].value, ast.Constant):
        before = before[1:]  # the docstring
    arguments = [argument.arg for argument in definition.args.args]
    names = {node.id for node in ast.walk(definition) if isinstance(node, ast.Name)}
    if any(name.startswith("chunk_") for name in [*arguments, *names]):
        return None
    name = function.__name__
    listed = ", ".join(arguments)
    ranged, serial, chunks = ast.parse(
        f"def {name}__range(chunk_first, chunk_stop, {listed}):\n"
        "    for chunk_k in range(chunk_stop - chunk_first):\n"
        f"        {ast.unparse(loop.target)} = {_CHUNK_INDEX}(chunk_first, chunk_k)\n"
        f"def {name}__serial({listed}):\n"
        f"    {name}__range(numba.int64(0), {ast.unparse(iterator.args[0])}, {listed})\n"
        f"def {name}__chunks({listed}):\n"
        f"    chunk_size = {ast.unparse(iterator.args[0])}\n"
        f"    chunk_count = min(chunk_size, {PARALLEL_CHUNKS})\n"
        "    for chunk_k in numba.prange(chunk_count):\n"
        "        chunk_first = chunk_k * chunk_size // chunk_count\n"
        "        chunk_stop = (chunk_k + 1) * chunk_size // chunk_count\n"
        f"        {name}__range(chunk_first, chunk_stop, {listed})\n"
    ).body
    for written in (ranged, serial, chunks):  # at the loop's own line (tracebacks, the cache)
        for node in ast.walk(written):
            if hasattr(node, "lineno"):
                node.lineno = node.end_lineno = definition.lineno
    ranged.body[0].body = [ranged.body[0].body[0], *loop.body]
    for written in (ranged, serial, chunks):
        written.body = [*before, *written.body]
    module = ast.Module(body=[ranged, serial, chunks], type_ignores=[])
    ast.fix_missing_locations(module)
    function.__globals__.setdefault(_CHUNK_INDEX, _chunk_index)
    namespace: dict[str, Any] = {}
    # each reads the module's globals, as the loop does; the module gains one name, the index's
    # (the range function's own is bound by BatchKernel in a copy of them, ``_calling``)
    exec(compile(module, filename, "exec"), function.__globals__, namespace)
    return _Ranged(*(namespace[f"{name}__{part}"] for part in _Ranged._fields))


def _calling(function: Callable[..., Any], name: str, callee: Any) -> Callable[..., Any]:
    """``function`` with the global ``name`` bound to ``callee``, in a copy of its globals."""
    scope = {**function.__globals__, name: callee}
    copy = types.FunctionType(function.__code__, scope, function.__name__)
    copy.__module__ = function.__module__
    copy.__qualname__ = function.__qualname__
    return copy


def batch_kernel(
    function: Callable[..., Any] | None = None,
    *,
    serial_limit: int = SERIAL_LIMIT,
    composite: bool = False,
    nrt: bool = False,
):
    """Compile a loop over agents (``numba.prange``), cached on disk; on the calling thread for
    small batches (fewer than ``serial_limit`` agents) and on one thread (``BatchKernel``).

    ``composite=True``: a loop over a costly composite (a follower frame, a vehicle in a world):
    batches under ``HEAVY_SERIAL_LIMIT`` run the quick build. Without numba's reference counting
    unless ``nrt=True`` (a loop that allocates, e.g. a ``prange`` reduction). The serial and
    parallel builds share one compiled loop body, the parallel build running it in chunks
    (``_ranged``), unless ``nrt=True`` (a reduction spans the chunks)."""

    def decorate(inner: Callable[..., Any]) -> BatchKernel:
        return BatchKernel(inner, serial_limit, nrt, composite)

    return decorate if function is None else decorate(function)


def _load_cached(dispatcher: Any, args: tuple) -> bool:
    """Load ``dispatcher``'s code for the types of ``args`` from numba's on-disk cache if it is
    there (without compiling); whether it is now loaded."""
    signature = tuple(dispatcher.typeof_pyval(value) for value in args)
    if signature in dispatcher.overloads:
        return True
    if dispatcher._cache.load_overload(signature, dispatcher.targetctx) is None:
        return False
    dispatcher.compile(signature)  # loads it again, into the dispatcher
    return True


def entry_point(function: Any, *args: Any) -> Callable[..., Any]:
    """The compiled code of kernel ``function`` for the types of ``args``, callable without
    numba's dispatch, which types every argument at every call (for a record of 26 fields,
    several times a vehicle's step); ``function`` itself when it is plain Python
    (``uncompiled``)."""
    if not isinstance(function, CPUDispatcher):
        return function
    return function.compile(tuple(numba.typeof(value) for value in args))


def cached_entry(cache: Any, function: Any, arguments: tuple) -> tuple[Any, Callable[..., Any]]:
    """``(function, entry_point(function, *arguments))``, or ``cache`` itself when it already
    holds ``function``'s: a scalar ``step`` keeps it between frames (its arguments' types never
    change) and calls the entry point without numba's dispatch. A module's kernel swapped for
    plain Python (``uncompiled``) is another ``function``, so the entry follows it."""
    if cache is None or cache[0] is not function:
        cache = (function, entry_point(function, *arguments))
    return cache


def run_entry(owner: Any, function: Any, arguments: tuple) -> Any:
    """``function(*arguments)`` through the entry point ``owner`` keeps in ``owner._entry``
    between frames (``cached_entry``): a scalar ``step``'s call of its kernel."""
    owner._entry = cached_entry(owner._entry, function, arguments)
    return owner._entry[1](*arguments)


def run_batch_entry(owner: Any, loop: Any, arguments: tuple) -> Any:
    """``loop(*arguments)`` for a batch loop whose arguments keep their types between calls (a
    navigator's records): the build ``loop`` picks for them (``BatchKernel.build_for``), through
    its compiled entry point kept in ``owner._batch_entry`` (``cached_entry``). numba's dispatch
    types every argument at every call, records of arrays in Python (microseconds: a small
    batch's whole work). A composite (its small batches' build chosen per call) and plain Python
    (``uncompiled``) are called as they are."""
    if not isinstance(loop, BatchKernel) or loop.quick is not None:
        return loop(*arguments)
    build = loop.build_for(_batch_size(arguments[0]))
    owner._batch_entry = cached_entry(owner._batch_entry, build, arguments)
    return owner._batch_entry[1](*arguments)


# --------------------------------------------------------------------------------------------------
# work shared between threads


@intrinsic
def fetch_add(typingctx, counter, value):
    """``counter[0] += value`` as one atomic operation, returning ``counter[0]`` before it
    (compiled code only; ``counter`` a 1-D int64 array). A ``prange`` loop over the threads in
    which each takes the next item from such a counter shares items of unequal cost evenly:
    numba's OpenMP layer gives each thread one contiguous block of a ``prange``'s iterations,
    whatever ``numba.parallel_chunksize`` says."""
    if not (
        isinstance(counter, numba.types.Array)
        and counter.ndim == 1
        and counter.dtype == numba.types.int64
        and isinstance(value, numba.types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        first = context.get_constant(numba.types.intp, 0)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [first])
        increment = context.cast(builder, args[1], signature.args[1], numba.types.int64)
        return builder.atomic_rmw("add", pointer, increment, "monotonic")

    return numba.types.int64(counter, value), codegen


# --------------------------------------------------------------------------------------------------
# plain Python


def pure_python(function: Any) -> Callable[..., Any]:
    """The plain-Python version of a compiled kernel, its callees plain Python too (numba's
    ``py_func`` run within ``uncompiled`` of every module it reaches). ``numba.prange`` runs as
    ``range`` in Python."""
    plain = _plain(function)

    def run(*args, **kwargs):
        with uncompiled(*_modules_reached(function)):
            return plain(*args, **kwargs)

    return run


@contextlib.contextmanager
def uncompiled(*modules: types.ModuleType) -> Iterator[None]:
    """Within the block, every kernel defined in ``modules``, or reached from one, runs as plain
    Python.

    Swaps each compiled kernel found in the modules' globals, and in those of the kernels they
    reach, for numba's ``py_func`` of it, and restores them on exit. Benchmarks use it to time a
    public method (``law.step_batch``) as a plain-Python loop of the same formula, in the same
    process. Not thread-safe.
    """
    saved = []
    reached: dict[str, types.ModuleType] = {}
    for module in modules:
        reached[module.__name__] = module
        for value in list(vars(module).values()):
            for other in _modules_reached(value):
                reached.setdefault(other.__name__, other)
    for module in reached.values():
        for name, value in list(vars(module).items()):
            if isinstance(value, CPUDispatcher | BatchKernel):
                saved.append((module, name, value))
                setattr(module, name, _plain(value))
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def _plain(function: Any) -> Any:
    return function.py_func if isinstance(function, CPUDispatcher | BatchKernel) else function


def _modules_reached(function: Any) -> list[types.ModuleType]:
    """The modules of the kernels ``function`` calls, directly or not (itself included)."""
    import sys

    found: dict[str, types.ModuleType] = {}
    seen: set[int] = set()
    pending = [function]
    while pending:
        current = pending.pop()
        if not isinstance(current, CPUDispatcher | BatchKernel) or id(current) in seen:
            continue
        seen.add(id(current))
        module = sys.modules.get(current.py_func.__module__)
        if module is not None:
            found.setdefault(module.__name__, module)
        namespace = current.py_func.__globals__
        names = current.py_func.__code__.co_names
        pending.extend(namespace[name] for name in names if name in namespace)
    return list(found.values())
