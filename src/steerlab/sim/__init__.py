"""Simulation: the step loop for one agent and its recorded ``Trace``."""

from steerlab.sim.simulate import ConstantCommand, Controller, Plant, simulate
from steerlab.sim.trace import Trace

__all__ = ["ConstantCommand", "Controller", "Plant", "Trace", "simulate"]
