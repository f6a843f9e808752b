"""Bot waypoint files read by ``load_navdata``: JK_Botti ``.wpt`` and YaPB ``.graph`` (with ULZ).

Independent routes: the files are *written* here, from the formats' description in
``../shared/data/README.md`` (struct and gzip for ``.wpt``; a ULZ encoder, the YaPB header and
records for ``.graph``), and the real files are decoded here with struct from the same description
(the YaPB nodes after steerlab's ULZ decompressor, which the round trips check on its own). The
flag tables below are the README's bits with steerlab's names.

The real files are read from ``$STEERLAB_DATA`` (default: the repository's ``../shared/data``);
the tests that need them skip when the folder is absent. They are never copied here.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import math
import os
import re
import signal
import struct
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.engines import AgentState, HalfLifeEngine
from steerlab.engines.halflife import stop_distance
from steerlab.navigation import (
    FLAG_BITS,
    AlongSegments,
    TowardsParams,
    TowardsPoints,
    WaypointGraph,
    find_route,
    load_navdata,
)
from steerlab.navigation.navdata import TOUCH_RADIUS
from steerlab.navigation.ulz import UlzError, decompress
from steerlab.sim import simulate

DATA = Path(
    os.environ.get("STEERLAB_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
JK_FILES = sorted((DATA / "jk_botti").glob("*.wpt"))
YAPB_FILES = sorted((DATA / "yapb").glob("*.graph"))
needs_data = pytest.mark.skipif(
    not (JK_FILES or YAPB_FILES), reason=f"no shared data at {DATA} (set STEERLAB_DATA)"
)

# the README's flag bits, with steerlab's names
JK_TABLE = {
    1: "crouch",
    2: "jump",
    3: "ladder",
    5: "door",
    6: "long_jump_module",
    7: "health",
    8: "armor",
    9: "ammo",
    10: "weapon",
    12: "aiming",
    14: "lift_start",
    15: "lift_end",
}
JK_DELETED = 31
YAPB_TABLE = {
    0: "button",
    1: "lift",
    2: "crouch",
    3: "crossing",
    4: "goal",
    5: "ladder",
    6: "rescue",
    7: "camp",
    8: "no_hostage",
    9: "double_jump",
    10: "narrow",
    28: "sniper",
    29: "terrorist_only",
    30: "counter_terrorist_only",
}
YAPB_LINK_TABLE = {0: "jump"}


def split_flags(word: int, table: dict[int, str], dropped=()) -> tuple[frozenset, int]:
    """``(names, raw bits)`` of a flag word by the README's table."""
    names = frozenset(name for bit, name in table.items() if word >> bit & 1)
    raw = word
    for bit in (*table, *dropped):
        raw &= ~(1 << bit)
    return names, raw


# --------------------------------------------------------------------------------------------------
# encoders written from the README


def encode_wpt(
    slots,
    paths,
    *,
    magic=b"jkbotti\0",
    version=5,
    count=None,
    mapname=b"testmap",
    tail=b"",
    compress=True,
):
    """A JK_Botti file: ``slots`` of ``(flags, (x, y, z))``, ``paths[i]`` the targets of slot i."""
    body = bytearray(magic)
    body += struct.pack("<4i", version, 3, 0, len(slots) if count is None else count)
    body += mapname.ljust(32, b"\0")
    for flags, origin in slots:
        body += struct.pack("<I3fi12x", flags, *origin, 0)
    for targets in paths:
        body += struct.pack(f"<h{len(targets)}h", len(targets), *targets)
    body += tail
    return gzip.compress(bytes(body)) if compress else bytes(body)


def varint(value: int) -> bytes:
    """ULZ's varint: 7 bits a byte, each byte but the last >= 128 and counted in full."""
    out = bytearray()
    while value >= 128:
        value -= 128
        out.append(128 | (value & 127))
        value >>= 7
    out.append(value)
    return bytes(out)


def ulz_encode(ops) -> bytes:
    """ULZ tokens of ``ops``, each ``(literal bytes, (distance, length) or None)``; only the last
    may have no match, and then it has literals."""
    out = bytearray()
    for literals, match in ops:
        run = len(literals)
        distance, length = match if match else (0, 4)
        token = min(run, 7) << 5 | (distance >> 16 & 1) << 4 | min(length - 4, 15)
        out.append(token)
        if run >= 7:
            out += varint(run - 7)
        out += literals
        if match:
            if length - 4 >= 15:
                out += varint(length - 19)
            out += struct.pack("<H", distance & 0xFFFF)
    return bytes(out)


def expand(ops) -> bytes:
    """What ``ops`` stand for, byte by byte (a match copies from ``distance`` bytes back)."""
    out = bytearray()
    for literals, match in ops:
        out += literals
        if match:
            distance, length = match
            for _ in range(length):
                out.append(out[-distance])
    return bytes(out)


def ulz_compress(data: bytes) -> bytes:
    """A greedy ULZ compressor (last occurrence of each 4-byte prefix), for whole files."""
    ops, last, anchor, position = [], {}, 0, 0
    while position < len(data):
        key = data[position : position + 4]
        candidate = last.get(key) if len(key) == 4 else None
        if candidate is not None and position - candidate < 1 << 17:
            length = 4
            while (
                position + length < len(data)
                and data[candidate + length] == data[position + length]
            ):
                length += 1
            for index in range(position, position + length):
                last[data[index : index + 4]] = index
            ops.append((data[anchor:position], (position - candidate, length)))
            position += length
            anchor = position
        else:
            last[key] = position
            position += 1
    if anchor < len(data):
        ops.append((data[anchor:], None))
    encoded = ulz_encode(ops)
    assert expand(ops) == data
    return encoded


EXTEN = b"tester".ljust(32, b"\0") + bytes(4) + b"2024".ljust(32, b"\0")  # author, size, date
NODE = struct.Struct("<iI9f3f" + "3fiHh" * 8 + "2H")  # number, flags, origin, start, end, ...
assert NODE.size == 220


def encode_graph(
    nodes,
    *,
    magic=0x59415042,
    version=2,
    options=72,
    count=None,
    compressed=None,
    uncompressed=None,
    block=None,
    exten=EXTEN,
):
    """A YaPB file: ``nodes`` of ``(flags, (x, y, z), radius, [(index, link flags), ...])``."""
    records = bytearray()
    for number, (flags, origin, radius, links) in enumerate(nodes):
        padded = list(links) + [(-1, 0)] * (8 - len(links))
        link_fields = []
        for index, link_flags in padded:
            link_fields += [0.0, 0.0, 0.0, 0, link_flags, index]
        records += NODE.pack(number, flags, *origin, *origin, *origin, radius, 0.0, 0.0,
                             *link_fields, 0, 0)  # fmt: skip
    block = ulz_compress(bytes(records)) if block is None else block
    header = struct.pack(
        "<6I",
        magic,
        version & 0xFFFFFFFF,
        options,
        (len(nodes) if count is None else count) & 0xFFFFFFFF,
        (len(block) if compressed is None else compressed) & 0xFFFFFFFF,
        (len(records) if uncompressed is None else uncompressed) & 0xFFFFFFFF,
    )
    return header + block + exten


@contextlib.contextmanager
def written(data: bytes, suffix: str):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"map{suffix}"
        path.write_bytes(data)
        yield path


def load_bytes(data: bytes, suffix: str):
    with written(data, suffix) as path:
        return load_navdata(path)


@contextlib.contextmanager
def time_limit(seconds: float):
    """Fail instead of hanging: SIGALRM interrupts the pure-Python readers."""

    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)


def expect_error(data: bytes, suffix: str, *fragments: str) -> str:
    """``load_navdata`` of ``data`` fails: a ``ValueError`` naming the file and ``fragments``."""
    with written(data, suffix) as path, time_limit(20.0):
        with pytest.raises(ValueError) as caught:
            load_navdata(path)
        message = str(caught.value)
        assert message.startswith(str(path)), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


# --------------------------------------------------------------------------------------------------
# ULZ alone


@st.composite
def ulz_programs(draw):
    """Literal runs and matches (overlapping, long, extended lengths), a valid ULZ program."""
    ops, produced = [], 0
    for _ in range(draw(st.integers(0, 12))):
        literals = draw(st.one_of(st.binary(max_size=6), st.binary(min_size=7, max_size=300)))
        produced += len(literals)
        if produced == 0:
            continue
        distance = draw(st.integers(1, min(produced, (1 << 17) - 1)))
        length = draw(st.one_of(st.integers(4, 18), st.integers(19, 600)))
        ops.append((literals, (distance, length)))
        produced += length
    if draw(st.booleans()):
        ops.append((draw(st.binary(min_size=1, max_size=200)), None))
    return ops


@given(ulz_programs())
def test_ulz_decodes_what_the_readme_encoder_wrote(ops):
    expected = expand(ops)
    assert decompress(ulz_encode(ops), len(expected)) == expected


def test_ulz_long_distances_use_the_seventeenth_bit_and_long_varints():
    rng = np.random.default_rng(19)
    head = rng.integers(0, 256, 131_100, dtype=np.uint8).tobytes()
    ops = [
        (head, (65_536, 300)),  # bit 16 set, 16-bit word 0; a two-byte varint length
        (b"", ((1 << 17) - 1, 4)),  # the farthest distance
        (b"xyz", (1, 20_000)),  # overlapping: one byte repeated, a three-byte varint length
        (b"ab", (2, 5)),  # overlapping, period 2
        (rng.integers(0, 256, 20_000, dtype=np.uint8).tobytes(), None),  # a 3-byte literal run
    ]
    data = ulz_encode(ops)
    expected = expand(ops)
    assert decompress(data, len(expected)) == expected
    assert expected[-20_007:-20_002] == b"ababa"


def test_ulz_damage_is_an_error_at_its_offset():
    ops = [(b"abcdefgh", (8, 30)), (b"", (3, 4)), (b"tail", None)]
    data = ulz_encode(ops)
    size = len(expand(ops))
    for cut in range(len(data)):
        with pytest.raises(UlzError) as caught:
            decompress(data[:cut], size)
        assert 0 <= caught.value.offset <= cut
    with pytest.raises(UlzError, match=r"byte 0: .*before the start"):
        decompress(ulz_encode([(b"abc", (4, 4))]), 7)
    with pytest.raises(UlzError, match=r"byte 0: a match with distance 0"):
        decompress(ulz_encode([(b"abc", (1, 4))])[:-2] + b"\0\0", 7)
    with pytest.raises(UlzError, match=r"byte 0: a match points 3 bytes back"):
        decompress(bytes([0x00, 3, 0]), 4)  # a match first: nothing to copy yet
    with pytest.raises(UlzError, match=r"overflows the expected 5 bytes"):
        decompress(ulz_encode(ops), 5)
    with pytest.raises(UlzError, match=r"expected 99"):
        decompress(ulz_encode(ops), 99)
    with pytest.raises(UlzError, match=r"varint .* past the end"):
        decompress(bytes([0xE0, 0x80]), 200)
    with pytest.raises(ValueError, match="size must be >= 0"):
        decompress(b"", -1)


@settings(deadline=10_000)
@given(st.binary(max_size=400), st.integers(0, 5_000))
def test_ulz_on_arbitrary_bytes_decodes_exactly_or_fails_cleanly(data, size):
    try:
        out = decompress(data, size)
    except UlzError as error:
        assert 0 <= error.offset <= len(data)
    else:
        assert len(out) == size


# --------------------------------------------------------------------------------------------------
# round trips: random graphs written here, read by steerlab

finite32 = st.floats(-1e5, 1e5, width=32, allow_nan=False)
origins = st.tuples(finite32, finite32, finite32)


def expected_connections(sources, links_of, alive, link_table=None):
    """The README graph's connections under the readers' rule: skip a link to the node itself, to
    a deleted slot or to a target already linked from that node."""
    result = []
    for source in sources:
        seen = set()
        for target, bits in links_of(source):
            if target == source or target in seen or not alive(target):
                seen.add(target)
                continue
            seen.add(target)
            names, raw = split_flags(bits, link_table or {})
            result.append((str(source), str(target), names, raw))
    return result


def graph_connections(graph: WaypointGraph):
    return [(c.source, c.target, c.flags, c.raw_flags) for c in graph.connections]


@st.composite
def jk_files(draw):
    count = draw(st.integers(1, 9))
    deleted = st.just(1 << JK_DELETED)
    slots = [
        (
            draw(st.one_of(st.integers(0, (1 << 31) - 1), deleted.map(lambda d: d | 8))),
            draw(origins),
        )
        for _ in range(count)
    ]
    paths = [draw(st.lists(st.integers(0, count - 1), max_size=6)) for _ in range(count)]
    return slots, paths


@given(jk_files())
def test_jk_botti_round_trip(case):
    slots, paths = case
    alive = [not flags >> JK_DELETED & 1 for flags, _ in slots]
    data = encode_wpt(slots, paths)
    if not any(alive):
        expect_error(data, ".wpt", "no waypoint")
        return
    graph = load_bytes(data, ".wpt")
    assert graph.source_format == "jk_botti" and graph.name == "testmap"
    kept = [index for index in range(len(slots)) if alive[index]]
    assert [w.id for w in graph.waypoints] == [str(index) for index in kept]
    for waypoint, index in zip(graph.waypoints, kept, strict=True):
        flags, origin = slots[index]
        assert waypoint.position == tuple(float(np.float32(value)) for value in origin)
        assert waypoint.radius == 0.0
        assert (waypoint.flags, waypoint.raw_flags) == split_flags(flags, JK_TABLE, (JK_DELETED,))
    expected = expected_connections(
        kept, lambda source: [(t, 0) for t in paths[source]], lambda t: alive[t]
    )
    assert graph_connections(graph) == expected


@st.composite
def yapb_files(draw):
    count = draw(st.integers(1, 9))
    radius = st.one_of(st.just(0.0), st.floats(0.0, 200.0, width=32))
    link = st.tuples(st.integers(-1, count - 1), st.integers(0, 0xFFFF))
    nodes = [
        (
            draw(st.integers(0, 0xFFFFFFFF)),
            draw(origins),
            draw(radius),
            draw(st.lists(link, max_size=8)),
        )
        for _ in range(count)
    ]
    return nodes, draw(st.sampled_from((1, 2)))


@given(yapb_files())
def test_yapb_round_trip(case):
    nodes, version = case
    graph = load_bytes(encode_graph(nodes, version=version), ".graph")
    assert graph.source_format == "yapb" and graph.name == "map"
    assert [w.id for w in graph.waypoints] == [str(index) for index in range(len(nodes))]
    for waypoint, (flags, origin, radius, _) in zip(graph.waypoints, nodes, strict=True):
        assert waypoint.position == tuple(float(np.float32(value)) for value in origin)
        assert waypoint.radius == float(np.float32(radius))
        assert (waypoint.flags, waypoint.raw_flags) == split_flags(flags, YAPB_TABLE)
    expected = expected_connections(
        range(len(nodes)),
        lambda source: [(t, bits) for t, bits in nodes[source][3] if t != -1],
        lambda t: True,
        YAPB_LINK_TABLE,
    )
    assert graph_connections(graph) == expected


def test_the_flag_names_keep_their_bits():
    # pack_routes' integer masks: the names that existed before the bot files keep their bits
    old = ["ladder", "jump", "walk", "crouch", "door", "lift", "camp", "goal"]
    assert [FLAG_BITS[name] for name in old] == [1 << index for index in range(8)]
    for name in (*JK_TABLE.values(), *YAPB_TABLE.values(), *YAPB_LINK_TABLE.values()):
        assert FLAG_BITS[name] < 1 << 62


# --------------------------------------------------------------------------------------------------
# damaged files

SMALL_JK = (
    [(1 << 3, (0.0, 0.0, 0.0)), (1 << 31, (1.0, 2.0, 3.0)), (1 << 2, (64.0, 0.0, 16.0))],
    [[2, 1], [0], [0]],
)
SMALL_YAPB = [
    (1 << 5, (0.0, 0.0, 0.0), 0.0, [(1, 1)]),
    (0, (100.0, 0.0, 0.0), 32.0, [(0, 0), (2, 0)]),
    (1 << 2, (100.0, 100.0, 0.0), 0.0, [(1, 0)]),
]


def test_truncated_wpt_at_every_offset_is_an_error():
    data = encode_wpt(*SMALL_JK)
    for cut in range(len(data)):
        expect_error(data[:cut], ".wpt")
    body = encode_wpt(*SMALL_JK, compress=False)
    for cut in range(len(body)):  # the gzip stream intact, its content cut
        expect_error(gzip.compress(body[:cut]), ".wpt", "byte")


def test_damaged_wpt_headers_and_records():
    slots, paths = SMALL_JK
    expect_error(encode_wpt(slots, paths, magic=b"jkbotte\0"), ".wpt", "byte 0", "magic")
    for version in (4, 6):
        expect_error(encode_wpt(slots, paths, version=version), ".wpt", "byte 8", f"{version}")
    expect_error(encode_wpt(slots, paths, count=-1), ".wpt", "byte 20", "-1")
    expect_error(encode_wpt(slots, paths, count=40), ".wpt", "byte 56", "40 waypoints")
    expect_error(encode_wpt(slots, [[2, 3], [0], [0]]), ".wpt", "waypoint 0's path 1", "3")
    expect_error(encode_wpt(slots, [[2], [0], [-1]]), ".wpt", "waypoint 2's path 0", "-1")
    expect_error(encode_wpt(slots, paths, tail=b"\0\0\0"), ".wpt", "3 bytes after")
    expect_error(encode_wpt([], []), ".wpt", "no waypoint")
    nan = [(0, (0.0, math.nan, 0.0)), *slots[1:]]
    expect_error(encode_wpt(nan, paths), ".wpt", "waypoints[0].position", "finite")
    expect_error(b"jkbotti\0 not compressed", ".wpt", "gzip")
    expect_error(encode_wpt(slots, paths) + b"junk", ".wpt", "4 bytes after the end of the gzip")
    negative = encode_wpt(slots, paths, compress=False)
    records_end = 56 + 32 * 3
    negative = negative[:records_end] + struct.pack("<h", -2) + negative[records_end + 2 :]
    expect_error(gzip.compress(negative), ".wpt", f"byte {records_end}", "-2 paths")


def test_truncated_graph_is_an_error_up_to_the_end_of_its_block():
    data = encode_graph(SMALL_YAPB)
    (compressed,) = struct.unpack_from("<i", data, 16)
    whole = load_bytes(data, ".graph")
    for cut in range(len(data)):
        if cut < 24 + compressed:
            expect_error(data[:cut], ".graph")
        else:  # only the optional extension header is cut: the graph is whole
            assert load_bytes(data[:cut], ".graph") == whole


def test_damaged_graph_headers_links_and_blocks():
    nodes = SMALL_YAPB
    expect_error(encode_graph(nodes, magic=0x59415043), ".graph", "byte 0", "magic 0x59415043")
    for version in (0, 3, -1):
        expect_error(encode_graph(nodes, version=version), ".graph", "byte 4", f"version {version}")
    expect_error(encode_graph(nodes, options=64), ".graph", "byte 8", "graph bit")
    expect_error(encode_graph(nodes, count=0), ".graph", "byte 12", "node count 0")
    expect_error(encode_graph(nodes, count=4), ".graph", "byte 20", "uncompressed size 660")
    expect_error(encode_graph(nodes, compressed=5000, exten=b""), ".graph", "byte 16", "5000")
    expect_error(encode_graph(nodes, compressed=0), ".graph", "byte 16")
    for index in (3, -2):
        bad = [nodes[0], nodes[1], (0, (1.0, 1.0, 1.0), 0.0, [(1, 0), (index, 0)])]
        expect_error(encode_graph(bad), ".graph", "waypoint 2, link 1", f"index {index}")
    nan = [(0, (0.0, 0.0, math.inf), 0.0, []), *nodes[1:]]
    expect_error(encode_graph(nan), ".graph", "waypoints[0].position", "finite")
    before_start = ulz_encode([(b"\0" * 8, (9, 4))])
    expect_error(encode_graph(nodes, block=before_start), ".graph", "byte 24", "before the start")
    short = ulz_encode([(b"\0" * 600, None)])
    expect_error(encode_graph(nodes, block=short), ".graph", "expected 660")
    expect_error(b"YAPB", ".graph", "shorter than the 24-byte")


@settings(deadline=10_000, max_examples=100)
@given(st.data())
def test_random_damage_to_a_graph_loads_or_fails_cleanly(data):
    original = bytearray(encode_graph(SMALL_YAPB))
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(original) - 1))
        original[position] = data.draw(st.integers(0, 255))
    with written(bytes(original), ".graph") as path, time_limit(20.0):
        try:
            graph = load_navdata(path)
        except ValueError as error:
            message = str(error)
            assert message.startswith(str(path))
            assert re.search(r"byte \d+|waypoints?\[?\d", message), message  # located
        else:
            assert isinstance(graph, WaypointGraph)


# --------------------------------------------------------------------------------------------------
# the real files in ../shared/data


def decode_jk(path: Path):
    """Slots ``(flags, origin)`` and paths of a real ``.wpt``, from the README."""
    data = gzip.decompress(path.read_bytes())
    assert data[:8] == b"jkbotti\0" and struct.unpack_from("<i", data, 8)[0] == 5
    (count,) = struct.unpack_from("<i", data, 20)
    slots = [
        (
            struct.unpack_from("<I", data, 56 + 32 * i)[0],
            struct.unpack_from("<3f", data, 60 + 32 * i),
        )
        for i in range(count)
    ]
    offset, paths = 56 + 32 * count, []
    for _ in range(count):
        (number,) = struct.unpack_from("<h", data, offset)
        paths.append(list(struct.unpack_from(f"<{number}h", data, offset + 2)))
        offset += 2 + 2 * number
    assert offset == len(data)
    return slots, paths


def decode_yapb(path: Path):
    """Header and nodes ``(number, flags, origin, radius, links)`` of a real ``.graph``."""
    raw = path.read_bytes()
    magic, version, _, count, compressed, uncompressed = struct.unpack_from("<6i", raw)
    assert magic == 0x59415042 and version in (1, 2) and uncompressed == 220 * count
    records = decompress(raw[24 : 24 + compressed], uncompressed)
    nodes = []
    for i in range(count):
        fields = NODE.unpack_from(records, 220 * i)
        links = [(fields[19 + 6 * k], fields[18 + 6 * k]) for k in range(8)]  # (index, flags)
        nodes.append((fields[0], fields[1], fields[2:5], fields[11], links))
    return count, nodes


@needs_data
def test_every_shared_file_is_there():
    assert len(JK_FILES) == 13 and len(YAPB_FILES) == 6


@needs_data
@pytest.mark.parametrize("path", JK_FILES, ids=lambda path: path.stem)
def test_real_jk_botti_files_equal_the_readme_decoding(path):
    slots, paths = decode_jk(path)
    graph = load_navdata(path)
    alive = [not flags >> JK_DELETED & 1 for flags, _ in slots]
    kept = [i for i in range(len(slots)) if alive[i]]
    assert [w.id for w in graph.waypoints] == [str(i) for i in kept]  # deleted slots absent
    for waypoint, index in zip(graph.waypoints, kept, strict=True):
        flags, origin = slots[index]
        assert waypoint.position == tuple(origin)
        assert (waypoint.flags, waypoint.raw_flags) == split_flags(flags, JK_TABLE, (JK_DELETED,))
    expected = expected_connections(
        kept, lambda source: [(t, 0) for t in paths[source]], lambda t: alive[t]
    )
    assert graph_connections(graph) == expected
    ids = {w.id for w in graph.waypoints}
    assert all(c.source in ids and c.target in ids for c in graph.connections)
    ladders = sum(flags >> 3 & 1 for (flags, _), keep in zip(slots, alive, strict=True) if keep)
    assert sum("ladder" in w.flags for w in graph.waypoints) == ladders


@needs_data
@pytest.mark.parametrize("path", YAPB_FILES, ids=lambda path: path.stem)
def test_real_yapb_files_equal_the_readme_decoding(path):
    count, nodes = decode_yapb(path)
    assert 856 <= count <= 1357
    # the decompressed records are the nodes in order: each one's own number is its index
    assert [node[0] for node in nodes] == list(range(count))
    graph = load_navdata(path)
    assert len(graph.waypoints) == count
    for waypoint, (_, flags, origin, radius, _) in zip(graph.waypoints, nodes, strict=True):
        assert waypoint.position == tuple(origin)
        assert waypoint.radius == radius
        assert (waypoint.flags, waypoint.raw_flags) == split_flags(flags, YAPB_TABLE)
    expected = expected_connections(
        range(count),
        lambda source: [(t, bits) for t, bits in nodes[source][4] if t != -1],
        lambda t: True,
        YAPB_LINK_TABLE,
    )
    assert graph_connections(graph) == expected
    radii = np.array([w.radius for w in graph.waypoints])
    assert 0.0 < np.mean(radii == 0.0) < 1.0 and radii.max() <= 100.0  # README: 0 for about half


@needs_data
def test_real_maps_have_ladders_and_jumps_where_the_files_say():
    jk = {path.stem: load_navdata(path) for path in JK_FILES}
    ladders = {name: sum("ladder" in w.flags for w in g.waypoints) for name, g in jk.items()}
    assert sum(count > 0 for count in ladders.values()) >= 10
    yapb = {path.stem: load_navdata(path) for path in YAPB_FILES}
    assert all(any("jump" in c.flags for c in g.connections) for g in yapb.values())
    assert any(any("ladder" in w.flags for w in g.waypoints) for g in yapb.values())


def far_apart_route(graph: WaypointGraph):
    """The route between the two farthest waypoints of the largest strongly connected part."""
    network = nx.DiGraph()
    network.add_edges_from((c.source, c.target) for c in graph.connections)
    part = sorted(max(nx.strongly_connected_components(network), key=len))
    positions = {w.id: np.array(w.position) for w in graph.waypoints}
    points = np.array([positions[i] for i in part])
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    a, b = np.unravel_index(np.argmax(distances), distances.shape)
    return find_route(graph, part[a], part[b]), distances[a, b], network


@needs_data
@pytest.mark.parametrize("name", ["jk_botti/boot_camp.wpt", "yapb/de_dust2.graph"])
def test_a_route_crosses_a_real_map(name):
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"{path} absent")
    graph = load_navdata(path)
    route, straight, network = far_apart_route(graph)
    assert straight > 1000.0  # units: across the map
    assert route.length >= straight
    for a, b in itertools.pairwise(route.waypoint_ids):
        assert network.has_edge(a, b)
    assert (route.widths > 0.0).all()  # touch points make no zero-width corridor


# --------------------------------------------------------------------------------------------------
# radius 0: touch points


def touch_graph(radius_of_second=0.0):
    corners = [(0.0, 0.0, 0.0), (400.0, 0.0, 0.0), (400.0, 300.0, 0.0), (0.0, 300.0, 0.0)]
    radii = [0.0, radius_of_second, 0.0, 0.0]
    return WaypointGraph(
        waypoints=[
            {"id": str(i), "position": p, "radius": r}
            for i, (p, r) in enumerate(zip(corners, radii, strict=True))
        ],
        connections=[{"from": str(i), "to": str(i + 1)} for i in range(3)],
    )


def test_route_widths_count_a_zero_radius_as_the_touch_radius():
    route = find_route(touch_graph(), "0", "3")
    np.testing.assert_array_equal(route.radii, 0.0)
    np.testing.assert_array_equal(route.widths, 2.0 * TOUCH_RADIUS)
    mixed = find_route(touch_graph(radius_of_second=5.0), "0", "3", touch_radius=8.0)
    np.testing.assert_array_equal(mixed.widths, [10.0, 10.0, 16.0])
    wide = find_route(touch_graph(radius_of_second=50.0), "0", "3")
    np.testing.assert_array_equal(wide.widths, 2.0 * TOUCH_RADIUS)
    for bad in (0.0, -1.0, math.nan, math.inf, [1.0, 2.0], "16", True):
        with pytest.raises(ValueError, match="touch_radius"):
            find_route(touch_graph(), "0", "3", touch_radius=bad)
    with pytest.raises(ValueError, match="touch_radius"):
        TowardsParams(touch_radius=0.0).validated()


class IndexRecorder:
    def __init__(self, navigator):
        self.navigator = navigator
        self.index = []

    def step(self, state, dt):
        command = self.navigator.step(state, dt)
        self.index.append(self.navigator.memory.index)
        return command

    def reset(self):
        self.navigator.reset()


def swept_reach(trace, frame, point):
    """Closest approach to ``point`` of the frame's straight step, by dense sampling."""
    start = np.array([trace.x[max(frame - 1, 0)], trace.y[max(frame - 1, 0)]])
    end = np.array([trace.x[frame], trace.y[frame]])
    samples = start + np.linspace(0.0, 1.0, 401)[:, None] * (end - start)
    return np.hypot(*(samples - point).T).min(), np.hypot(*(end - start)) / 400


@pytest.mark.parametrize("touch_radius", [TOUCH_RADIUS, 4.0])
def test_towards_reaches_touch_points_at_the_touch_radius(touch_radius):
    route = find_route(touch_graph(), "0", "3")
    navigator = TowardsPoints(route, touch_radius=touch_radius)
    recorder = IndexRecorder(navigator)
    dt = 0.02
    engine = HalfLifeEngine()
    trace = simulate(engine, recorder, AgentState(0.0, -40.0, 0.0, 0.0, 0.0), dt, 600)
    index = np.array(recorder.index)
    assert index[-1] == 3 and navigator.memory.arrived
    assert set(np.diff(np.concatenate(([0], index)))) <= {0, 1}
    for frame in np.flatnonzero(np.diff(np.concatenate(([0], index)))):
        reach, slack = swept_reach(trace, frame, route.positions[index[frame] - 1, :2])
        assert reach <= touch_radius + 1e-6 + slack  # switched inside the touch radius
    speed = np.hypot(trace.vx, trace.vy).max()
    final = math.hypot(trace.x[-1], trace.y[-1] - 300.0)
    assert final <= touch_radius + speed * dt + engine.stop_distance(speed, dt)
    assert math.hypot(trace.vx[-1], trace.vy[-1]) < 1e-6


class ArrivalRecorder(IndexRecorder):
    def step(self, state, dt):
        command = super().step(state, dt)
        self.arrived = [*getattr(self, "arrived", []), self.navigator.memory.arrived]
        return command


@pytest.mark.parametrize("touch_radius", [TOUCH_RADIUS, 4.0])
def test_along_latches_on_the_last_touch_point_within_the_touch_radius(touch_radius):
    """The goal of radius 0 is reached at ``touch_radius``: the latch happens when the frame's
    step comes within it (or the goal within the frame's travel), and the agent then coasts
    Half-Life's stop distance from its speed."""
    route = find_route(touch_graph(), "0", "3")
    recorder = ArrivalRecorder(AlongSegments(route, version=2, touch_radius=touch_radius))
    dt = 0.02
    trace = simulate(HalfLifeEngine(), recorder, AgentState(0.0, -40.0, 0.0, 0.0, 0.0), dt, 800)
    assert recorder.navigator.memory.arrived
    latch = recorder.arrived.index(True)  # the step whose state first latched
    goal = np.array([0.0, 300.0])
    speed = math.hypot(trace.vx[latch], trace.vy[latch])
    reach, slack = swept_reach(trace, latch, goal)
    distance = math.hypot(trace.x[latch] - goal[0], trace.y[latch] - goal[1])
    assert reach <= touch_radius + slack + 1e-6 or distance <= speed * dt
    final = math.hypot(trace.x[-1] - goal[0], trace.y[-1] - goal[1])
    assert final <= distance + stop_distance(speed, dt) + 1e-6
