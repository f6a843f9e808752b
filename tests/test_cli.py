import importlib.util

import pytest
from typer.testing import CliRunner

from steerlab.cli import app

runner = CliRunner()


@pytest.mark.parametrize("suite", ["engines", "laws", "navigation"])
def test_speed_suites_point_to_the_benchmark_scripts(tmp_path, suite):
    result = runner.invoke(app, ["bench", "--suite", suite, "--out", str(tmp_path)])
    assert result.exit_code == 2
    message = result.output.strip()
    assert len(message.splitlines()) == 1
    assert f"python benchmarks/{suite}.py" in message and "docs/performance.md" in message
    assert not any(tmp_path.iterdir())


def test_unknown_suite_and_seed_are_rejected(tmp_path):
    result = runner.invoke(app, ["bench", "--suite", "nope", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "suite" in result.output
    result = runner.invoke(app, ["figures", "999", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "seed" in result.output


def test_figures_seed_004_writes_the_seed_figures(tmp_path):
    result = runner.invoke(app, ["figures", "004", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for name in ("navstopdist", "navstopdistem", "navhlengmodl"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0


def test_fidelity_seed_004_prints_and_writes_markdown(tmp_path):
    out = tmp_path / "fidelity.md"
    result = runner.invoke(app, ["fidelity", "004", "--fast", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "page says" in result.output and out.read_text().startswith("### Measured tables")


def test_figures_seed_000_writes_the_seed_figures(tmp_path):
    result = runner.invoke(app, ["figures", "000", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for name in (
        "navap_01",
        "navap_02",
        "navap_lc",
        "navap_h_01",
        "seek_arrival",
        "naval_b0_01",
        "naval_b_velv",
        "naval_h_01",
        "reach_f2",
        "reach_circle",
    ):
        assert (tmp_path / f"{name}.png").stat().st_size > 0, name


def test_fidelity_seed_000_fast_prints_every_law(tmp_path):
    result = runner.invoke(app, ["fidelity", "000", "--fast"])
    assert result.exit_code == 0, result.output
    for title in ("steerlab fidelity 000", "around a point", "directed line", "given direction"):
        assert title in result.output


def test_figures_seed_001_writes_figures_1_and_3(tmp_path):
    result = runner.invoke(app, ["figures", "001", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "bezier_cases.png").stat().st_size > 0
    assert (tmp_path / "path_following.png").stat().st_size > 0


def test_warmup_steps_every_public_class_with_a_compiled_step():
    """Each warm-up task runs (tiny batches here) and names the classes it steps."""
    from steerlab.cli.warmup import warmup_tasks

    tasks = dict(warmup_tasks(sizes=(3,), quick=False))
    said = []
    for name in (
        "guidance laws",
        "navigators",
        "unicycle, funnel",
        "Table I observer",
        "Gymnasium environment",
    ):
        tasks[name](said.append)
    expected = {
        "SeekPoint",
        "AroundPoint",
        "FollowLine",
        "ReachOriented",
        "StopAt",
        "TowardsPoints",
        "AlongSegments",
        "AroundPoints",
        "Unicycle",
        "SeekController",
        "Funnel",
        "trial_metrics",
        "Polyline.project_batch",
    }
    if importlib.util.find_spec("gymnasium") is not None:
        expected |= {"PathFollowingEnv", "PathFollowingVectorEnv"}
    assert expected <= {message.split(",")[0] for message in said}


def test_the_version_is_the_project_s_and_the_package_is_typed():
    """``steerlab --version`` and ``steerlab.__version__`` give pyproject.toml's version (the
    distribution installed from it); the package ships ``py.typed`` for type checkers."""
    import tomllib
    from importlib import resources
    from pathlib import Path

    import steerlab

    pyproject = Path(__file__).parents[1] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert steerlab.__version__ == declared
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"steerlab {declared}\n"
    assert (resources.files("steerlab") / "py.typed").is_file()
