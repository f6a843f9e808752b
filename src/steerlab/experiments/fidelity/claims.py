"""Claims of a seed and what steerlab measured about them: the record, and its markdown.

Every ``fidelityNNN`` module measures a seed's claims by simulation and returns ``Claim``
records; ``render_claims`` turns a list of them into a section of ``docs/fidelity.md``: a
summary table, then one subsection per claim with its detailed tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["Claim", "format_number", "markdown_table", "render_claims"]


class Claim(NamedTuple):
    """One claim of a seed page and what steerlab measured about it.

    Attributes
    ----------
    key : str
        Short identifier, ``"a"``, ``"c.1"``, ``"around.2"``.
    claim : str
        The page's sentence (or code name), quoted.
    models : str
        The model(s) simulated: ``"simplified"`` (the page's pseudo-code) and/or ``"engine"``
        (the Half-Life SDK's order).
    measured : str
        The headline measured figure(s), as text with units.
    verdict : str
        ``"holds"``, ``"holds in range ..."`` or ``"does not hold: ..."``.
    note : str
        Why, and the conditions of the measurement.
    details : str
        Markdown tables with the full measurements.
    command : str
        The command that reproduces the measurement.
    """

    key: str
    claim: str
    models: str
    measured: str
    verdict: str
    note: str
    details: str = ""
    command: str = ""


def format_number(value: float, digits: int = 3) -> str:
    """A measured number for a table: ``g`` format, scientific under 1e-3."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if value != 0.0 and abs(value) < 1e-3:
        return f"{value:.1e}"
    return f"{value:.{digits}g}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines.extend("| " + " | ".join(cell(c) for c in row) + " |" for row in rows)
    return "\n".join(lines)


def render_claims(
    title: str,
    claims: Sequence[Claim],
    heading_level: int = 3,
    intro: str = "",
    source_label: str = "seed says",
    models_label: str = "model",
) -> str:
    """A markdown section: ``title``, ``intro``, a summary table, then each claim (one level
    below) with its measured figure, verdict, note, reproducing command and tables."""
    section = "#" * heading_level
    sub = "#" * (heading_level + 1)
    lines = [f"{section} {title}", ""]
    if intro:
        lines += [intro, ""]
    lines += [
        markdown_table(
            ["claim", source_label, models_label, "measured", "verdict"],
            [[c.key, c.claim, c.models, c.measured, c.verdict] for c in claims],
        ),
        "",
    ]
    for c in claims:
        lines += [
            f"{sub} {c.key}. {c.claim}",
            "",
            f"- {models_label}: {c.models}",
            f"- measured: {c.measured}",
            f"- verdict: **{c.verdict}**",
            f"- note: {c.note}",
            f"- reproduce: `{c.command}`",
            "",
        ]
        if c.details:
            lines += [c.details, ""]
    return "\n".join(lines)
