"""Drawing without pyplot: figures on the Agg canvas, saved in the requested formats."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["FORMATS", "check_formats", "new_figure", "save_figures"]

FORMATS = ("png", "svg")


def new_figure(
    width: float, height: float, rows: int = 1, columns: int = 1, layout: str | None = "constrained"
):
    """A figure on its own Agg canvas and its axes grid (``rows x columns``, always 2-D)."""
    figure = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    return figure, axes


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    formats = tuple(formats)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ValueError(f"formats must be among {FORMATS}, got {formats!r}")
    return formats


def save_figures(
    out_dir: str | Path, formats: Sequence[str], drawers: Sequence[tuple[str, Callable[[], Figure]]]
) -> list[Path]:
    """Draw each ``(name, draw)`` and save it as ``out_dir / name.ext`` for every format."""
    formats = check_formats(formats)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in drawers:
        figure = draw()
        for extension in formats:
            path = out_dir / f"{name}.{extension}"
            figure.savefig(path, dpi=120, bbox_inches="tight")
            written.append(path)
        figure.clear()
    return written
