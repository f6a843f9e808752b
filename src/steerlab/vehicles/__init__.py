"""Ground vehicles driven by steer and throttle (seed 001): a dynamic bicycle with a tyre traction
limit, a skid-steer tracked vehicle and a hovercraft, with six presets after the paper's vehicles.

Examples
--------
>>> from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleState
>>> tank = Vehicle(PRESETS["armata"])
>>> state = tank.step(VehicleState(), DriveCommand(steer=1.0, throttle=0.0), dt=0.02)
"""

from steerlab.vehicles.files import NamedVehicle, read_vehicle, resolve_vehicle
from steerlab.vehicles.params import GRAVITY, HOVER, KINDS, TRACKED, WHEELED, VehicleParams
from steerlab.vehicles.presets import (
    ARMATA,
    BOLTE,
    EASY,
    HARD,
    HOVERCRAFT,
    PANHARD_CRAB,
    PRESETS,
    STORM,
    ZAHA,
)
from steerlab.vehicles.state import (
    DriveCommand,
    VehicleBatch,
    VehicleState,
    check_drive_command,
    check_vehicle_state,
)
from steerlab.vehicles.vehicle import Vehicle

__all__ = [
    "ARMATA",
    "BOLTE",
    "EASY",
    "GRAVITY",
    "HARD",
    "HOVER",
    "HOVERCRAFT",
    "KINDS",
    "PANHARD_CRAB",
    "PRESETS",
    "STORM",
    "TRACKED",
    "WHEELED",
    "ZAHA",
    "DriveCommand",
    "NamedVehicle",
    "Vehicle",
    "VehicleBatch",
    "VehicleParams",
    "VehicleState",
    "check_drive_command",
    "check_vehicle_state",
    "read_vehicle",
    "resolve_vehicle",
]
