"""Table I, version 2: path followers compared on feasible pairs, by stall episodes per km, with
free constants set by rule, sensitivity fronts, ablations and intervals over paths.

This module runs any protocol file of that shape (``steerlab.trials.protocol``): version 2, and
version 3 (``protocols/table1_v3.toml``, ``make bench``), which adds one-at-a-time sweeps of every
other free constant; their points join each follower's front like the grid's. The files keep the
``table1_v2`` names whatever the version; the summary's ``"protocol"`` says which.

Version 1 (``steerlab.experiments.benchmark.table1``) reproduces seed 001's Table I literally.
Its verdict measures the suite and its free constants as much as the followers (infeasible
pairs, one stall counted as tens of events, a lookahead shorter than a turning radius, an
unpublished baseline constant). Version 2 runs the comparison a reviewer would trust, every
choice declared in the protocol file (``steerlab.trials.protocol``, ``protocols/table1_v2.toml``,
hashed into every result) before any version 2 result was seen:

1. **Gate** (``steerlab.trials.feasibility``): the best-case driver decides, per (vehicle, path)
   of the evaluated and the tuning suites, whether the pair can be completed at all. Infeasible
   pairs run like the others but are left out of the comparison (the totals with them are
   reported beside, marked).
2. **Calibration** of the ``matched_speed`` rule (the baseline's ``K``): bisection on ``log K``
   until the baseline's mean speed over the tuning suite's feasible pairs equals the reference
   follower's there (every other constant by its rule). The tuning suite only: never the
   evaluated paths.
3. **Trials**: every follower at its rules' values (Table I's columns), then every sweep point
   (``steerlab.trials.protocol.sweep_points``), on every path of the evaluated suites, every
   vehicle, the protocol's seeds; one row per trial in ``DIR/results.csv`` (the resumable runner,
   ``steerlab.runner``): the trial's row (``steerlab.trials.trial``) and its stall episodes and
   exposure (``steerlab.trials.stalls``).
4. **Aggregation** over the feasible trials: per follower, stall episodes (total, per km, per
   minute), the observer's stuck events, mean time, cross-track error, time inside the corridor,
   speed; percentile bootstrap intervals over paths (``steerlab.experiments.benchmark.stats``)
   and paired differences against the baseline; per swept follower its points and Pareto front
   (mean time against stalls per km); the verdict of each declared pair by front coverage; stall
   episodes per driving minute per vehicle class and for the protocol's class mix (the soak).

5. **Where the stalls are**: stall episodes per path and follower at the rules' values
   (``stalls_by_path``), and replay pages (``steerlab.replay``) of the headline pair's (the
   protocol's first verdict pair) most stalled trials, ``REPLAY_TRIALS`` of each follower
   (``replay_choices``), so the report shows the stalls it counts.

Files: ``DIR/results.csv`` (+ ``results.parquet``, ``run.json``), ``DIR/gate/`` and
``DIR/calibration/`` (their own resumable runs), ``DIR/summary.json`` (``SUMMARY_FORMAT``, the
output contract below), ``DIR/table1_v2.md``, ``DIR/report.html``, ``DIR/figures/pareto.png`` and
``DIR/replays/``.

Summary contract: ``"protocol"`` (the file's version: 2, 3), ``"protocol_sha256"``,
``"suite_sha256"`` (the evaluated suites' hashes, by name), ``"paths"``, ``"trials"`` (sweeps
included), ``"infeasible"`` (``[vehicle, suite/path]`` pairs), ``"followers"`` (name -> the
fields of ``FOLLOWER_FIELDS``; each follower's entry also under its own name at the top level),
``"pareto"`` (name -> points, each with ``time_mean``, ``stalls_per_km``, ``constants``,
``on_front`` and ``design``: ``"rules"``, ``"grid"`` or ``"one_at_a_time"``), ``"verdict"``,
``"soak"``, ``"calibration"``, ``"stalls_by_path"``, ``"replays"`` (each replayed trial's key,
its episodes and stuck events, ``href`` its page relative to ``DIR``, ``matches``: the replay's
stuck events and time equal the stored row's).

``quick=True`` runs the same protocol on a declared subset (``QUICK_PATHS`` paths of each suite,
each sweep list cut to its ends): a check of the machinery, never a verdict (the summary says
``"quick": true``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from steerlab.experiments.benchmark.stats import bootstrap_interval
from steerlab.experiments.benchmark.table1 import (
    PAPER_TABLE1,
    follower_title,
    missing_tuned,
    steerlab_version,
    write_summary_files,
    write_text,
)
from steerlab.experiments.markdown import numbers_table
from steerlab.experiments.pages import render_page
from steerlab.replay import write_trial_replay
from steerlab.runner import Task, ray_session, run_tasks
from steerlab.trials.batch import run_batch, simulate_batch
from steerlab.trials.feasibility import BATCH_SIZE, pairs_feasibility
from steerlab.trials.followers import (
    NamedFollower,
    read_tuned,
    shipped_tuned_folder,
    tuned_digest,
    tuned_file,
)
from steerlab.trials.generate import generated_seeds
from steerlab.trials.observer import OBSERVER
from steerlab.trials.protocol import (
    Protocol,
    SweepPoint,
    follower_params_for,
    load_protocol,
    rule_points,
    sweep_points,
)
from steerlab.trials.stalls import EPISODE_DISTANCE, rate, trial_stalls
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import DRIVEN_TYPES, ROW_COLUMNS, TrialSpec, simulate_trial

__all__ = [
    "FOLLOWER_FIELDS",
    "KEY_COLUMNS",
    "QUICK_PATHS",
    "REPLAY_TRIALS",
    "ROW_TYPES",
    "SUMMARY_FORMAT",
    "aggregate",
    "front_coverage",
    "pareto_front",
    "replay_choices",
    "run_table1_v2",
    "stalls_by_path",
    "trial_row",
    "trial_rows",
    "verdict_lines",
]

SUMMARY_FORMAT = "steerlab.table1/2"

KEY_COLUMNS = ("suite", "path", "vehicle", "follower", "seed")
"""A version 2 trial's key: two evaluated suites may share path names."""

STALL_TYPES = {
    "episodes": int,
    "driving_km": float,
    "driving_minutes": float,
    "episodes_per_km": float,
    "episodes_per_minute": float,
    "events_per_km": float,
    "events_per_minute": float,
    "timed_out": bool,
}
"""The stall columns of a row (``StallCounts``' fields but ``events``, which is the row's
``stuck_events``)."""

ROW_TYPES = {
    "suite": str,
    "path": str,
    "vehicle": str,
    "follower": str,
    "seed": int,
    **DRIVEN_TYPES,
    **STALL_TYPES,
}
"""Every column of a version 2 row with its type, in order."""

FOLLOWER_FIELDS = (
    "stalls",
    "stalls_per_km",
    "stalls_per_minute",
    "stuck_events",
    "stuck_events_per_km",
    "feasible_trials",
    "infeasible_trials",
    "completed",
    "timed_out",
    "errors",
    "time_mean",
    "cte_mean",
    "inside_corridor_mean",
    "speed_mean",
    "stuck_by_vehicle",
    "stalls_by_vehicle",
)
"""A follower's figures in the summary (over its feasible trials; ``with_infeasible`` the same
over all of them)."""

QUICK_PATHS = 2
"""Paths of each suite (the evaluated ones and the tuning one) in a quick run: its first ones."""

GATE_FOLDER = "gate"
CALIBRATION_FOLDER = "calibration"
FIGURES_FOLDER = "figures"
REPLAYS_FOLDER = "replays"
REPLAY_TRIALS = 3
"""Trials of each follower of the headline pair the report replays (``replay_choices``): a few
seconds and about 2 MB in all."""
CHUNK = 512
"""Trials per runner task call (``run_tasks(chunk=)``): one call steps them together."""
GATE_CHUNK = BATCH_SIZE // 2
"""The gate's drives per runner task call: one ``simulate_batch`` call (their records held at
once, ``steerlab.trials.feasibility.BATCH_SIZE``), several calls per worker to share the work."""


# --------------------------------------------------------------------------------------------------
# one trial's row


def trial_row(payload) -> dict:
    """The row of one trial (``ROW_TYPES``): ``payload`` is ``(TrialSpec, episode_distance)``;
    the trial's row (``simulate_trial``) and its stalls (``trial_stalls``). The independent
    route that ``trial_rows`` must equal."""
    spec, distance = payload
    row, records = simulate_trial(spec)
    stalls = trial_stalls(records, row["ended"], distance=distance)
    return {**row, **{name: getattr(stalls, name) for name in STALL_TYPES}}


def trial_rows(payloads: Sequence) -> list[dict]:
    """The rows of many trials at once (the runner's chunk function): ``run_batch``, every trial
    stepped in one compiled loop, each row bit for bit ``trial_row``'s. Its stall columns use
    ``steerlab.trials.stalls.EPISODE_DISTANCE``: a payload declaring another distance is
    computed one by one (``trial_row``)."""
    rows: list[dict | None] = [None] * len(payloads)
    batched = [i for i, (_, distance) in enumerate(payloads) if distance == EPISODE_DISTANCE]
    for index, row in zip(batched, run_batch([payloads[i][0] for i in batched]), strict=True):
        rows[index] = {name: row[name] for name in ROW_COLUMNS + tuple(STALL_TYPES)}
    for index, payload in enumerate(payloads):
        if rows[index] is None:
            rows[index] = trial_row(payload)
    return rows


# --------------------------------------------------------------------------------------------------
# what a run compares


class _Plan:
    """The run's subjects: suites and their paths, the tuning suite's, the points."""

    def __init__(self, protocol: Protocol, quick: bool, tuned_dir):
        self.protocol = protocol
        self.quick = quick
        self.suites = {name: load_suite(name) for name in protocol.suites}
        self.tuning = load_suite(protocol.tuning_suite)
        if tuned_dir is None:  # the presets shipped for this tuning suite
            tuned_dir = shipped_tuned_folder(self.tuning.name)
        self.tuned_dir = str(tuned_dir)
        limit = QUICK_PATHS if quick else None
        self.paths = {name: list(suite.path_names[:limit]) for name, suite in self.suites.items()}
        self.tuning_paths = list(self.tuning.path_names[:limit])
        self.vehicles = list(protocol.vehicles)
        self.seeds = list(range(protocol.seeds.value))
        self.left_out: dict[str, str] = {}
        self.followers = [p for p in rule_points(protocol) if self._runnable(p.follower)]
        points = sweep_points(protocol)
        if quick:
            points = sweep_points(protocol, ends=True)
        self.sweeps = [p for p in points if self._runnable(p.follower)]

    def _runnable(self, follower: str) -> bool:
        if follower != "ours_tuned":
            return True
        if follower in self.left_out:
            return False
        reason = _tuned_problem(self.protocol, self.vehicles, self.tuned_dir)
        if reason:
            self.left_out[follower] = reason
            return False
        return True


def _tuned_problem(protocol: Protocol, vehicles: Sequence[str], tuned_dir: str) -> str:
    """Why ``ours_tuned`` cannot run under the protocol (``""`` if it can): a missing preset, or
    one tuned on another suite than the protocol's tuning suite."""
    missing = missing_tuned(vehicles, tuned_dir or None)
    if missing:
        return f"no tuned preset {missing[0]}"
    for vehicle in vehicles:
        path = tuned_file(vehicle, tuned_dir or None)
        _, _, meta = read_tuned(path)
        if meta.get("suite") != protocol.tuning_suite:
            return (
                f"{path} was tuned on {meta.get('suite')!r}, not on the protocol's tuning suite "
                f"{protocol.tuning_suite!r}"
            )
    return ""


def _check_plan(plan: _Plan) -> None:
    """Refuse a protocol this runner cannot honour, before anything runs."""
    protocol = plan.protocol
    declared = (
        protocol.observer.stuck_distance,
        protocol.observer.stuck_window,
        protocol.observer.arrival_radius,
    )
    used = (OBSERVER.stuck_distance, OBSERVER.stuck_window, OBSERVER.arrival_radius)
    if declared != used:
        raise ValueError(
            f"{protocol.source}: observer: trials are judged by Table I's observer {used} "
            f"(stuck_distance, stuck_window, arrival_radius), got {declared}"
        )
    tuning_seeds = generated_seeds(plan.tuning)
    for name, suite in plan.suites.items():
        shared = tuning_seeds & generated_seeds(suite)
        if shared:
            raise ValueError(
                f"{protocol.source}: tuning_suite {protocol.tuning_suite!r} shares generated "
                f"seeds {sorted(shared)} with the evaluated suite {name!r}"
            )
        if suite.name == plan.tuning.name:
            raise ValueError(f"{protocol.source}: the tuning suite {name!r} is also evaluated")
    names = [suite.name for suite in plan.suites.values()]
    if len(set(names)) != len(names):
        raise ValueError(f"{protocol.source}: suites: two evaluated suites share a name: {names}")


def _log(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------
# 1. the gate


GATE_TYPES = {
    "suite": str,
    "path": str,
    "vehicle": str,
    "feasible": bool,
    "reason": str,
    "ended": str,
    "progress": float,
    "length": float,
    "time": float,
    "time_limit": float,
}


def gate_rows(payloads: Sequence) -> list[dict]:
    """The best-case driver's verdicts on ``payloads`` ``(suite, path, vehicle)`` as rows (the
    runner's chunk function): the drives batched (``pairs_feasibility``)."""
    return [
        {name: getattr(verdict, name) for name in list(GATE_TYPES)[3:]}
        for verdict in pairs_feasibility(payloads)
    ]


def _gate(plan: _Plan, out_dir: Path, runner: Mapping) -> dict[tuple[str, str, str], bool]:
    """Feasibility of every (suite, path, vehicle) of the evaluated and tuning suites."""
    pairs = [
        (suite, path, vehicle)
        for suite, paths in [*plan.paths.items(), (plan.protocol.tuning_suite, plan.tuning_paths)]
        for path in paths
        for vehicle in plan.vehicles
    ]
    manifest = {
        "what": "feasibility gate",
        "protocol_sha256": plan.protocol.sha256,
        "suites": _suite_hashes(plan, tuning=True),
    }
    rows = run_tasks(
        [Task((load_suite(pair[0]).name, *pair[1:]), pair) for pair in pairs],
        gate_rows,
        out_dir / GATE_FOLDER,
        columns=GATE_TYPES,
        manifest=manifest,
        chunk=GATE_CHUNK,
        **runner,
    )
    failed = [row for row in rows if row["error"]]
    if failed:
        raise RuntimeError(
            f"the feasibility gate failed on {len(failed)} pairs, first "
            f"{failed[0]['suite']}/{failed[0]['path']} {failed[0]['vehicle']}: "
            f"{failed[0]['error']}"
        )
    return {(row["suite"], row["path"], row["vehicle"]): bool(row["feasible"]) for row in rows}


def _suite_hashes(plan: _Plan, tuning: bool = False) -> dict[str, str]:
    hashes = {suite.name: suite.hash for suite in plan.suites.values()}
    if tuning:
        hashes[plan.tuning.name] = plan.tuning.hash
    return hashes


# --------------------------------------------------------------------------------------------------
# 2. calibration of the matched_speed rules


def _specs(
    plan: _Plan,
    point: SweepPoint,
    suites: Mapping[str, Sequence[str]],
    calibrated: Mapping[str, float],
) -> list[TrialSpec]:
    """The trials of one point: every path of ``suites`` x vehicle x seed."""
    named = {
        vehicle: NamedFollower(
            point.name,
            point.follower,
            follower_params_for(
                plan.protocol,
                point.follower,
                vehicle,
                constants=point.constants,
                calibrated=calibrated,
                tuned_dir=plan.tuned_dir or None,
            ),
        )
        for vehicle in plan.vehicles
    }
    return [
        TrialSpec(suite, path, vehicle, named[vehicle], seed, plan.tuned_dir)
        for suite, paths in suites.items()
        for path in paths
        for vehicle in plan.vehicles
        for seed in plan.seeds
    ]


def _run_trials(
    specs: Sequence[TrialSpec], folder: Path, manifest: Mapping, plan: _Plan, runner: Mapping
) -> list[dict]:
    distance = plan.protocol.stalls.episode_distance
    tasks = [
        Task(
            (
                load_suite(spec.suite).name,
                spec.path,
                spec.vehicle_name,
                spec.follower_name,
                spec.seed,
            ),
            (spec, distance),
        )
        for spec in specs
    ]
    return run_tasks(
        tasks,
        trial_rows,
        folder,
        columns=ROW_TYPES,
        manifest=dict(manifest),
        chunk=CHUNK,
        counter="episodes",
        **runner,
    )


def _mean_speed(rows: Iterable[Mapping], feasible_pairs: Mapping) -> float:
    speeds = [
        row["speed_mean"]
        for row in rows
        if not row["error"] and feasible_pairs[(row["suite"], row["path"], row["vehicle"])]
    ]
    return float(np.mean(speeds)) if speeds else math.nan


def _calibrate(
    plan: _Plan, out_dir: Path, feasible_pairs: Mapping, runner: Mapping, progress: bool
) -> dict[str, Any]:
    """Each ``matched_speed`` rule's value (module docstring, step 2), with its evaluations."""
    protocol = plan.protocol
    results: dict[str, Any] = {}
    tuning = {plan.protocol.tuning_suite: plan.tuning_paths}
    base = {
        "what": "calibration",
        "protocol_sha256": protocol.sha256,
        "suites": {plan.tuning.name: plan.tuning.hash},
        "vehicles": plan.vehicles,
        "paths": plan.tuning_paths,
    }
    seen: set[str] = set()
    for rule_name, rule in protocol.rules.items():
        if rule.rule != "matched_speed" or rule.field in seen:
            continue
        seen.add(rule.field)
        follower = next(f for f in rule.followers if any(p.follower == f for p in plan.followers))
        reference_point = SweepPoint(rule.reference, rule.reference, {})
        folder = out_dir / CALIBRATION_FOLDER / rule_name
        reference_rows = _run_trials(
            _specs(plan, reference_point, tuning, {}),
            folder / "reference",
            {**base, "follower": rule.reference},
            plan,
            runner,
        )
        target = _mean_speed(reference_rows, feasible_pairs)
        low, high = math.log(rule.low), math.log(rule.high)
        steps = []
        for step in range(rule.iterations):
            middle = 0.5 * (low + high)
            value = math.exp(middle)
            point = SweepPoint(follower, follower, {rule.field: value})
            rows = _run_trials(
                _specs(plan, point, tuning, {}),
                folder / f"step-{step:02d}",
                {**base, "follower": follower, rule.field: value},
                plan,
                runner,
            )
            speed = _mean_speed(rows, feasible_pairs)
            steps.append({rule.field: value, "speed_mean": speed})
            _log(
                progress,
                f"calibration {rule.field} = {value:.4g}: mean speed {speed:.4g} m/s "
                f"(target {target:.4g})",
            )
            if speed < target:
                low = middle
            else:
                high = middle
        value = math.exp(0.5 * (low + high))
        edge = low == math.log(rule.low) or high == math.log(rule.high)
        results[rule.field] = {
            "matched": not edge,
            "value": value,
            "rule": rule_name,
            "reference": rule.reference,
            "follower": follower,
            "target_speed_mean": target,
            "steps": steps,
            "bracket": [math.exp(low), math.exp(high)],
        }
    return results


# --------------------------------------------------------------------------------------------------
# 3-4. aggregation


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _block(rows: Sequence[Mapping], vehicles: Sequence[str]) -> dict[str, Any]:
    """A follower's figures over ``rows`` (successful trials)."""
    episodes = sum(int(row["episodes"]) for row in rows)
    events = sum(int(row["stuck_events"]) for row in rows)
    km = sum(float(row["driving_km"]) for row in rows)
    minutes = sum(float(row["driving_minutes"]) for row in rows)
    return {
        "stalls": episodes,
        "stalls_per_km": rate(episodes, km),
        "stalls_per_minute": rate(episodes, minutes),
        "stuck_events": events,
        "stuck_events_per_km": rate(events, km),
        "completed": sum(bool(row["completed"]) for row in rows),
        "timed_out": sum(bool(row["timed_out"]) for row in rows),
        "time_mean": _mean([row["time"] for row in rows]),
        "cte_mean": _mean([row["cte_mean"] for row in rows]),
        "inside_corridor_mean": _mean([row["inside_corridor"] for row in rows]),
        "speed_mean": _mean([row["speed_mean"] for row in rows]),
        "stuck_by_vehicle": {
            vehicle: sum(int(row["stuck_events"]) for row in rows if row["vehicle"] == vehicle)
            for vehicle in vehicles
        },
        "stalls_by_vehicle": {
            vehicle: sum(int(row["episodes"]) for row in rows if row["vehicle"] == vehicle)
            for vehicle in vehicles
        },
        "driving_km": km,
        "driving_minutes": minutes,
    }


def _pair_key(row: Mapping) -> tuple[str, str, str]:
    return (row["suite"], row["path"], row["vehicle"])


def follower_entry(
    rows: Sequence[Mapping], feasible_pairs: Mapping, vehicles: Sequence[str]
) -> dict[str, Any]:
    """A follower's summary entry (``FOLLOWER_FIELDS``) from its rows: figures over its feasible
    trials, and ``with_infeasible`` over all its successful trials."""
    good = [row for row in rows if not row["error"]]
    feasible_rows = [row for row in good if feasible_pairs[_pair_key(row)]]
    entry = _block(feasible_rows, vehicles)
    entry["feasible_trials"] = len(feasible_rows)
    entry["infeasible_trials"] = len(good) - len(feasible_rows)
    entry["errors"] = len(rows) - len(good)
    entry["with_infeasible"] = {**_block(good, vehicles), "trials": len(good)}
    return entry


def _per_path(rows: Sequence[Mapping], feasible_pairs: Mapping) -> dict[tuple[str, str], list]:
    """Per (suite, path): ``[stall episodes, driving km, summed time, trials]`` over the feasible
    successful trials."""
    table: dict[tuple[str, str], list] = {}
    for row in rows:
        if row["error"] or not feasible_pairs[_pair_key(row)]:
            continue
        cell = table.setdefault((row["suite"], row["path"]), [0.0, 0.0, 0.0, 0.0])
        cell[0] += row["episodes"]
        cell[1] += row["driving_km"]
        cell[2] += row["time"]
        cell[3] += 1.0
    return table


def _ratio(sample: np.ndarray, numerator: int, denominator: int) -> float:
    return float(sample[:, numerator].sum() / sample[:, denominator].sum())


def _intervals(per_path: Mapping, settings) -> dict[str, list[float] | None]:
    """95 % (the protocol's) intervals of stalls per km and mean time over paths."""
    if len(per_path) < 2:
        return {"stalls_per_km": None, "time_mean": None}
    values = np.array(list(per_path.values()))
    options = {
        "n_resamples": settings.resamples,
        "seed": settings.seed,
        "confidence": settings.confidence,
    }
    return {
        "stalls_per_km": list(bootstrap_interval(values, lambda s: _ratio(s, 0, 1), **options)),
        "time_mean": list(bootstrap_interval(values, lambda s: _ratio(s, 2, 3), **options)),
    }


def _difference(first: Mapping, second: Mapping, settings) -> dict[str, Any]:
    """``first - second`` of stalls per km and mean time over the paths both ran, with intervals
    by resampling those paths (paired)."""
    paths = sorted(set(first) & set(second))
    if not paths:
        return {"paths": 0}
    values = np.array([first[path] + second[path] for path in paths])

    def stalls(sample):
        return _ratio(sample, 0, 1) - _ratio(sample, 4, 5)

    def time(sample):
        return _ratio(sample, 2, 3) - _ratio(sample, 6, 7)

    result: dict[str, Any] = {
        "paths": len(paths),
        "stalls_per_km": stalls(values),
        "time_mean": time(values),
    }
    if len(paths) >= 2:
        options = {
            "n_resamples": settings.resamples,
            "seed": settings.seed,
            "confidence": settings.confidence,
        }
        result["stalls_per_km_interval"] = list(bootstrap_interval(values, stalls, **options))
        result["time_mean_interval"] = list(bootstrap_interval(values, time, **options))
    return result


def pareto_front(points: Sequence[tuple[float, float]]) -> list[bool]:
    """Whether each ``(time, stalls per km)`` point is on the front: no other point is at most
    as large in both and smaller in one."""
    flags = []
    for index, (time, stalls) in enumerate(points):
        dominated = any(
            other_time <= time
            and other_stalls <= stalls
            and (other_time < time or other_stalls < stalls)
            for other, (other_time, other_stalls) in enumerate(points)
            if other != index
        )
        flags.append(not dominated)
    return flags


def front_coverage(
    first: Sequence[tuple[float, float]], second: Sequence[tuple[float, float]]
) -> float:
    """The share of ``second``'s points that some point of ``first`` matches or beats in both
    mean time and stalls per km (1: ``first`` covers ``second``'s whole front)."""
    if not second:
        return math.nan
    covered = sum(
        any(time <= other_time and stalls <= other_stalls for time, stalls in first)
        for other_time, other_stalls in second
    )
    return covered / len(second)


def _pareto(
    plan: _Plan, rows_by_name: Mapping, feasible_pairs: Mapping, calibrated: Mapping
) -> dict[str, list[dict]]:
    """Each follower's points: its rules' point and its sweep's, with the front marked."""
    pareto: dict[str, list[dict]] = {}
    for rule_point in plan.followers:
        follower = rule_point.follower
        points = [rule_point] + [p for p in plan.sweeps if p.follower == follower]
        entries = []
        for point in points:
            figures = _block(
                [
                    row
                    for row in rows_by_name.get(point.name, [])
                    if not row["error"] and feasible_pairs[_pair_key(row)]
                ],
                plan.vehicles,
            )
            constants = dict(point.constants)
            if point is rule_point:
                constants = _rule_constants(plan.protocol, follower, calibrated)
            entries.append(
                {
                    "name": point.name,
                    "time_mean": figures["time_mean"],
                    "stalls_per_km": figures["stalls_per_km"],
                    "constants": constants,
                    "design": point.design,
                }
            )
        usable = [
            entry for entry in entries if None not in (entry["time_mean"], entry["stalls_per_km"])
        ]
        flags = pareto_front([(e["time_mean"], e["stalls_per_km"]) for e in usable])
        for entry in entries:
            entry["on_front"] = False
        for entry, flag in zip(usable, flags, strict=True):
            entry["on_front"] = flag
        pareto[follower] = entries
    return pareto


def _rule_constants(protocol: Protocol, follower: str, calibrated: Mapping) -> dict[str, Any]:
    """What the rules set for ``follower``'s Table I column, as the sweep keys name them."""
    constants: dict[str, Any] = {}
    for rule in protocol.rules_for(follower):
        if rule.rule == "turning_radius_floor":
            constants["lookahead_factor"] = 1.0
        elif rule.field in calibrated:
            constants[rule.field] = calibrated[rule.field]["value"]
    return constants


def _verdict(protocol: Protocol, pareto: Mapping, per_path: Mapping) -> list[dict]:
    """The verdict of each declared pair (the protocol's ``front_coverage`` rule)."""
    verdicts = []
    for first, second in protocol.verdict.pairs:
        if first not in pareto or second not in pareto:
            verdicts.append({"pair": [first, second], "verdict": "not run"})
            continue
        fronts = [
            [(p["time_mean"], p["stalls_per_km"]) for p in pareto[name] if p["on_front"]]
            for name in (first, second)
        ]
        covers = front_coverage(fronts[0], fronts[1])
        covered = front_coverage(fronts[1], fronts[0])
        if covers == 1.0 and covered < 1.0:
            outcome = "dominates"
        elif covered == 1.0 and covers < 1.0:
            outcome = "is dominated by"
        else:
            outcome = "neither dominates nor is dominated by"
        verdicts.append(
            {
                "pair": [first, second],
                "verdict": outcome,
                "coverage": covers,
                "coverage_reverse": covered,
                "difference": _difference(per_path[first], per_path[second], protocol.intervals),
            }
        )
    return verdicts


def _soak(protocol: Protocol, rows_by_name: Mapping, feasible_pairs: Mapping, names) -> dict:
    """Stall episodes per driving minute per vehicle class and for the class mix."""
    soak: dict[str, Any] = {"mix": dict(protocol.soak.mix), "classes": {}}
    shares = protocol.soak.mix
    for name in names:
        rows = [
            row
            for row in rows_by_name.get(name, [])
            if not row["error"] and feasible_pairs[_pair_key(row)]
        ]
        per_class = {}
        for label, members in protocol.soak.classes.items():
            chosen = [row for row in rows if row["vehicle"] in members]
            episodes = sum(int(row["episodes"]) for row in chosen)
            minutes = sum(float(row["driving_minutes"]) for row in chosen)
            km = sum(float(row["driving_km"]) for row in chosen)
            per_class[label] = {
                "episodes": episodes,
                "driving_minutes": minutes,
                "driving_km": km,
                "episodes_per_minute": rate(episodes, minutes),
                "episodes_per_km": rate(episodes, km),
            }
        rates = [per_class[label]["episodes_per_minute"] for label in shares]
        if None in rates or math.inf in rates:
            mixed = None
        else:
            weights = sum(shares.values())
            mixed = sum(shares[label] * per_class[label]["episodes_per_minute"] for label in shares)
            mixed /= weights
        soak["classes"][name] = {
            "per_class": per_class,
            "episodes_per_minute": mixed,
            "seconds_between_stalls": (60.0 / mixed) if mixed else None,
        }
    soak["paper_seconds_between_stuck"] = {"ours": 131.0, "baseline": 60.0}
    return soak


def aggregate(
    plan: _Plan, rows: Sequence[Mapping], feasible_pairs: Mapping, calibrated: Mapping
) -> dict[str, Any]:
    """The summary's figures (module docstring) from every row of the run."""
    rows_by_name: dict[str, list] = {}
    for row in rows:
        rows_by_name.setdefault(row["follower"], []).append(row)
    names = [point.name for point in plan.followers]
    followers = {
        name: follower_entry(rows_by_name.get(name, []), feasible_pairs, plan.vehicles)
        for name in names
    }
    per_path = {name: _per_path(rows_by_name.get(name, []), feasible_pairs) for name in names}
    for name in names:
        followers[name]["intervals"] = _intervals(per_path[name], plan.protocol.intervals)
    pareto = _pareto(plan, rows_by_name, feasible_pairs, calibrated)
    return {
        "followers": followers,
        "pareto": pareto,
        "verdict": _verdict(plan.protocol, pareto, per_path),
        "soak": _soak(plan.protocol, rows_by_name, feasible_pairs, names),
        "stalls_by_path": stalls_by_path(per_path),
    }


def stalls_by_path(per_path: Mapping[str, Mapping]) -> dict[str, dict[str, int]]:
    """``"suite/path"`` -> follower -> stall episodes over its feasible trials at the rules'
    values, for the paths where some follower stalled: the most episodes (all followers
    together) first, ties in the paths' order."""
    paths: list[tuple[str, str]] = []
    for table in per_path.values():
        paths += [key for key in table if key not in paths]
    cells = {
        key: {name: int(table[key][0]) for name, table in per_path.items() if key in table}
        for key in paths
    }
    ranked = sorted(
        (key for key in paths if sum(cells[key].values()) > 0),
        key=lambda key: -sum(cells[key].values()),
    )
    return {f"{suite}/{path}": cells[(suite, path)] for suite, path in ranked}


# --------------------------------------------------------------------------------------------------
# the run


def run_table1_v2(
    out_dir,
    *,
    protocol="table1_v2",
    quick: bool = False,
    workers: int | None = None,
    ray: bool = False,
    ray_address: str | None = None,
    progress: bool = True,
    tuned_dir=None,
    figures: bool = True,
) -> dict[str, Any]:
    """Run Table I version 2 (module docstring) into ``out_dir``; its summary.

    Parameters
    ----------
    out_dir : path
        The run's folder (created); a rerun with the same arguments resumes every stage.
    protocol : str, path or Protocol
        The protocol (``steerlab.trials.protocol.load_protocol``); default the shipped
        ``table1_v2``.
    quick : bool
        The declared subset (``QUICK_PATHS``, sweep ends): a check of the machinery, no verdict.
    workers, ray, ray_address, progress
        The runner's (``steerlab.runner.run_tasks``).
    tuned_dir : path, optional
        Folder of ``ours_tuned``'s presets (default: those shipped for the protocol's tuning
        suite, ``shipped_tuned_folder``); they must have been tuned on that suite, else
        ``ours_tuned`` is left out (the summary's ``left_out`` says why).
    figures : bool
        Draw ``figures/pareto.png`` (matplotlib).

    Raises
    ------
    ValueError
        A bad protocol (naming the file, the entry and the field), a protocol this runner cannot
        honour (another observer, a tuning suite that shares generated seeds with an evaluated
        one), before any trial runs.
    """
    loaded = load_protocol(protocol)
    plan = _Plan(loaded, bool(quick), tuned_dir)
    _check_plan(plan)
    folder = Path(out_dir)
    runner = {
        "workers": workers,
        "ray": ray,
        "ray_address": ray_address,
        "progress": progress,
    }
    with ray_session(ray, ray_address, workers):  # one Ray for every stage
        rows, feasible_pairs, calibrated, values = _stages(plan, folder, runner, progress)
    summary = _summary(plan, rows, feasible_pairs, calibrated)
    if figures:
        chosen = replay_choices(rows, feasible_pairs, plan.protocol.verdict.pairs[0])
        summary["replays"] = _write_replays(plan, folder, chosen, values)
    drawn = _draw(folder, summary) if figures else []
    write_report(folder, summary, drawn)
    return summary


def _stages(plan: _Plan, folder: Path, runner: Mapping, progress: bool):
    """The gate, the calibration and the trials: ``(rows, feasible pairs, calibration, the
    calibrated values)``."""
    loaded = plan.protocol
    _log(
        progress,
        f"gate: {len(plan.vehicles)} vehicles on every path of {list(plan.suites)} "
        f"and {plan.tuning.name}",
    )
    feasible_pairs = _gate(plan, folder, runner)
    _log(progress, "calibration")
    calibrated = _calibrate(plan, folder, feasible_pairs, runner, progress)
    values = {field: entry["value"] for field, entry in calibrated.items()}
    specs = []
    for point in plan.followers + plan.sweeps:
        specs += _specs(plan, point, plan.paths, values)
    manifest = {
        "what": "table1 v2 trials",
        "protocol": loaded.name,
        "protocol_version": loaded.version,
        "protocol_sha256": loaded.sha256,
        "suites": _suite_hashes(plan),
        "quick": plan.quick,
        "calibrated": values,
        "steerlab_version": steerlab_version(),
    }
    if any(point.follower == "ours_tuned" for point in plan.followers):
        manifest["tuned_sha256"] = tuned_digest(plan.vehicles, plan.tuned_dir or None)
    _log(progress, f"trials: {len(specs)}")
    rows = _run_trials(specs, folder, manifest, plan, runner)
    return rows, feasible_pairs, calibrated, values


def _summary(plan: _Plan, rows, feasible_pairs, calibrated) -> dict[str, Any]:
    figures = aggregate(plan, rows, feasible_pairs, calibrated)
    names = {suite.name for suite in plan.suites.values()}
    evaluated = {key: value for key, value in feasible_pairs.items() if key[0] in names}
    infeasible = [
        [vehicle, f"{suite}/{path}"] for (suite, path, vehicle), ok in evaluated.items() if not ok
    ]
    summary: dict[str, Any] = {
        "format": SUMMARY_FORMAT,
        "protocol": plan.protocol.version,
        "protocol_name": plan.protocol.name,
        "protocol_sha256": plan.protocol.sha256,
        "suite_sha256": _suite_hashes(plan),
        "quick": plan.quick,
        "paths": sum(len(paths) for paths in plan.paths.values()),
        "vehicles": plan.vehicles,
        "seeds": plan.seeds,
        "trials": len(rows),
        "errors": sum(bool(row["error"]) for row in rows),
        "infeasible": infeasible,
        "feasible_pairs": len(evaluated) - len(infeasible),
        "left_out": plan.left_out,
        "calibration": calibrated,
        **figures,
        "replays": [],
        "paper": PAPER_TABLE1,
        "steerlab_version": steerlab_version(),
    }
    for name, entry in figures["followers"].items():
        summary[name] = entry
    return _json_safe(summary)


def replay_choices(
    rows: Sequence[Mapping], feasible_pairs: Mapping, pair: Sequence[str]
) -> list[Mapping]:
    """The rows of the trials the report replays: for each follower of ``pair``, its
    ``REPLAY_TRIALS`` trials with the most stall episodes over feasible pairs (ties: the first
    rows), those that stalled at all."""
    chosen = []
    for name in pair:
        stalled = [
            row
            for row in rows
            if row["follower"] == name
            and not row["error"]
            and feasible_pairs[_pair_key(row)]
            and row["episodes"] > 0
        ]
        chosen += sorted(stalled, key=lambda row: -row["episodes"])[:REPLAY_TRIALS]
    return chosen


def _write_replays(
    plan: _Plan, folder: Path, chosen: Sequence[Mapping], calibrated: Mapping
) -> list[dict]:
    """Replay pages of the ``chosen`` rows' trials in ``DIR/replays/`` (their records from one
    ``simulate_batch`` call); the summary's ``"replays"``."""
    if not chosen:
        return []
    points = {point.name: point for point in plan.followers}
    sources = {suite.name: source for source, suite in plan.suites.items()}
    specs = []
    for row in chosen:
        where = {sources[row["suite"]]: [row["path"]]}
        candidates = _specs(plan, points[row["follower"]], where, calibrated)
        specs.append(
            next(
                spec
                for spec in candidates
                if spec.vehicle_name == row["vehicle"] and spec.seed == row["seed"]
            )
        )
    target = folder / REPLAYS_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    entries = []
    for row, spec, (replayed, records) in zip(chosen, specs, simulate_batch(specs), strict=True):
        name = "__".join((row["suite"], row["path"], row["vehicle"], row["follower"]))
        page = write_trial_replay(
            target / f"{name}-{row['seed']}.html", spec, simulated=(replayed, records)
        )
        entries.append(
            {
                "path": f"{row['suite']}/{row['path']}",
                "vehicle": row["vehicle"],
                "follower": row["follower"],
                "seed": row["seed"],
                "episodes": row["episodes"],
                "stuck_events": row["stuck_events"],
                "href": page.relative_to(folder).as_posix(),
                "matches": replayed["stuck_events"] == row["stuck_events"]
                and replayed["time"] == row["time"],
            }
        )
    return entries


def _json_safe(value):
    """``value`` with non-finite floats as ``None`` (JSON has no NaN or infinity)."""
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.generic):
        return _json_safe(value.item())
    return value


# --------------------------------------------------------------------------------------------------
# the report


def _number(value, decimals: int = 2) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{decimals}f}"


def _interval(pair, decimals: int = 2) -> str:
    if not pair:
        return ""
    return f" [{pair[0]:.{decimals}f}, {pair[1]:.{decimals}f}]"


def verdict_lines(summary: Mapping) -> list[str]:
    """One sentence per declared pair (the report's and the command line's)."""
    if summary["quick"]:
        lines = ["Quick run: a check of the machinery on a subset, not a verdict."]
    else:
        lines = []
    for entry in summary["verdict"]:
        first, second = entry["pair"]
        if entry["verdict"] == "not run":
            lines.append(f"{follower_title(first)} against {follower_title(second)}: not run.")
            continue
        difference = entry["difference"]
        text = (
            f"{follower_title(first)} {entry['verdict']} {follower_title(second)} on the fronts "
            f"(covers {100 * entry['coverage']:.0f} % of its front, is covered "
            f"{100 * entry['coverage_reverse']:.0f} %)"
        )
        if difference.get("paths"):
            text += (
                f"; at the rules' values, stalls per km differ by "
                f"{difference['stalls_per_km']:+.3f}"
                f"{_interval(difference.get('stalls_per_km_interval'), 3)} and mean time by "
                f"{difference['time_mean']:+.1f} s"
                f"{_interval(difference.get('time_mean_interval'), 1)} over "
                f"{difference['paths']} paths"
            )
        lines.append(text + ".")
    return lines


def _follower_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    names = list(summary["followers"])
    header = ["", *[follower_title(name) for name in names], "paper: baseline", "paper: ours"]
    paper = summary["paper"]
    rows = []

    def row(title, field, decimals=2, interval=None, paper_field=None):
        cells = [title]
        for name in names:
            entry = summary["followers"][name]
            cell = _number(entry[field], decimals)
            if interval:
                cell += _interval(entry["intervals"].get(interval), decimals)
            cells.append(cell)
        for follower in ("baseline", "ours"):
            cells.append(_number(paper[follower].get(paper_field), decimals) if paper_field else "")
        rows.append(cells)

    row("stall episodes", "stalls", 0)
    row("stalls per km", "stalls_per_km", 3, "stalls_per_km")
    row("stalls per minute", "stalls_per_minute", 3)
    row("stuck events (paper-style)", "stuck_events", 0, None, "stuck_events")
    row("mean time (s)", "time_mean", 1, "time_mean", "time_mean")
    row("cross-track error mean (m)", "cte_mean", 2, None, "cte_mean")
    row("inside corridor (%)", "inside_corridor_mean", 1, None, "inside_corridor_mean")
    row("mean speed (m/s)", "speed_mean", 2, None, "speed_mean")
    row("feasible trials", "feasible_trials", 0)
    row("completed", "completed", 0)
    row("timed out", "timed_out", 0)
    row("infeasible trials (left out)", "infeasible_trials", 0)
    row("errors", "errors", 0)
    for vehicle in summary["vehicles"]:
        rows.append(
            [f"stalls: {vehicle}"]
            + [str(summary["followers"][name]["stalls_by_vehicle"][vehicle]) for name in names]
            + ["", ""]
        )
    return header, rows


def _with_infeasible_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    names = list(summary["followers"])
    header = ["with infeasible pairs (marked)", *[follower_title(name) for name in names]]
    fields = (
        ("trials", "trials", 0),
        ("stall episodes", "stalls", 0),
        ("stalls per km", "stalls_per_km", 3),
        ("stuck events", "stuck_events", 0),
        ("mean time (s)", "time_mean", 1),
        ("mean speed (m/s)", "speed_mean", 2),
    )
    rows = [
        [title] + [_number(summary["followers"][n]["with_infeasible"][f], d) for n in names]
        for title, f, d in fields
    ]
    return header, rows


def _pairs_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    header = ["pair", "verdict", "covers", "is covered", "d stalls/km", "d mean time (s)"]
    rows = []
    for entry in summary["verdict"]:
        first, second = entry["pair"]
        difference = entry.get("difference", {})
        rows.append(
            [
                f"{first} vs {second}",
                entry["verdict"],
                _number(entry.get("coverage"), 2),
                _number(entry.get("coverage_reverse"), 2),
                _number(difference.get("stalls_per_km"), 3)
                + _interval(difference.get("stalls_per_km_interval"), 3),
                _number(difference.get("time_mean"), 1)
                + _interval(difference.get("time_mean_interval"), 1),
            ]
        )
    return header, rows


def _soak_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    soak = summary["soak"]
    labels = list(soak["mix"])
    header = ["follower"]
    for label in labels:
        header += [f"{label}: stalls/km", f"{label}: stalls/min"]
    header.append("mix: s between stalls")
    rows = []
    for name, entry in soak["classes"].items():
        cells = [name]
        for label in labels:
            figures = entry["per_class"][label]
            cells += [
                _number(figures["episodes_per_km"], 3),
                _number(figures["episodes_per_minute"], 3),
            ]
        rows.append([*cells, _number(entry["seconds_between_stalls"], 0)])
    blank = [""] * (2 * len(labels))
    rows.append(["paper (stuck events): ours", *blank, "131"])
    rows.append(["paper (stuck events): baseline", *blank, "60"])
    return header, rows


def _infeasible_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    return ["vehicle", "path"], [list(pair) for pair in summary["infeasible"]]


def _pareto_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    header = ["point", "constants", "mean time (s)", "stalls per km", "on the front"]
    rows = []
    for points in summary["pareto"].values():
        for point in points:
            constants = ", ".join(f"{k} = {v:.4g}" for k, v in point["constants"].items())
            rows.append(
                [
                    point["name"],
                    constants,
                    _number(point["time_mean"], 1),
                    _number(point["stalls_per_km"], 3),
                    "yes" if point["on_front"] else "",
                ]
            )
    return header, rows


def _one_at_a_time_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    """Each one-at-a-time point beside its follower's rules' point: what moving that one
    constant alone changes."""
    header = ["follower", "constant", "value", "d mean time (s)", "d stalls per km", "on the front"]
    rows = []
    for name, points in summary["pareto"].items():
        rules = points[0]  # ``_pareto``: the rules' point first
        for point in points:
            if point["design"] != "one_at_a_time":
                continue
            ((constant, value),) = point["constants"].items()
            rows.append(
                [
                    name,
                    constant,
                    f"{value:.4g}",
                    _difference_cell(point["time_mean"], rules["time_mean"], 1),
                    _difference_cell(point["stalls_per_km"], rules["stalls_per_km"], 3),
                    "yes" if point["on_front"] else "",
                ]
            )
    return header, rows


def _difference_cell(value, reference, decimals: int) -> str:
    if value is None or reference is None:
        return "n/a"
    return f"{value - reference:+.{decimals}f}"


def _calibration_lines(summary: Mapping) -> list[str]:
    lines = []
    for field, entry in summary["calibration"].items():
        if not entry["matched"]:
            lines.append(
                f"{field} = {entry['value']:.4g}: no value in the rule's range matches "
                f"{entry['reference']}'s mean speed {_number(entry['target_speed_mean'], 3)} m/s "
                f"on the tuning suite (the bisection stayed at the range's edge; steps: "
                + ", ".join(
                    f"{step[field]:.3g} -> {_number(step['speed_mean'], 3)}"
                    for step in entry["steps"]
                )
                + ")"
            )
            continue
        lines.append(
            f"{field} = {entry['value']:.4g} ({entry['rule']}: {entry['follower']}'s mean speed on "
            f"the tuning suite's feasible pairs matched to {entry['reference']}'s "
            f"{_number(entry['target_speed_mean'], 3)} m/s in {len(entry['steps'])} steps)"
        )
    for name, reason in summary["left_out"].items():
        lines.append(f"{name} left out: {reason}")
    return lines


def _paths_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    names = list(summary["followers"])
    header = ["path", *[follower_title(name) for name in names]]
    rows = [
        [path, *[str(cells.get(name, "")) for name in names]]
        for path, cells in summary.get("stalls_by_path", {}).items()
    ]
    return header, rows


def _replay_links(summary: Mapping) -> list[tuple[str, str]]:
    """``(text, href)`` of each replay page."""
    return [
        (
            f"{entry['path']}, {entry['vehicle']}, {follower_title(entry['follower'])} "
            f"({entry['episodes']} stall episodes)",
            entry["href"],
        )
        for entry in summary.get("replays", [])
    ]


def _sections(summary: Mapping) -> list[tuple[str, list[str], list[list[str]]]]:
    header, rows = _one_at_a_time_table(summary)
    one_at_a_time = [("One at a time: each constant against the rules' point", header, rows)]
    return [
        (f"{_heading(summary)} (feasible pairs; intervals over paths)", *_follower_table(summary)),
        (
            "Verdicts and ablations (fronts; differences at the rules' values)",
            *_pairs_table(summary),
        ),
        ("Stalls by vehicle class, and the soak's class mix", *_soak_table(summary)),
        ("Where the stalls are (stall episodes per path, rules' values)", *_paths_table(summary)),
        ("Infeasible pairs (left out of the comparison)", *_infeasible_table(summary)),
        ("Totals with the infeasible pairs", *_with_infeasible_table(summary)),
        ("Sensitivity: every point of every sweep", *_pareto_table(summary)),
    ] + (one_at_a_time if rows else [])


def _run_line(summary: Mapping) -> str:
    return (
        f"protocol {summary['protocol_name']} v{summary['protocol']} "
        f"(sha256 {summary['protocol_sha256'][:12]}), {summary['paths']} paths, "
        f"{len(summary['vehicles'])} vehicles, {summary['trials']} trials (sweeps included), "
        f"{summary['feasible_pairs']} feasible pairs, {len(summary['infeasible'])} infeasible"
        + (", quick" if summary["quick"] else "")
    )


def _heading(summary: Mapping) -> str:
    return f"Table I, version {summary['protocol']}"


def render_markdown(summary: Mapping) -> str:
    """``table1_v2.md``: the verdicts, then every table of ``_sections``."""
    parts = [f"# {_heading(summary)}", "", _run_line(summary), ""]
    parts += [f"- {line}" for line in verdict_lines(summary)] + [""]
    parts += [f"- {line}" for line in _calibration_lines(summary)] + [""]
    if summary.get("replays"):
        parts += [
            "Replays: " + ", ".join(f"[{text}]({href})" for text, href in _replay_links(summary)),
            "",
        ]
    for title, header, rows in _sections(summary):
        parts += [f"## {title}", "", numbers_table(header, rows), ""]
    return "\n".join(parts)


def write_report(out_dir, summary: Mapping, figures: Sequence = ()) -> list[Path]:
    """``summary.json``, ``table1_v2.md``, ``table1_v2.html`` and ``report.html`` (the HTML page
    with the figures ``(path, title, caption)`` linked)."""
    folder = Path(out_dir)
    context = {
        "heading": _heading(summary),
        "run_line": _run_line(summary),
        "lines": verdict_lines(summary) + _calibration_lines(summary),
        "sections": _sections(summary),
        "replays": _replay_links(summary),
        "figures": [
            {"href": Path(path).relative_to(folder).as_posix(), "title": title, "caption": caption}
            for path, title, caption in figures
        ],
        "files": [
            (name, name) for name in ("results.csv", "summary.json", "table1_v2.md", "run.json")
        ],
    }
    title = f"steerlab Table I v{summary['protocol']}"
    page = render_page("table1_v2.html", title=title, **context)
    written = write_summary_files(folder, summary, "table1_v2", render_markdown(summary), page)
    written.append(write_text(folder / "report.html", page))
    return written


def _draw(folder: Path, summary: Mapping) -> list[tuple[Path, str, str]]:
    """``figures/pareto.png``: each follower's points, its front as a line, its rules' point
    marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    target = folder / FIGURES_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    figure, axes = plt.subplots(figsize=(8.0, 5.5))
    for index, (name, points) in enumerate(summary["pareto"].items()):
        usable = [
            p for p in points if p["time_mean"] is not None and p["stalls_per_km"] is not None
        ]
        if not usable:
            continue
        colour = f"C{index}"
        for design, marker in (("grid", "o"), ("one_at_a_time", "x")):
            chosen = [p for p in usable if p["design"] == design]
            axes.scatter(
                [p["time_mean"] for p in chosen],
                [p["stalls_per_km"] for p in chosen],
                s=14,
                marker=marker,
                color=colour,
                alpha=0.45,
            )
        front = sorted((p["time_mean"], p["stalls_per_km"]) for p in usable if p["on_front"])
        axes.step(*zip(*front, strict=True), where="post", color=colour, label=follower_title(name))
        rule = usable[0]
        axes.scatter([rule["time_mean"]], [rule["stalls_per_km"]], s=70, marker="*", color=colour)
    axes.set_xlabel("mean time over feasible trials (s)")
    axes.set_ylabel("stall episodes per km")
    axes.set_title("Sensitivity fronts (star: the rules' values)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    path = target / "pareto.png"
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    caption = (
        "Every sweep point of each follower (dots: its grid; crosses: one constant at a time), its "
        "Pareto front (line: no other point of the follower is faster and stalls less) and its "
        "Table I column (star)."
    )
    return [(path, "Stalls per km against mean time", caption)]
