"""ULZ decompression: the byte-oriented LZ77 of YaPB's graph files (crlib ``ulz.h``).

The stream is a sequence of tokens. Each token is one byte ``LLLDMMMM``:

- ``LLL`` (bits 5-7): the length of a literal run, 0 to 6, or 7 followed by a varint added to
  it; the run's bytes follow (after the varint) and are copied to the output as they are. If
  the stream ends right after a token's literals, that was the last token (its match part is
  not read).
- ``MMMM`` (bits 0-3): a match length minus 4 (the shortest match is 4 bytes), 0 to 14, or 15
  followed by a varint added to it (so 19 and more);
- ``D`` (bit 4) and a 16-bit little-endian word after the match length: the match distance,
  ``(D << 16) + word``, 1 to ``2**17 - 1`` bytes back from the end of the output so far. The
  match copies ``length`` bytes from there, byte by byte, so a distance shorter than the length
  repeats the last ``distance`` bytes (an overlapping match: distance 1 repeats one byte).

A varint is up to four bytes ``b0, b1, ...``, each but the last ``>= 128``, whose value is
``b0 + (b1 << 7) + (b2 << 14) + (b3 << 21)`` (the high bit of each byte is kept in the sum: the
encoder subtracts 128 before shifting, so every value has one encoding); a fourth byte ends the
varint whatever its high bit.

``decompress`` checks what the reference decoder checks and a little more: a literal run or a
match that runs past the end of the input or past the expected output size, a match distance
of 0 or reaching before the start of the output, a varint or a match distance cut by the end of
the input, and an output shorter than expected. Each is a ``UlzError`` (a ``ValueError``) with the
byte offset in the compressed block. Work is bounded by the expected size: no input can make it
loop or allocate more.
"""

from __future__ import annotations

__all__ = ["UlzError", "decompress"]

_MIN_MATCH = 4
_RUN_EXTENDED = 7  # a literal run of 7 or more: 7 plus a varint
_MATCH_EXTENDED = 15  # a match length field of 15: 15 + 4 plus a varint
_VARINT_BYTES = 4


class UlzError(ValueError):
    """A ULZ stream that cannot be decoded: ``offset`` [bytes into the compressed block] and
    ``reason``."""

    def __init__(self, offset: int, reason: str):
        self.offset = offset
        self.reason = reason
        super().__init__(f"byte {offset}: {reason}")


def _varint(data: bytes, position: int, what: str) -> tuple[int, int]:
    """``(value, next position)`` of the varint at ``position`` (module docstring)."""
    value = 0
    start = position
    for index in range(_VARINT_BYTES):
        if position >= len(data):
            raise UlzError(start, f"the varint extending the {what} runs past the end of the data")
        byte = data[position]
        position += 1
        value += byte << (7 * index)
        if byte < 128:
            break
    return value, position


def decompress(data: bytes, size: int) -> bytes:
    """Decompress a ULZ block that expands to exactly ``size`` bytes.

    Parameters
    ----------
    data : bytes-like
        The compressed block, alone (no header).
    size : int
        ``>= 0``: the expected size of the output [bytes].

    Returns
    -------
    bytes
        ``size`` bytes.

    Raises
    ------
    UlzError
        (a ``ValueError``) a damaged or truncated block; ``offset`` is the byte of the block where
        decoding failed (module docstring for the checks).
    """
    data = bytes(data)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size!r}")
    out = bytearray()
    end = len(data)
    position = 0
    while position < end:
        token_at = position
        token = data[position]
        position += 1
        run = token >> 5
        if run:
            if run == _RUN_EXTENDED:
                extra, position = _varint(data, position, "literal run")
                run += extra
            if position + run > end:
                raise UlzError(
                    token_at, f"a literal run of {run} bytes runs past the end of the data"
                )
            if len(out) + run > size:
                raise UlzError(
                    token_at, f"a literal run of {run} bytes overflows the expected {size} bytes"
                )
            out += data[position : position + run]
            position += run
            if position >= end:
                break  # the last token: literals only
        length = (token & 15) + _MIN_MATCH
        if length == _MATCH_EXTENDED + _MIN_MATCH:
            extra, position = _varint(data, position, "match length")
            length += extra
        if position + 2 > end:
            raise UlzError(token_at, "a match's distance runs past the end of the data")
        distance = ((token & 16) << 12) | data[position] | (data[position + 1] << 8)
        position += 2
        if distance == 0 or distance > len(out):
            raise UlzError(
                token_at,
                f"a match points {distance} bytes back, before the start of the output "
                f"({len(out)} bytes so far)"
                if distance
                else "a match with distance 0",
            )
        if len(out) + length > size:
            raise UlzError(
                token_at, f"a match of {length} bytes overflows the expected {size} bytes"
            )
        start = len(out) - distance
        if distance >= length:
            out += out[start : start + length]
        else:  # overlapping: the last `distance` bytes repeat
            pattern = bytes(out[start:])
            out += (pattern * (length // distance + 1))[:length]
    if len(out) != size:
        raise UlzError(end, f"the data ends after {len(out)} bytes of output, expected {size}")
    return bytes(out)
