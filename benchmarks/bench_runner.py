"""The task runner (``steerlab.runner``) on a real steerlab workload: tasks per second with
1 worker (in this process) and with 2 worker processes, and their ratio (target: 2 workers
>= 1.8x faster than 1).

Each task drives one ``Vehicle(PRESETS["storm"])`` with a ``PathFollower`` along one path of
``follower.path_pool()`` (``benchmarks/follower.py``) for ``FRAMES`` frames of 0.02 s (scalar
``step`` calls, flat ground, no walls), spawned at the first waypoint heading along the first
leg, and returns where it ended, how far along the path, its mean speed and its stuck events.

Both runs are timed end to end as a user sees them: folder set-up, the pool's start (fork) and
shut-down, one fsynced row per task, the final rewrite. The kernels are compiled (or loaded from
numba's cache) in this process before timing, so the forked workers inherit them and neither run
pays for compilation. Each configuration runs ``--repeat`` times into a fresh folder and the best
time counts (the machine is shared: the best run is the one least disturbed); the two
configurations alternate, so that both see the same drift of the load. The result files must be
identical, which the script checks.

Run: ``.venv/bin/python benchmarks/bench_runner.py [--quick] [--tasks N] [--frames F]
[--repeat R]`` from the repository's root.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import harness
from steerlab.runner import RESULTS_FILE, Task, run_tasks

DT = 0.02  # [s]
FRAMES = 2_000
TASKS = 60
COLUMNS = {
    "path": int,
    "x": float,
    "y": float,
    "progress": float,
    "mean_speed": float,
    "stuck_events": int,
}


@functools.cache
def _paths():
    from follower import path_pool

    return path_pool()


def drive(payload: tuple[int, int]) -> dict:
    """One trial: the Storm follows path ``payload[0]`` for ``payload[1]`` frames."""
    from steerlab.follower import PathFollower
    from steerlab.vehicles import PRESETS, Vehicle, VehicleState

    index, frames = payload
    points = _paths()[index]
    storm = PRESETS["storm"]
    vehicle = Vehicle(storm)
    follower = PathFollower(storm, path=points)
    first_leg = points[1] - points[0]
    state = VehicleState(points[0][0], points[0][1], math.atan2(first_leg[1], first_leg[0]))
    speed_sum = 0.0
    for _ in range(frames):
        command = follower.step(state, DT)
        state = vehicle.step(state, command, DT)
        speed_sum += abs(state.v)
    progress = follower.path.project((state.x, state.y))[0]
    return {
        "x": state.x,
        "y": state.y,
        "progress": progress,
        "mean_speed": speed_sum / frames,
        "stuck_events": len(follower.stuck_events),
    }


def _timed_run(tasks, out: Path, workers: int) -> tuple[float, float]:
    """Wall time and CPU time (this process and the pool's workers) of one run [s]."""
    cpu = harness.cpu_seconds()
    wall = harness.seconds(
        lambda: run_tasks(
            tasks,
            drive,
            out,
            columns=COLUMNS,
            manifest={"benchmark": "bench_runner", "frames": tasks[0].payload[1]},
            workers=workers,
            progress=False,
            counter="stuck_events",
        )
    )
    return wall, harness.cpu_seconds() - cpu


def main(argv: Sequence[str] | None = None) -> dict[int, tuple[float, float]]:
    """Print the table; return per worker count the best ``(wall, cpu)`` seconds of a run."""
    arguments = harness.parse_arguments(
        __doc__.split("\n\n")[0],
        argv,
        tasks=(int, (TASKS, 4), "tasks per run"),
        frames=(int, (FRAMES, 50), "frames per task"),
        repeat=(int, (3, 1), "runs of each configuration"),
    )
    tasks = [Task((index,), (index, arguments.frames)) for index in range(arguments.tasks)]
    print(harness.machine_line() + "\n")
    warm = harness.seconds(lambda: drive((0, 10)))  # compile or load here, before the pool forks
    folder = Path(tempfile.mkdtemp(prefix="bench_runner_"))
    try:
        load_before = os.getloadavg()[0]
        worker_counts = (1, 2)
        rounds = itertools.count()

        def side(workers):
            return lambda: _timed_run(tasks, folder / f"workers_{workers}_{next(rounds)}", workers)

        samples = harness.alternate([side(workers) for workers in worker_counts], arguments.repeat)
        runs = dict(zip(worker_counts, samples, strict=True))
        best = {workers: min(values) for workers, values in runs.items()}
        files = {(run / RESULTS_FILE).read_bytes() for run in folder.iterdir()}
        table = []
        for workers, values in runs.items():
            wall, cpu = best[workers]
            rate = len(tasks) / wall
            table.append(
                (
                    workers,
                    f"{wall:.2f} s",
                    ", ".join(f"{w:.2f}" for w, _ in values),
                    f"{rate:.2f}",
                    f"{rate * arguments.frames:,.0f}",
                    f"{cpu / len(tasks) * 1e3:.1f} ms",
                    f"{cpu / wall:.2f}",
                )
            )
        print(
            harness.markdown_table(
                (
                    "workers",
                    f"{len(tasks)} tasks x {arguments.frames} frames, best",
                    "runs (s)",
                    "tasks/s",
                    "vehicle-frames/s",
                    "CPU per task",
                    "cores busy",
                ),
                table,
            )
        )
        # what an idle machine would give if the workers had their two cores: the CPU cost per
        # task of each configuration, the tail of the last task shared by nobody not counted
        cpu_ratio = 2.0 * (best[1][1] / best[2][1])
        print(f"2 workers / 1 worker: {best[1][0] / best[2][0]:.2f}x faster (target >= 1.8x)")
        print(f"CPU cost per task, 1 worker / 2 workers, x 2 cores: {cpu_ratio:.2f}x")
        print(f"result files identical: {len(files) == 1}")
        print(
            f"warm-up (compile / cache load): {warm:.1f} s; load average (1 min) before "
            f"{load_before:.2f}, after {os.getloadavg()[0]:.2f}"
        )
    finally:
        shutil.rmtree(folder)
    return best


if __name__ == "__main__":
    main()
