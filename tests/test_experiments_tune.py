"""Vehicle-tuned parameters (issue 7, item 4): Optuna on the train suite, presets, resume, CLI."""

import math
import os
import sys
import tempfile
import warnings

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from typer.testing import CliRunner

optuna = pytest.importorskip("optuna")

from steerlab.cli import app  # noqa: E402
from steerlab.experiments.benchmark import tune  # noqa: E402
from steerlab.experiments.benchmark.tune import (  # noqa: E402
    SEARCH_SPACE,
    STORAGE_FILE,
    objective,
    search_space,
    tune_vehicle,
)
from steerlab.follower import FollowerParams  # noqa: E402
from steerlab.runner import read_results  # noqa: E402
from steerlab.trials.followers import (  # noqa: E402
    follower_params,
    read_tuned,
    tuned_file,
    write_tuned,
)
from steerlab.trials.suite import load_suite  # noqa: E402
from steerlab.trials.trial import TrialSpec, run_trial, trials  # noqa: E402
from steerlab.vehicles import PRESETS  # noqa: E402
from steerlab.vehicles.params import WHEELED  # noqa: E402

# a tiny study: one short path of train (27 s driven by the Storm), two spawn seeds per evaluation
TINY = {"paths": ["pillars"], "seeds": 2, "workers": 1}
VEHICLE = "storm"


def _study(out_dir, vehicle=VEHICLE):
    storage = optuna.storages.RDBStorage(f"sqlite:///{out_dir / STORAGE_FILE}")
    return optuna.load_study(study_name=vehicle, storage=storage)


def _history(out_dir):
    """(number, state, params, value) of every trial, by number."""
    return [
        (t.number, t.state, t.params, t.value)
        for t in sorted(_study(out_dir).trials, key=lambda t: t.number)
    ]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """An uninterrupted 4-trial study: the reference of the resume tests."""
    out_dir = tmp_path_factory.mktemp("tune_fresh")
    params = tune_vehicle(VEHICLE, 4, out_dir, **TINY)
    return out_dir, params


# --------------------------------------------------------------------------------------------------
# search space and objective


def test_search_space_holds_the_section_iii_defaults_and_no_stuck_manager_setting():
    defaults = FollowerParams()
    for dimension in SEARCH_SPACE:
        assert dimension.name in FollowerParams._fields
        assert not dimension.name.startswith(("stuck_", "recovery", "teleport"))
        assert dimension.low < dimension.high and (not dimension.log or dimension.low > 0)
        assert dimension.low <= getattr(defaults, dimension.name) <= dimension.high
    assert SEARCH_SPACE[0].name == "a_lat"
    # the benchmark's shared speed limit can only be lowered
    assert dict((d.name, d.high) for d in SEARCH_SPACE)["v_max"] <= defaults.v_max
    for name, preset in PRESETS.items():
        names = {dimension.name for dimension in search_space(name)}
        # wheeled vehicles steer by pure pursuit: heading_gain is never read, never searched
        assert ("heading_gain" in names) == (preset.kind != WHEELED)
    with pytest.raises(ValueError, match="nope"):
        search_space("nope")


def _rows(path, events, times):
    return [
        {"path": path, "seed": k, "stuck_events": e, "time": t}
        for k, (e, t) in enumerate(zip(events, times, strict=True))
    ]


@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=4).flatmap(
        lambda events: st.tuples(
            st.just(events),
            st.lists(st.floats(0.0, 1.0), min_size=len(events), max_size=len(events)),
            st.lists(st.floats(0.0, 1.0), min_size=len(events), max_size=len(events)),
        )
    )
)
@example(([1], [0.9999999999999999], [0.0]))  # found by the thorough profile: a rounding tie
def test_one_stuck_event_fewer_beats_any_time_saving(case):
    events, fractions_a, fractions_b = case
    limit = load_suite("train").time_limit("pillars")
    fewer = _rows("pillars", events, [f * limit for f in fractions_a])
    # one more stuck event, in any trial, with any times (even all far shorter)
    more_events = list(events)
    more_events[0] += 1
    more = _rows("pillars", more_events, [f * limit for f in fractions_b])
    # strictly better, except when the fewer-events run used all its time (a share rounding to
    # 1: E + 0.9999999999999999 is E + 1 in floating point) and the other none: then a tie
    assert objective(fewer) < objective(more) or (
        objective(fewer) == objective(more)
        and all(f >= 1.0 - 1e-12 for f in fractions_a)
        and all(f == 0.0 for f in fractions_b)
    )
    # the time term is the share of the time limits used, in [0, 1]
    assert sum(events) <= objective(fewer) <= sum(events) + 1.0


def test_objective_refuses_trials_without_result():
    with pytest.raises(ValueError, match="no result"):
        objective([{"path": "pillars", "seed": 0, "stuck_events": None, "time": None}])
    with pytest.raises(ValueError, match="at least one"):
        objective([])


# --------------------------------------------------------------------------------------------------
# a tiny study


def test_tiny_study_writes_a_preset_that_ours_tuned_loads(fresh):
    out_dir, params = fresh
    history = _history(out_dir)
    assert [number for number, *_ in history] == [0, 1, 2, 3]
    assert all(state == optuna.trial.TrialState.COMPLETE for _, state, _, _ in history)
    # trial 0 is the enqueued Section III defaults
    defaults = FollowerParams()
    assert history[0][2] == {d.name: getattr(defaults, d.name) for d in search_space(VEHICLE)}
    for _, _, values, _ in history:
        for dimension in search_space(VEHICLE):
            assert dimension.low <= values[dimension.name] <= dimension.high
    # the preset is the best trial (ties: the earliest); never worse than the defaults
    values = [value for *_, value in history]
    best = min(range(4), key=lambda k: (values[k], k))
    assert params == defaults._replace(**history[best][2])
    loaded = follower_params("ours_tuned", VEHICLE, out_dir)
    assert loaded == params
    _, vehicle, meta = read_tuned(out_dir / f"{VEHICLE}.toml")
    assert vehicle == VEHICLE and meta["suite"] == "train" and meta["trials"] == 4
    assert meta["best_trial"] == best and meta["j_best"] <= meta["j_default"] == values[0]
    # the value of a trial is J of its evaluation's trials, kept by the runner
    rows = read_results(out_dir / "evaluations" / VEHICLE / str(best))
    assert len(rows) == 2 and {row["path"] for row in rows} == {"pillars"}
    events = sum(row["stuck_events"] for row in rows)
    share = sum(row["time"] for row in rows) / (2 * load_suite("train").time_limit("pillars"))
    assert values[best] == pytest.approx(events + share, rel=1e-12)
    # a benchmark trial of ours_tuned reading the preset drives exactly as in the evaluation
    spec = TrialSpec("train", "pillars", VEHICLE, "ours_tuned", rows[0]["seed"], str(out_dir))
    row = run_trial(spec)
    assert row["time"] == rows[0]["time"] and row["stuck_events"] == rows[0]["stuck_events"]
    assert row["cte_mean"] == rows[0]["cte_mean"]


def test_rerun_with_more_trials_continues_the_same_study(fresh, tmp_path):
    reference, _ = fresh
    tune_vehicle(VEHICLE, 2, tmp_path, **TINY)
    assert len(_history(tmp_path)) == 2
    assert tune_vehicle(VEHICLE, 4, tmp_path, **TINY) == fresh[1]
    assert _history(tmp_path) == _history(reference)
    # asking for fewer trials than the study holds runs nothing: the best of the first one(s)
    params = tune_vehicle(VEHICLE, 1, tmp_path, **TINY)
    assert params == FollowerParams()._replace(**_history(reference)[0][2])
    assert len(_history(tmp_path)) == 4
    assert sorted(p.name for p in (tmp_path / "evaluations" / VEHICLE).iterdir()) == list("0123")


def test_an_interrupted_evaluation_resumes_where_it_stopped(fresh, tmp_path, monkeypatch):
    """An evaluation's trials run as one batch (one runner call): a kill during trial 1's
    leaves trial 0 complete and trial 1 running with no rows; the rerun evaluates it and ends
    with the same study and preset as an uninterrupted run."""
    reference, _ = fresh
    calls = []
    original = tune.run_batch

    def interrupted(specs):
        calls.append(len(specs))
        if len(calls) == 2:  # trial 1's evaluation
            raise KeyboardInterrupt
        return original(specs)

    monkeypatch.setattr(tune, "run_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune_vehicle(VEHICLE, 4, tmp_path, **TINY)
    monkeypatch.setattr(tune, "run_batch", original)
    assert calls == [2, 2]  # each evaluation's two trials in one call
    history = _history(tmp_path)
    assert [state for _, state, _, _ in history] == [
        optuna.trial.TrialState.COMPLETE,
        optuna.trial.TrialState.RUNNING,
    ]
    results = tmp_path / "evaluations" / VEHICLE / "1" / "results.csv"
    assert results.read_text().count("\n") == 1  # the header only
    tune_vehicle(VEHICLE, 4, tmp_path, **TINY)
    assert _history(tmp_path) == _history(reference)
    assert (tmp_path / f"{VEHICLE}.toml").read_text() == (reference / f"{VEHICLE}.toml").read_text()


# --------------------------------------------------------------------------------------------------
# rounds of candidates (batch)


def _value_alone(params, specs, folder):
    """J of a candidate computed here: each trial run alone by ``run_trial`` reading the
    candidate as a preset file, then stuck events + sum(time) / sum(limit) (module docstring)."""
    write_tuned(tuned_file(VEHICLE, folder), FollowerParams()._replace(**params), VEHICLE)
    train = load_suite("train")
    rows = [run_trial(spec._replace(tuned_dir=str(folder))) for spec in specs]
    events = sum(row["stuck_events"] for row in rows)
    return events + sum(row["time"] for row in rows) / sum(
        train.time_limit(row["path"]) for row in rows
    )


def _plain_loop(n_trials, batch, liar, specs, folder, seed=0):
    """The study an Optuna loop written from the module docstring gives: the defaults enqueued
    first; rounds of ``batch`` asks (the sampler of trial k seeded from ``(seed, k)``), then the
    values told in order. ``liar=False`` is the sequential study as it was before rounds."""
    space = search_space(VEHICLE)
    distributions = {
        d.name: optuna.distributions.FloatDistribution(d.low, d.high, log=d.log) for d in space
    }
    study = optuna.create_study(direction="minimize")  # in memory
    study.enqueue_trial({d.name: getattr(FollowerParams(), d.name) for d in space})
    while len(study.trials) < n_trials:
        asked = []
        for _ in range(min(batch, n_trials - len(study.trials))):
            number = len([t for t in study.trials if t.state != optuna.trial.TrialState.WAITING])
            state = np.random.SeedSequence([seed, number]).generate_state(1)[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                study.sampler = optuna.samplers.TPESampler(
                    seed=int(state), n_startup_trials=10, multivariate=True, constant_liar=liar
                )
            asked.append(study.ask(distributions))
        for trial in asked:
            study.tell(trial, _value_alone(trial.params, specs, folder))
    return [(t.number, t.state, t.params, t.value) for t in study.trials]


def _specs(seeds):
    return [
        spec
        for spec in trials("train", vehicles=[VEHICLE], followers=["ours_tuned"], seeds=seeds)
        if spec.path == "pillars"
    ]


def test_the_default_batch_is_the_sequential_study_of_a_plain_optuna_loop(tmp_path):
    """13 trials: past TPE's 10 random ones, so the model's proposals are compared too. Runs on
    the code from before rounds (no ``batch`` argument) as well: the same study."""
    tune_vehicle(VEHICLE, 13, tmp_path / "study", paths=["pillars"], seeds=1, workers=1)
    (tmp_path / "plain").mkdir()
    plain = _plain_loop(13, 1, False, _specs(1), tmp_path / "plain")
    assert _history(tmp_path / "study") == plain


def test_a_batch_study_is_the_plain_loop_with_optuna_s_constant_liar(tmp_path):
    """14 trials in rounds of 4 (0-3, 4-7, 8-11, 12-13): trial 13 is drawn by TPE's model while
    trial 12 is running, the case the constant liar is for."""
    tune_vehicle(VEHICLE, 14, tmp_path / "study", paths=["pillars"], seeds=1, workers=1, batch=4)
    (tmp_path / "plain").mkdir()
    assert _history(tmp_path / "study") == _plain_loop(14, 4, True, _specs(1), tmp_path / "plain")
    folders = sorted(p.name for p in (tmp_path / "study" / "evaluations" / VEHICLE).iterdir())
    assert folders == ["0-3", "12-13", "4-7", "8-11"]
    _, _, meta = read_tuned(tmp_path / "study" / f"{VEHICLE}.toml")
    assert meta["batch"] == 4 and meta["trials"] == 14


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    """An uninterrupted study of 5 trials in rounds of 3 (0-2, then 3-4), counting the
    ``run_batch`` calls: the reference of the batch resume test."""
    out_dir = tmp_path_factory.mktemp("tune_rounds")
    calls = []
    original = tune.run_batch

    def counted(specs):
        calls.append([(spec.follower.params, spec.path, spec.seed) for spec in specs])
        return original(specs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tune, "run_batch", counted)
        params = tune_vehicle(VEHICLE, 5, out_dir, batch=3, **TINY)
    return out_dir, params, calls


def test_a_round_steps_all_its_candidates_trials_in_one_call_and_stops_at_n_trials(
    rounds, tmp_path
):
    out_dir, params, calls = rounds
    history = _history(out_dir)
    # 5 is not a multiple of 3: the last round asks only the 2 trials still missing
    assert [number for number, *_ in history] == [0, 1, 2, 3, 4]
    assert all(state == optuna.trial.TrialState.COMPLETE for _, state, _, _ in history)
    # one worker: one run_batch call per round, every (candidate, seed) of the round in it
    assert [len(call) for call in calls] == [3 * 2, 2 * 2]
    for call, numbers in zip(calls, ([0, 1, 2], [3, 4]), strict=True):
        asked = [FollowerParams()._replace(**history[k][2]) for k in numbers]
        assert [params for params, _, _ in call] == [p for p in asked for _ in range(2)]
    # each candidate's value is the objective of its own trials, each run alone
    specs = _specs(2)
    assert len(specs) == 2
    for _, _, values, value in history:
        assert value == _value_alone(values, specs, tmp_path)
    best = min(range(5), key=lambda k: (history[k][3], k))
    assert params == FollowerParams()._replace(**history[best][2])
    rows = read_results(out_dir / "evaluations" / VEHICLE / "3-4")
    assert [(row["trial"], row["seed"]) for row in rows] == [
        (3, specs[0].seed),
        (3, specs[1].seed),
        (4, specs[0].seed),
        (4, specs[1].seed),
    ]


def test_a_round_interrupted_midway_resumes_to_the_same_study_on_two_workers(
    rounds, tmp_path, monkeypatch
):
    """A kill in round 0's second chunk (of two trials each) leaves trials 0-2 running with their
    parameters and trial 0's two rows in the round's folder; the rerun, on two workers (other
    chunks), finishes the round and ends with the uninterrupted study and preset."""
    reference, _, _ = rounds
    calls = []
    original = tune.run_batch

    def interrupted(specs):
        calls.append(len(specs))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(specs)

    monkeypatch.setattr(tune, "run_batch", interrupted)
    monkeypatch.setattr(tune, "_chunk", lambda tasks, workers: 2)
    with pytest.raises(KeyboardInterrupt):
        tune_vehicle(VEHICLE, 5, tmp_path, batch=3, **TINY)
    monkeypatch.undo()
    assert calls == [2, 2]
    history = _history(tmp_path)
    assert [state for _, state, _, _ in history] == [optuna.trial.TrialState.RUNNING] * 3
    assert [params for _, _, params, _ in history] == [p for _, _, p, _ in _history(reference)[:3]]
    rows = read_results(tmp_path / "evaluations" / VEHICLE / "0-2")
    assert [row["trial"] for row in rows] == [0, 0]
    tune_vehicle(VEHICLE, 5, tmp_path, batch=3, **{**TINY, "workers": 2})
    assert _history(tmp_path) == _history(reference)
    assert (tmp_path / f"{VEHICLE}.toml").read_text() == (reference / f"{VEHICLE}.toml").read_text()


def test_a_trial_killed_while_its_parameters_are_drawn_is_failed_and_its_round_filled_up(
    rounds, tmp_path, monkeypatch
):
    """A kill inside trial 2's ask (its first parameter being drawn) leaves trials 0 and 1 with
    their parameters and trial 2 without: the rerun fails trial 2, keeps 0 and 1 and asks trial 3
    to fill the round (0, 1, 3), then round 4-5: five complete trials."""
    reference, _, _ = rounds
    sampler = tune._sampler

    def killing(optuna_module, seed, number):
        made = sampler(optuna_module, seed, number)
        if number == 2:

            def interrupted(*args, **kwargs):
                raise KeyboardInterrupt

            made.sample_independent = interrupted
        return made

    monkeypatch.setattr(tune, "_sampler", killing)
    with pytest.raises(KeyboardInterrupt):
        tune_vehicle(VEHICLE, 5, tmp_path, batch=3, **TINY)
    monkeypatch.undo()
    history = _history(tmp_path)
    assert [(state, set(params)) for _, state, params, _ in history] == [
        (optuna.trial.TrialState.RUNNING, {d.name for d in search_space(VEHICLE)}),
        (optuna.trial.TrialState.RUNNING, {d.name for d in search_space(VEHICLE)}),
        (optuna.trial.TrialState.RUNNING, set()),
    ]
    assert not (tmp_path / "evaluations").exists()  # no round started
    tune_vehicle(VEHICLE, 5, tmp_path, batch=3, **TINY)
    history = _history(tmp_path)
    complete = optuna.trial.TrialState.COMPLETE
    assert [state for _, state, _, _ in history] == [complete] * 2 + [
        optuna.trial.TrialState.FAIL
    ] + [complete] * 3
    # trials 0 and 1 were drawn as in the uninterrupted study, and valued alike
    assert history[:2] == _history(reference)[:2]
    folders = sorted(p.name for p in (tmp_path / "evaluations" / VEHICLE).iterdir())
    assert folders == ["0-3", "4-5"]
    assert [row["trial"] for row in read_results(tmp_path / "evaluations" / VEHICLE / "0-3")] == [
        0,
        0,
        1,
        1,
        3,
        3,
    ]


def test_a_study_continues_only_with_its_batch(rounds):
    out_dir, _, _ = rounds
    before = _history(out_dir)
    for batch in (1, 2):
        with pytest.raises(ValueError, match=r"another configuration.*batch: stored 3"):
            tune_vehicle(VEHICLE, 6, out_dir, batch=batch, **TINY)
    assert _history(out_dir) == before


@given(
    st.one_of(
        st.integers(max_value=0),
        st.floats(allow_nan=True),
        st.booleans(),
        st.text(max_size=3),
        st.none(),
    )
)
def test_a_batch_that_is_not_an_integer_of_at_least_one_is_refused(batch):
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(ValueError, match=r"batch must be an integer >= 1 .*got"):
            tune_vehicle(VEHICLE, 2, folder, batch=batch, **TINY)
        assert not os.listdir(folder)


def test_cli_tune_passes_batch_and_refuses_a_bad_one(tmp_path, monkeypatch):
    result = runner.invoke(
        app, ["tune", "--vehicle", VEHICLE, "--trials", "2", "--batch", "0", "--out", str(tmp_path)]
    )
    assert result.exit_code != 0 and "--batch" in result.output
    assert not (tmp_path / STORAGE_FILE).exists()
    asked = {}

    def recorded(*args, **kwargs):
        asked.update(kwargs)
        raise ValueError("stopped here")

    monkeypatch.setattr(tune, "tune_vehicle", recorded)
    result = runner.invoke(
        app, ["tune", "--vehicle", VEHICLE, "--trials", "2", "--batch", "3", "--out", str(tmp_path)]
    )
    assert result.exit_code != 0 and "stopped here" in result.output
    assert asked["batch"] == 3


# --------------------------------------------------------------------------------------------------
# refusals


def test_only_the_training_suites_may_be_tuned_on(tmp_path):
    for suite in ("table1", "generated", "train.toml", "TRAIN"):
        with pytest.raises(
            ValueError, match=r"suite must be one of \['train', 'train_generated'\]"
        ):
            tune_vehicle(VEHICLE, 2, tmp_path / "out", suite=suite, **TINY)
    assert not (tmp_path / "out").exists()


def test_a_study_on_the_generated_training_suite_writes_a_preset_table1_v2_accepts(tmp_path):
    """Table I v2 reads ``ours_tuned`` only from presets tuned on its tuning suite."""
    from steerlab.experiments.benchmark.table1_v2 import _tuned_problem
    from steerlab.trials.protocol import load_protocol

    first = load_suite("train_generated").path_names[0]
    tune_vehicle(VEHICLE, 1, tmp_path, suite="train_generated", paths=[first], seeds=1, workers=1)
    params, vehicle, meta = read_tuned(tmp_path / f"{VEHICLE}.toml")
    assert (vehicle, meta["suite"], meta["paths"]) == (VEHICLE, "train_generated", 1)
    assert params == FollowerParams()  # one trial: the defaults
    assert _tuned_problem(load_protocol(), [VEHICLE], str(tmp_path)) == ""
    problem = _tuned_problem(load_protocol(), [VEHICLE], "")  # the presets tuned on `train`
    assert "tuned on 'train', not on the protocol's tuning suite 'train_generated'" in problem


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="nope"):
        tune_vehicle("nope", 2, tmp_path, **TINY)
    for n_trials in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_trials"):
            tune_vehicle(VEHICLE, n_trials, tmp_path, **TINY)
    with pytest.raises(ValueError, match="no_such_path"):
        tune_vehicle(VEHICLE, 2, tmp_path, paths=["no_such_path"], seeds=1, workers=1)
    assert not (tmp_path / STORAGE_FILE).exists()


def test_a_study_made_with_another_configuration_is_refused(fresh):
    out_dir, _ = fresh
    before = _history(out_dir)
    with pytest.raises(ValueError, match=r"another configuration.*seed"):
        tune_vehicle(VEHICLE, 5, out_dir, seed=1, **TINY)
    with pytest.raises(ValueError, match=r"another configuration.*seeds"):
        tune_vehicle(VEHICLE, 5, out_dir, paths=["pillars"], seeds=3, workers=1)
    assert _history(out_dir) == before


def test_missing_optuna_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(ImportError, match=r"steerlab\[tune\]"):
        tune_vehicle(VEHICLE, 2, tmp_path, **TINY)


# --------------------------------------------------------------------------------------------------
# CLI

runner = CliRunner()


def test_cli_tune_writes_the_preset(tmp_path):
    result = runner.invoke(
        app,
        [
            *("tune", "--vehicle", VEHICLE, "--trials", "1", "--seeds", "1"),
            *("--workers", "1", "--out", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    params, vehicle, meta = read_tuned(tmp_path / f"{VEHICLE}.toml")
    # one trial: the defaults, on all ten train paths
    assert params == FollowerParams() and vehicle == VEHICLE
    assert meta["paths"] == len(load_suite("train").path_names) and meta["seeds"] == 1
    assert math.isclose(meta["j_best"], meta["j_default"])
    assert "preset" in result.output


def test_cli_tune_errors(tmp_path):
    result = runner.invoke(
        app, ["tune", "--vehicle", "nope", "--trials", "2", "--out", str(tmp_path)]
    )
    assert result.exit_code != 0 and "nope" in result.output and "storm" in result.output
    result = runner.invoke(
        app, ["tune", "--vehicle", VEHICLE, "--trials", "0", "--out", str(tmp_path)]
    )
    assert result.exit_code != 0 and "trials" in result.output
    result = runner.invoke(app, ["tune", "--trials", "2", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "vehicle" in result.output
    assert not (tmp_path / STORAGE_FILE).exists()


def test_one_tuning_per_vehicle_and_folder_at_a_time(tmp_path):
    """A second tuning of the vehicle in the folder is refused while the first holds its lock,
    and runs once it lets go."""
    path = tmp_path / ".tune-storm.lock"
    refused = pytest.raises(ValueError, match="another tuning of this vehicle is running")
    with tune._lock(path), refused, tune._lock(path):
        pass
    with tune._lock(path):
        pass
