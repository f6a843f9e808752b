"""Adapters that make third-party vehicle simulators steerlab plants.

Each adapter has ``step(state, command: DriveCommand, dt) -> VehicleState`` (so ``steerlab.sim``
and the benchmark drive it unchanged) and a ``vehicle_params`` record for the followers:

- ``CarRacingPlant`` (``steerlab.plants.carracing``): Gymnasium's CarRacing-v3 Box2D car;
- ``PyBulletRacecarPlant`` (``steerlab.plants.pybullet_racecar``): PyBullet's racecar URDF;
- ``CommonRoadPlant`` (``steerlab.plants.commonroad``): CommonRoad's KS and ST models.

The simulators are the optional extra ``plants`` (``pip install 'steerlab[plants]'``); each class
is imported on first use, so ``import steerlab.plants`` works without them. A simulator whose state
goes wrong raises ``PlantDiverged`` (with a ``reason``).
"""

from __future__ import annotations

import importlib
from typing import Any

from steerlab.plants.errors import PlantDiverged

__all__ = ["CarRacingPlant", "CommonRoadPlant", "PlantDiverged", "PyBulletRacecarPlant"]

_MODULES = {
    "CarRacingPlant": "steerlab.plants.carracing",
    "PyBulletRacecarPlant": "steerlab.plants.pybullet_racecar",
    "CommonRoadPlant": "steerlab.plants.commonroad",
}


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name]), name)
    raise AttributeError(f"module 'steerlab.plants' has no attribute {name!r}")
