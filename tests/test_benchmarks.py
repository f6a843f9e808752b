"""Smoke tests of the speed benchmarks (``benchmarks/``, scripts beside the package): each script's
``--quick`` mode runs and gives its table's rows with positive rates. No timing thresholds."""

import importlib.util
import math
import os
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def load(monkeypatch):
    """A benchmark script imported by path (``benchmarks/`` is not a package: the scripts import
    ``harness`` and each other as top-level modules, as when run from the repository's root)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))

    def load_script(name):
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        return module

    return load_script


def check_speed_rows(rows, cases, capsys):
    """Every case has its plain-Python, scalar and batch rows where expected; rates positive;
    the printed table has a summary line per case."""
    assert [case for case in dict.fromkeys(row.case for row in rows)] == list(cases)
    assert all(row.per_second > 0 and math.isfinite(row.per_second) for row in rows)
    printed = capsys.readouterr().out
    for case, methods in cases.items():
        assert {row.method for row in rows if row.case == case} == set(methods), case
        assert f"| {case} |" in printed
    return printed


ALL = ("python", "step", "step_batch")


def test_harness_best_seconds_warms_up_then_repeats(load):
    harness = load("harness")
    calls = []
    assert harness.best_seconds(lambda: calls.append(None), budget=0.0) >= 0.0
    assert len(calls) == 4  # the warm-up run and three timed ones
    assert harness.seconds(lambda: None, clock=iter([1.0, 3.5]).__next__) == 2.5


def test_harness_summary_reads_each_column_from_its_own_measurement(load):
    harness = load("harness")
    row = harness.SpeedRow
    rows = [
        row("a", "python", 10, 1, 2.0),
        row("a", "step", 10, 1, 5.0),
        row("a", "step_batch", 100, 1, 50.0),
        row("a", "step_batch", 1_000, 1, 40.0),
        row("a", "step_batch", 1_000, 2, 30.0),  # every thread, slower on a loaded machine
        row("b", "step_batch", 100, 1, 7.0),
    ]
    a, b = harness.summarize(rows)
    assert (a["python"], a["scalar"], a["batch_count"]) == (2.0, 5.0, 1_000)
    assert (a["batch_per_core"], a["batch_all_cores"], a["per_core_over_python"]) == (40, 30, 20)
    assert math.isnan(b["python"]) and math.isnan(b["per_core_over_python"])
    assert b["batch_all_cores"] == b["batch_per_core"] == 7.0
    assert "| b | n/a | n/a | 7 | 7 | 100 | n/a |" in harness.render_speed(rows, "t")


def test_harness_alternates_sides_in_turn(load):
    harness = load("harness")
    order = []
    harness.alternate([lambda: order.append(0), lambda: order.append(1)], 3, swap=True)
    assert order == [0, 1, 1, 0, 0, 1]
    order.clear()
    harness.alternate([lambda: order.append(0), lambda: order.append(1)], 2)
    assert order == [0, 1, 0, 1]


def test_engines_quick(load, capsys):
    rows = load("engines").main(["--quick"])
    cases = dict.fromkeys(("BaseEngine", "HalfLife[engine]", "HalfLife[simplified]"), ALL)
    assert "agent-steps per second" in check_speed_rows(rows, cases, capsys)


def test_parallel_builds_quick(load, capsys):
    """numba's own parallel build, the ranged one and the serial build each give a rate."""
    rows = load("parallel_builds").main(["--quick"])
    assert [(case, build) for case, build, _, _ in rows] == [
        ("HalfLife", "numba's own parallel"),
        ("HalfLife", "ranged parallel"),
        ("HalfLife", "serial"),
    ]
    assert all(rate > 0 and math.isfinite(rate) for *_, rate in rows)
    assert "| HalfLife | ranged parallel |" in capsys.readouterr().out


def test_laws_quick(load, capsys):
    rows = load("laws").main(["--quick"])
    names = ("SeekPoint", "AroundPoint", "FollowLine", "ReachOriented[F2]", "StopAt[distance]")
    check_speed_rows(rows, dict.fromkeys((*names, "StopAt[predict]"), ALL), capsys)


def test_navigation_quick(load, capsys):
    rows = load("navigation").main(["--quick"])
    names = ("TowardsPoints", "AlongSegments[v1]", "AlongSegments[v2]", "AroundPoints")
    check_speed_rows(rows, dict.fromkeys(names, ALL), capsys)


def test_vehicles_quick(load, capsys):
    from steerlab.vehicles import PRESETS

    rows = load("vehicles").main(["--quick"])
    names = [f"{name} ({params.kind_name})" for name, params in PRESETS.items()]
    check_speed_rows(rows, dict.fromkeys(names, ALL), capsys)


def test_follower_quick(load, capsys):
    rows = load("follower").main(["--quick"])
    cases = {
        "Algorithm 1 [projection given]": ("python", "step_batch"),
        "Algorithm 1 [+ projection]": ("python", "step_batch"),
        "Algorithm 1 [projection given, moving]": ("step_batch",),
        "PathFollower": ALL,
        "BaselineFollower": ALL,
        "PathFollower + Vehicle[storm]": ("step_batch",),
        "PathFollower + Vehicle[storm] + World[walls]": ("step_batch",),
    }
    assert "| n/a |" in check_speed_rows(rows, cases, capsys)


def test_world_quick(load, capsys):
    rows = load("world").main(["--quick"])
    assert "moves per second" in check_speed_rows(
        rows, dict.fromkeys(("circle r=1", "box 2.4x1"), ALL), capsys
    )


def test_funnel_quick(load, capsys):
    rows = load("funnel").main(["--quick"])
    cases = {}
    for label in ("mixed 0.5-30 u", "distant 30 u"):
        cases[f"Funnel [{label}]"] = ALL
        cases[f"Funnel + Unicycle [{label}]"] = ("step_batch",)
    assert "first build in process" in check_speed_rows(rows, cases, capsys)


def test_gym_env_quick(load, capsys):
    pytest.importorskip("gymnasium")
    rows = load("gym_env").main(["--quick"])
    assert [row[0] for row in rows] == ["long_s", "canyon", "hill_pair"]
    assert all(vector > 0 and single > 0 for _, vector, single in rows)
    assert "| canyon |" in capsys.readouterr().out


def test_bench_runner_quick(load, capsys):
    best = load("bench_runner").main(["--quick"])
    assert set(best) == {1, 2}
    assert all(wall > 0 for wall, _ in best.values())
    assert "result files identical: True" in capsys.readouterr().out


def test_plants_commonroad_quick(load, capsys):
    pytest.importorskip("vehiclemodels")
    results = load("plants_commonroad").main(["--quick"])
    assert [result.plant for result in results] == ["CommonRoad KS", "CommonRoad ST"]
    assert all(result.simulator_us > 0 and result.adapter_us > 0 for result in results)
    assert "| CommonRoad ST |" in capsys.readouterr().out


def test_plants_carracing_quick(load, capsys):
    pytest.importorskip("Box2D")
    per_step = load("plants_carracing").main(["--quick"])
    assert len(per_step) == 4 and all(us > 0 for us in per_step.values())
    assert "| CarRacingPlant.step |" in capsys.readouterr().out


def test_plants_pybullet_quick(load, capsys):
    pytest.importorskip("pybullet")
    results = load("plants_pybullet").main(["--quick"])
    assert [hz for hz, _, _ in results] == [60.0, 240.0]
    assert all(raw > 0 and adapter > 0 for _, raw, adapter in results)
    assert "| 240 Hz |" in capsys.readouterr().out


def test_plants_quick_skips_what_is_absent(load, capsys):
    rows = load("plants").main(["--quick"])
    printed = capsys.readouterr().out
    assert all(row.simulator_us > 0 and row.adapter_us > 0 for row in rows)
    for plant, module in (
        ("CommonRoad", "vehiclemodels"),
        ("CarRacing", "Box2D"),
        ("PyBullet racecar", "pybullet"),
    ):
        present = importlib.util.find_spec(module) is not None
        assert (f"| {plant}" in printed) == present
        assert (f"{plant}: skipped" in printed) == (not present)


def test_cold_start_runs_its_two_cases_in_fresh_processes(load, capsys):
    rows = load("cold_start").main(["--quick", "--vehicles", "3"])
    assert [case for case, _, _ in rows] == ["scalar", "batch"]
    assert all(wall > 0.0 and cpu > 0.0 for _, wall, cpu in rows)
    assert "| scalar |" in capsys.readouterr().out


def test_tune_rounds_quick_times_each_batch_size(load, capsys):
    pytest.importorskip("optuna")
    rows = load("tune_rounds").main(["--quick"])
    assert [batch for batch, _, _ in rows] == [1, 2]
    # the evaluations are part of the study's time
    assert all(0.0 < evaluations < total for _, total, evaluations in rows)
    assert "| 2 |" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="not a multiple"):
        load("tune_rounds").main(["--quick", "--trials", "3"])


def test_trials_profile_quick_writes_a_perf_map_of_the_loop(load, capsys, monkeypatch):
    """The map has one ``START SIZE name`` line per function found, names made readable. The
    functions are found only where the loop's code loads after the script's hook (a test process
    may have loaded it before), so their number is not asserted; the hook is undone after."""
    from numba.core import codegen

    keep = codegen.CPUCodeLibrary._set_compiled_object
    monkeypatch.setattr(codegen.CPUCodeLibrary, "_set_compiled_object", keep)
    script = load("trials_profile")
    mangled = "_ZN8steerlab6trials5batch12_drive_trialB4v136B52c8tJTIeFIjxB2IK"
    assert script.readable(mangled) == "steerlab.trials.batch._drive_trial"
    assert script.readable("_ZN7cpython8steerlab1a1fB2v1") == "steerlab.a.f (cpython wrapper)"
    assert script.readable("hypot") == "hypot"
    found = script.main(["--quick"])
    path = f"/tmp/perf-{os.getpid()}.map"
    try:
        lines = Path(path).read_text().splitlines()
    finally:
        os.remove(path)
    assert len(lines) == len(found)
    for line, (address, size, name) in zip(lines, found, strict=True):
        assert line == f"{address:x} {size:x} {script.readable(name)}"
    assert "trials/s" in capsys.readouterr().out
