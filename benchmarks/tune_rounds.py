"""Benchmark ``steerlab tune``'s rounds: wall time per evaluated candidate against ``batch``.

``tune_vehicle`` on ``train_generated`` (its first ``--paths`` paths, the suite's seeds), one
process (``workers=1``: each round is one ``run_batch`` call of all its candidates' trials), a
fresh study of ``--trials`` candidates per run (a multiple of every batch size, so that every
round is full), for each batch size of ``--batches``. The sides run in turn (``harness.alternate``,
``--repeats`` times, after one untimed run of each that pays for compilation); the best run of
each side is reported: wall seconds per candidate for the whole study (Optuna's asks and tells
and its SQLite storage included) and for its evaluations alone (the runner's calls, through a
wrapper of ``tune._evaluate``).

Run: ``.venv/bin/python benchmarks/tune_rounds.py [--quick]`` from the repository's root (needs
the ``tune`` extra: Optuna).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence

import harness
from steerlab.experiments.benchmark import tune
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import trials

SUITE = "train_generated"
VEHICLE = "storm"


def one_study(paths: list[str], trials: int, batch: int) -> tuple[float, float]:
    """``(wall seconds of the study, wall seconds of its evaluations)`` of a fresh study."""
    spent = []
    evaluate = tune._evaluate

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return evaluate(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - start)

    tune._evaluate = timed
    try:
        with tempfile.TemporaryDirectory(prefix="steerlab-bench-tune-") as folder:
            start = time.perf_counter()
            tune.tune_vehicle(
                VEHICLE, trials, folder, suite=SUITE, paths=paths, workers=1, batch=batch
            )
            return time.perf_counter() - start, sum(spent)
    finally:
        tune._evaluate = evaluate


def main(argv: Sequence[str] | None = None) -> list[tuple]:
    arguments = harness.parse_arguments(
        __doc__.splitlines()[0],
        argv,
        paths=(int, (4, 2), "paths of train_generated per evaluation"),
        trials=(int, (16, 2), "candidates per study (a multiple of every batch size)"),
        batches=(str, ("1,4,8", "1,2"), "batch sizes, comma-separated"),
        repeats=(int, (3, 1), "timed runs of each batch size"),
    )
    batches = [int(text) for text in arguments.batches.split(",")]
    bad = [batch for batch in batches if arguments.trials % batch]
    if bad:
        raise SystemExit(f"--trials {arguments.trials} is not a multiple of batch sizes {bad}")
    paths = list(load_suite(SUITE).path_names[: arguments.paths])
    sides = [lambda batch=batch: one_study(paths, arguments.trials, batch) for batch in batches]
    for side in sides:  # untimed: compilation, the suite, the worlds
        side()
    samples = harness.alternate(sides, arguments.repeats, swap=True)
    table = []
    for batch, runs in zip(batches, samples, strict=True):
        total, evaluations = min(runs)
        table.append((batch, total / arguments.trials, evaluations / arguments.trials))
    specs = trials(SUITE, vehicles=[VEHICLE], followers=["ours_tuned"])
    trials_per_candidate = sum(spec.path in paths for spec in specs)
    print(f"# steerlab tune: time per candidate against batch\n\n{harness.machine_line()}\n")
    print(
        f"{SUITE}, {len(paths)} paths ({trials_per_candidate} trials per candidate), "
        f"{arguments.trials} candidates per study, workers=1; best of {arguments.repeats}\n"
    )
    header = ("batch", "s per candidate (study)", "s per candidate (evaluations)", "speed-up")
    first = table[0][1]
    rows = [
        (batch, f"{total:.3f}", f"{evaluations:.3f}", f"{first / total:.2f}")
        for batch, total, evaluations in table
    ]
    print(harness.markdown_table(header, rows))
    return table


if __name__ == "__main__":
    main()
