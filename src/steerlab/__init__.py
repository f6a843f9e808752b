"""steerlab: steering and path following for game-AI agents and ground vehicles.

One formula per method, run one agent per frame (``step``) or many at once (``step_batch``); the
packages, from the bottom up, are listed in ``docs/design.md``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("steerlab")
except PackageNotFoundError:  # a source tree imported without being installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
