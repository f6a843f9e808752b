"""The ``steerlab`` command: ``steerlab bench``, ``steerlab figures``, ``steerlab fidelity``."""

from steerlab.cli.app import app, main

__all__ = ["app", "main"]
