"""Where a trial's frame spends its time: table1's batch on one numba thread, with a perf map
naming the compiled kernels, so that a sampling profiler attributes its samples to them.

numba's machine code lives in anonymous memory, so ``perf`` shows its samples as bare addresses.
This script runs ``benchmarks/trials.py``'s table1 mix through ``run_batch`` on one thread
(``--runs`` times), then writes ``/tmp/perf-<pid>.map`` (perf's JIT interface: one ``START SIZE
name`` line per function), naming every function of the loop's compiled code: the kernels
compiled as functions of their own (``_drive_trial`` with the observer and the records inlined,
``_follow``, ``_vehicle_world_frame``, the walls' ``_sweep``...). The names and offsets come
from the object code numba loads from its cache, kept as it loads (the hook below, installed
before steerlab is imported); a kernel LLVM inlined has no function of its own and its samples
count in its caller's.

Run from the repository's root (any steerlab cache, warm)::

    perf record -F 1999 -o /tmp/trials.perf .venv/bin/python benchmarks/trials_profile.py
    perf report -i /tmp/trials.perf --no-children --sort dso,sym

``--quick`` runs a few trials once (smoke tests).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Sequence

from numba.core import codegen

_objects: dict[int, bytes] = {}  # id(code library) -> the object code numba loaded for it
_set_compiled_object = codegen.CPUCodeLibrary._set_compiled_object


def _keep_object(library, value):
    _objects[id(library)] = value
    return _set_compiled_object(library, value)


codegen.CPUCodeLibrary._set_compiled_object = _keep_object

import harness  # noqa: E402  (after the hook: it imports steerlab)
from steerlab.trials import batch  # noqa: E402
from steerlab.trials.trial import trials  # noqa: E402
from trials import FOLLOWERS  # noqa: E402


def readable(symbol: str) -> str:
    """A numba symbol's dotted name (``_ZN8steerlab6trials5batch12_drive_trialB4v136...`` ->
    ``steerlab.trials.batch._drive_trial``), its wrappers marked; other symbols as they are."""
    prefix, _, mangled = symbol.rpartition(".") if symbol.startswith("cfunc.") else ("", "", symbol)
    if not mangled.startswith("_ZN"):
        return symbol
    parts, rest = [], mangled[3:]
    while rest[:1].isdigit():
        digits = len(rest) - len(rest.lstrip("0123456789"))
        size = int(rest[:digits])
        parts.append(rest[digits : digits + size])
        rest = rest[digits + size :]
    wrapper = " (cpython wrapper)" if parts[:1] == ["cpython"] else ""
    name = ".".join(parts[1:] if wrapper else parts)
    return f"{name}{wrapper}{' (' + prefix + ')' if prefix else ''}"


def functions(library) -> list[tuple[int, int, str]]:
    """``(address, size, name)`` of every function in a code library's object code (``nm``'s
    defined text symbols, placed by the one global symbol numba can look up): empty if the code
    was not loaded after the hook."""
    code = _objects.get(id(library))
    if code is None:
        return []
    with tempfile.NamedTemporaryFile(suffix=".o") as handle:
        handle.write(code)
        handle.flush()
        listed = subprocess.run(
            ["nm", "-S", "--defined-only", handle.name], capture_output=True, text=True, check=True
        ).stdout
    symbols = [line.split() for line in listed.splitlines()]
    symbols = [fields for fields in symbols if len(fields) == 4 and fields[2] in "tTwW"]
    base = None
    for value, _, kind, name in symbols:
        if kind == "T":
            base = library.get_pointer_to_function(name) - int(value, 16)
            break
    if base is None:
        return []
    return [(base + int(value, 16), int(size, 16), name) for value, size, _, name in symbols]


def main(argv: Sequence[str] | None = None) -> list[tuple[int, int, str]]:
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0], argv, runs=(int, (5, 1), "timed runs of the batch")
    )
    specs = trials("table1", followers=FOLLOWERS, seeds=2)
    if arguments.quick:
        specs = specs[:: max(1, len(specs) // 8)]
    batch.run_batch(specs[:8], threads=1)  # the serial build, loaded (or compiled) now
    for _ in range(arguments.runs):
        start = time.perf_counter()
        rows = batch.run_batch(specs, threads=1)
        wall = time.perf_counter() - start
        frames = sum(row["frames"] for row in rows)
        harness.progress_printer(
            f"{len(specs) / wall:.0f} trials/s, {wall / frames * 1e9:.0f} ns per frame (1 thread)"
        )
    found = []
    for build in (batch._drive_trials.range, batch._drive_trials.serial):
        for result in build.overloads.values():
            found.extend(functions(result.library))
    found = sorted(set(found))
    path = f"/tmp/perf-{os.getpid()}.map"
    with open(path, "w") as handle:
        for address, size, name in found:
            handle.write(f"{address:x} {size:x} {readable(name)}\n")
    print(f"{len(found)} functions named in {path}")
    return found


if __name__ == "__main__":
    main()
