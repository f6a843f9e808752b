"""Seed 004 fidelity measurements and figures: structure, and the page's code against steerlab's."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from steerlab.engines import AgentState, Command, HalfLifeEngine, HalfLifeParams
from steerlab.engines.halflife import _emergency_stop_distance_exact, _stop_distance_exact
from steerlab.experiments.fidelity.claims import VERDICTS
from steerlab.experiments.fidelity.halflife import (
    COMMAND,
    Claim,
    _claim_g,
    _page_emergency_stop_distance_detailed,
    _page_stop_distance_detailed,
    measure_seed004,
    render_markdown,
)
from steerlab.experiments.fidelity.halflife_figures import make_figures

SEED = HalfLifeParams(model="simplified")


@pytest.fixture(scope="module")
def claims():
    return measure_seed004(fast=True)


def test_every_claim_of_the_page_is_measured(claims):
    assert all(isinstance(claim, Claim) for claim in claims)
    assert {claim.key[0] for claim in claims} == set("abcdefg")
    assert len({claim.key for claim in claims}) == len(claims)
    for claim in claims:
        assert claim.kind in VERDICTS and claim.verdict.startswith(claim.kind + ": "), claim.verdict
        assert claim.claim and claim.models and claim.measured and claim.note
        assert claim.command == COMMAND == "steerlab fidelity 004"


def test_claims_that_the_model_algebra_guarantees_hold(claims):
    """a: getStopDistDetailed sums the page's own recurrence, so it equals the simulated page
    model; f: under 60 u/s friction zeroes each frame's speed before A T U is added, above it the
    command is reached; g: braking is decided once per frame, so the stop point is off by less
    than the distance of one frame, T v."""
    by_key = {claim.key: claim for claim in claims}
    for key in ("a", "f"):
        assert by_key[key].kind == "holds", by_key[key].verdict
    # g: T v bounds the first-frame policy's error; the page's "not better than" is no floor
    assert by_key["g"].kind in ("holds", "holds in part"), by_key["g"].verdict


def test_markdown_contains_every_claim(claims):
    text = render_markdown(claims)
    assert text.startswith("### Measured tables")
    for claim in claims:
        assert f"#### {claim.key}. {claim.claim}" in text
        assert claim.verdict in text
    assert text.count(f"`{COMMAND}`") >= len(claims)


def test_the_random_targets_are_reproducible_from_the_seed():
    first = _claim_g(True, np.random.default_rng(7))
    second = _claim_g(True, np.random.default_rng(7))
    assert first == second


def test_make_figures_writes_the_three_pngs(tmp_path):
    paths = make_figures(tmp_path)
    assert sorted(path.name for path in paths) == [
        "navhlengmodl.png",
        "navstopdist.png",
        "navstopdistem.png",
    ]
    for path in paths:
        assert path.parent == tmp_path
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 10_000


def test_make_figures_rejects_unknown_formats(tmp_path):
    with pytest.raises(ValueError, match="formats"):
        make_figures(tmp_path, formats=("gif",))


def first_speed_at_or_below_stopspeed(speed, opposite_speed, dt):
    """Simulate the page's model: the first speed of the decay phase at or below stopspeed."""
    engine = HalfLifeEngine(SEED)
    state = AgentState(0.0, 0.0, speed, 0.0, 0.0)
    command = Command(math.pi, opposite_speed) if opposite_speed > 0.0 else Command(0.0, 0.0)
    while state.vx > SEED.stopspeed:
        state = engine.step(state, command, dt)
    return state.vx


def frames_are_ambiguous(speed, opposite_speed, dt):
    """True when the page's ceil(log(Ratio) / log(K)) sits within rounding of an integer (the
    page's code may then count one frame too many or too few; steerlab's kernel corrects it)."""
    if speed <= SEED.stopspeed:
        return False
    equivalent = -SEED.accelerate * opposite_speed / SEED.friction
    ratio = (SEED.stopspeed - equivalent) / (speed - equivalent)
    frames = math.log(ratio) / math.log(1.0 - SEED.friction * dt)
    return abs(frames - round(frames)) < 1e-9


@given(st.floats(0.0, 2000.0), st.floats(1.0, 320.0), st.floats(0.002, 0.24))
def test_page_emergency_code_equals_steerlab_exact_unless_the_speed_jumps_below_zero(
    speed, opposite_speed, dt
):
    """Seed 004 getEmergStopDistDetailed, verbatim, against steerlab's exact kernel.

    While the decay phase ends at a positive speed the two are the same sum. When one frame takes
    the speed from above stopspeed to v < 0, the page adds that frame's backward move T v, which
    steerlab leaves out (the distance is the farthest point before the speed changes sign); the
    page then clips at 0. The relation needs v as the page's recurrence gives it, which the
    simulation also gives while A T <= 1 (beyond, the engine caps the backward speed)."""
    assume(not frames_are_ambiguous(speed, opposite_speed, dt))
    page = _page_emergency_stop_distance_detailed(
        speed, -opposite_speed, dt, SEED.accelerate, SEED.friction, SEED.stopspeed
    )
    exact = _emergency_stop_distance_exact(
        speed, opposite_speed, dt, SEED.accelerate, SEED.friction, SEED.stopspeed
    )
    last = first_speed_at_or_below_stopspeed(speed, opposite_speed, dt) if speed > 0 else 0.0
    if last > 0.0 or speed <= SEED.stopspeed:
        assert page == pytest.approx(exact, rel=1e-9, abs=1e-9)
    elif SEED.accelerate * dt <= 1.0:
        assert page == pytest.approx(max(0.0, exact + dt * last), rel=1e-9, abs=1e-9)
        assert page <= exact + 1e-9


@given(st.floats(0.0, 2000.0), st.floats(0.002, 0.24))
def test_page_stop_code_equals_steerlab_exact(speed, dt):
    """Seed 004 getStopDistDetailed, verbatim: friction alone never reverses the speed, so the
    page's sum is steerlab's (up to the rounding of ceil on a near-integer logarithm)."""
    assume(not frames_are_ambiguous(speed, 0.0, dt))
    page = _page_stop_distance_detailed(speed, dt, SEED.friction, SEED.stopspeed)
    exact = _stop_distance_exact(speed, dt, SEED.friction, SEED.stopspeed)
    assert page == pytest.approx(exact, rel=1e-9, abs=1e-9)
