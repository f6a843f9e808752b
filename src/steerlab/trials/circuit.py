"""Race circuits: a closed centre line with the track's width to its right and to its left.

The file format is the TUM racetrack database's (``TUMFTM/racetrack-database``, the circuits
shipped in ``steerlab/trials/circuits/`` and its README):

- a **track** file ``NAME.csv``: comment lines starting with ``#`` (the first names the columns,
  ``# x_m,y_m,w_tr_right_m,w_tr_left_m``), then one row per centre-line point, ``x_m, y_m,
  w_tr_right_m, w_tr_left_m`` [m]: the point, the width of the track to its right and to its left
  in the direction of travel. The line is *closed*: after the last row comes the first again (the
  file does not repeat it; a last row equal to the first is read as that closing point and
  dropped);
- a **race line** file: rows ``x_m, y_m``, a closed line within the same boundaries.

Columns are separated by commas (spaces around them ignored), numbers are decimal floats; blank
lines are skipped. A header naming other columns (a race line given as a track, columns swapped)
is refused rather than read by position.

The corridor is *asymmetric*, so a ``Circuit`` keeps its two widths per point rather than a
``Polyline``'s one full width per segment:

- ``Circuit.path``: the closed centre line as a ``Polyline`` (the first point repeated at the end,
  no widths), what the followers and the observer take;
- ``Circuit.left_boundary`` / ``right_boundary``: ``centre +- width n``, ``n`` the unit left
  normal at each point, perpendicular to the bisector of the two segments meeting there (on a
  regular polygon it points at the centre); closed like ``path``;
- ``Circuit.locate(points)``: the signed lateral offset of each point from the centre line
  (``Polyline.project``: the nearest point of the whole closed line, left positive) and the widths
  to the left and right there, each interpolated linearly along the segment between its two end
  points' widths; ``Circuit.sides(points)``: ``INSIDE`` (0) when ``-width_right <= offset <=
  width_left``, else ``LEFT`` (+1) or ``RIGHT`` (-1), the side on which the point is off the track.

Bad input is a ``ValueError`` naming the file (and the line, for a row) and what is wrong, before
anything is built: an empty file, a wrong column count, a number that does not parse, a NaN or
infinite value, a negative width, fewer than 3 points, two consecutive points equal.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

from steerlab._checks import as_float_array
from steerlab.geometry import Polyline
from steerlab.geometry.kernels import menger_curvature

__all__ = [
    "INSIDE",
    "LEFT",
    "RACELINE_COLUMNS",
    "RIGHT",
    "SHIPPED_CIRCUITS",
    "TRACK_COLUMNS",
    "Circuit",
    "TrackPosition",
    "load_circuit",
    "load_raceline",
    "raceline_file",
    "shipped_circuit",
    "shipped_track_file",
]

TRACK_COLUMNS = ("x_m", "y_m", "w_tr_right_m", "w_tr_left_m")
"""The columns of a track file, in order."""
RACELINE_COLUMNS = ("x_m", "y_m")
"""The columns of a race line file, in order."""

INSIDE = 0  # on the track: -width_right <= offset <= width_left
LEFT = 1  # off the track to the left of the centre line (in the direction of travel)
RIGHT = -1  # off the track to the right

SHIPPED_CIRCUITS = ("Budapest", "MoscowRaceway", "Zandvoort")
"""The circuits shipped in ``steerlab/trials/circuits/`` (TUMFTM/racetrack-database, LGPL-3.0),
each with its race line."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# --------------------------------------------------------------------------------------------------
# the record


class TrackPosition(NamedTuple):
    """What ``Circuit.locate`` returns: arrays of the query's length ``m``."""

    s: np.ndarray  # [m] arc length of the nearest centre-line point, in [0, length]
    segment: np.ndarray  # int64: its segment, 0 .. n - 1 (segment n - 1 closes the line)
    offset: np.ndarray  # [m] signed lateral offset from the centre line, left positive
    width_left: np.ndarray  # [m] the track's width to the left there (interpolated)
    width_right: np.ndarray  # [m] and to the right


def _points_array(name: str, value, columns: int = 2) -> np.ndarray:
    array = np.array(as_float_array(name, value, f"an (n, {columns}) array of numbers"))
    if array.ndim != 2 or array.shape[1] != columns:
        raise ValueError(f"{name} must have shape (n, {columns}), got shape {array.shape}")
    return array


def _check_line(name: str, points: np.ndarray) -> None:
    """Finite, at least 3 points, no two consecutive (closing pair included) equal."""
    finite = np.isfinite(points).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        raise ValueError(f"{name}[{row}] must be finite, got {points[row].tolist()!r}")
    if points.shape[0] < 3:
        raise ValueError(
            f"{name} must hold at least 3 points (a closed line), got {points.shape[0]}"
        )
    same = (points == np.roll(points, -1, axis=0)).all(axis=1)
    if same.any():
        row = int(np.argmax(same))
        following = (row + 1) % points.shape[0]
        raise ValueError(
            f"{name}[{row}] and {name}[{following}] are the same point "
            f"{points[row].tolist()!r}: consecutive points must differ"
        )


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array, dtype=np.float64)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Circuit:
    """A closed race circuit: centre line, widths to the right and to the left, race line.

    Parameters
    ----------
    name : str
        The circuit's name (a file's stem when loaded).
    points : array_like, shape (n, 2)
        Centre-line points [m] in the direction of travel, ``n >= 3``, finite, no two consecutive
        ones equal (the last and the first included: the line closes from the last to the first,
        which is not repeated).
    width_right, width_left : array_like, shape (n,)
        The track's width [m] to the right and to the left of each point, finite, ``>= 0``.
    raceline : array_like, shape (m, 2), optional
        A closed race line [m] (same rules as ``points``), or ``None``.
    source : str
        Where it was read from (``""`` when built in code).

    Raises
    ------
    ValueError
        Naming the field and the first bad row.

    Notes
    -----
    Arrays are stored as read-only float64 copies. ``closed`` is always ``True``.
    """

    name: str
    points: np.ndarray
    width_right: np.ndarray
    width_left: np.ndarray
    raceline: np.ndarray | None = None
    source: str = ""
    closed: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty str, got {self.name!r}")
        points = _points_array("points", self.points)
        _check_line("points", points)
        count = points.shape[0]
        widths = {}
        for name in ("width_right", "width_left"):
            array = np.array(as_float_array(name, getattr(self, name), "a 1-D array of numbers"))
            if array.shape != (count,):
                raise ValueError(
                    f"{name} must have shape ({count},) like points, got {array.shape}"
                )
            bad = ~(np.isfinite(array) & (array >= 0.0))
            if bad.any():
                row = int(np.argmax(bad))
                raise ValueError(f"{name}[{row}] must be finite and >= 0 [m], got {array[row]!r}")
            widths[name] = array
        raceline = None
        if self.raceline is not None:
            raceline = _points_array("raceline", self.raceline)
            _check_line("raceline", raceline)
        object.__setattr__(self, "points", _readonly(points))
        object.__setattr__(self, "width_right", _readonly(widths["width_right"]))
        object.__setattr__(self, "width_left", _readonly(widths["width_left"]))
        object.__setattr__(self, "raceline", None if raceline is None else _readonly(raceline))
        object.__setattr__(self, "source", str(self.source))
        closed = np.vstack((points, points[:1]))
        object.__setattr__(self, "_path", Polyline(closed))
        left, right = _boundaries(points, widths["width_left"], widths["width_right"])
        object.__setattr__(self, "_left", _readonly(np.vstack((left, left[:1]))))
        object.__setattr__(self, "_right", _readonly(np.vstack((right, right[:1]))))

    def __repr__(self) -> str:
        return (
            f"Circuit({self.name!r}, {self.points.shape[0]} points, length={self.length:.6g} m, "
            f"raceline={'None' if self.raceline is None else self.raceline.shape[0]})"
        )

    # -- derived geometry ---------------------------------------------------------------------

    @property
    def path(self) -> Polyline:
        """The closed centre line: ``points`` then ``points[0]`` again, shape ``(n + 1, 2)``, no
        corridor widths (the corridor is asymmetric: ``locate``, ``sides``)."""
        return self._path

    @property
    def length(self) -> float:
        """The lap's length [m]: the closed centre line's."""
        return self._path.length

    @property
    def left_boundary(self) -> np.ndarray:
        """``points + width_left n`` [m], closed, shape ``(n + 1, 2)`` (module docstring)."""
        return self._left

    @property
    def right_boundary(self) -> np.ndarray:
        """``points - width_right n`` [m], closed, shape ``(n + 1, 2)``."""
        return self._right

    @property
    def raceline_path(self) -> Polyline | None:
        """The closed race line as a ``Polyline`` (first point repeated), or ``None``."""
        if self.raceline is None:
            return None
        return Polyline(np.vstack((self.raceline, self.raceline[:1])))

    def raceline_curvature(self) -> np.ndarray | None:
        """Signed curvature [1/m] of the race line at each of its points, shape ``(m,)``: the
        Menger curvature of the point and its two neighbours on the closed line
        (``geometry.kernels.menger_curvature``), positive turning left; ``None`` without a race
        line."""
        if self.raceline is None:
            return None
        line = self.raceline
        before = np.roll(line, 1, axis=0)
        after = np.roll(line, -1, axis=0)
        return np.array(
            [
                menger_curvature(a[0], a[1], b[0], b[1], c[0], c[1])
                for a, b, c in zip(before.tolist(), line.tolist(), after.tolist(), strict=True)
            ]
        )

    # -- queries ------------------------------------------------------------------------------

    def locate(self, points) -> TrackPosition:
        """Where points are relative to the track (module docstring).

        Parameters
        ----------
        points : array_like, shape (m, 2)
            Query points [m], finite.

        Returns
        -------
        TrackPosition
            Arrays of shape ``(m,)``: arc length and segment of the nearest centre-line point,
            the signed lateral offset (left positive), the widths to the left and to the right
            there, linear along the segment between its end points' widths.

        Raises
        ------
        ValueError
            ``points`` not an ``(m, 2)`` array of finite numbers.
        """
        projection = self._path.project_batch(points)
        segment = np.asarray(projection.segment, dtype=np.int64)
        cum = self._path.cumulative_length
        start = cum[segment]
        fraction = np.clip((projection.s - start) / (cum[segment + 1] - start), 0.0, 1.0)
        following = (segment + 1) % self.points.shape[0]
        width_left = self.width_left[segment] + fraction * (
            self.width_left[following] - self.width_left[segment]
        )
        width_right = self.width_right[segment] + fraction * (
            self.width_right[following] - self.width_right[segment]
        )
        return TrackPosition(
            np.asarray(projection.s), segment, np.asarray(projection.cross_track), width_left,
            width_right,
        )  # fmt: skip

    def sides(self, points) -> np.ndarray:
        """``INSIDE`` (0), ``LEFT`` (+1) or ``RIGHT`` (-1) per point, int8, shape ``(m,)``:
        ``LEFT`` when the offset exceeds the width to the left, ``RIGHT`` when it is below minus
        the width to the right (``locate``); a point on a boundary is inside."""
        where = self.locate(points)
        side = np.zeros(where.offset.shape, dtype=np.int8)
        side[where.offset > where.width_left] = LEFT
        side[where.offset < -where.width_right] = RIGHT
        return side


def _boundaries(points, width_left, width_right) -> tuple[np.ndarray, np.ndarray]:
    """The left and right boundary points, ``points +- width n`` with ``n`` the unit left normal
    of the bisector of the unit directions of the segments before and after each point (of the
    segment after it where the line turns back on itself)."""
    legs = np.roll(points, -1, axis=0) - points  # leg i: point i to point i + 1 (closed)
    unit = legs / np.hypot(legs[:, 0], legs[:, 1])[:, None]
    tangent = np.roll(unit, 1, axis=0) + unit
    norm = np.hypot(tangent[:, 0], tangent[:, 1])
    reversal = norm < 1e-12
    tangent[reversal] = unit[reversal]
    norm[reversal] = 1.0
    tangent /= norm[:, None]
    normal = np.column_stack((-tangent[:, 1], tangent[:, 0]))
    return points + width_left[:, None] * normal, points - width_right[:, None] * normal


# --------------------------------------------------------------------------------------------------
# reading


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not a UTF-8 text file (byte {error.start})") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot read the file: {error.strerror or error}") from None


def _names(cells: list[str]) -> bool:
    return len(cells) >= 2 and all(_NAME.match(cell) for cell in cells)


def _rows(text: str, source: str, columns: tuple[str, ...]) -> tuple[list[int], np.ndarray]:
    """The data rows of a circuit CSV as an ``(n, len(columns))`` array, with their line
    numbers; ``ValueError`` naming ``source`` and the line of the first problem."""
    lines, rows = [], []
    expected = ", ".join(columns)
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        comment = stripped.startswith("#")
        cells = [cell.strip() for cell in (stripped[1:] if comment else stripped).split(",")]
        if not rows and _names(cells):  # a header, with or without '#'
            if tuple(cells) != columns:
                raise ValueError(
                    f"{source}, line {number}: the header names the columns {', '.join(cells)}; "
                    f"expected {expected}"
                )
            continue
        if comment:
            continue
        if len(cells) != len(columns):
            raise ValueError(
                f"{source}, line {number}: {len(cells)} columns, expected {len(columns)} "
                f"({expected})"
            )
        values = []
        for name, cell in zip(columns, cells, strict=True):
            try:
                value = float(cell)
            except ValueError:
                raise ValueError(
                    f"{source}, line {number}: {name} is not a number, got {cell!r}"
                ) from None
            if not math.isfinite(value):
                raise ValueError(f"{source}, line {number}: {name} must be finite, got {cell!r}")
            if name.startswith("w_") and value < 0.0:
                raise ValueError(
                    f"{source}, line {number}: {name} must be >= 0 (a width in metres), got "
                    f"{cell!r}"
                )
            values.append(value)
        lines.append(number)
        rows.append(values)
    if not rows:
        raise ValueError(f"{source}: no data rows (empty file); expected rows of {expected}")
    array = np.array(rows, dtype=np.float64)
    if array.shape[0] > 1 and (array[-1, :2] == array[0, :2]).all():
        lines, array = lines[:-1], array[:-1]  # the closing point, written out
    if array.shape[0] < 3:
        raise ValueError(
            f"{source}: {array.shape[0]} point{'s' if array.shape[0] != 1 else ''}, a closed "
            "circuit needs at least 3"
        )
    same = (array[1:, :2] == array[:-1, :2]).all(axis=1)
    if same.any():
        row = int(np.argmax(same))
        raise ValueError(
            f"{source}, lines {lines[row]} and {lines[row + 1]}: the same point "
            f"{array[row, :2].tolist()!r} twice; consecutive points must differ"
        )
    return lines, array


def load_raceline(path) -> np.ndarray:
    """Read a race line file (``x_m, y_m`` rows, closed; module docstring).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.

    Returns
    -------
    numpy.ndarray, shape (m, 2)
        The points [m], ``m >= 3``, without the closing repetition.

    Raises
    ------
    ValueError
        Naming the file and the line: unreadable or empty file, wrong column count, a number that
        does not parse or is not finite, fewer than 3 points, consecutive points equal.
    """
    path = Path(path)
    return _rows(_read_text(path), str(path), RACELINE_COLUMNS)[1]


def load_circuit(path, raceline=None) -> Circuit:
    """Read a track file (centre line and widths; module docstring), and its race line.

    Parameters
    ----------
    path : str or os.PathLike
        The track CSV; the circuit's ``name`` is its stem.
    raceline : str or os.PathLike, optional
        A race line file to load with it (``raceline_file(path)`` finds the database's).

    Returns
    -------
    Circuit

    Raises
    ------
    ValueError
        Naming the file and the line: unreadable or empty file, a header naming other columns,
        a row with other than 4 columns, a number that does not parse, a NaN or infinite value, a
        negative width, fewer than 3 points, consecutive points equal; the same for the race line.

    Examples
    --------
    >>> from steerlab.trials.circuit import shipped_track_file, load_circuit
    >>> circuit = load_circuit(shipped_track_file("Zandvoort"))
    >>> circuit.name, circuit.points.shape, round(circuit.length)
    ('Zandvoort', (864, 2), 4316)
    """
    path = Path(path)
    _, rows = _rows(_read_text(path), str(path), TRACK_COLUMNS)
    line = None if raceline is None else load_raceline(raceline)
    return Circuit(
        name=path.stem,
        points=rows[:, :2],
        width_right=rows[:, 2],
        width_left=rows[:, 3],
        raceline=line,
        source=str(path),
    )


def raceline_file(track) -> Path | None:
    """The race line beside a track file in the database's layout,
    ``<folder>/tracks/NAME.csv`` -> ``<folder>/racelines/NAME.csv``, if that file exists."""
    track = Path(track)
    candidate = track.parent.parent / "racelines" / track.name
    return candidate if candidate.is_file() else None


def shipped_track_file(name: str) -> Path:
    """The track file of a shipped circuit (``SHIPPED_CIRCUITS``), found with
    ``importlib.resources``; ``ValueError`` for another name."""
    if name not in SHIPPED_CIRCUITS:
        raise ValueError(f"unknown circuit {name!r}; shipped circuits: {list(SHIPPED_CIRCUITS)}")
    return Path(
        str(resources.files("steerlab.trials").joinpath("circuits", "tracks", f"{name}.csv"))
    )


def shipped_circuit(name: str) -> Circuit:
    """A shipped circuit (``SHIPPED_CIRCUITS``) with its race line."""
    track = shipped_track_file(name)
    return load_circuit(track, raceline=raceline_file(track))
