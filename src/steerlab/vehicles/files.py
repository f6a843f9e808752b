"""The user's own vehicles: vehicle files, and one name for a preset, a file or a record.

A vehicle file is TOML: a ``name`` and any ``VehicleParams`` field; a field not given keeps
``VehicleParams``' default (a generic car), ``kind`` is written by name::

    name = "my_buggy"          # letters, digits, "_" and "-": it names the vehicle in results
    kind = "wheeled"           # "wheeled", "tracked" or "hover" (default "wheeled")
    mass = 900.0               # [kg]  ... any VehicleParams field, in its units
    max_steer = 0.55           # [rad]

Unknown keys are refused (a typo would silently keep a default); values are checked like any
``VehicleParams`` (``VehicleParams.validated``); a field holds one number (a file is one
vehicle). Every error names the file and the key.

``resolve_vehicle`` turns what a user may give where a vehicle is asked for (a preset name, a
vehicle file, a ``VehicleParams``, a ``NamedVehicle``) into a ``NamedVehicle``: the name is what
results, seeds and reports use, so a file that copies a preset under the preset's name gives
exactly the preset's trials. A bare ``VehicleParams`` is named ``custom-`` and the first 8 hex
digits of the SHA-256 of its fields: the same record always gets the same name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

from steerlab._checks import check_name, read_toml
from steerlab.vehicles.params import KINDS, VehicleParams
from steerlab.vehicles.presets import PRESETS

__all__ = ["VEHICLE_SUFFIX", "NamedVehicle", "read_vehicle", "resolve_vehicle"]

VEHICLE_SUFFIX = ".toml"
"""The suffix of vehicle files (what tells a file from a preset name)."""

_KIND_CODES = {name: code for code, name in KINDS.items()}


class NamedVehicle(NamedTuple):
    """A vehicle with the name results and seeds use: a preset's, a file's ``name``."""

    name: str
    params: VehicleParams


def read_vehicle(path) -> NamedVehicle:
    """Read a vehicle file (module docstring).

    Raises
    ------
    ValueError
        A missing or unreadable file, TOML syntax, a missing or bad ``name``, an unknown key, a
        ``kind`` that is not a kind's name, a value out of its range; the message names the file
        and the key.
    """
    path = Path(path)
    data = read_toml(path, "vehicle")
    name = check_name(data.pop("name", None), f"{path}: name")
    fields = {}
    for key, value in data.items():
        if key not in VehicleParams._fields:
            raise ValueError(
                f"{path}: {key}: unknown key; keys: name, {', '.join(VehicleParams._fields)}"
            )
        if key == "kind":
            if not isinstance(value, str) or value not in _KIND_CODES:
                raise ValueError(
                    f"{path}: kind must be one of {', '.join(map(repr, _KIND_CODES))}, "
                    f"got {value!r}"
                )
            value = _KIND_CODES[value]
        elif isinstance(value, list | dict):
            raise ValueError(f"{path}: {key} must be one number (a file is one vehicle)")
        fields[key] = value
    try:
        params = VehicleParams(**fields).validated()
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return NamedVehicle(name, params)


def _custom_name(params: VehicleParams) -> str:
    text = repr(tuple(params)).encode("utf-8")
    return f"custom-{hashlib.sha256(text).hexdigest()[:8]}"


def resolve_vehicle(vehicle) -> NamedVehicle:
    """``vehicle`` as a ``NamedVehicle``: a preset name (``steerlab.vehicles.PRESETS``), a path
    to a vehicle file (``str`` ending in ``.toml``, or a ``Path``), a ``VehicleParams`` (named
    ``custom-<hash>``) or a ``NamedVehicle``; the parameters validated, one value per field.

    Raises
    ------
    ValueError
        An unknown preset name (listing the presets), a vehicle file that is missing or bad
        (``read_vehicle``), parameters out of range or holding one value per agent.
    """
    if isinstance(vehicle, NamedVehicle):
        name = check_name(vehicle.name, "vehicle.name")
        params = vehicle.params
    elif isinstance(vehicle, VehicleParams):
        name, params = None, vehicle
    elif isinstance(vehicle, Path) or (
        isinstance(vehicle, str) and vehicle.lower().endswith(VEHICLE_SUFFIX)
    ):
        return read_vehicle(vehicle)
    elif isinstance(vehicle, str):
        if vehicle not in PRESETS:
            raise ValueError(
                f"unknown vehicle {vehicle!r}; presets: {', '.join(PRESETS)}, or a vehicle file "
                f"(*{VEHICLE_SUFFIX})"
            )
        return NamedVehicle(vehicle, PRESETS[vehicle])
    else:
        raise ValueError(
            f"vehicle must be a preset name, a vehicle file, a VehicleParams or a NamedVehicle, "
            f"got {vehicle!r}"
        )
    if not isinstance(params, VehicleParams):
        raise ValueError(f"vehicle.params must be a VehicleParams, got {params!r}")
    params = params.validated()
    for field, value in zip(VehicleParams._fields, params, strict=True):
        if not isinstance(value, int | float):
            raise ValueError(f"vehicle: {field} must be one number (one vehicle), got {value!r}")
    return NamedVehicle(name or _custom_name(params), params)
