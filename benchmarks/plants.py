"""Plant overhead, all three simulators (target: "steerlab's adapter adds under 20 % to
each simulator's own step time").

Runs the per-plant measurements of ``benchmarks/plants_commonroad.py``,
``benchmarks/plants_carracing.py`` and ``benchmarks/plants_pybullet.py`` (their docstrings say
exactly what each side of each ratio includes) and prints one table: plant / simulator's own
step / adapter step / overhead. A plant whose package is not installed is skipped with a line
saying so. Each script alternates its two sides within one process and keeps the best sample of
each (the machine is shared: its speed swings by tens of percent between runs).

- CommonRoad KS, ST: the package's right-hand side integrated by RK4 with the adapter's inputs
  and substeps vs ``CommonRoadPlant.step`` (BMW 320i, 15 m/s, dt 0.02 s; wall time).
- CarRacing: ``car.steer/gas/brake; car.step; world.Step`` vs ``CarRacingPlant.step`` over one
  lap of track seed 3 driven by the follower (wall time).
- PyBullet racecar at 60 and 240 Hz control: the same PyBullet calls written directly vs
  ``PyBulletRacecarPlant.step`` (CPU time of the process).

Run: ``.venv/bin/python benchmarks/plants.py [--quick]`` from the repository's root (about a
minute; ``--quick``: a few samples of short runs, a smoke test).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import harness

TARGET = 0.20  # [-] the bound on the adapter's overhead


class Row(NamedTuple):
    plant: str
    simulator_us: float  # [us] per step
    adapter_us: float  # [us] per step
    note: str


def commonroad_rows(quick: bool) -> list[Row]:
    import plants_commonroad

    rows = []
    for model in plants_commonroad.MODELS:
        result = plants_commonroad.measure(
            model, frames=20 if quick else 200, repeat=4 if quick else 300
        )
        rows.append(Row(result.plant, result.simulator_us, result.adapter_us, result.note))
    return rows


def carracing_rows(quick: bool) -> list[Row]:
    import plants_carracing
    from steerlab.plants.carracing import CarRacingPlant

    seed = 3
    plant = CarRacingPlant(seed=seed)
    try:
        simulator, adapter, commands = plants_carracing.measure(
            plant, repeat=1 if quick else 5, max_steps=100 if quick else 20_000
        )
    finally:
        plant.close()
    steps = len(commands)
    lap = "first steps of a lap" if quick else "one lap"
    note = f"track seed {seed}, {lap} ({steps} steps of {plants_carracing.DT} s)"
    return [Row("CarRacing", 1e6 * simulator / steps, 1e6 * adapter / steps, note)]


def pybullet_rows(quick: bool) -> list[Row]:
    import plants_pybullet
    from steerlab.plants.pybullet_racecar import PyBulletRacecarPlant
    from steerlab.vehicles import VehicleState

    rows = []
    commands = plants_pybullet.COMMANDS[:60] if quick else plants_pybullet.COMMANDS
    frames = len(commands)
    with PyBulletRacecarPlant(start=VehicleState()) as plant:
        for hz in (60.0, 240.0):
            raw, adapter = plants_pybullet.measure(plant, hz, 1 if quick else 9, commands)
            substeps = round(plant.params.physics_rate / hz)
            note = f"{hz:.0f} Hz control, {substeps} physics steps/frame (CPU time)"
            rows.append(Row("PyBullet racecar", 1e6 * raw / frames, 1e6 * adapter / frames, note))
    return rows


PLANTS = (
    ("CommonRoad", "commonroad-vehicle-models", commonroad_rows),
    ("CarRacing", "gymnasium[box2d]", carracing_rows),
    ("PyBullet racecar", "pybullet", pybullet_rows),
)


def main(argv: Sequence[str] | None = None) -> list[Row]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    rows, skipped = [], []
    for name, package, measure in PLANTS:
        try:
            rows.extend(measure(arguments.quick))
        except ImportError as error:
            skipped.append(f"{name}: skipped, {package} is not installed ({error})")
    print(harness.machine_line() + "\n")
    table = []
    for row in rows:
        overhead = row.adapter_us / row.simulator_us - 1.0
        verdict = "" if overhead < TARGET else f"; over the {TARGET:.0%} target"
        table.append(
            (
                row.plant,
                f"{row.simulator_us:.1f} us",
                f"{row.adapter_us:.1f} us",
                f"{overhead:+.1%}",
                row.note + verdict,
            )
        )
    print(
        harness.markdown_table(
            ("plant", "simulator step", "adapter step", "overhead", "workload"), table
        )
    )
    for line in skipped:
        print(line)
    return rows


if __name__ == "__main__":
    main()
