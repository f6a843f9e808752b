"""docs/fidelity.md cannot drift from the code: every seed's generated block is measured again.

Each seed's block (between the markers of ``steerlab.experiments.fidelity.document``) holds what
``steerlab fidelity NNN`` prints with its full settings. The full settings take minutes in
all, so each claim is compared one of three ways, declared below per seed:

- ``EXACT``: the claim is measured again in full and its rendered subsection and summary row must
  equal the document's, character for character;
- ``ROWS``: an expensive claim; a declared subset of its table rows is measured again (same
  grid, same random draws) and each rendered row must be the document's row of the same key;
- ``TIMED``: a claim whose figures are timings of this machine; the documented figures are read
  back and the claim rendered from them must equal the document's (its verdict and wording are
  the code's for those figures), and the timing itself is run once, briefly.

Seeds 001 and 002 are cheap in full: their whole block is compared.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from gfm_tables import find_tables
from steerlab.cli.app import seed_markdown
from steerlab.experiments.fidelity import funnelling, halflife, line_law, oriented_reach, point_laws
from steerlab.experiments.fidelity.claims import (
    VERDICTS,
    Claim,
    render_claim,
    summary_row,
    verdict_kind,
)
from steerlab.experiments.fidelity.document import generated_block
from steerlab.funnel import EtaTable
from steerlab.laws.oriented import DEFAULT_RELATIVE_BEARING_MAX

DOCUMENT = (Path(__file__).parent.parent / "docs" / "fidelity.md").read_text(encoding="utf-8")

# per seed: the keys compared in full, by rows, and from the documented timings
EXACT = {
    # seed 000: every claim of the point and line laws; a, b, c, d, g of the oriented reach
    "000": {"around.1", "around.2", "around.3", "seek.1", "stop.1", *"abcdefg"},
    "003": {"table.1", "seek.1", "funnel.1 static", "funnel.1 mobile", "funnel.2", "funnel.3"}
    | {"funnel.4"},
    "004": {"a", "b", "c.1", "c.2", "d", "e.1", "e.2", "f"},
}
ROWS = {"000": {"e", "f"}, "004": {"g"}}  # seed 000: the oriented reach's e and f
TIMED = {"003": {"table.2", "cost.1"}}


def _block(seed: str) -> str:
    return generated_block(DOCUMENT, seed)


def _summary_keys(block: str) -> list[str]:
    """The first cell of every row of the block's summary tables (``| claim | ...``)."""
    keys = []
    inside = False
    for line in block.splitlines():
        if line.startswith("| claim |"):
            inside = True
        elif inside and line.startswith("|---"):
            continue
        elif inside and line.startswith("| "):
            keys.append(line[2:].split(" | ", 1)[0])
        else:
            inside = False
    return keys


def _section(block: str, claim, level: int) -> str:
    """The document's subsection of ``claim``: from its heading to the next heading."""
    heading = f"{'#' * level} {claim.key}. {claim.claim}\n"
    assert block.count(heading) == 1, f"no single heading for {claim.key!r} in the document"
    start = block.index(heading)
    following = re.search(r"^#", block[start + len(heading) :], flags=re.MULTILINE)
    stop = len(block) if following is None else start + len(heading) + following.start()
    return block[start:stop].strip()


def _assert_same(block: str, claims, level: int, models_label: str) -> None:
    for claim in claims:
        assert _section(block, claim, level) == render_claim(claim, level, models_label)
        assert summary_row(claim) in block.splitlines(), f"summary row of {claim.key!r}"


def _assert_rows(section: str, rows, key_cells: int) -> None:
    """Each row (cells), rendered as the document's tables render it, is a row of the section;
    on a mismatch the message shows the documented rows that start with the same ``key_cells``
    cells."""
    lines = section.splitlines()
    for cells in rows:
        line = "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
        prefix = "| " + " | ".join(cells[:key_cells]) + " |"
        documented = [text for text in lines if text.startswith(prefix)]
        assert line in lines, f"row {line}: documented {documented}"


@pytest.mark.parametrize(
    "verdict",
    ["holds", "holds:", "holds: ", "Holds: always", "holds in range: T < 1", "true: x", None, 1],
)
def test_a_claim_refuses_a_verdict_outside_the_vocabulary(verdict):
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("a", "the seed's words", "BaseEngine", "1 u", verdict, "note")


@pytest.mark.parametrize("kind", VERDICTS)
def test_a_claim_takes_each_word_of_the_vocabulary_with_its_condition(kind):
    claim = Claim("a", "the seed's words", "BaseEngine", "1 u", f"{kind}: for T <= 0.2 s", "n")
    assert claim.kind == verdict_kind(claim.verdict) == kind


def test_every_documented_verdict_is_from_the_vocabulary():
    verdicts = re.findall(r"^- verdict: \*\*(.*)\*\*$", DOCUMENT, flags=re.MULTILINE)
    assert len(verdicts) >= 45  # every claim of seeds 000, 002, 003 and 004
    for verdict in verdicts:
        assert verdict_kind(verdict) in VERDICTS


def test_every_claim_of_every_seed_is_compared_one_way():
    for seed in ("000", "003", "004"):
        keys = _summary_keys(_block(seed))
        assert len(keys) == len(set(keys)) or seed == "000"  # seed 000: one table per law
        declared = EXACT.get(seed, set()) | ROWS.get(seed, set()) | TIMED.get(seed, set())
        assert set(keys) == declared, seed
    for seed in ("000", "001", "002", "003", "004"):
        assert _block(seed)  # every seed has its block


@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_every_generated_table_reads_back_with_a_cell_per_column(seed):
    # GFM pads a short row with empty cells and drops a long row's extra ones: either would
    # lose a number without a warning
    block = _block(seed)
    tables = find_tables(block)
    assert len(tables) >= 2
    assert sum(line.startswith("|") for line in block.splitlines()) == sum(
        len(rows) + 2 for _, _, rows in tables
    )  # every row-like line is in a table
    for header, _, rows in tables:
        assert all(len(row) == len(header) for row in rows), header


@pytest.mark.parametrize("seed", ["001", "002"])
def test_the_cheap_seeds_blocks_are_what_the_cli_prints(seed):
    assert _block(seed) == seed_markdown(seed).strip()


def test_seed_000_point_and_line_claims_are_the_documented_ones():
    block = _block("000")
    assert block.startswith("### Measured tables\n")
    _assert_same(block, point_laws.measure_points_and_stops(), 5, "engine")
    _assert_same(block, line_law.measure_follow_line(), 5, "engine")


def test_seed_000_oriented_claims_are_the_documented_ones_and_rows():
    block = _block("000")
    runs = oriented_reach.FamilyRuns()
    claims = [
        oriented_reach._claim_circle(False),
        oriented_reach._claim_parabola(False, runs),
        oriented_reach._claim_line(runs),
        oriented_reach._claim_conics(runs),
        oriented_reach._claim_jump(runs, False),
    ]
    oriented = block[block.index("#### Reaching a point in a given direction") :]
    _assert_same(oriented, claims, 5, "engine")
    # e and f: the rows of F2 K=3 (every engine and law) and the default adaptation bound
    label = "F2 K=3"
    claim_e = "##### e. "
    claim_f = "##### f. "
    section_e = oriented[oriented.index(claim_e) : oriented.index(claim_f)]
    section_f = oriented[oriented.index(claim_f) : oriented.index("##### g. ")]
    variants = ("seed", "adapted")
    _assert_rows(
        section_e,
        [oriented_reach._run_row(label, v, runs[(label, "ideal", v)]) for v in variants]
        + [oriented_reach._engine_row(label, v, runs) for v in variants],
        2,
    )
    _assert_rows(
        section_f,
        [
            oriented_reach._f2_row(label, engine, v, runs[(label, engine, v)])
            for engine in oriented_reach.ENGINES
            for v in variants
        ],
        3,
    )
    ks, _, engines = oriented_reach._sweep_grid(False)
    row = oriented_reach._sweep_row(DEFAULT_RELATIVE_BEARING_MAX, engines, ks, runs.starts)
    _assert_rows(section_f, [row], 1)


@pytest.fixture(scope="module")
def table():
    return EtaTable.build()


def test_seed_003_claims_are_the_documented_ones(table):
    block = _block("003")
    distances = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
    funnel = funnelling.run_funnel_grid(table, distances, 12, 8, (0.0, 2.0))
    seek = funnelling.run_funnel_grid(table, distances, 12, 8, (0.0, 2.0), controller="seek")
    mobile = funnelling.run_mobile_targets(table, funnelling.MOBILE_DISTANCES, 8)
    claims = [
        funnelling._claim_table(table),
        funnelling._claim_orbits(table, False),
        *funnelling._claim_reach(funnel, seek),
        funnelling._claim_mobile(mobile),
        funnelling._claim_far(table),
    ]
    _assert_same(block, claims, 3, "simulated")


_NUMBER = r"([0-9.]+(?:e[+-]?[0-9]+)?)"


def test_seed_003_timed_claims_are_rendered_from_their_documented_figures(table):
    block = _block("003")
    build = re.search(
        rf"^- measured: {_NUMBER} s per build \(numba, (\d+) threads\); first build in the "
        rf"process {_NUMBER} s",
        block,
        flags=re.MULTILINE,
    )
    assert build is not None
    best, threads, first = float(build[1]), int(build[2]), float(build[3])
    _assert_same(block, [funnelling._claim_build_time(first, best, threads)], 3, "simulated")
    cost = re.search(
        rf"^- measured: scalar step from Python: {_NUMBER} us \(distant: {_NUMBER} us\); batch, "
        rf"one thread, 1e5 entities: {_NUMBER} ns per update = {_NUMBER} M/s \(distant: "
        rf"{_NUMBER} ns\)",
        block,
        flags=re.MULTILINE,
    )
    assert cost is not None
    figures = {
        "scalar_us_mixed": float(cost[1]),
        "scalar_us_distant": float(cost[2]),
        "batch_ns_mixed": float(cost[3]),
        "batch_rate_mixed": float(cost[4]) * 1e6,
        "batch_ns_distant": float(cost[5]),
    }
    _assert_same(block, [funnelling._claim_cost(figures)], 3, "simulated")
    # the timing runs and gives every figure the claim reads
    measured = funnelling.measure_update_cost(table, 1_000, 1, 64)
    assert set(figures) <= set(measured)
    assert all(value > 0.0 for value in measured.values())


def test_seed_004_claims_are_the_documented_ones_and_rows():
    block = _block("004")
    assert block.startswith("### Measured tables\n")
    degrees, runs = halflife._turn_runs(False)
    claims = [
        halflife._claim_a(False),
        halflife._claim_b(False),
        halflife._claim_c1(False),
        halflife._claim_c2(False),
        halflife._claim_d(False),
        halflife._claim_e1(degrees, runs),
        halflife._claim_e2(degrees, runs),
        halflife._claim_f(False),
    ]
    _assert_same(block, claims, 4, "model")
    # g: the rows at T = 0.1 s, v = 320 u/s of both models, with the targets the full run draws
    section = block[block.index("#### g. ") :]
    cases = halflife._targeted_stop_cases(np.random.default_rng(4), 10_000)
    rows = [
        halflife._targeted_stop_row(*case)[0]
        for case in cases
        if case[1] == 0.1 and case[2] == 320.0
    ]
    assert len(rows) == 2
    _assert_rows(section, rows, 3)
