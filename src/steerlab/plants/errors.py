"""What a plant adapter raises when its simulator fails (``steerlab.plants``)."""

from __future__ import annotations

__all__ = ["PlantDiverged"]


class PlantDiverged(RuntimeError):  # noqa: N818 (a diverged plant, not a bug)
    """The simulator's state became unusable (NaN or infinite, or the body rolled over).

    ``reason`` says which; a benchmark records the trial as failed with it (never a crashed run).
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason
