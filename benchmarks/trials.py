"""Benchmark trials per second: ``run_batch`` (every trial's frame loop compiled, in one batch)
against ``run_trial`` (the Python loop) one by one, in the same process, warm.

Suites: ``table1`` (its 10 paths x the 6 presets x the 4 default followers baseline, ours,
stanley, regulated_pure_pursuit, x ``--seeds`` seeds) and ``generated`` (its paths x the same, one
seed). ``run_trial`` runs a sample of each suite's trials (``--sample``, spread over the list:
every path, vehicle and follower), so its rate is per trial of the same mix. Both sides are
warmed up first (numba's cache, the suites, the worlds). The batch is timed once per thread
count (one numba thread, every thread), after an untimed run; the figures count trials and
simulated frames per second of wall time, and the batch's CPU time per frame (this process's).

Target: ``run_batch`` >= 1,000 trials/s on 2 cores for table1's mix.

Run: ``.venv/bin/python benchmarks/trials.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numba

import harness
from steerlab.trials.batch import run_batch
from steerlab.trials.trial import run_trial, trials

FOLLOWERS = ("baseline", "ours", "stanley", "regulated_pure_pursuit")


def suite_specs(suite: str, seeds: int) -> list:
    return trials(suite, followers=FOLLOWERS, seeds=seeds)


def one_by_one(specs: list, sample: int) -> tuple[float, int, int]:
    """``(seconds, frames, trials)`` of ``run_trial`` over ``sample`` specs spread over the list."""
    step = max(1, len(specs) // sample)
    chosen = specs[::step][:sample]
    run_trial(chosen[0])  # warm
    start = time.perf_counter()
    frames = sum(run_trial(spec)["frames"] for spec in chosen)
    return time.perf_counter() - start, frames, len(chosen)


def batched(specs: list, threads: int) -> tuple[float, float, int]:
    """``(wall seconds, cpu seconds, frames)`` of ``run_batch`` over every spec."""
    run_batch(specs[:8], threads=threads)  # warm: the builds for this thread count
    wall, cpu = time.perf_counter(), harness.cpu_seconds()
    rows = run_batch(specs, threads=threads)
    return time.perf_counter() - wall, harness.cpu_seconds() - cpu, sum(r["frames"] for r in rows)


def main(argv: Sequence[str] | None = None) -> list[tuple]:
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0],
        argv,
        seeds=(int, (3, 1), "table1 seeds"),
        sample=(int, (24, 4), "trials run one by one per suite"),
    )
    table = []
    for suite, seeds in (("table1", arguments.seeds), ("generated", 1)):
        specs = suite_specs(suite, seeds)
        if arguments.quick:
            specs = specs[:: max(1, len(specs) // 24)]
        harness.progress_printer(f"{suite}: {len(specs)} trials")
        seconds, frames, count = one_by_one(specs, arguments.sample)
        table.append(
            (suite, "run_trial, one by one", count, 1, count / seconds, frames / seconds, "")
        )
        for threads in harness.thread_counts():
            wall, cpu, frames = batched(specs, threads)
            table.append(
                (
                    suite,
                    "run_batch",
                    len(specs),
                    threads,
                    len(specs) / wall,
                    frames / wall,
                    f"{cpu / frames * 1e9:.0f} ns",
                )
            )
    header = ("suite", "method", "trials", "threads", "trials/s", "frames/s", "cpu per frame")
    rows = [
        (suite, method, f"{count:,}", threads, f"{rate:,.0f}", f"{frame_rate:,.0f}", cpu)
        for suite, method, count, threads, rate, frame_rate, cpu in table
    ]
    print(f"# Trials per second\n\n{harness.machine_line()}\n")
    print(f"numba threads available: {numba.config.NUMBA_NUM_THREADS}\n")
    print(harness.markdown_table(header, rows))
    return table


if __name__ == "__main__":
    main()
