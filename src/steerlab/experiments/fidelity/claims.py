"""Claims of a seed and what steerlab measured about them: the record, and its markdown.

Every ``fidelityNNN`` module measures a seed's claims by simulation and returns ``Claim``
records; ``render_claims`` turns a list of them into a section of ``docs/fidelity.md``: a
summary table, then one subsection per claim with its detailed tables.

A verdict is one of a fixed vocabulary, ``VERDICTS``, followed by the condition under which it
was measured: ``"holds: ..."``, ``"holds in part: ..."``, ``"does not hold: ..."``, or
``"measured: ..."`` where the seed states a figure or a reference but no claim to check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from steerlab.experiments.markdown import markdown_table

__all__ = [
    "VERDICTS",
    "Claim",
    "format_number",
    "render_claim",
    "render_claims",
    "summary_row",
    "verdict_kind",
]

# the verdict vocabulary; "holds in part" before "holds" so that the longer one is matched first
VERDICTS = ("holds in part", "holds", "does not hold", "measured")
_VERDICT = re.compile(r"(holds in part|holds|does not hold|measured): (\S.*)", re.DOTALL)


def verdict_kind(verdict: str) -> str:
    """The vocabulary word of ``verdict`` (``"holds"``, ``"holds in part"``, ``"does not hold"``
    or ``"measured"``).

    Raises
    ------
    ValueError
        If ``verdict`` is not ``"<word>: <condition>"`` with a word of ``VERDICTS`` and a
        non-empty condition.
    """
    match = _VERDICT.fullmatch(verdict) if isinstance(verdict, str) else None
    if match is None:
        raise ValueError(
            f"verdict must be one of {', '.join(repr(v) for v in VERDICTS)} followed by ': ' and "
            f"the condition measured, got {verdict!r}"
        )
    return match.group(1)


@dataclass(frozen=True)
class Claim:
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
        A word of ``VERDICTS`` then ``": "`` and the condition, ``"holds in part: for T <= 0.2
        s"`` (``verdict_kind``); anything else is a ``ValueError``.
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

    def __post_init__(self) -> None:
        verdict_kind(self.verdict)

    @property
    def kind(self) -> str:
        """The verdict's vocabulary word (``verdict_kind``)."""
        return verdict_kind(self.verdict)


def format_number(value: float, digits: int = 3) -> str:
    """A measured number for a table: ``g`` format, scientific under 1e-3."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if value != 0.0 and abs(value) < 1e-3:
        return f"{value:.1e}"
    return f"{value:.{digits}g}"


def summary_row(claim: Claim) -> str:
    """The claim's row of a section's summary table (``render_claims``): its columns have no
    alignment, so a row's text does not depend on the other rows."""
    return markdown_table([""] * 5, [_summary_cells(claim)]).split("\n")[2]


def _summary_cells(claim: Claim) -> list[str]:
    return [claim.key, claim.claim, claim.models, claim.measured, claim.verdict]


def render_claim(claim: Claim, heading_level: int = 4, models_label: str = "model") -> str:
    """One claim's subsection: its heading, measured figure, verdict, note, reproducing command
    and tables (no trailing newline)."""
    lines = [
        f"{'#' * heading_level} {claim.key}. {claim.claim}",
        "",
        f"- {models_label}: {claim.models}",
        f"- measured: {claim.measured}",
        f"- verdict: **{claim.verdict}**",
        f"- note: {claim.note}",
        f"- reproduce: `{claim.command}`",
    ]
    if claim.details:
        lines += ["", claim.details]
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
    below, ``render_claim``) with its measured figure, verdict, note, reproducing command and
    tables."""
    lines = [f"{'#' * heading_level} {title}", ""]
    if intro:
        lines += [intro, ""]
    lines += [
        markdown_table(
            ["claim", source_label, models_label, "measured", "verdict"],
            [_summary_cells(c) for c in claims],
        ),
        "",
    ]
    for c in claims:
        lines += [render_claim(c, heading_level + 1, models_label), ""]
    return "\n".join(lines)
