"""The measuring code every speed benchmark of ``benchmarks/`` shares (never imported by steerlab).

One clock reading (``seconds``), one loop of repeats (``best_seconds``: the best run over a time
budget, after a warm-up run that pays for compilation and cold caches), rates from it
(``measure_rate``, ``measure_with_threads``), one loop alternating two or more timed sides
(``alternate``: the samples of each side, taken in turn, so that a shared machine's load falls on
all alike), and the plain-Python-vs-scalar-vs-batch comparison (``compare``): the same kernels
run as plain Python (``steerlab._jit.uncompiled``: every kernel from its own Python source, no
second copy of a formula), the scalar public ``step`` looped from Python, and ``step_batch`` at
each size on one numba thread (the per-core figure) and on every thread.

``machine`` says what a figure was measured on; ``markdown_table`` renders every table the
scripts print, ``render_speed`` the comparison's (a summary per case, then every measurement).
A script runs as ``.venv/bin/python benchmarks/X.py [--quick]`` from the repository's root
(``benchmarks/`` is then on ``sys.path``, so ``import harness`` finds this module); ``--quick``
takes tiny sizes and budgets, for smoke tests, not for figures.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import platform
import resource
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

import numba
import numpy as np

from steerlab._jit import uncompiled

__all__ = [
    "Comparison",
    "SpeedRow",
    "alternate",
    "best_seconds",
    "compare",
    "cpu_seconds",
    "machine",
    "machine_line",
    "markdown_table",
    "measure_rate",
    "measure_with_threads",
    "parse_arguments",
    "render_speed",
    "seconds",
    "summarize",
    "thread_counts",
]

Sample = TypeVar("Sample")


class SpeedRow(NamedTuple):
    """One measurement: ``count`` agents (or calls, moves...) per run, ``per_second`` of them."""

    case: str
    method: str  # "python" (kernels uncompiled), "step" (the scalar call looped), "step_batch"
    count: int
    threads: int
    per_second: float


def seconds(run: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """The time ``run()`` takes on ``clock`` (wall time unless told) [s]."""
    start = clock()
    run()
    return clock() - start


def cpu_seconds() -> float:
    """CPU time [s] of this process and of its finished (reaped) children: a ``clock``."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_seconds(
    run: Callable[[], object], budget: float = 0.3, repeats: int = 3, warm_up: bool = True
) -> float:
    """The best time of ``run()`` [s] over at least ``repeats`` runs filling about ``budget``
    seconds, after one untimed warm-up run (compilation, caches) unless ``warm_up`` is false."""
    if warm_up:
        run()
    best = math.inf
    spent = 0.0
    count = 0
    while spent < budget or count < repeats:
        elapsed = seconds(run)
        best = min(best, elapsed)
        spent += elapsed
        count += 1
    return best


def measure_rate(run: Callable[[], object], count: int, budget: float = 0.3) -> float:
    """``count`` (the agent-steps, calls... one run does) over ``run``'s best time [1/s]."""
    return count / best_seconds(run, budget)


def measure_with_threads(
    run: Callable[[], object], count: int, threads: int, budget: float = 0.3
) -> float:
    """``measure_rate`` with numba running ``threads`` threads (restored afterwards)."""
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return measure_rate(run, count, budget)
    finally:
        numba.set_num_threads(previous)


def thread_counts() -> list[int]:
    """One thread (the per-core figure) and every numba thread."""
    return sorted({1, numba.config.NUMBA_NUM_THREADS})


def alternate(
    sides: Sequence[Callable[[], Sample]], repeats: int, swap: bool = False
) -> list[list[Sample]]:
    """Each side's samples (whatever its call returns: usually its own timing), the sides called
    in turn ``repeats`` times; ``swap``: the order reversed every other round."""
    samples: list[list[Sample]] = [[] for _ in sides]
    order = list(range(len(sides)))
    for index in range(repeats):
        for side in reversed(order) if swap and index % 2 else order:
            samples[side].append(sides[side]())
    return samples


class Comparison(NamedTuple):
    """One case of the plain-Python-vs-scalar-vs-batch comparison (``compare``).

    ``python`` and ``scalar`` build, for a count, the run to time (``None``: not measured);
    ``batch`` builds the run for each of ``sizes``. ``modules`` are the modules whose kernels
    the plain-Python run executes uncompiled. Each builder is called once, before timing.
    """

    case: str
    batch: Callable[[int], Callable[[], object]]
    python: Callable[[int], Callable[[], object]] | None = None
    scalar: Callable[[int], Callable[[], object]] | None = None
    modules: Sequence[str] = ()


def import_modules(names: Iterable[str]) -> list[Any]:
    """The modules of these names (for ``steerlab._jit.uncompiled``)."""
    return [importlib.import_module(name) for name in names]


def compare(
    comparison: Comparison,
    sizes: Sequence[int],
    python_count: int,
    scalar_count: int,
    budget: float = 0.3,
    python_budget: float | None = None,
    scalar_budget: float | None = None,
    batch_budget: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedRow]:
    """Measure one case: plain Python (``python_count``), scalar (``scalar_count``), then the
    batch at every size on ``thread_counts()``; one ``SpeedRow`` per measurement. A budget not
    given per method is ``budget``."""
    say = progress or (lambda message: None)
    python_budget = budget if python_budget is None else python_budget
    scalar_budget = budget if scalar_budget is None else scalar_budget
    batch_budget = budget if batch_budget is None else batch_budget
    name = comparison.case
    rows: list[SpeedRow] = []
    if comparison.python is not None:
        say(f"{name}: plain Python")
        run = comparison.python(python_count)
        with uncompiled(*import_modules(comparison.modules)):
            rate = measure_rate(run, python_count, python_budget)
        rows.append(SpeedRow(name, "python", python_count, 1, rate))
    if comparison.scalar is not None:
        say(f"{name}: scalar step")
        run = comparison.scalar(scalar_count)
        rate = measure_rate(run, scalar_count, scalar_budget)
        rows.append(SpeedRow(name, "step", scalar_count, 1, rate))
    for size in sizes:
        run = comparison.batch(size)
        for threads in thread_counts():
            say(f"{name}: step_batch {size:,}, {threads} thread(s)")
            rate = measure_with_threads(run, size, threads, batch_budget)
            rows.append(SpeedRow(name, "step_batch", size, threads, rate))
    return rows


def summarize(rows: Sequence[SpeedRow]) -> list[dict[str, Any]]:
    """Per case: plain Python, scalar, batch per core (one thread) and on every thread (the most
    threads measured) at the largest size (NaN where not measured), and the ratio batch per core
    / plain Python."""
    summary = []
    for case in dict.fromkeys(row.case for row in rows):
        mine = [row for row in rows if row.case == case]
        python = next((row for row in mine if row.method == "python"), None)
        scalar = next((row for row in mine if row.method == "step"), None)
        batch = [row for row in mine if row.method == "step_batch"]
        largest = max(row.count for row in batch)
        at_largest = [row for row in batch if row.count == largest]
        per_core = next(row.per_second for row in at_largest if row.threads == 1)
        all_cores = max(at_largest, key=lambda row: row.threads).per_second
        ratio = math.nan if python is None else per_core / python.per_second
        summary.append(
            {
                "case": case,
                "python": math.nan if python is None else python.per_second,
                "python_count": 0 if python is None else python.count,
                "scalar": math.nan if scalar is None else scalar.per_second,
                "scalar_count": 0 if scalar is None else scalar.count,
                "batch_count": largest,
                "batch_per_core": per_core,
                "batch_all_cores": all_cores,
                "per_core_over_python": ratio,
            }
        )
    return summary


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def machine_line() -> str:
    """``machine()`` as one line of text."""
    return "Measured on: " + ", ".join(f"{key} {value}" for key, value in machine().items())


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table; the first column left-aligned, the others right-aligned."""
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:,.0f}"


def _duration(value: float) -> str:
    """``value`` [s] in us or ns."""
    return f"{value * 1e6:.2f} us" if value >= 1e-6 else f"{value * 1e9:.0f} ns"


def render_speed(rows: Sequence[SpeedRow], title: str, unit: str = "agent-steps") -> str:
    """The comparison as markdown: title, machine line, a summary per case, every measurement."""
    summary = markdown_table(
        (
            "case",
            "plain Python",
            "scalar",
            "batch per core",
            "batch all cores",
            "batch size",
            "batch per core / Python",
        ),
        (
            (
                entry["case"],
                _number(entry["python"]),
                _number(entry["scalar"]),
                _number(entry["batch_per_core"]),
                _number(entry["batch_all_cores"]),
                f"{entry['batch_count']:,}",
                "n/a"
                if math.isnan(entry["per_core_over_python"])
                else f"{entry['per_core_over_python']:,.0f}x",
            )
            for entry in summarize(rows)
        ),
    )
    detail = markdown_table(
        ("case", "method", "size", "threads", f"{unit}/s", "time each"),
        (
            (
                row.case,
                row.method,
                f"{row.count:,}",
                row.threads,
                f"{row.per_second:,.0f}",
                _duration(1.0 / row.per_second),
            )
            for row in rows
        ),
    )
    return f"# {title} ({unit} per second)\n\n{machine_line()}\n\n{summary}\n{detail}"


def parse_arguments(description: str, argv: Sequence[str] | None = None, **options: Any):
    """The script's arguments: ``--quick`` and ``options``, each ``name=(type, (full, quick),
    help)``: an option not given takes its full or quick default."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes and budgets: a smoke test, not figures"
    )
    for name, (kind, (full, quick), text) in options.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=kind,
            default=None,
            help=f"{text} (default {full}; --quick: {quick})",
        )
    arguments = parser.parse_args(argv)
    for name, (_, (full, quick), _) in options.items():
        if getattr(arguments, name) is None:
            setattr(arguments, name, quick if arguments.quick else full)
    return arguments


def progress_printer(message: str) -> None:
    """Progress lines, flushed (a long run shows where it is)."""
    print(message, flush=True)
