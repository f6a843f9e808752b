"""Waypoint files of Half-Life bots, read as seed 002's waypoint graphs (``load_navdata``).

Two binary formats, both little-endian, chosen by ``load_navdata`` from the suffix and checked by
their magic. Each reader returns the data of a ``kind = "waypoints"`` file (the same dictionary a
TOML file gives), which ``load_navdata`` validates like any other (finite positions, known ids).

**JK_Botti ``.wpt``** (Half-Life deathmatch; ``waypoint.h`` of the JK_Botti bot), version 5: a
gzip stream holding a 56-byte header (``char filetype[8] = "jkbotti\\0"``, ``int32`` version,
sub-version, file flags, number of waypoints, ``char mapname[32]``), one 32-byte record per
waypoint slot (``int32 flags``, ``float origin[3]``, ``int32 itemflags``, 12 reserved bytes), then
per slot in order an ``int16`` count and that many ``int16`` target slots (directed paths).

- A slot flagged deleted (``1 << 31``, left by the bot's editor) is not a waypoint: it is left
  out, and so is every path from or to it. Other waypoints keep their slot index as id, so the
  ids may have gaps.
- JK_Botti stores no radius: every waypoint gets radius 0, "touch this point"; navigators then
  switch at their declared ``touch_radius`` (``navdata.TOUCH_RADIUS`` by default) and a route's
  default width uses it too (``find_route``).
- ``itemflags`` (which weapon or ammo) and the file flags are not read; the map name is the
  graph's ``name``.

**YaPB ``.graph``** (Counter-Strike 1.6; ``graph.h`` and ``storage.cpp`` of the YaPB bot), versions
1 and 2: a 24-byte header of six ``int32`` (magic ``0x59415042``, version, options, node count,
compressed size, uncompressed size), the ULZ-compressed nodes (``steerlab.navigation.ulz``), then
an optional extension header (author, map size), which is not read. Each node is 220 bytes:
``int32 number, flags``, ``float origin[3], start[3], end[3], radius, light, display``, 8 links of
20 bytes (``float velocity[3]``, ``int32 distance``, ``uint16 flags``, ``int16 index``; index -1
is no link), ``uint16 vis[2]``.

- The options must carry the graph bit (``1 << 3``): the bot's practice, vistable and matrix
  files share the magic but not that bit.
- Radii as stored, 0 included ("touch this point"). ``start``, ``end`` (camp directions),
  ``light``, ``display``, the links' ``velocity`` and ``distance`` and ``vis`` are not read;
  ``number`` is not checked (the node's index is its id). The graph's ``name`` is the file's
  stem (the format stores no map name).

**Both.** Waypoint ids are the slot indices as strings, ``"0"``, ``"1"``, ...; positions are the
file's ``origin``, in its units (Half-Life units, about an inch, ``z`` up). Node flags with a
steerlab name (``JK_BOTTI_FLAGS``, ``YAPB_FLAGS``, ``YAPB_LINK_FLAGS``) become flag names; every
other set bit stays in ``raw_flags`` at its own position (the graph's ``source_format`` names the
layout), so no bit of the file is lost. A path or link to the node itself, or repeating an
earlier one of the same node, is dropped (the bots treat both as no-ops).

Errors: a ``ValueError`` naming the file and the byte offset (in the gzip-decompressed data for
``.wpt``, in the file for ``.graph``) or the waypoint: a damaged gzip stream, a wrong magic, an
unknown version, a count that does not fit the bytes, bytes left over, a damaged ULZ block, a
target index out of range, no waypoint at all. Nothing is returned half-read.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from steerlab.navigation import ulz

__all__ = [
    "JK_BOTTI_DELETED",
    "JK_BOTTI_FLAGS",
    "YAPB_FLAGS",
    "YAPB_LINK_FLAGS",
    "YAPB_MAGIC",
    "jk_botti_data",
    "yapb_data",
]

JK_BOTTI_FLAGS: dict[int, str] = {
    1 << 1: "crouch",
    1 << 2: "jump",
    1 << 3: "ladder",
    1 << 5: "door",
    1 << 6: "long_jump_module",  # an item: the long-jump module lies here
    1 << 7: "health",
    1 << 8: "armor",
    1 << 9: "ammo",
    1 << 10: "weapon",
    1 << 12: "aiming",  # a point bots aim at, not one they walk to
    1 << 14: "lift_start",
    1 << 15: "lift_end",
}
"""JK_Botti waypoint flags (``W_FL_*`` of ``waypoint.h``) and their steerlab names."""

JK_BOTTI_DELETED = 1 << 31
"""JK_Botti's ``W_FL_DELETED``: a free slot, not a waypoint."""

YAPB_FLAGS: dict[int, str] = {
    1 << 0: "button",
    1 << 1: "lift",
    1 << 2: "crouch",
    1 << 3: "crossing",
    1 << 4: "goal",
    1 << 5: "ladder",
    1 << 6: "rescue",
    1 << 7: "camp",
    1 << 8: "no_hostage",
    1 << 9: "double_jump",
    1 << 10: "narrow",
    1 << 28: "sniper",
    1 << 29: "terrorist_only",
    1 << 30: "counter_terrorist_only",
}
"""YaPB node flags (``NodeFlag`` of ``graph.h``) and their steerlab names."""

YAPB_LINK_FLAGS: dict[int, str] = {1 << 0: "jump"}
"""YaPB link flags (``PathFlag``) and their steerlab names."""

YAPB_MAGIC = 0x59415042
YAPB_VERSIONS = (1, 2)
YAPB_GRAPH_OPTION = 1 << 3
YAPB_MAX_NODES = 1 << 15  # link indices are int16

JK_BOTTI_MAGIC = b"jkbotti\0"
JK_BOTTI_VERSION = 5
JK_BOTTI_MAX_SLOTS = 1 << 15  # path targets are int16
JK_BOTTI_MAX_BYTES = 1 << 26  # a bound on the decompressed data (64 MiB), against gzip bombs
_JK_HEADER = struct.Struct("<8s4i32s")
_JK_RECORD = np.dtype(
    [("flags", "<u4"), ("origin", "<f4", 3), ("itemflags", "<i4"), ("reserved", "V12")]
)
_YAPB_HEADER = struct.Struct("<6i")
_YAPB_LINKS = 8
# the links are 8 records of 20 bytes, not struct-of-arrays: a dtype of one link
_YAPB_LINK = np.dtype(
    [("velocity", "<f4", 3), ("distance", "<i4"), ("flags", "<u2"), ("index", "<i2")]
)
_YAPB_NODE = np.dtype(
    [
        ("number", "<i4"),
        ("flags", "<u4"),
        ("origin", "<f4", 3),
        ("start", "<f4", 3),
        ("end", "<f4", 3),
        ("radius", "<f4"),
        ("light", "<f4"),
        ("display", "<f4"),
        ("links", _YAPB_LINK, _YAPB_LINKS),
        ("vis", "<u2", 2),
    ]
)


def _named(bits: int, table: dict[int, str]) -> tuple[list[str], int]:
    """``(flag names, raw bits left)`` of a flag word."""
    names = [name for bit, name in table.items() if bits & bit]
    for bit in table:
        bits &= ~bit
    return names, bits


def _waypoint(index: int, origin, radius: float, bits: int, table: dict[int, str]) -> dict:
    names, raw = _named(bits, table)
    return {
        "id": str(index),
        "position": tuple(float(value) for value in origin),
        "radius": radius,
        "flags": names,
        "raw_flags": raw,
    }


def _connection(source: int, target: int, bits: int = 0, table=None) -> dict:
    names, raw = _named(bits, table or {})
    return {"from": str(source), "to": str(target), "flags": names, "raw_flags": raw}


# --------------------------------------------------------------------------------------------------
# JK_Botti


def _gunzip(path: Path, raw: bytes, limit: int) -> bytes:
    """The single gzip member of ``raw``, at most ``limit`` bytes once decompressed."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        data = inflater.decompress(raw, limit)
    except zlib.error as error:
        raise ValueError(f"{path}: not a valid gzip stream ({error})") from None
    if inflater.unconsumed_tail:
        raise ValueError(
            f"{path}: the gzip stream expands to more than {limit} bytes, more than a JK_Botti "
            "file holds"
        )
    if not inflater.eof:
        raise ValueError(
            f"{path}: the gzip stream is truncated at byte {len(raw)} of the file "
            f"({len(data)} bytes decompressed)"
        )
    if inflater.unused_data:
        extra = len(inflater.unused_data)
        raise ValueError(
            f"{path}: {extra} bytes after the end of the gzip stream (byte {len(raw) - extra})"
        )
    return data


def jk_botti_data(path: Path, raw: bytes) -> dict:
    """The ``kind = "waypoints"`` data of a JK_Botti ``.wpt`` file's bytes (module docstring).

    Byte offsets in errors count in the decompressed data.
    """
    data = _gunzip(path, raw, JK_BOTTI_MAX_BYTES)
    if len(data) < _JK_HEADER.size:
        raise ValueError(
            f"{path}: {len(data)} bytes, shorter than the {_JK_HEADER.size}-byte JK_Botti header"
        )
    magic, version, _subversion, _file_flags, count, mapname = _JK_HEADER.unpack_from(data)
    if magic != JK_BOTTI_MAGIC:
        raise ValueError(f"{path}: byte 0: magic {magic!r}, expected {JK_BOTTI_MAGIC!r} (JK_Botti)")
    if version != JK_BOTTI_VERSION:
        raise ValueError(
            f"{path}: byte 8: JK_Botti waypoint file version {version}; only version "
            f"{JK_BOTTI_VERSION} is read"
        )
    if not 0 <= count <= JK_BOTTI_MAX_SLOTS:
        raise ValueError(
            f"{path}: byte 20: number of waypoints {count}, expected 0 to {JK_BOTTI_MAX_SLOTS}"
        )
    offset = _JK_HEADER.size
    if offset + count * _JK_RECORD.itemsize > len(data):
        raise ValueError(
            f"{path}: byte {offset}: the header's {count} waypoints need "
            f"{count * _JK_RECORD.itemsize} bytes of records, only {len(data) - offset} follow"
        )
    records = np.frombuffer(data, _JK_RECORD, count, offset)
    offset += count * _JK_RECORD.itemsize
    alive = (records["flags"] & JK_BOTTI_DELETED) == 0
    connections: list[dict] = []
    for source in range(count):
        if offset + 2 > len(data):
            raise ValueError(
                f"{path}: byte {offset}: the data ends before the path count of waypoint {source}"
            )
        (number,) = struct.unpack_from("<h", data, offset)
        if number < 0:
            raise ValueError(f"{path}: byte {offset}: waypoint {source} has {number} paths")
        offset += 2
        if offset + 2 * number > len(data):
            raise ValueError(
                f"{path}: byte {offset}: waypoint {source}'s {number} paths run past the end of "
                f"the data ({len(data)} bytes)"
            )
        targets = np.frombuffer(data, "<i2", number, offset)
        bad = np.flatnonzero((targets < 0) | (targets >= count))
        if bad.size:
            first = int(bad[0])
            raise ValueError(
                f"{path}: byte {offset + 2 * first}: waypoint {source}'s path {first} leads to "
                f"waypoint {int(targets[first])}, expected 0 to {count - 1}"
            )
        offset += 2 * number
        if not alive[source]:
            continue
        seen = {source}
        for target in targets.tolist():
            if target not in seen and alive[target]:
                connections.append(_connection(source, target))
            seen.add(target)
    if offset != len(data):
        raise ValueError(
            f"{path}: byte {offset}: {len(data) - offset} bytes after the last waypoint's paths"
        )
    waypoints = [
        _waypoint(
            index, records["origin"][index], 0.0, int(records["flags"][index]), JK_BOTTI_FLAGS
        )
        for index in np.flatnonzero(alive).tolist()
    ]
    if not waypoints:
        raise ValueError(f"{path}: no waypoint ({count} slots, all deleted or none)")
    name = mapname.split(b"\0", 1)[0].decode("latin-1")
    return {
        "kind": "waypoints",
        "name": name or path.stem,
        "source_format": "jk_botti",
        "waypoints": waypoints,
        "connections": connections,
    }


# --------------------------------------------------------------------------------------------------
# YaPB


def yapb_data(path: Path, raw: bytes) -> dict:
    """The ``kind = "waypoints"`` data of a YaPB ``.graph`` file's bytes (module docstring).

    Byte offsets in errors count in the file (the compressed block starts at byte 24).
    """
    if len(raw) < _YAPB_HEADER.size:
        raise ValueError(
            f"{path}: {len(raw)} bytes, shorter than the {_YAPB_HEADER.size}-byte YaPB header"
        )
    magic, version, options, count, compressed, uncompressed = _YAPB_HEADER.unpack_from(raw)
    if magic != YAPB_MAGIC:
        raise ValueError(
            f"{path}: byte 0: magic {magic & 0xFFFFFFFF:#010x}, expected {YAPB_MAGIC:#010x} (YaPB)"
        )
    if version not in YAPB_VERSIONS:
        raise ValueError(
            f"{path}: byte 4: YaPB graph version {version}; versions "
            f"{' and '.join(map(str, YAPB_VERSIONS))} are read"
        )
    if not options & YAPB_GRAPH_OPTION:
        raise ValueError(
            f"{path}: byte 8: options {options:#x} lack the graph bit {YAPB_GRAPH_OPTION:#x}: "
            "YaPB data of another kind (practice, visibility or matrix), not a graph"
        )
    if not 1 <= count <= YAPB_MAX_NODES:
        raise ValueError(f"{path}: byte 12: node count {count}, expected 1 to {YAPB_MAX_NODES}")
    if uncompressed != count * _YAPB_NODE.itemsize:
        raise ValueError(
            f"{path}: byte 20: uncompressed size {uncompressed}, expected {count} nodes x "
            f"{_YAPB_NODE.itemsize} bytes = {count * _YAPB_NODE.itemsize}"
        )
    start = _YAPB_HEADER.size
    if not 0 < compressed <= len(raw) - start:
        raise ValueError(
            f"{path}: byte 16: compressed size {compressed}, but {len(raw) - start} bytes "
            f"follow the header"
        )
    try:
        data = ulz.decompress(raw[start : start + compressed], uncompressed)
    except ulz.UlzError as error:
        raise ValueError(
            f"{path}: byte {start + error.offset}: ULZ block (bytes {start} to "
            f"{start + compressed}): {error.reason}"
        ) from None
    nodes = np.frombuffer(data, _YAPB_NODE, count)
    index = nodes["links"]["index"]
    bad = np.argwhere((index < -1) | (index >= count))
    if bad.size:
        node, link = (int(value) for value in bad[0])
        raise ValueError(
            f"{path}: waypoint {node}, link {link}: index {int(index[node, link])}, expected -1 "
            f"(no link) or 0 to {count - 1}"
        )
    link_flags = nodes["links"]["flags"]
    connections: list[dict] = []
    for source, (targets, flags) in enumerate(
        zip(index.tolist(), link_flags.tolist(), strict=True)
    ):
        seen = {source, -1}
        for target, bits in zip(targets, flags, strict=True):
            if target not in seen:
                connections.append(_connection(source, target, bits, YAPB_LINK_FLAGS))
            seen.add(target)
    waypoints = [
        _waypoint(number, origin, radius, bits, YAPB_FLAGS)
        for number, (origin, radius, bits) in enumerate(
            zip(
                nodes["origin"].tolist(),
                nodes["radius"].tolist(),
                nodes["flags"].tolist(),
                strict=True,
            )
        )
    ]
    return {
        "kind": "waypoints",
        "name": path.stem,
        "source_format": "yapb",
        "waypoints": waypoints,
        "connections": connections,
    }
