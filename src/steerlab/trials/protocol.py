"""Benchmark protocols: every choice of a comparison declared in one hashed file, with its reason.

Table I version 2 (``protocols/table1_v2.toml``) compares path followers on feasible pairs only,
counts stall episodes per km, sets the paper's missing constants by declared rules and sweeps
them. Version 3 (``protocols/table1_v3.toml``) is version 2 with every other free constant of
the followers swept one at a time, and every ``FollowerParams`` field accounted for. A protocol
file holds every such choice, each entry with a ``reason``; ``load_protocol`` validates it
(frozen pydantic models, unknown keys refused, every problem reported as ``FILE: entry.field:
message`` before any trial runs) and hashes it (``Protocol.sha256``: SHA-256 of the validated
values as sorted JSON, so comments and layout do not change it, any value does).

A protocol file::

    format = "steerlab.protocol/1"
    name = "table1"
    version = 2
    suites = ["table1", "generated"]      # the evaluated paths (shipped suites or files)
    tuning_suite = "train_generated"      # the only suite tuning may see
    vehicles = ["storm", ...]             # preset names
    followers = ["baseline", "ours", ...]  # follower names (steerlab.trials.followers)
    [seeds]      value = 1, reason = "..."                   # spawns per trial
    [observer]   stuck_distance, stuck_window, arrival_radius, reason
    [gate]       rule = "best_case_driver", reason           # steerlab.trials.feasibility
    [stalls]     episode_distance, reason                    # steerlab.trials.stalls
    [rules.NAME] followers, rule, field, reason, and the rule's own keys (below)
    [[sweeps]]   follower, reason, design (optional), and one list of values per swept constant
    [intervals]  resamples, confidence, seed, reason         # bootstrap over paths
    [verdict]    rule = "front_coverage", pairs = [[a, b], ...], reason
    [soak]       classes = {class = [vehicles]}, mix = {class = share}, reason
    [constants]  paper = [fields], reason; [constants.fixed] field = "reason"   # optional

Rules (``RULES``) set a ``FollowerParams`` field per follower and vehicle:

- ``turning_radius_floor`` (keys ``floor`` [m], optional ``max_ratio``): the field is
  ``max(floor, VehicleParams.min_turning_radius)`` times the sweep point's ``lookahead_factor``
  (1 outside sweeps); a tuned value above it is kept. With ``max_ratio`` (regulated pure
  pursuit's ``regulated_min_lookahead``), ``regulated_max_lookahead`` is ``max_ratio`` times it.
- ``matched_speed`` (keys ``reference``, ``low``, ``high``, ``iterations``): a value found by
  running trials (``steerlab.experiments.benchmark.table1_v2`` calibrates it on the tuning
  suite); ``follower_params`` takes it as an argument.

A sweep lists, for one follower, values of ``FollowerParams`` fields it reads
(``steerlab.follower.params.VARIANT_FIELDS``: another field would repeat the rules' point) and
of ``lookahead_factor`` (only for a follower with a ``turning_radius_floor`` rule). Its
``design`` says which points it runs (``sweep_points``):

- ``"grid"`` (the default): every combination, in the file's key order, the last key varying
  fastest; points named ``"<follower>-s<k>"``;
- ``"one_at_a_time"``: each constant alone at each of its values, every other constant at its
  rule's value (or default); points named ``"<follower>-o<k>"``, constant by constant in the
  file's order.

A follower has at most one sweep of each design. Each list is non-empty, finite, and each value a
valid value of its field (``check_follower_params``).

``[constants]`` (optional; version 3 has it) accounts for every ``FollowerParams`` field: the
paper's (``paper``), set by a rule (``rules``; ``regulated_max_lookahead`` through ``max_ratio``),
swept by some sweep, or fixed with a reason (``[constants.fixed]``). A field in none of these, or
fixed and also swept or set by a rule, is refused: a new follower setting forces a decision in a
new version of the file.

The hash leaves out the keys version 3 added when they hold their defaults (a sweep's ``design =
"grid"``, no ``[constants]``), so version 2's hash is the one its results carry.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from steerlab._checks import read_toml
from steerlab.follower.params import VARIANT_FIELDS, FollowerParams, check_follower_params
from steerlab.trials.followers import ABLATIONS, FOLLOWERS, follower_params, follower_variant
from steerlab.trials.suite import validated
from steerlab.vehicles import PRESETS, VehicleParams

__all__ = [
    "DESIGNS",
    "PROTOCOL_FORMAT",
    "RULES",
    "Protocol",
    "SweepPoint",
    "follower_params_for",
    "load_protocol",
    "lookahead_floor",
    "rule_points",
    "shipped_protocols",
    "sweep_points",
]

PROTOCOL_FORMAT = "steerlab.protocol/1"
"""The ``format`` tag of protocol files."""

RULES = ("turning_radius_floor", "matched_speed")
"""The rules a protocol may name (module docstring)."""

DESIGNS = ("grid", "one_at_a_time")
"""The sweep designs (module docstring)."""

LOOKAHEAD_FACTOR = "lookahead_factor"
"""The sweep key that multiplies the ``turning_radius_floor`` rules' values."""

_FOLLOWER_NAMES = FOLLOWERS + ABLATIONS


class _Reasoned(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    reason: str = Field(min_length=1)


class SeedsSpec(_Reasoned):
    value: int = Field(ge=1, le=1000)


class ObserverSpec(_Reasoned):
    stuck_distance: float = Field(gt=0.0)
    stuck_window: float = Field(gt=0.0)
    arrival_radius: float = Field(gt=0.0)


class GateSpec(_Reasoned):
    rule: Literal["best_case_driver"]


class StallsSpec(_Reasoned):
    episode_distance: float = Field(gt=0.0)


class RuleSpec(_Reasoned):
    """A ``[rules.NAME]`` table: which followers, which rule, which field, the rule's keys."""

    followers: tuple[str, ...] = Field(min_length=1)
    rule: Literal["turning_radius_floor", "matched_speed"]
    field: str
    floor: float | None = Field(None, gt=0.0)
    max_ratio: float | None = Field(None, ge=1.0)
    reference: str | None = None
    low: float | None = Field(None, gt=0.0)
    high: float | None = Field(None, gt=0.0)
    iterations: int | None = Field(None, ge=1, le=60)

    @field_validator("followers")
    @classmethod
    def _followers(cls, value):
        return _known_followers(value)

    @field_validator("field")
    @classmethod
    def _field(cls, value):
        if value not in FollowerParams._fields:
            raise ValueError(f"must be a FollowerParams field, got {value!r}")
        return value

    @model_validator(mode="after")
    def _keys(self):
        needed = {
            "turning_radius_floor": ("floor",),
            "matched_speed": ("reference", "low", "high", "iterations"),
        }[self.rule]
        for key in needed:
            if getattr(self, key) is None:
                raise ValueError(f"rule {self.rule!r} needs {key!r}")
        if self.rule == "matched_speed" and not self.low < self.high:
            raise ValueError(f"low must be < high, got [{self.low}, {self.high}]")
        if self.rule == "matched_speed" and self.reference not in _FOLLOWER_NAMES:
            raise ValueError(f"reference must be a follower name, got {self.reference!r}")
        if self.max_ratio is not None and self.field != "regulated_min_lookahead":
            raise ValueError("max_ratio applies to regulated_min_lookahead only")
        return self


class SweepSpec(BaseModel):
    """A ``[[sweeps]]`` entry: a follower and, per swept constant, its values."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)

    follower: str
    reason: str = Field(min_length=1)
    design: Literal["grid", "one_at_a_time"] = "grid"

    @field_validator("follower")
    @classmethod
    def _follower(cls, value):
        return _known_followers((value,))[0]

    @model_validator(mode="after")
    def _values(self):
        swept = self.constants
        if not swept:
            raise ValueError("sweeps no constant: give at least one list of values")
        read = VARIANT_FIELDS[follower_variant(self.follower)]
        for name, values in swept.items():
            if name != LOOKAHEAD_FACTOR and name not in FollowerParams._fields:
                raise ValueError(f"{name}: not a FollowerParams field nor {LOOKAHEAD_FACTOR!r}")
            if name != LOOKAHEAD_FACTOR and name not in read:
                raise ValueError(
                    f"{name}: {self.follower} does not read it, so its points would repeat the "
                    f"rules' point; it reads {sorted(read)}"
                )
            if not isinstance(values, list) or not values:
                raise ValueError(f"{name}: must be a non-empty list of numbers, got {values!r}")
            for index, value in enumerate(values):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"{name}[{index}] must be a number, got {value!r}")
                if not math.isfinite(value):
                    raise ValueError(f"{name}[{index}] must be finite, got {value!r}")
                if name == LOOKAHEAD_FACTOR:
                    if not value >= 1.0:
                        raise ValueError(f"{name}[{index}] must be >= 1, got {value!r}")
                    continue
                try:
                    check_follower_params(FollowerParams()._replace(**{name: value}))
                except ValueError as error:
                    raise ValueError(f"{name}[{index}]: {error}") from None
            if len(set(values)) != len(values):
                raise ValueError(f"{name}: a value is given twice, got {values!r}")
        return self

    @property
    def constants(self) -> dict[str, list]:
        """The swept constants and their values, in the file's order."""
        return dict(self.model_extra or {})


class ConstantsSpec(_Reasoned):
    """``[constants]``: the fields the paper gives, and the fields fixed, each with its reason."""

    paper: tuple[str, ...] = ()
    fixed: dict[str, str] = {}

    @field_validator("paper")
    @classmethod
    def _paper(cls, value):
        return _listed_once(value, FollowerParams._fields, "field", "FollowerParams fields")

    @field_validator("fixed")
    @classmethod
    def _fixed(cls, value):
        for name, reason in value.items():
            if name not in FollowerParams._fields:
                raise ValueError(f"{name!r} is not a FollowerParams field")
            if not reason.strip():
                raise ValueError(f"{name}: give the reason it is fixed")
        return value

    @model_validator(mode="after")
    def _apart(self):
        both = sorted(set(self.paper) & set(self.fixed))
        if both:
            raise ValueError(f"{both[0]!r} is both the paper's and fixed")
        return self


class IntervalsSpec(_Reasoned):
    resamples: int = Field(ge=100, le=100_000)
    confidence: float = Field(gt=0.0, lt=1.0)
    seed: int = Field(ge=0)


class VerdictSpec(_Reasoned):
    rule: Literal["front_coverage"]
    pairs: tuple[tuple[str, str], ...] = Field(min_length=1)

    @field_validator("pairs")
    @classmethod
    def _pairs(cls, value):
        for index, (first, second) in enumerate(value):
            _known_followers((first, second))
            if first == second:
                raise ValueError(f"[{index}] compares {first!r} with itself")
        return value


class SoakSpec(_Reasoned):
    classes: dict[str, tuple[str, ...]]
    mix: dict[str, float]

    @model_validator(mode="after")
    def _classes(self):
        if set(self.classes) != set(self.mix):
            raise ValueError(
                f"mix must give a share to every class and nothing else: classes "
                f"{sorted(self.classes)}, mix {sorted(self.mix)}"
            )
        for name, share in self.mix.items():
            if not share >= 0.0:
                raise ValueError(f"mix[{name!r}] must be >= 0, got {share!r}")
        if not sum(self.mix.values()) > 0.0:
            raise ValueError(f"mix must have a positive share, got {self.mix!r}")
        return self


class Protocol(BaseModel):
    """A validated protocol file (module docstring); ``source`` and ``sha256`` set by
    ``load_protocol``."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    format: Literal["steerlab.protocol/1"]
    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    version: int = Field(ge=1)
    description: str = ""
    suites: tuple[str, ...] = Field(min_length=1)
    tuning_suite: str
    vehicles: tuple[str, ...] = Field(min_length=1)
    followers: tuple[str, ...] = Field(min_length=1)
    seeds: SeedsSpec
    observer: ObserverSpec
    gate: GateSpec
    stalls: StallsSpec
    rules: dict[str, RuleSpec] = {}
    sweeps: tuple[SweepSpec, ...] = ()
    intervals: IntervalsSpec
    verdict: VerdictSpec
    soak: SoakSpec
    constants: ConstantsSpec | None = None
    source: str = ""
    sha256: str = ""

    @field_validator("vehicles")
    @classmethod
    def _vehicles(cls, value):
        return _listed_once(value, tuple(PRESETS), "vehicle", "presets")

    @field_validator("followers")
    @classmethod
    def _followers(cls, value):
        value = _known_followers(value)
        if len(set(value)) != len(value):
            raise ValueError(f"a follower is given twice: {list(value)}")
        return value

    @model_validator(mode="after")
    def _consistent(self):
        for name, rule in self.rules.items():
            for follower in rule.followers:
                if follower not in self.followers:
                    raise ValueError(f"rules.{name}.followers: {follower!r} is not among followers")
        fields = [
            (rule.field, follower) for rule in self.rules.values() for follower in rule.followers
        ]
        twice = sorted({pair for pair in fields if fields.count(pair) > 1})
        if twice:
            raise ValueError(f"rules: two rules set {twice[0][0]!r} for {twice[0][1]!r}")
        for first, second in self.verdict.pairs:
            for follower in (first, second):
                if follower not in self.followers:
                    raise ValueError(f"verdict.pairs: {follower!r} is not among followers")
        swept = [(sweep.follower, sweep.design) for sweep in self.sweeps]
        for follower, _ in swept:
            if follower not in self.followers:
                raise ValueError(f"sweeps: {follower!r} is not among followers")
        for sweep in self.sweeps:
            if LOOKAHEAD_FACTOR in sweep.constants and not any(
                rule.rule == "turning_radius_floor" for rule in self.rules_for(sweep.follower)
            ):
                raise ValueError(
                    f"sweeps: {sweep.follower!r} sweeps {LOOKAHEAD_FACTOR} without a "
                    f"turning_radius_floor rule for it to scale"
                )
        twice = sorted({pair for pair in swept if swept.count(pair) > 1})
        if twice:
            raise ValueError(f"sweeps: {twice[0][0]!r} has two sweeps of design {twice[0][1]!r}")
        listed = [vehicle for members in self.soak.classes.values() for vehicle in members]
        if sorted(listed) != sorted(self.vehicles):
            raise ValueError(
                f"soak.classes must hold every vehicle once: {sorted(listed)} against vehicles "
                f"{sorted(self.vehicles)}"
            )
        if self.constants is not None:
            self._accounted(self.constants)
        return self

    def _accounted(self, constants: ConstantsSpec) -> None:
        """Every ``FollowerParams`` field is the paper's, ruled, swept or fixed (module
        docstring); a fixed one is not also swept or ruled."""
        ruled = {rule.field for rule in self.rules.values()}
        if any(rule.max_ratio is not None for rule in self.rules.values()):
            ruled.add("regulated_max_lookahead")
        swept = {name for sweep in self.sweeps for name in sweep.constants} - {LOOKAHEAD_FACTOR}
        for name in constants.fixed:
            if name in ruled | swept:
                how = "set by a rule" if name in ruled else "swept"
                raise ValueError(f"constants.fixed: {name!r} is fixed and also {how}")
        accounted = set(constants.paper) | set(constants.fixed) | ruled | swept
        missing = [name for name in FollowerParams._fields if name not in accounted]
        if missing:
            raise ValueError(
                f"constants: FollowerParams fields neither the paper's, set by a rule, swept "
                f"nor fixed: {missing}; give each a place (fix it with its reason in "
                f"[constants.fixed])"
            )

    def rules_for(self, follower: str) -> list[RuleSpec]:
        """The rules that apply to ``follower``, in the file's order."""
        return [rule for rule in self.rules.values() if follower in rule.followers]

    def rule_named(self, rule: str, follower: str) -> RuleSpec | None:
        """The rule of kind ``rule`` for ``follower``, if any."""
        for spec in self.rules_for(follower):
            if spec.rule == rule:
                return spec
        return None


def _listed_once(value, known: tuple[str, ...], what: str, listing: str):
    """``value`` if each name is one of ``known``, none twice; else ``ValueError`` naming it."""
    for index, name in enumerate(value):
        if name not in known:
            raise ValueError(f"[{index}] unknown {what} {name!r}; {listing}: {list(known)}")
    if len(set(value)) != len(value):
        raise ValueError(f"a {what} is given twice: {list(value)}")
    return value


def _known_followers(value):
    for index, name in enumerate(value):
        if name not in _FOLLOWER_NAMES:
            raise ValueError(
                f"[{index}] unknown follower {name!r}; followers: {list(_FOLLOWER_NAMES)}"
            )
    return tuple(value)


# --------------------------------------------------------------------------------------------------
# loading


def shipped_protocols() -> dict[str, Path]:
    """The shipped protocol files by name (``table1_v2``: ``"table1_v2"`` -> its path)."""
    folder = Path(str(resources.files("steerlab.trials").joinpath("protocols")))
    return {path.stem: path for path in sorted(folder.glob("*.toml"))}


def load_protocol(protocol="table1_v2") -> Protocol:
    """A protocol: a shipped name (``shipped_protocols``), a file path or a ``Protocol``.

    Raises
    ------
    ValueError
        An unknown name (listing the shipped ones), a missing or unreadable file, TOML syntax,
        and every problem of its content, one line each as ``FILE: entry.field: message``.
    """
    if isinstance(protocol, Protocol):
        return protocol
    if isinstance(protocol, str) and protocol in shipped_protocols():
        path = shipped_protocols()[protocol]
    elif isinstance(protocol, Path) or (
        isinstance(protocol, str) and protocol.lower().endswith(".toml")
    ):
        path = Path(protocol)
    else:
        raise ValueError(
            f"protocol must be a shipped protocol's name ({', '.join(shipped_protocols())}) or "
            f"a .toml file, got {protocol!r}"
        )
    data = read_toml(path, "protocol")
    for key in ("source", "sha256"):
        if key in data:
            raise ValueError(f"{path}: {key}: set by the loader, not by the file")
    loaded = validated(Protocol, data, str(path))
    values = loaded.model_dump(mode="json", exclude={"source", "sha256"})
    if values["constants"] is None:  # keys added by version 3, left out at their defaults
        del values["constants"]
    for sweep in values["sweeps"]:
        if sweep["design"] == "grid":
            del sweep["design"]
    canonical = json.dumps(values, sort_keys=True).encode()
    return loaded.model_copy(
        update={"source": str(path), "sha256": hashlib.sha256(canonical).hexdigest()}
    )


# --------------------------------------------------------------------------------------------------
# rules and sweeps


class SweepPoint(NamedTuple):
    """One point of a follower's runs: the follower it configures, the name its rows carry
    (the follower's own for the point at the rules' values, ``"<follower>-s<k>"`` for the
    ``k``-th point of its grid sweep, ``"<follower>-o<k>"`` of its one-at-a-time sweep), the
    swept constants' values there (empty at the rules') and where it comes from (``"rules"`` or
    its sweep's design)."""

    follower: str
    name: str
    constants: Mapping[str, float]
    design: str = "rules"


def sweep_points(protocol: Protocol, *, ends: bool = False) -> list[SweepPoint]:
    """Every sweep point of the protocol, sweep by sweep in the file's order (module docstring):
    a grid's every combination of its values, the last key varying fastest; a one-at-a-time
    sweep's each constant alone at each of its values, constant by constant. With ``ends``, each
    list cut to its first and last values (a quick run's points, named ``"<follower>-q<k>"`` for
    a grid, ``"<follower>-p<k>"`` one at a time)."""
    points = []
    for sweep in protocol.sweeps:
        lists = {
            name: sorted({values[0], values[-1]}) if ends else values
            for name, values in sweep.constants.items()
        }
        if sweep.design == "grid":
            tag = "q" if ends else "s"
            names = list(lists)
            combinations = [
                dict(zip(names, values, strict=True))
                for values in itertools.product(*(lists[name] for name in names))
            ]
        else:
            tag = "p" if ends else "o"
            combinations = [{name: value} for name, values in lists.items() for value in values]
        for index, combination in enumerate(combinations):
            constants = {name: float(value) for name, value in combination.items()}
            name = f"{sweep.follower}-{tag}{index:02d}"
            points.append(SweepPoint(sweep.follower, name, constants, sweep.design))
    return points


def rule_points(protocol: Protocol) -> list[SweepPoint]:
    """Each follower of the protocol at its rules' values (its Table I column)."""
    return [SweepPoint(follower, follower, {}) for follower in protocol.followers]


def follower_params_for(
    protocol: Protocol,
    follower: str,
    vehicle: str,
    *,
    constants: Mapping[str, float] | None = None,
    calibrated: Mapping[str, float] | None = None,
    tuned_dir=None,
) -> FollowerParams:
    """The ``FollowerParams`` ``follower`` runs with on preset ``vehicle`` under ``protocol``.

    Start from the follower's own parameters (``steerlab.trials.followers.follower_params``:
    the defaults, or ``ours_tuned``'s preset from ``tuned_dir``), apply the protocol's rules
    (module docstring), then the sweep point's ``constants`` (their ``lookahead_factor``
    multiplies the floor rules' values; every other key sets its field, over a rule's value).
    ``calibrated`` gives each ``matched_speed`` rule's value by field name.

    Raises
    ------
    ValueError
        An unknown follower or vehicle, a ``matched_speed`` field missing from ``calibrated``
        (and not set by ``constants``), a value out of its field's range.
    """
    if vehicle not in PRESETS:
        raise ValueError(f"vehicle must be a preset name, got {vehicle!r}")
    constants = dict(constants or {})
    calibrated = dict(calibrated or {})
    params = follower_params(follower, vehicle, tuned_dir)
    factor = float(constants.pop(LOOKAHEAD_FACTOR, 1.0))
    updates: dict[str, Any] = {}
    for rule in protocol.rules_for(follower):
        if rule.rule == "turning_radius_floor":
            value = factor * lookahead_floor(PRESETS[vehicle], rule.floor)
            if follower == "ours_tuned":
                value = max(value, float(getattr(params, rule.field)))
            updates[rule.field] = value
            if rule.max_ratio is not None:
                updates["regulated_max_lookahead"] = rule.max_ratio * value
        elif rule.field not in constants:
            if rule.field not in calibrated:
                raise ValueError(
                    f"calibrated must give {rule.field!r} (rule {rule.rule!r} of {follower!r})"
                )
            updates[rule.field] = float(calibrated[rule.field])
    updates.update(constants)
    return check_follower_params(params._replace(**updates))


def lookahead_floor(vehicle: VehicleParams, floor: float) -> float:
    """``max(floor, vehicle.min_turning_radius)`` [m]: the shortest lookahead the
    ``turning_radius_floor`` rule allows (module docstring)."""
    return max(float(floor), float(vehicle.min_turning_radius))
