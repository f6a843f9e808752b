"""Vehicle-tuned follower parameters by black-box optimisation (seed 001, Table I).

Seed 001's Table I has a third column, "ours (vehicle-tuned)": "our proposed solution with
per-vehicle-tuned parameters including maximum lateral acceleration parameter a_lat", and its
Section V names the way to do it automatically: "we intend to explore the use of automatic tuning
methods such as black box optimization". ``tune_vehicle`` does that with Optuna's TPE sampler on
the ``train`` suite (never on ``table1``, the suite the tuned parameters are judged on), and writes
the best parameters as the preset file that the follower ``ours_tuned`` reads
(``steerlab.trials.followers``).

**Objective** (minimised), over the trials of one evaluation (every path of the selection x every
seed, follower ``PathFollower`` with the candidate parameters, judged by the fixed observer of
``steerlab.trials.observer``)::

    J = E + sum_i time_i / sum_i limit_i

``E`` the total of the observer's stuck events, ``time_i`` a trial's total time (its arrival time;
the time limit for a trial that did not arrive: timed out, stopped short or failed) and ``limit_i``
its time limit. The time term lies in ``[0, 1]`` and equals 1 only when no trial arrives, so one
stuck event fewer always outweighs any time saving: stuck events first, then total time, as the
issue asks (Table I's core metric is the number of stuck events: "We consider the total number of
stuck events to be the core metric of interest").

**Search space** (``SEARCH_SPACE``): the settings of ``FollowerParams`` that shape how the vehicle
drives, each with a range wide enough to hold the Section III value and what a vehicle of the six
presets could want; the stuck manager's settings are left out (the observer judges stuck events
with fixed settings, so tuning them would only change the recovery manoeuvre, not the count the
objective sees) and so are the end-of-path settings (the trial's end is judged with a fixed
radius). Only the dimensions the vehicle's follower reads are searched (``heading_gain`` for
tracked and hover vehicles only). The study starts with the Section III defaults enqueued as trial
0, so the best trial is never worse than the defaults on ``train``; among equal values the earliest
trial wins (the defaults, if nothing beats them).

**Rounds** (``batch``). The study runs in rounds: a round asks the study for up to ``batch``
candidates (``study.ask``, each before any value is told; never more than the complete trials
still missing), evaluates all their trials together, then tells each candidate its value in
trial-number order. TPE runs with Optuna's constant liar (``constant_liar=True``, its documented
way for candidates asked while others are running): a candidate drawn after running ones sees them
as bad results and is steered away from them, so the candidates of one round spread out instead of
piling onto the same spot. With ``batch=1`` no trial is ever running when one is asked, and the
constant liar changes nothing: the study (proposals, values) and the preset file are those of a
sequential study, which is how the shipped presets were made (a preset of ``batch > 1`` says so
in its ``meta``). ``batch`` is part of the study's configuration (a study continued with another
batch size would not be the study that size gives): a rerun with another ``batch`` is refused
like any other configuration change.

**Storage and resume.** ``out_dir/tune.db`` (Optuna's RDB storage on SQLite) holds one study per
vehicle (named after it) with its configuration (suite, its hash, paths, seeds, seed, search
space, sampler, batch, steerlab version): a rerun with another configuration is refused. A round
runs the trials of all its candidates, every ``(candidate, path, seed)``, as one
``steerlab.runner.run_tasks`` call (local processes or Ray) in one folder,
``out_dir/evaluations/<vehicle>/<n>/`` for a round of one candidate (trial ``n``) and
``.../<first>-<last>/`` for several (its first and last trial numbers; the manifest lists the
candidates), in chunks that are one ``run_batch`` call each (all the round's trials in one call on
one worker; on ``w`` workers, ``w`` chunks of about equal size): trials of several candidates step
together. A tuning run killed midway resumes the round it was running: its candidates are the
study's running trials whose parameters were drawn (the runner keeps every finished trial of the
folder); a trial killed while its parameters were being drawn is failed (an enqueued one, the
defaults, is enqueued again) and the round is filled up with new candidates; a kill while a
round's values are being told (a moment) leaves its untold candidates to a round of their own, in
a folder of its own (evaluated again, to the same values). ``n_trials`` counts
the finished (complete) trials of the study: running again with a larger number continues the
same study (with ``batch > 1``, the study one run with the larger number gives when the earlier
number was a multiple of ``batch``: else the earlier run's last round was cut short).

**Determinism.** Before each ``study.ask`` the sampler is rebuilt with a seed drawn from ``(seed,
trial number)``, so trial ``k``'s proposal depends only on ``seed`` and the trials before it (the
complete ones with their values, those of its round with their parameters), whether or not the
run was interrupted and resumed; trials are deterministic (``steerlab.trials.trial``) and
bit-identical however they are chunked, on 1 or N workers or Ray. The same ``seed``,
configuration (``batch`` included) and ``n_trials`` give the same preset file (apart from its
``meta``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from filelock import FileLock, Timeout

from steerlab.follower.params import FollowerParams, check_follower_params
from steerlab.runner import ray_session
from steerlab.trials.batch import run_batch
from steerlab.trials.followers import NamedFollower, shipped_tuned_folder, tuned_file, write_tuned
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import ROW_TYPES, TrialSpec, run_trial, trials
from steerlab.vehicles import PRESETS
from steerlab.vehicles.files import resolve_vehicle
from steerlab.vehicles.params import HOVER, TRACKED, WHEELED

__all__ = [
    "EVALUATION_COLUMNS",
    "SEARCH_SPACE",
    "STORAGE_FILE",
    "TUNE_FORMAT",
    "TUNE_SUITE",
    "TUNE_SUITES",
    "Dimension",
    "objective",
    "search_space",
    "tune_vehicle",
]

TUNE_SUITE = "train"
TUNE_SUITES = ("train", "train_generated")
"""The only suite tuning may see (tuned parameters are judged on ``table1``, never tuned on it)."""

TUNE_FORMAT = "steerlab.tune/2"
"""Tag of a study's configuration and of an evaluation's manifest: bump on any change of the
objective or of how an evaluation runs (old studies are then refused, not mixed)."""

STORAGE_FILE = "tune.db"
"""The SQLite file of the studies, in ``out_dir``."""


class Dimension(NamedTuple):
    """One searched ``FollowerParams`` field: ``[low, high]``, log-uniform when ``log``, for the
    vehicle kinds in ``kinds`` (0 wheeled, 1 tracked, 2 hover)."""

    name: str
    low: float
    high: float
    log: bool
    kinds: tuple[int, ...] = (WHEELED, TRACKED, HOVER)


SEARCH_SPACE = (
    # seed 001 Eq. 1; 0.4 g is Section III's value ("human normal driving"). Algorithm 1 sees
    # about half the curvature of a wide arc, so a_lat = 1 asks for about 2 g there, beyond the
    # grip of every preset (mu <= 0.9): the top never binds a vehicle that could go faster; 0.1
    # lets a vehicle with little grip (the hovercraft's skirt) corner at a crawl. Log: the speed
    # goes with its square root, what matters is the ratio.
    Dimension("a_lat", 0.1, 1.0, True),
    # Algorithm 1's spacing: horizon dh (N - 1) from 12 m to 40 m (Section III: 6 m, 24 m); a
    # longer horizon brakes earlier for a heavy vehicle, a shorter one reads tight bends better.
    Dimension("dh", 3.0, 10.0, False),
    # the clamp's top: Section III's 10 m/s is shared by every follower for a fair comparison
    # ("the same values were set"), so tuning may only lower it (a vehicle-specific top speed),
    # down to 5 m/s, never raise the benchmark's limit.
    Dimension("v_max", 5.0, 10.0, False),
    # pure pursuit's lookahead [m]: from about a car's wheelbase to 15 m (wide turns of a long
    # vehicle: the hovercraft's equivalent wheelbase is 8.2 m); Section III gives none (6 m).
    Dimension("lookahead", 3.0, 15.0, False),
    # speed-scaled lookahead [s]: l = max(lookahead, lookahead_time |v|); 0 (default) fixed,
    # 1.5 s gives 15 m at 10 m/s (the regulated pure pursuit's time is 1.5 s).
    Dimension("lookahead_time", 0.0, 1.5, False),
    # PI speed loop: full throttle at an error of 10 m/s down to 0.5 m/s (default 2 m/s) ...
    Dimension("kp_speed", 0.1, 2.0, True),
    # ... integral time 0.5 s to 10 s (default 2 s): the integral is what pulls a vehicle up a
    # hill (seed 001: the hovercraft's stuck events on hills went with it).
    Dimension("ti_speed", 0.5, 10.0, True),
    # tracked and hover steering: steer = heading_gain alpha / max_steer (wheeled vehicles steer
    # by pure pursuit and never read it): from half to four times the default 1.
    Dimension("heading_gain", 0.5, 4.0, True, (TRACKED, HOVER)),
)
"""What ``tune_vehicle`` searches (see the module docstring and each entry's comment)."""

EVALUATION_COLUMNS = {"trial": int, **ROW_TYPES}
"""The columns (and types) of a round's ``results.csv``: the candidate's trial number, then
``steerlab.trials.trial``'s row; keyed ``(trial, path, vehicle, follower, seed)``."""


_SAMPLER_OPTIONS = {"n_startup_trials": 10, "multivariate": True, "constant_liar": True}
"""TPE settings: 10 random trials (the enqueued defaults among them) before TPE's model, then
multivariate TPE (the dimensions interact: a higher a_lat wants a longer lookahead); the constant
liar for the candidates of a round (module docstring: it changes nothing with ``batch=1``)."""


def _steerlab_version() -> str:
    try:
        return metadata.version("steerlab")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def _import_optuna():
    try:
        import optuna
    except ImportError as error:
        raise ImportError(
            "steerlab tune needs Optuna, which is not installed: pip install 'steerlab[tune]'"
        ) from error
    return optuna


# --------------------------------------------------------------------------------------------------
# search space, objective, the evaluation's task


def search_space(vehicle) -> tuple[Dimension, ...]:
    """The dimensions searched for a vehicle (those its follower reads): a preset name, a
    vehicle file, a ``VehicleParams`` (``steerlab.vehicles.files.resolve_vehicle``)."""
    kind = resolve_vehicle(vehicle).params.kind
    return tuple(dimension for dimension in SEARCH_SPACE if kind in dimension.kinds)


def _candidate(values: dict[str, float]) -> FollowerParams:
    """``FollowerParams()`` with the searched fields replaced, validated."""
    return check_follower_params(FollowerParams()._replace(**values))


def objective(rows: Sequence[dict], suite=TUNE_SUITE) -> float:
    """``J = E + sum(time) / sum(limit)`` of an evaluation's rows (module docstring).

    ``rows``: ``run_trial`` rows (``path``, ``stuck_events``, ``time``); the limits are the suite's
    for each row's path. Raises ``ValueError`` for no rows or a row without values (a task that
    failed before its trial could start: a set-up problem, not a result).
    """
    loaded = load_suite(suite)
    if not rows:
        raise ValueError("rows must hold at least one trial")
    events = 0
    total_time = total_limit = 0.0
    for row in rows:
        if row.get("error") or row.get("stuck_events") is None or row.get("time") is None:
            raise ValueError(
                f"trial {row.get('path')!r} seed {row.get('seed')!r} has no result: "
                f"{row.get('error') or 'missing values'}"
            )
        events += int(row["stuck_events"])
        total_time += float(row["time"])
        total_limit += loaded.time_limit(row["path"])
    return events + total_time / total_limit


def evaluate_trials(payloads: Sequence[tuple[int, TrialSpec, tuple]]) -> list[dict]:
    """The runner's chunk function of a round: for each payload ``(trial number, spec,
    params)``, the trial number and ``evaluate_trial((spec, params))``'s row, the trials (of one
    candidate or several) stepped together (``steerlab.trials.batch.run_batch``, each row bit for
    bit ``run_trial``'s): each candidate as a ``NamedFollower`` named ``ours_tuned``."""
    specs = []
    for _, spec, values in payloads:
        params = check_follower_params(FollowerParams(*values))
        follower = NamedFollower("ours_tuned", "ours", params)
        specs.append(spec._replace(follower=follower, tuned_dir=""))
    return [
        {"trial": int(number), **{name: row[name] for name in ROW_TYPES}}
        for (number, _, _), row in zip(payloads, run_batch(specs), strict=True)
    ]


def evaluate_trial(payload: tuple[TrialSpec, tuple]) -> dict:
    """One trial of ``PathFollower`` with candidate parameters, alone (what ``evaluate_trials``
    gives each trial of a chunk).

    ``payload = (spec, params)``: a ``TrialSpec`` of follower ``ours_tuned`` and the candidate
    ``FollowerParams`` (as a tuple). The candidate is written as a preset in a temporary folder of
    this process (so a Ray worker on another machine needs no shared disk) and the trial runs as
    any benchmark trial (``run_trial``), reading it.
    """
    spec, values = payload
    params = check_follower_params(FollowerParams(*values))
    with tempfile.TemporaryDirectory(prefix="steerlab-tune-") as folder:
        write_tuned(tuned_file(spec.vehicle_name, folder), params, spec.vehicle_name)
        return run_trial(spec._replace(follower="ours_tuned", tuned_dir=folder))


# --------------------------------------------------------------------------------------------------
# helpers of tune_vehicle


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (one tuning of a vehicle per folder at a time), taken without
    waiting (``filelock``: every platform)."""
    lock = FileLock(path, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise ValueError(
            f"{path.parent}: another tuning of this vehicle is running in this folder"
        ) from None
    try:
        yield
    finally:
        lock.release()


def _sampler(optuna, seed: int, number: int):
    """TPE seeded by ``(seed, trial number)``: a proposal does not depend on interruptions."""
    state = np.random.SeedSequence([int(seed), int(number)]).generate_state(1)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(seed=int(state), **_SAMPLER_OPTIONS)


def _distributions(optuna, space: tuple[Dimension, ...]) -> dict:
    return {
        dimension.name: optuna.distributions.FloatDistribution(
            dimension.low, dimension.high, log=dimension.log
        )
        for dimension in space
    }


def _json_round_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def _check_config(study, config: dict, storage: Path) -> None:
    """Store the configuration in a new study; refuse a study made with another one."""
    stored = study.user_attrs.get("config")
    if stored is None:
        if study.trials:
            raise ValueError(
                f"{storage}: study {study.study_name!r} was not made by steerlab tune (no "
                "configuration); choose another output folder"
            )
        study.set_user_attr("config", config)
        return
    if stored != config:
        fields = sorted(
            key for key in set(stored) | set(config) if stored.get(key) != config.get(key)
        )
        details = "; ".join(
            f"{key}: stored {stored.get(key)!r}, asked {config.get(key)!r}" for key in fields
        )
        raise ValueError(
            f"{storage}: study {study.study_name!r} was made with another configuration "
            f"({details}); rerun with the same settings to resume, or choose another output folder"
        )


def _round(optuna, study, distributions: dict, seed: int, size: int) -> list[tuple[int, dict]]:
    """The candidates of the next round, ``(trial number, params)`` by number: the running trials
    whose parameters were drawn (a killed round's, resumed: all of them, even beyond ``size``)
    and, up to ``size`` candidates, new ones asked from the study, each with the sampler of its
    trial number. A running trial without its parameters was killed while they were being drawn:
    it is failed and, if it was enqueued (the defaults), enqueued again."""
    states = optuna.trial.TrialState
    running = study.get_trials(deepcopy=False, states=(states.RUNNING,))
    candidates = []
    for trial in sorted(running, key=lambda t: t.number):
        if set(trial.params) == set(distributions):
            candidates.append((trial.number, dict(trial.params)))
            continue
        study.tell(trial.number, state=states.FAIL)
        fixed = trial.system_attrs.get("fixed_params")
        if fixed:
            study.enqueue_trial(fixed)
    while len(candidates) < size:
        trials = study.get_trials(deepcopy=False)
        waiting = [t.number for t in trials if t.state == states.WAITING]
        # the number the asked trial gets: the oldest enqueued trial's, else the next one
        study.sampler = _sampler(optuna, seed, min(waiting, default=len(trials)))
        trial = study.ask(distributions)
        candidates.append((trial.number, dict(trial.params)))
    return candidates


def _chunk(tasks: int, workers: int | None) -> int:
    """Trials per ``run_batch`` call of a round of ``tasks`` trials: all in one call on one
    worker (which has every core); on ``w`` workers (default: the cores), ``w`` chunks of about
    equal size, one per worker."""
    return math.ceil(tasks / (workers or os.cpu_count() or 1))


def _check_batch(batch) -> None:
    if isinstance(batch, bool) or not isinstance(batch, int | np.integer) or batch < 1:
        raise ValueError(
            f"batch must be an integer >= 1 (candidates asked per round), got {batch!r}"
        )


def _complete(optuna, study) -> list:
    """The study's complete trials, by number."""
    state = optuna.trial.TrialState.COMPLETE
    return sorted(study.get_trials(deepcopy=False, states=(state,)), key=lambda t: t.number)


def _say(progress: bool, text: str) -> None:
    if progress:
        print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------
# tune_vehicle


def tune_vehicle(
    vehicle: str,
    n_trials: int,
    out_dir,
    *,
    seed: int = 0,
    workers: int | None = None,
    ray: bool = False,
    ray_address: str | None = None,
    seeds=None,
    paths: Sequence[str] | None = None,
    suite: str = TUNE_SUITE,
    ship: bool = False,
    progress: bool = False,
    batch: int = 1,
) -> FollowerParams:
    """Tune ``PathFollower``'s parameters for one vehicle preset on a training suite.

    Optuna's TPE sampler minimises ``J = E + sum(time) / sum(limit)`` (stuck events first, then
    total time: module docstring) over ``SEARCH_SPACE``, starting from the Section III defaults
    (trial 0). The best of the first ``n_trials`` complete trials (ties: the earliest) is written
    with ``write_tuned`` to ``out_dir/<vehicle>.toml`` and, with ``ship=True``, to the shipped
    folder ``steerlab/trials/tuned/`` that ``ours_tuned`` reads by default.

    Parameters
    ----------
    vehicle : str, path, VehicleParams or NamedVehicle
        A preset name (``steerlab.vehicles.PRESETS``) or the user's own vehicle (a vehicle file:
        ``steerlab.vehicles.files``); its name names the study and the preset file.
    n_trials : int
        Complete trials the study must hold (the defaults included); a rerun with a larger number
        continues the same study.
    out_dir : path
        Folder of the study (``tune.db``), the evaluations (``evaluations/<vehicle>/<n>/``) and
        the preset; created if missing.
    seed : int
        The sampler's seed.
    workers, ray, ray_address
        How each evaluation's trials run (``steerlab.runner.run_tasks``); results do not
        depend on them.
    seeds : int or sequence of int, optional
        Spawn seeds per path (a count or the seeds); default the suite's.
    paths : sequence of str, optional
        A subset of the suite's paths (default all): for quick studies and tests.
    suite : str
        ``"train"`` (Table I version 1's training paths) or ``"train_generated"`` (version 2's,
        generated from a seed no evaluated suite uses): any other suite is refused (the tuned
        parameters are judged on ``table1`` and ``generated``; tuning on them would be training
        on the test set).
    ship : bool
        Also write the preset into the shipped folder of the suite's presets
        (``steerlab.trials.followers.shipped_tuned_folder``).
    progress : bool
        Print one line per finished trial on stderr.
    batch : int
        Candidates asked per round (``>= 1``), their trials evaluated together (module docstring:
        rounds); part of the study's configuration. ``1``: a sequential study.

    Returns
    -------
    FollowerParams
        The best parameters found (the defaults if nothing beat them).

    Raises
    ------
    ValueError
        Another suite than ``train``, an unknown vehicle or path, ``n_trials < 1``, ``batch`` not
        an integer ``>= 1``, a study in ``out_dir`` made with another configuration, another
        tuning of the vehicle running in ``out_dir``.
    ImportError
        Optuna (the ``tune`` extra) or, when asked, Ray is not installed.
    RuntimeError
        An evaluation whose trials could not run (the study is left as it was: a rerun retries it).
    """
    if suite not in TUNE_SUITES:
        raise ValueError(
            f"suite must be one of {list(TUNE_SUITES)}: tuning sees only training paths (the "
            f"tuned parameters are judged on table1 and generated), got {suite!r}"
        )
    named = resolve_vehicle(vehicle)
    item = vehicle if isinstance(vehicle, str) and vehicle in PRESETS else named
    vehicle = named.name
    if isinstance(n_trials, bool) or not isinstance(n_trials, int | np.integer) or n_trials < 1:
        raise ValueError(f"n_trials must be an integer >= 1, got {n_trials!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    _check_batch(batch)
    loaded = load_suite(suite)
    if paths is None:
        path_names = list(loaded.path_names)
    else:
        if isinstance(paths, str) or not isinstance(paths, Sequence) or not paths:
            raise ValueError(f"paths must be a non-empty list of path names, got {paths!r}")
        path_names = list(paths)
        for name in path_names:
            loaded.path(name)  # ValueError listing the suite's paths
        if len(set(path_names)) != len(path_names):
            raise ValueError(f"paths must not repeat a path, got {paths!r}")
    specs = [
        spec
        for spec in trials(suite, vehicles=[item], followers=["ours_tuned"], seeds=seeds)
        if spec.path in path_names
    ]
    specs.sort(key=lambda spec: (path_names.index(spec.path), spec.seed))
    seed_list = sorted({spec.seed for spec in specs})
    space = search_space(named)
    defaults = {
        dimension.name: float(getattr(FollowerParams(), dimension.name)) for dimension in space
    }
    version = _steerlab_version()
    config = _json_round_trip(
        {
            "format": TUNE_FORMAT,
            "vehicle": vehicle,
            "suite": loaded.name,
            "suite_version": loaded.version,
            "suite_hash": loaded.hash,
            "paths": path_names,
            "seeds": seed_list,
            "seed": int(seed),
            "space": [[d.name, d.low, d.high, d.log] for d in space],
            **({} if isinstance(item, str) else {"vehicle_params": list(named.params)}),
            "sampler": _SAMPLER_OPTIONS,
            "batch": int(batch),
            "steerlab_version": version,
        }
    )
    optuna = _import_optuna()

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    storage_path = folder / STORAGE_FILE
    distributions = _distributions(optuna, space)
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        with _lock(folder / f".tune-{vehicle}.lock"), ray_session(ray, ray_address, workers):
            storage = optuna.storages.RDBStorage(
                f"sqlite:///{storage_path}", engine_kwargs={"connect_args": {"timeout": 60}}
            )
            study = optuna.create_study(
                storage=storage, study_name=vehicle, direction="minimize", load_if_exists=True
            )
            _check_config(study, config, storage_path)
            study_id = storage.get_study_id_from_name(vehicle)
            if not study.trials:
                study.enqueue_trial(defaults)  # trial 0: Section III's values
            warmed = False
            while True:
                missing = n_trials - len(_complete(optuna, study))
                if missing <= 0:
                    break
                candidates = _round(optuna, study, distributions, seed, min(batch, missing))
                if not warmed and not (ray or ray_address) and (workers or os.cpu_count() or 1) > 1:
                    # compile (or load from numba's cache) in this process once: forked workers
                    # then inherit the kernels instead of loading them at every evaluation
                    run_trial(specs[0]._replace(follower="ours", tuned_dir=""))
                    warmed = True
                started = time.perf_counter()
                runs = {"workers": workers, "ray": ray, "ray_address": ray_address}
                results = _evaluate(vehicle, candidates, specs, folder, config, **runs)
                elapsed = time.perf_counter() - started
                shared = f" (a round of {len(candidates)})" if len(candidates) > 1 else ""
                for (number, _), (value, summary) in zip(candidates, results, strict=True):
                    trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, number)
                    for key, entry in summary.items():
                        storage.set_trial_user_attr(trial_id, key, entry)
                    study.tell(number, value)
                    best = min((t.value, t.number) for t in _complete(optuna, study))
                    _say(
                        progress,
                        f"{vehicle} trial {number}: J = {value:.4f} ({summary['stuck_events']} "
                        f"stuck events, time {summary['time']:.1f} / {summary['time_limit']:.0f} "
                        f"s, {summary['completed']}/{summary['trials']} arrived) in "
                        f"{elapsed:.1f} s{shared}; best J = {best[0]:.4f} (trial {best[1]})",
                    )
            complete = _complete(optuna, study)[:n_trials]
            best = min(complete, key=lambda t: (t.value, t.number))
            first = next((t for t in complete if t.params == defaults), complete[0])
    finally:
        optuna.logging.set_verbosity(verbosity)

    params = _candidate(dict(best.params))
    meta = {
        "suite": loaded.name,
        "suite_version": loaded.version,
        "suite_hash": loaded.hash,
        "paths": len(path_names),
        "seeds": len(seed_list),
        "sampler": "optuna TPESampler (multivariate)",
        **({"batch": int(batch)} if batch > 1 else {}),  # batch 1: the sequential study's file
        "seed": int(seed),
        "trials": len(complete),
        "best_trial": best.number,
        "objective": "J = stuck_events + sum(time) / sum(time_limit)",
        "j_best": float(best.value),
        "stuck_events_best": int(best.user_attrs.get("stuck_events", -1)),
        "j_default": float(first.value),
        "stuck_events_default": int(first.user_attrs.get("stuck_events", -1)),
        "steerlab_version": version,
    }
    write_tuned(tuned_file(vehicle, folder), params, vehicle, meta)
    if ship:
        write_tuned(tuned_file(vehicle, shipped_tuned_folder(suite)), params, vehicle, meta)
    return params


def _evaluate(
    vehicle: str,
    candidates: list[tuple[int, dict[str, float]]],
    specs: list[TrialSpec],
    folder: Path,
    config: dict,
    *,
    workers,
    ray,
    ray_address,
) -> list[tuple[float, dict]]:
    """Run a round's trials (every candidate x every spec) through the runner, in chunks of
    ``_chunk``; ``(J, summary)`` per candidate, in ``candidates``' order."""
    from steerlab.runner import Task, run_tasks

    numbers = [number for number, _ in candidates]
    params = [_candidate(values) for _, values in candidates]
    manifest = {
        "format": TUNE_FORMAT,
        "evaluation_of": {key: config[key] for key in ("vehicle", "suite", "suite_hash", "seed")},
        "trials": [
            {"trial": int(number), "params": _manifest_params(candidate)}
            for number, candidate in zip(numbers, params, strict=True)
        ],
        "steerlab_version": config["steerlab_version"],
    }
    tasks = [
        Task((number, *spec.key), (number, spec, tuple(candidate)))
        for number, candidate in zip(numbers, params, strict=True)
        for spec in specs
    ]
    name = str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"
    rows = run_tasks(
        tasks,
        evaluate_trials,
        folder / "evaluations" / vehicle / name,
        columns=EVALUATION_COLUMNS,
        manifest=manifest,
        workers=workers,
        ray=ray,
        ray_address=ray_address,
        progress=False,
        parquet=False,
        retry_errors=True,
        chunk=_chunk(len(tasks), workers),
    )
    errors = [row for row in rows if row.get("error")]
    if errors:
        raise RuntimeError(
            f"evaluation of trials {numbers} of {vehicle}: {len(errors)} of {len(rows)} trials "
            f"could not run (first: trial {errors[0]['trial']}, {errors[0]['path']!r} seed "
            f"{errors[0]['seed']}: {errors[0]['error']}); rerun to retry"
        )
    loaded = load_suite(config["suite"])
    results = []
    for number in numbers:
        own = [row for row in rows if row["trial"] == number]
        summary = {
            "stuck_events": int(sum(row["stuck_events"] for row in own)),
            "time": float(sum(row["time"] for row in own)),
            "time_limit": float(sum(loaded.time_limit(row["path"]) for row in own)),
            "completed": int(sum(bool(row["completed"]) for row in own)),
            "trials": len(own),
        }
        results.append((objective(own, config["suite"]), summary))
    return results


def _manifest_params(params: FollowerParams) -> dict:
    """A candidate's ``FollowerParams`` as JSON (no inf in JSON: ``ti_speed`` and friends may be
    inf in other studies, written as their ``repr``)."""
    return {
        name: (value if not isinstance(value, float) or math.isfinite(value) else repr(value))
        for name, value in zip(FollowerParams._fields, params, strict=True)
    }
