"""Seed 000 "directed line" fidelity measurements and figures: structure and the claims that the
maths guarantees."""

import pytest

from steerlab.experiments.fidelity.claims import VERDICTS
from steerlab.experiments.fidelity.line_law import (
    COMMAND,
    Claim,
    measure_follow_line,
    render_markdown,
    write_markdown,
)
from steerlab.experiments.fidelity.line_law_figures import FIGURE_NAMES, make_figures


@pytest.fixture(scope="module")
def claims():
    return measure_follow_line(fast=True)


def test_every_claim_of_the_section_is_measured(claims):
    assert all(isinstance(claim, Claim) for claim in claims)
    assert [claim.key for claim in claims] == list("abcdefg")
    for claim in claims:
        assert claim.kind in VERDICTS and claim.verdict.startswith(claim.kind + ": "), claim.verdict
        assert claim.claim and claim.models and claim.measured and claim.note and claim.details
        assert claim.command == COMMAND == "steerlab fidelity 000"


def test_claims_that_the_maths_guarantees_hold(claims):
    """a: with Ek_Yaw = 1 the yaw takes the saturated command in one frame, and the linear law
    at k_Y = 1/T maps XTD to T v (u - sin u), which keeps its sign; b: for small angles XTD is
    multiplied by 1 - k_Y T per frame; d: the engine turns the shortest way, so the initial
    turn flips where the heading is opposite to Course -+ INTERCEPTANGLEMAX."""
    by_key = {claim.key: claim for claim in claims}
    for key in ("a", "b", "d"):
        assert by_key[key].kind == "holds", by_key[key].verdict


def test_markdown_contains_every_claim(claims, tmp_path):
    text = render_markdown(claims)
    assert text.startswith("### Follow line")
    for claim in claims:
        assert f"#### {claim.key}. {claim.claim}" in text
        assert claim.verdict in text
    assert text.count(f"`{COMMAND}`") >= len(claims)
    path = tmp_path / "fidelity000_line.md"
    assert write_markdown(path, fast=True) == path.read_text(encoding="utf-8")


def test_make_figures_writes_every_figure_of_the_section(tmp_path):
    paths = make_figures(tmp_path)
    assert sorted(path.name for path in paths) == sorted(f"{name}.png" for name in FIGURE_NAMES)
    assert len(FIGURE_NAMES) == 13
    for path in paths:
        assert path.parent == tmp_path
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 10_000


def test_make_figures_rejects_unknown_formats(tmp_path):
    with pytest.raises(ValueError, match="formats"):
        make_figures(tmp_path, formats=("gif",))
