"""One style for the ``steerlab`` command (``steerlab.cli.style``): every error is one line
``error: MESSAGE`` on stderr and its exit code follows the convention (2: refused before anything
ran, 1: the run failed, 130: interrupted); unknown names come with the nearest known one; a seed
text is positional (``--seed`` still accepted, with a notice); progress goes to stderr only; help
paragraphs are reflowed.

typer's ``CliRunner`` calls the app's group ``main``, the one the console script calls; a few
cases also run the console script's ``main`` in a fresh interpreter.
"""

import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import steerlab
from steerlab.cli import app

runner = CliRunner()
commands = importlib.import_module("steerlab.cli.app")  # the module (steerlab.cli.app is the app)


def _the_error_line(result, alone: bool = True) -> str:
    """The one error line the failed command printed: the last on stderr, ``error: ...``, alone
    there (``alone``) or below the run's progress lines."""
    lines = result.stderr.splitlines()
    assert lines and lines[-1].startswith("error: "), result.stderr
    assert len(lines) == 1 or not alone, result.stderr
    assert sum(line.startswith("error") for line in lines) == 1, result.stderr
    assert "Traceback" not in result.output and "╭" not in result.output  # no box, no trace
    return lines[-1]


@pytest.fixture
def files(tmp_path):
    """A file that is not a fidelity document (no markers), and a file standing where a folder
    should be."""
    plain = tmp_path / "plain.md"
    plain.write_text("# no generated blocks here\n")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    return {"plain": str(plain), "blocker": str(blocker), "tmp": str(tmp_path)}


# each: the arguments ({tmp}, {plain}, {blocker} filled in), the words the line must hold, and
# the name it must suggest (None: no name is close enough)
REFUSED = [
    # click's own usage errors, in the same style
    (["figure"], ["'figure'"], "figures"),
    (["bench", "--bogus"], ["--bogus"], None),
    (["tune", "--vehicle", "zaha"], ["--trials"], None),
    (
        ["tune", "--vehicle", "zaha", "--trials", "2", "--batch", "0"],
        ["--batch", "than or equal to 1"],
        None,
    ),
    (["bench", "--workers", "x"], ["--workers"], None),
    (["bench", "--workers", "0"], ["--workers"], None),
    (["bench", "--out"], ["--out"], None),
    (["bench", "unexpected"], ["unexpected"], None),
    (["funnel", "nope"], ["'nope'"], None),
    # suites: a name, a file, the speed benchmarks, options the external suite does not take
    (
        ["bench", "--suite", "tabel1"],
        ["'tabel1'", "table1, train, generated, train_generated, external, racetracks, maps"],
        "table1",
    ),
    (["bench", "--suite", "{tmp}/missing.toml"], ["missing.toml", "not found"], None),
    (["bench", "--suite", "laws"], ["python benchmarks/laws.py", "docs/performance.md"], None),
    (["bench", "--suite", "external", "--ray"], ["--ray", "external"], None),
    # folders and names of a Table I run
    (["bench", "--tuned-dir", "{tmp}/no/presets"], ["no/presets", "not found"], None),
    (["bench", "--tuned-dir", "{blocker}"], ["blocker", "not a folder"], None),
    (["bench", "--vehicles", "storm,zahha"], ["'zahha'", "hovercraft"], "zaha"),
    (["bench", "--followers", "ours,stanly"], ["'stanly'", "regulated_pure_pursuit"], "stanley"),
    (["bench", "--vehicles", " , "], ["vehicles", "empty selection"], None),
    # seed texts
    (["figures", "0004"], ["'0004'", "000, 001, 002, 003, 004"], "004"),
    (["figures", "zzz"], ["'zzz'", "000, 001, 002, 003, 004"], None),
    (["figures"], ["missing seed text"], None),
    (["figures", "000", "--seed", "000"], ["twice", "steerlab figures 000"], None),
    (["fidelity", "0003", "--fast"], ["'0003'"], "003"),
    (["fidelity", "--seed", "999"], ["'999'"], None),
    (["fidelity", "004", "--docs", "{tmp}/missing.md"], ["missing.md", "not found"], None),
    (["fidelity", "004", "--docs", "{plain}"], ["plain.md", "markers"], None),
    (["fidelity", "004", "--docs", "{plain}", "--fast"], ["--docs", "drop --fast"], None),
    # tune, soak
    (["tune", "--vehicle", "bolt", "--trials", "1"], ["'bolt'", "storm"], "bolte"),
    (["soak", "--minutes", "0", "--out", "{tmp}/soak"], ["--minutes", "> 0"], None),
    # replay
    (["replay", "--suite", "trian"], ["'trian'"], "train"),
    (["replay", "--suite", "{tmp}/missing.json"], ["missing.json", "not found"], None),
    (["replay", "--path", "hill_pir"], ["'hill_pir'", "mixed_loop", "'train'"], "hill_pair"),
    (["replay", "--follower", "our"], ["'our'"], "ours"),
    (["replay", "--format", "gof"], ["'gof'", "mp4"], "gif"),
    (["replay", "--tuned-dir", "{tmp}/none"], ["none", "not found"], None),
]

REPLAY = {"--suite": "train", "--path": "hill_pair", "--vehicle": "storm", "--follower": "ours"}


@pytest.mark.parametrize(("arguments", "words", "suggestion"), REFUSED)
def test_a_refused_command_line_is_one_error_line_and_exit_code_2(
    files, arguments, words, suggestion
):
    arguments = [part.format(**files) for part in arguments]
    if arguments[0] == "replay":  # the options the case does not change
        given_options = set(arguments[1::2])
        for option, value in REPLAY.items():
            if option not in given_options:
                arguments += [option, value]
        arguments += ["--out", f"{files['tmp']}/run/replay.html"]
    elif arguments[0] == "bench" and "--out" not in arguments:
        arguments += ["--out", f"{files['tmp']}/run"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    line = _the_error_line(result)
    for word in words:
        assert word in line, (word, line)
    if suggestion is None:
        assert "did you mean" not in line
    else:
        assert f"did you mean '{suggestion}'?" in line
    assert result.stdout == ""
    assert not Path(files["tmp"], "run").exists()  # nothing ran


def test_a_failed_run_is_one_error_line_and_exit_code_1(files):
    """The library refuses the output folder (a file stands there) once the run starts."""
    out = f"{files['blocker']}/run"
    arguments = ["bench", "--suite", "train", "--vehicles", "storm", "--followers", "ours"]
    result = runner.invoke(app, [*arguments, "--seeds", "1", "--workers", "1", "--out", out])
    assert result.exit_code == 1, result.output
    line = _the_error_line(result, alone=False)  # below the run's announcement
    assert "blocker" in line and "output folder" in line


@pytest.mark.parametrize(
    ("error", "code", "shown"),
    [
        (KeyboardInterrupt(), 130, "error: interrupted"),
        (
            ValueError("frame time must be > 0,\n  got -1"),
            1,
            "error: frame time must be > 0, got -1",
        ),
        (OSError(28, "No space left on device"), 1, "No space left on device"),
        (RuntimeError("a worker died"), 1, "error: a worker died"),
        (ImportError("pip install 'steerlab[plants]'"), 1, "steerlab[plants]"),
    ],
)
def test_an_error_raised_while_running_is_one_line_with_its_exit_code(
    monkeypatch, error, code, shown
):
    def fail(seed, fast=False):
        raise error

    monkeypatch.setattr(commands, "seed_markdown", fail)
    result = runner.invoke(app, ["fidelity", "004", "--fast"])
    assert result.exit_code == code
    assert shown in _the_error_line(result)


def test_an_interrupted_benchmark_says_that_the_same_command_resumes(monkeypatch, tmp_path):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("steerlab.experiments.benchmark.table1.run_table1", interrupted)
    result = runner.invoke(app, ["bench", "--suite", "train", "--out", str(tmp_path / "run")])
    assert result.exit_code == 130
    line = _the_error_line(result)
    assert "interrupted" in line and "rerun the same command to resume" in line


words = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Zs")), min_size=1
)


@settings(max_examples=40, deadline=None)
@given(st.lists(words, min_size=1, max_size=8), st.lists(st.sampled_from([" ", "\n", "  \n "])))
def test_any_message_is_one_line_holding_its_words_in_order(parts, gaps):
    """Line breaks, markup-like brackets, any script: the line holds the message's words."""
    text = "".join(part + (gaps[i] if i < len(gaps) else " ") for i, part in enumerate(parts))

    def fail(seed, fast=False):
        raise ValueError(text)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(commands, "seed_markdown", fail)
        result = runner.invoke(app, ["fidelity", "001"])
    assert result.exit_code == 1
    assert _the_error_line(result)[len("error: ") :].split() == text.split()


def test_the_console_script_speaks_the_same_way(tmp_path):
    """``steerlab.cli:main`` (the ``steerlab`` entry point) in a fresh interpreter."""
    source = str(Path(steerlab.__file__).parents[1])
    environment = {**os.environ, "PYTHONPATH": source}
    cases = [
        (["bench", "--bogus"], 2, "--bogus"),
        (["figures", "0001"], 2, "did you mean '001'?"),
        (["bench", "--tuned-dir", str(tmp_path / "none"), "--out", str(tmp_path)], 2, "not found"),
    ]
    for arguments, code, words in cases:
        completed = subprocess.run(
            [sys.executable, "-c", "from steerlab.cli import main; main()", *arguments],
            capture_output=True,
            text=True,
            env=environment,
            timeout=120,
        )
        assert completed.returncode == code, completed.stderr
        lines = completed.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0]
        assert completed.stdout == ""


# --------------------------------------------------------------------------------------------------
# the seed text, positional; --seed as a notice; progress on stderr only


def test_seed_text_positional_and_old_spelling_print_the_same_and_progress_stays_off_stdout():
    new = runner.invoke(app, ["fidelity", "004", "--fast"])
    assert new.exit_code == 0, new.output
    assert new.stdout.startswith("### Measured tables\n") and new.stderr == ""
    old = runner.invoke(app, ["fidelity", "--seed", "004", "--fast"])
    assert old.exit_code == 0, old.output
    assert old.stdout == new.stdout
    assert old.stderr.splitlines() == [
        "notice: --seed names a random seed elsewhere; write `steerlab fidelity 004`"
    ]
    # stderr a terminal (rich's TTY_COMPATIBLE): the progress shows there, stdout is unchanged
    shown = runner.invoke(app, ["fidelity", "004", "--fast"], env={"TTY_COMPATIBLE": "1"})
    assert shown.exit_code == 0, shown.output
    assert "measuring seed 004's claims" in shown.stderr
    assert shown.stdout == new.stdout


def test_figures_take_the_seed_text_positional_or_as_the_old_option(tmp_path):
    new = runner.invoke(app, ["figures", "001", "--out", str(tmp_path / "new")])
    old = runner.invoke(app, ["figures", "--seed", "001", "--out", str(tmp_path / "old")])
    assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
    names = {Path(line).name for line in new.stdout.split()}
    assert names == {"bezier_cases.png", "path_following.png"}
    assert {Path(line).name for line in old.stdout.split()} == names
    assert new.stderr == "" and old.stderr.startswith("notice: --seed names a random seed")


# --------------------------------------------------------------------------------------------------
# help


def _commands():
    from typer.main import get_command

    group = get_command(app)
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from ((f"{name} {sub}", inner) for sub, inner in command.commands.items())
        else:
            yield name, command


@pytest.mark.parametrize(("name", "command"), list(_commands()))
def test_help_paragraphs_are_reflowed_and_state_the_exit_codes(name, command):
    """At 5000 columns each paragraph of the command's docstring is one line of its help, and the
    help ends with the exit code convention."""
    result = runner.invoke(app, [*name.split(), "--help"], env={"COLUMNS": "5000"})
    assert result.exit_code == 0, result.output
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]
    for paragraph in inspect.cleandoc(command.callback.__doc__).split("\n\n"):
        assert " ".join(paragraph.split()) in lines, paragraph
    text = " ".join(result.stdout.split())
    assert "Exit codes: 0 done; 1 the run failed; 2 refused before anything ran" in text
    assert "130 interrupted" in text
