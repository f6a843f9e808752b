"""Simulation: the step loop for one agent and its recorded ``Trace``; the frame of vehicles in a
world (``step_vehicle``, ``step_vehicles``: terrain, gravity, dynamics, contacts, in phases)."""

from steerlab.sim.simulate import ConstantCommand, Controller, Plant, simulate
from steerlab.sim.trace import Trace
from steerlab.sim.vehicle_world import Contact, ContactBatch, step_vehicle, step_vehicles

__all__ = [
    "ConstantCommand",
    "Contact",
    "ContactBatch",
    "Controller",
    "Plant",
    "Trace",
    "simulate",
    "step_vehicle",
    "step_vehicles",
]
