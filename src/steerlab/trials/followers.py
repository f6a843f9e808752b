"""The followers a benchmark compares, by name, and the tuned-parameter preset files.

The followers compared on the same trials:

- ``baseline``: seed 001's baseline (``steerlab.follower.BaselineFollower``), Section III values;
- ``ours``: seed 001's follower (``PathFollower``) with the paper's Section III values
  (``FollowerParams()``);
- ``ours_tuned``: ``PathFollower`` with per-vehicle parameters tuned by black-box optimisation
  (``steerlab tune``), read from a preset file ``<vehicle>.toml`` in the shipped folder
  ``steerlab/trials/tuned/`` or in a folder the caller gives;
- ``stanley``: ``steerlab.follower.StanleyFollower`` (Stanley steering, Algorithm 1 speed, PI);
- ``regulated_pure_pursuit``: ``steerlab.follower.RegulatedPurePursuitFollower`` (Nav2's RPP).

The ablations (``ABLATIONS``), which test seed 001's two attributions apart (its target speed law
and its PI speed loop; the baseline has neither), each one variant of ``PathFollower``
(``steerlab.follower.params.VARIANTS``), run only when named (``--followers baseline_pi``), never
among the defaults (Table I version 1 compares ``FOLLOWERS`` only):

- ``baseline_pi``: the baseline's target speed (the angle heuristic) and steering with the PI
  speed loop of ``ours`` (``kp_speed``, ``ti_speed``);
- ``ours_p``: ``ours`` (Algorithm 1) with the baseline's P speed loop (``ti_speed = inf``).

Every follower but ``ours_tuned`` runs with ``FollowerParams()``: the defaults, the paper's values
where it gives them ("for the parameters that are the same across the two approaches ... the same
values were set to ensure fair comparisons"). Each name is one line of ``_FOLLOWERS``: the class
that builds the follower (which picks its variant's records, ``steerlab.follower.params.VARIANTS``;
an ablation is ``PathFollower`` bound to its variant).

Tuned preset file (TOML)::

    # written by steerlab tune
    format = "steerlab.tuned/1"
    vehicle = "storm"

    [params]            # FollowerParams fields; a missing field keeps its default
    a_lat = 0.55
    lookahead = 7.5

    [meta]              # free: how it was obtained (strings, numbers, booleans)
    suite = "train"
    trials = 200

Unknown fields in ``[params]`` are refused (a typo would silently keep a default), and the values
are validated like any ``FollowerParams`` (``check_follower_params``).

The user's own follower: a follower file (TOML) is accepted wherever a follower name is
(``resolve_follower``, ``TrialSpec``, ``steerlab bench --followers``)::

    name = "long_lookahead"    # letters, digits, "_" and "-": it names the follower in results
    follower = "ours"          # the follower it configures (default "ours"; not "ours_tuned")
    lookahead = 12.0           # any FollowerParams field; the rest keep their defaults

A ``NamedFollower`` holds the name, the follower it configures and its parameters (``None`` for a
registry name: ``follower_params`` decides). Unknown keys are refused, values validated, every
error names the file and the key.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import tomllib
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from steerlab._checks import check_name, read_toml
from steerlab.follower import (
    BaselineFollower,
    PathFollower,
    RegulatedPurePursuitFollower,
    StanleyFollower,
)
from steerlab.follower.params import FollowerParams, check_follower_params

__all__ = [
    "ABLATIONS",
    "FOLLOWERS",
    "FOLLOWER_SUFFIX",
    "TUNED_FORMAT",
    "NamedFollower",
    "follower_class",
    "follower_params",
    "follower_variant",
    "make_follower",
    "read_follower",
    "read_tuned",
    "resolve_follower",
    "shipped_tuned_folder",
    "tuned_digest",
    "tuned_file",
    "write_tuned",
]

FOLLOWERS = ("baseline", "ours", "ours_tuned", "stanley", "regulated_pure_pursuit")
"""The follower names, in the order of the report's columns."""

ABLATIONS = ("baseline_pi", "ours_p")
"""The ablations' names (module docstring): selectable by name, never run by default."""

_FOLLOWERS = {
    "baseline": BaselineFollower,
    "ours": PathFollower,
    "ours_tuned": PathFollower,  # with the tuned preset's parameters (``follower_params``)
    "stanley": StanleyFollower,
    "regulated_pure_pursuit": RegulatedPurePursuitFollower,
    "baseline_pi": partial(PathFollower, variant="baseline_pi"),
    "ours_p": partial(PathFollower, variant="ours_p"),
}

TUNED_FORMAT = "steerlab.tuned/1"
"""The ``format`` tag of tuned preset files."""


def _check_name(name) -> str:
    if not isinstance(name, str) or name not in _FOLLOWERS:
        raise ValueError(f"unknown follower {name!r}; followers: {list(FOLLOWERS + ABLATIONS)}")
    return name


def follower_class(name: str):
    """What builds the follower behind a name, called as ``(vehicle_params, follower_params)``:
    a class (``PathFollower`` or one of its named variants), or for an ablation ``PathFollower``
    bound to its variant (``functools.partial``).

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    """
    return _FOLLOWERS[_check_name(name)]


def shipped_tuned_folder(suite: str = "train") -> Path:
    """The shipped folder of presets tuned on ``suite``: ``steerlab/trials/tuned/`` for
    ``train`` (Table I version 1's ``ours_tuned``), ``tuned/<suite>/`` for another training
    suite (``train_generated``: version 2's)."""
    folder = Path(str(resources.files("steerlab.trials").joinpath("tuned")))
    return folder if suite == "train" else folder / suite


def tuned_file(vehicle: str, tuned_dir=None) -> Path:
    """The preset file of ``vehicle``: ``<tuned_dir>/<vehicle>.toml``, by default in the shipped
    folder ``steerlab/trials/tuned/``. The file need not exist."""
    if not isinstance(vehicle, str) or not vehicle or "/" in vehicle or "\\" in vehicle:
        raise ValueError(f"vehicle must be a vehicle name, got {vehicle!r}")
    if tuned_dir is None or tuned_dir == "":
        folder = Path(str(resources.files("steerlab.trials").joinpath("tuned")))
    else:
        folder = Path(tuned_dir)
    return folder / f"{vehicle}.toml"


def follower_variant(name: str) -> str:
    """The variant (``steerlab.follower.params.VARIANTS``) follower ``name`` runs: its own name,
    ``ours`` for ``ours_tuned``. ``ValueError`` for an unknown name."""
    return "ours" if _check_name(name) == "ours_tuned" else name


def follower_params(name: str, vehicle: str, tuned_dir=None) -> FollowerParams:
    """The ``FollowerParams`` follower ``name`` runs with on ``vehicle``.

    ``FollowerParams()`` for every follower but ``ours_tuned``, which reads
    ``tuned_file(vehicle, tuned_dir)``.

    Raises
    ------
    ValueError
        An unknown follower; for ``ours_tuned``, a missing preset file (the message names the
        file and the command that writes it) or an invalid one (``read_tuned``).
    """
    if _check_name(name) != "ours_tuned":
        return FollowerParams()
    path = tuned_file(vehicle, tuned_dir)
    if not path.is_file():
        raise ValueError(
            f"no tuned parameters for vehicle {vehicle!r}: {path} does not exist; write it with "
            f"`steerlab tune --vehicle {vehicle}` (or give the folder that holds it)"
        )
    params, tuned_vehicle, _ = read_tuned(path)
    if tuned_vehicle != vehicle:
        raise ValueError(f"{path}: vehicle: the file is for {tuned_vehicle!r}, not {vehicle!r}")
    return params


def make_follower(name, vehicle_params, vehicle: str = "", tuned_dir=None):
    """A new follower for a vehicle (``VehicleParams``), no path set yet.

    ``name`` is a follower name, a follower file or a ``NamedFollower`` (``resolve_follower``);
    ``vehicle`` the vehicle's name: only ``ours_tuned`` needs it (to find its preset file).
    """
    follower = resolve_follower(name)
    cls = follower_class(follower.follower)
    if follower.params is not None:
        return cls(vehicle_params, follower.params)
    return cls(vehicle_params, follower_params(follower.follower, vehicle, tuned_dir))


# --------------------------------------------------------------------------------------------------
# the user's own followers

FOLLOWER_SUFFIX = ".toml"
"""The suffix of follower files (what tells a file from a follower name)."""


class NamedFollower(NamedTuple):
    """A follower with the name results use: ``follower`` is the registry's follower it runs
    (``FOLLOWERS``), ``params`` its ``FollowerParams`` (``None``: the registry's choice)."""

    name: str
    follower: str
    params: FollowerParams | None = None


def read_follower(path) -> NamedFollower:
    """Read a follower file (module docstring).

    Raises
    ------
    ValueError
        A missing or unreadable file, TOML syntax, a missing or bad ``name``, a ``follower`` that
        is not one of the followers (or is ``ours_tuned``), an unknown key, a value out of its
        range; the message names the file and the key.
    """
    path = Path(path)
    data = read_toml(path, "follower")
    name = check_name(data.pop("name", None), f"{path}: name")
    base = data.pop("follower", "ours")
    bases = [each for each in FOLLOWERS + ABLATIONS if each != "ours_tuned"]
    if base not in bases:
        raise ValueError(f"{path}: follower must be one of {', '.join(bases)}, got {base!r}")
    for key, value in data.items():
        if key not in FollowerParams._fields:
            raise ValueError(
                f"{path}: {key}: unknown key; keys: name, follower, "
                f"{', '.join(FollowerParams._fields)}"
            )
        if isinstance(value, list | dict):
            raise ValueError(f"{path}: {key} must be one value (a file is one follower)")
    try:
        params = check_follower_params(FollowerParams(**data))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    follower_class(base)  # a follower this steerlab does not provide: ValueError
    return NamedFollower(name, base, params)


def resolve_follower(follower) -> NamedFollower:
    """``follower`` as a ``NamedFollower``: a follower name (``FOLLOWERS``, ``ABLATIONS``), a
    path to a follower file (``str`` ending in ``.toml``, or a ``Path``) or a ``NamedFollower``.

    Raises
    ------
    ValueError
        An unknown name (listing the known ones), a missing or bad file (``read_follower``).
    """
    if isinstance(follower, NamedFollower):
        check_name(follower.name, "follower.name")
        _check_name(follower.follower)
        params = follower.params
        if params is not None:
            params = check_follower_params(params)
            for field, value in zip(FollowerParams._fields, params, strict=True):
                if isinstance(value, np.ndarray):
                    raise ValueError(f"follower.params.{field} must be one value, got {value!r}")
        return NamedFollower(follower.name, follower.follower, params)
    if isinstance(follower, Path) or (
        isinstance(follower, str) and follower.lower().endswith(FOLLOWER_SUFFIX)
    ):
        return read_follower(follower)
    if not isinstance(follower, str):
        raise ValueError(
            f"follower must be a follower name, a follower file or a NamedFollower, got "
            f"{follower!r}"
        )
    return NamedFollower(_check_name(follower), follower, None)


# --------------------------------------------------------------------------------------------------
# tuned preset files


def tuned_digest(vehicles, tuned_dir=None) -> str:
    """SHA-256 (hex) of the tuned presets ``ours_tuned`` would read for ``vehicles``: for a run's
    manifest, so that results obtained with other presets are never mixed in. A missing file
    counts as missing (it changes the digest when it appears)."""
    digest = hashlib.sha256()
    for vehicle in vehicles:
        path = tuned_file(vehicle, tuned_dir)
        content = path.read_bytes() if path.is_file() else b"(missing)"
        digest.update(f"{vehicle}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def read_tuned(path) -> tuple[FollowerParams, str, dict[str, Any]]:
    """Read a tuned preset file: ``(params, vehicle, meta)``.

    Raises
    ------
    ValueError
        Unreadable file, TOML syntax error, a wrong ``format`` tag, a missing ``vehicle``, unknown
        keys at the top level or in ``[params]``, or an invalid value; the message names the file
        and the field.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"{path}: cannot read the file: {error.strerror or error}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: not a TOML file: {error}") from None
    unknown = sorted(set(data) - {"format", "vehicle", "params", "meta"})
    if unknown:
        raise ValueError(f"{path}: {unknown[0]}: unknown key; keys: format, vehicle, params, meta")
    if data.get("format") != TUNED_FORMAT:
        raise ValueError(f"{path}: format: must be {TUNED_FORMAT!r}, got {data.get('format')!r}")
    vehicle = data.get("vehicle")
    if not isinstance(vehicle, str) or not vehicle:
        raise ValueError(f"{path}: vehicle: must be a vehicle name, got {vehicle!r}")
    values = data.get("params", {})
    if not isinstance(values, dict):
        raise ValueError(f"{path}: params: must be a table of FollowerParams fields")
    for key in values:
        if key not in FollowerParams._fields:
            raise ValueError(
                f"{path}: params.{key}: not a FollowerParams field; fields: "
                f"{', '.join(FollowerParams._fields)}"
            )
    try:
        params = check_follower_params(FollowerParams(**values))
    except ValueError as error:
        raise ValueError(f"{path}: params: {error}") from None
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: meta: must be a table")
    return params, vehicle, meta


def _toml_value(name: str, value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError(f"{name} must not be NaN")
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)  # shortest repr: reads back to the same float
    if isinstance(value, str):
        return _toml_string(value)
    raise ValueError(f"{name} must be a string, a number or a boolean, got {value!r}")


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escaping of a string is valid TOML)."""
    return json.dumps(text, ensure_ascii=False)


def write_tuned(path, params: FollowerParams, vehicle: str, meta: dict | None = None) -> Path:
    """Write a tuned preset file (atomically: a temporary file, then renamed).

    Every ``FollowerParams`` field is written (a file does not change meaning when a default
    does); floats are written so they read back bit for bit. ``meta``: a flat table of strings,
    numbers and booleans. Returns the path.
    """
    params = check_follower_params(params)
    if not isinstance(vehicle, str) or not vehicle:
        raise ValueError(f"vehicle must be a vehicle name, got {vehicle!r}")
    lines = [
        "# tuned follower parameters (steerlab.trials.followers; written by steerlab tune)",
        f"format = {_toml_string(TUNED_FORMAT)}",
        f"vehicle = {_toml_string(vehicle)}",
        "",
        "[params]",
    ]
    lines += [
        f"{name} = {_toml_value(f'params.{name}', value)}"
        for name, value in zip(FollowerParams._fields, params, strict=True)
    ]
    if meta:
        lines += ["", "[meta]"]
        for key, value in meta.items():
            if not isinstance(key, str) or not key.replace("_", "").isalnum():
                raise ValueError(f"meta keys must be names (letters, digits, _), got {key!r}")
            lines.append(f"{key} = {_toml_value(f'meta.{key}', value)}")
    text = "\n".join(lines) + "\n"
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes it 0600: a preset is for every user to read
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
