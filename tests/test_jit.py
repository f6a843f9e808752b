"""steerlab._jit: every build of a batch loop gives the scalar kernel's bits; plain Python runs
numba's own ``py_func``; ``steerlab warmup`` compiles ahead and a second run finds the cache
full."""

import math
import multiprocessing
import os
import subprocess
import sys
from typing import Any, NamedTuple

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import steerlab
import steerlab._jit
from steerlab._jit import (
    HEAVY_SERIAL_LIMIT,
    BatchKernel,
    _pattern,
    batch_kernel,
    fetch_add,
    kernel,
    pure_python,
    uncompiled,
)
from steerlab.engines import AgentBatch, BaseEngine
from steerlab.engines import base as base_module
from steerlab.geometry import kernels as geometry_kernels


@kernel
def _spiral_leg(x, y, turn):
    """A formula: the point ``(x, y)`` turned by ``turn`` about the origin and pushed out 1 %."""
    sin_turn, cos_turn = math.sin(turn), math.cos(turn)
    return 1.01 * (x * cos_turn - y * sin_turn), 1.01 * (x * sin_turn + y * cos_turn)


@kernel(inline="serial")
def _spiral(x, y, turn, legs):
    """A composite: ``legs`` legs of ``_spiral_leg``, then the distance to the origin."""
    for _ in range(legs):
        x, y = _spiral_leg(x, y, turn)
    return x, y, math.hypot(x, y)


@batch_kernel(composite=True)
def _spiral_batch(x, y, turn, legs, out_radius):
    for i in numba.prange(x.size):
        x[i], y[i], out_radius[i] = _spiral(x[i], y[i], turn[i], legs)


@batch_kernel
def _taken_by_lanes(owner, lanes, counter):
    """Each of ``lanes`` takes the next item from ``counter`` until none is left; ``owner[i]``
    the lane that took item ``i``; items of unequal cost (item ``i`` sums ``i`` terms)."""
    for lane in numba.prange(lanes):
        while True:
            i = fetch_add(counter, 1)
            if i >= owner.size:
                break
            total = 0.0
            for k in range(i * 200):
                total += math.sqrt(k)
            owner[i] = lane if total >= 0.0 else -2


def test_fetch_add_hands_each_item_to_exactly_one_lane(monkeypatch):
    monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the parallel build
    for lanes in (1, 2, 7):
        owner = np.full(500, -1, dtype=np.int64)
        counter = np.zeros(1, dtype=np.int64)
        _taken_by_lanes(owner, lanes, counter)
        assert ((owner >= 0) & (owner < lanes)).all()  # every item taken, by a lane
        # each lane read the counter once past the end: every increment counted once
        assert counter[0] == owner.size + lanes


def test_kernel_rejects_an_unknown_inline_choice():
    with pytest.raises(ValueError, match="inline must be one of"):
        kernel(inline="sometimes")


def test_a_composite_picks_its_build_by_batch_size_and_threads(monkeypatch):
    loop = BatchKernel(_spiral_batch.py_func, composite=True)  # no build loaded yet
    size = HEAVY_SERIAL_LIMIT
    assert loop.build_for(size - 1) is loop.quick
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)
    assert loop.build_for(size) is loop.serial
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    assert loop.build_for(size) is loop.parallel
    # once the serial build is compiled (or loaded from the cache), small batches run it too
    x = np.ones(3)
    loop.serial(x, x.copy(), x.copy(), 2, np.empty(3))
    assert loop.build_for(size - 1) is loop.serial
    monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the tests' switch to the prange build
    assert loop.build_for(1) is loop.parallel


def test_a_batch_is_sized_by_its_first_argument_or_that_record_s_first_field(monkeypatch):
    """A batch loop's first argument is an array, or a record of arrays (the agents' state): its
    size picks the build."""
    loop = BatchKernel(_spiral_batch.py_func)
    sizes = []
    monkeypatch.setattr(loop, "build_for", lambda size: sizes.append(size) or (lambda *_: None))
    loop(np.zeros(5))
    loop(AgentBatch.zeros(7).record())
    assert sizes == [5, 7]


def test_a_composite_runs_its_serial_build_once_cached(tmp_path):
    """A new process finds the serial build in the cache and runs it for small batches."""
    script = (
        "import numpy as np, test_jit as t\n"
        "x = np.ones(3)\n"
        "t._spiral_batch(x, x.copy(), x.copy(), 2, np.empty(3))\n"
        "print(bool(t._spiral_batch.quick.overloads), bool(t._spiral_batch.serial.overloads))\n"
    )
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    environment["PYTHONPATH"] = os.pathsep.join(
        (os.path.dirname(__file__), os.path.dirname(os.path.dirname(steerlab.__file__)))
    )

    def run(code):
        done = subprocess.run(
            [sys.executable, "-c", code], env=environment, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run(script) == ["True", "False"]  # cold: the quick build
    run(
        "import numpy as np, test_jit as t\nx = np.ones(3)\n"
        "t._spiral_batch.serial(x, x.copy(), x.copy(), 2, np.empty(3))\n"
    )
    assert run(script) == ["False", "True"]  # the serial build, loaded from the cache


def _printed_in_fresh_process(script: str, cache) -> list[str]:
    """The words ``script`` prints, run in a new process with numba's cache in ``cache`` (this
    folder importable, so it can import ``test_jit``)."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    environment["PYTHONPATH"] = os.pathsep.join(
        (os.path.dirname(__file__), os.path.dirname(os.path.dirname(steerlab.__file__)))
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_serial_and_parallel_builds_share_one_compiled_loop_with_the_formulas_inlined(
    tmp_path,
):
    """The scalar step calls the formula (its linked build), as the quick build calls the
    composite's linked build; the parallel build runs the loop's range build in chunks, compiled
    on that first need with the composite and its formula inlined (no called build of the
    composite compiled; numba's IR: whether it names the formula), and the serial build runs the
    same compiled range build (no second compile)."""
    script = (
        "import numpy as np, test_jit as t\n"
        "x = np.ones(3)\n"
        "t._spiral(1.0, 2.0, 0.5, 3)\n"
        "t._spiral_batch.quick(x, x.copy(), x.copy(), 2, np.empty(3))\n"
        "print(len(t._spiral_batch.range.overloads))\n"
        "t._spiral_batch.parallel(x, x.copy(), x.copy(), 2, np.empty(3))\n"
        "print(len(t._spiral_batch.range.overloads))\n"
        "t._spiral_batch.serial(x, x.copy(), x.copy(), 2, np.empty(3))\n"
        "print(len(t._spiral_batch.range.overloads))\n"
        "called = t._spiral.__dict__.get('_steerlab_called')\n"
        "print(0 if called is None else len(called.overloads))\n"
        "for build in (t._spiral, t._spiral_batch.range):\n"
        "    print('_spiral_leg' in ''.join(build.inspect_llvm().values()))\n"
    )
    printed = _printed_in_fresh_process(script, tmp_path)
    assert printed == ["0", "1", "1", "0", "True", "False"]


@batch_kernel
def _count_visits(visits, out_index):
    """Each agent's count of visits, and the index the loop's own variable held for it (in a
    range build, the chunk's first agent plus the step)."""
    for i in numba.prange(visits.size):
        visits[i] += 1
        out_index[i] = i


@pytest.mark.parametrize("size", [0, 1, 2, 255, 256, 257, 1_000, 70_001])
def test_the_parallel_build_visits_every_agent_once_whatever_the_chunks(size, monkeypatch):
    """``PARALLEL_CHUNKS`` chunks (fewer for fewer agents) cover agents ``0..size-1`` exactly
    once each, each agent seeing its own index."""
    monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the parallel build
    visits = np.zeros(size, dtype=np.int64)
    index = np.full(size, -1, dtype=np.int64)
    _count_visits(visits, index)
    assert (visits == 1).all()
    assert (index == np.arange(size)).all()


def _written_after(x, out):
    for i in numba.prange(x.size):
        out[i] = x[i]
    out[0] = 0.0


def _two_loops(x, out):
    for i in numba.prange(x.size):
        out[i] = x[i]
    for i in numba.prange(x.size):
        out[i] += x[i]


def test_only_a_loop_that_ends_with_its_one_prange_is_run_in_chunks():
    """A loop that writes after its ``prange`` or has two keeps numba's own parallel build of the
    whole function; so does a loop of the right shape compiled with ``nrt=True`` (a reduction's
    partial results)."""
    assert BatchKernel(_count_visits.py_func).range is not None
    for function in (_written_after, _two_loops):
        loop = BatchKernel(function)
        assert loop.range is None and loop.parallel.py_func is function
    loop = BatchKernel(_count_visits.py_func, nrt=True)
    assert loop.range is None and loop.parallel.py_func is _count_visits.py_func


def test_kernels_named_in_a_kernel_are_linked_not_compiled_by_themselves(tmp_path):
    """A kernel called from Python compiles the kernels it names as linked builds only (no
    machine code, no wrappers of their own): the formula's own dispatcher stays empty until
    Python calls it, and then gives the bits the composite computed with it."""
    script = (
        "import math, test_jit as t\n"
        "x, y, radius = t._spiral(1.0, 2.0, 0.5, 1)\n"
        "print(len(t._spiral_leg.overloads), len(t._spiral_leg._steerlab_linked.overloads))\n"
        "lx, ly = t._spiral_leg(1.0, 2.0, 0.5)\n"
        "print((lx, ly, math.hypot(lx, ly)) == (x, y, radius), len(t._spiral_leg.overloads))\n"
    )
    assert _printed_in_fresh_process(script, tmp_path) == ["0", "1", "True", "1"]


FIELDS = ("x", "y", "vx", "vy", "yaw")
finite = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.tuples(finite, finite, st.floats(-math.pi, math.pi)), min_size=1, max_size=40),
    st.integers(0, 12),
)
def test_every_build_gives_the_scalar_bits(points, legs):
    """quick, serial (the composite inlined) and parallel (called) builds: each agent's result
    equals the scalar kernel called from Python, bit for bit."""
    x, y, turn = (np.array(column) for column in zip(*points, strict=True))
    expected = [_spiral(x[i], y[i], turn[i], legs) for i in range(x.size)]
    for build in (_spiral_batch.quick, _spiral_batch.serial, _spiral_batch.parallel):
        bx, by, radius = x.copy(), y.copy(), np.empty(x.size)
        build(bx, by, turn, legs, radius)
        got = list(zip(bx.tolist(), by.tolist(), radius.tolist(), strict=True))
        assert got == expected, build


def test_serial_and_parallel_engine_builds_agree_bit_for_bit(monkeypatch):
    """A formula's loop forced to each build (SERIAL_LIMIT 0: the prange build)."""
    rng = np.random.default_rng(3)
    size = 2_000
    batch = AgentBatch(*(rng.uniform(-100.0, 100.0, size) for _ in range(5)))
    yaw, speed = rng.uniform(-math.pi, math.pi, size), rng.uniform(0.0, 50.0, size)
    results = []
    for limit in (steerlab._jit.SERIAL_LIMIT, 0):
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", limit)
        copy = AgentBatch(*(getattr(batch, name).copy() for name in FIELDS))
        BaseEngine().step_batch(copy, yaw, speed, 0.02)
        results.append([getattr(copy, name).tolist() for name in FIELDS])
    assert results[0] == results[1]


def test_uncompiled_runs_numbas_own_python_functions():
    compiled_step = base_module._base_engine_step
    compiled_loop = base_module._base_engine_batch
    compiled_wrap = geometry_kernels.wrap_pi
    with uncompiled(base_module):
        assert base_module._base_engine_step is compiled_step.py_func
        assert base_module._base_engine_batch is compiled_loop.py_func
        # reached through a kernel of the module: swapped in its own module too
        assert geometry_kernels.wrap_pi is compiled_wrap.py_func
    assert base_module._base_engine_batch is compiled_loop
    assert geometry_kernels.wrap_pi is compiled_wrap


def test_pure_python_gives_the_compiled_bits():
    x, y, turn = np.array([3.0, -2.0]), np.array([1.0, 0.5]), np.array([0.3, -1.2])
    compiled = [x.copy(), y.copy(), np.empty(2)]
    plain = [x.copy(), y.copy(), np.empty(2)]
    _spiral_batch(compiled[0], compiled[1], turn, 7, compiled[2])
    pure_python(_spiral_batch)(plain[0], plain[1], turn, 7, plain[2])
    for got, expected in zip(plain, compiled, strict=True):
        assert got.tolist() == expected.tolist()


def _warmup(cache: str) -> subprocess.Popen:
    environment = {**os.environ, "NUMBA_CACHE_DIR": cache}
    source = os.path.dirname(os.path.dirname(steerlab.__file__))
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, (source, environment.get("PYTHONPATH")))
    )
    command = [sys.executable, "-c", "from steerlab.cli import main; main()", "warmup", "--quick"]
    return subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_warmup_twice_at_once_then_everything_is_cached(tmp_path):
    first, second = _warmup(str(tmp_path)), _warmup(str(tmp_path))
    outputs = [run.communicate(timeout=900)[0] for run in (first, second)]
    assert [run.returncode for run in (first, second)] == [0, 0], outputs
    # one of the two compiled, the other waited for it and found the cache full
    assert sum("0 builds compiled now" in output for output in outputs) >= 1, outputs
    third = _warmup(str(tmp_path))
    output = third.communicate(timeout=900)[0]
    assert third.returncode == 0 and "every kernel compiled: 0 builds compiled now" in output


class _Pair(NamedTuple):
    first: Any
    second: Any


_ARRAYS = {
    "float C": lambda: np.zeros(4),
    "float read-only": lambda: _frozen(),
    "int C": lambda: np.zeros(4, dtype=np.int64),
    "float 2-D": lambda: np.zeros((2, 2)),
    "float strided": lambda: np.zeros(8)[::2],
    "float F 2-D": lambda: np.zeros((2, 3), order="F"),
}


def _frozen():
    array = np.zeros(4)
    array.setflags(write=False)
    return array


_leaf = st.sampled_from(sorted(_ARRAYS)).map(lambda kind: _ARRAYS[kind]()) | st.sampled_from(
    [1.0, 2]
)
_records = st.recursive(_leaf, lambda inner: st.builds(_Pair, inner, inner), max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(_records, min_size=2, max_size=6))
def test_equal_patterns_are_equal_numba_types_asked_any_number_of_times(values):
    """``_pattern`` keys a composite's builds by what numba's type of an argument depends on:
    two arguments have the same pattern exactly when numba types them alike, also when a record's
    pattern is answered from memory (asked twice) and for records built afresh alike."""
    for _ in range(2):
        for a in values:
            for b in values:
                assert (_pattern(a) == _pattern(b)) == (numba.typeof(a) == numba.typeof(b))


def _save_entries(folder: str, worker: int, count: int, cache_file: str) -> None:
    cache = getattr(steerlab._jit, cache_file)(folder, "f", "stamp")
    for k in range(count):
        cache.save((worker, k), (worker, k))


def _saved_at_once(folder, cache_file: str = "_IndexDataFile") -> dict:
    """Four processes save 40 entries each into one cache index at once; the entries found."""
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_save_entries, args=(str(folder), worker, 40, cache_file))
        for worker in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
        assert worker.exitcode == 0
    cache = steerlab._jit._IndexDataFile(str(folder), "f", "stamp")
    return {key: cache.load(key) for key in cache._load_index()}


def test_processes_saving_to_one_cache_at_once_keep_every_entry_with_its_own_code(tmp_path):
    """numba's cache files (an index naming numbered data files), written by several processes
    at once, as test and benchmark workers do: every entry is kept and names its own data."""
    found = _saved_at_once(tmp_path)
    assert sorted(found) == [(worker, k) for worker in range(4) for k in range(40)]
    assert all(data == key for key, data in found.items())
