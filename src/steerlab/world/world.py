"""The world: terrain and walls, packed once for the kernels.

``World(terrain=None, walls=None)`` validates and packs everything into ``WorldData``, one
``NamedTuple`` of floats, ints and read-only arrays that every world kernel takes as a single
argument (``_terrain_sample(data, x, y)``, ``_collide_move(data, ...)``), so that kernels stay
short of CPython's 30-argument limit for inlined calls and a vehicle composite passes the whole
world along in one value. The Python methods are thin: validate, call the kernel.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from steerlab._checks import (
    check_finite,
    check_finite_array,
    check_nonnegative,
    check_positive,
    check_xy,
)
from steerlab.world.collide import (
    BOX,
    CIRCLE,
    _collide_move,
    _collide_move_batch,
)
from steerlab.world.grid import build_grid
from steerlab.world.terrain import Flat, Heightfield, _slope, _terrain_sample_batch
from steerlab.world.walls import Walls

__all__ = [
    "COORDINATE_LIMIT",
    "DEFAULT_SKIN",
    "Footprint",
    "Move",
    "MoveBatch",
    "World",
    "WorldData",
]

DEFAULT_SKIN = 1e-6  # [m] contact offset: 1e10 times the rounding of 1e4 m coordinates
DEFAULT_WALL_FRICTION = 0.3  # vehicle against a wall (assumed, see World)
COORDINATE_LIMIT = 1e12  # [m] |coordinates| and |displacements| beyond are refused (overflow)


class WorldData(NamedTuple):
    """Everything a world kernel reads, as numbers and read-only arrays (built by ``World``)."""

    # terrain: a heightfield (flat ground: 2 x 2 zeros)
    height_origin_x: float  # [m] node (0, 0)
    height_origin_y: float  # [m]
    height_cell: float  # [m] node spacing
    heights: np.ndarray  # float64 (ny, nx) [m]
    # uniform grid over the walls (steerlab.world.grid)
    grid_origin_x: float  # [m]
    grid_origin_y: float  # [m]
    grid_cell: float  # [m]
    grid_nx: int
    grid_ny: int
    grid_start: np.ndarray  # int64 (nx * ny + 1,) CSR offsets
    grid_segments: np.ndarray  # float64 (slots, 4): the walls A-B (ax, ay, bx, by [m]) of each
    #   cell, in the grid's slot order (a wall crossing several cells is copied into each), so that
    #   a cell's walls are read from one stretch of memory
    # collision
    skin: float  # [m] contact offset (steerlab.world.collide)


class Footprint(NamedTuple):
    """The ground outline of a body for collisions, centred on its position.

    ``shape="circle"``: radius ``half_width`` (``half_length`` ignored). ``shape="box"``: a
    rectangle ``2 half_length`` along the heading by ``2 half_width`` across. Sizes in metres,
    ``> 0`` (checked where a footprint is used).
    """

    shape: str = "circle"
    half_length: float = 0.5  # [m] along the heading (box only)
    half_width: float = 0.5  # [m] across the heading; the radius of a circle

    @classmethod
    def circle(cls, radius) -> Footprint:
        """A circle of ``radius`` [m]."""
        return cls("circle", radius, radius)

    @classmethod
    def box(cls, half_length, half_width) -> Footprint:
        """A box ``2 half_length`` [m] long and ``2 half_width`` [m] wide."""
        return cls("box", half_length, half_width)

    def kernel_arguments(self) -> tuple[int, float, float]:
        """``(shape code, half_length, half_width)`` for the kernels; ``ValueError`` if invalid."""
        if self.shape == "circle":
            radius = check_positive("footprint.half_width", self.half_width, per_agent=False)
            return CIRCLE, radius, radius
        if self.shape == "box":
            return (
                BOX,
                check_positive("footprint.half_length", self.half_length, per_agent=False),
                check_positive("footprint.half_width", self.half_width, per_agent=False),
            )
        raise ValueError(f"footprint.shape must be 'circle' or 'box', got {self.shape!r}")


class Move(NamedTuple):
    """Result of ``World.move``."""

    position: np.ndarray  # [m] (2,) where the footprint ends
    normal: np.ndarray  # (2,) unit normal of the last contact, from the wall; (0, 0) if none
    hit: bool  # a wall was touched (or the footprint pushed out of one)


class MoveBatch(NamedTuple):
    """Result of ``World.move_batch`` (positions are updated in the caller's arrays)."""

    normal_x: np.ndarray
    normal_y: np.ndarray
    hit: np.ndarray  # bool


class World:
    """Terrain and walls, with their spatial index, ready for the kernels.

    Parameters
    ----------
    terrain : Heightfield or Flat, optional
        Ground heights; ``None`` (default): flat ground ``z = 0``.
    walls : Walls, optional
        Wall segments; ``None`` (default): none.
    cell_size : float, optional
        Side [m] of the wall grid's cells; default: a quarter of the median wall length
        (``steerlab.world.grid``).
    skin : float, optional
        Contact offset [m], ``> 0``: footprints stop this far from walls (default ``1e-6``).
        Keep it well above the rounding of your coordinates (about ``2e-16`` times their size):
        the default suits worlds up to about 1e8 m across (tested at 3e5 m).
    wall_friction : float, optional
        Coulomb coefficient ``>= 0`` of a vehicle scraping along a wall (``steerlab.sim``): the
        tangential speed loses ``wall_friction`` times the normal speed removed by the contact.
        Default 0.3 (assumed: between steel on concrete and a tyre's side on it).

    Raises
    ------
    ValueError
        ``terrain`` or ``walls`` of the wrong type, ``cell_size`` or ``skin`` not ``> 0`` and
        finite, a wall beyond ``COORDINATE_LIMIT`` (1e12 m; also the bound on positions and
        displacements given to ``move``).
    """

    def __init__(
        self,
        terrain=None,
        walls=None,
        *,
        cell_size=None,
        skin=DEFAULT_SKIN,
        wall_friction=DEFAULT_WALL_FRICTION,
    ):
        if terrain is None:
            terrain = Flat()
        if not isinstance(terrain, Heightfield):
            raise ValueError(f"terrain must be a Heightfield, Flat or None, got {terrain!r}")
        if walls is None:
            walls = Walls.empty()
        if not isinstance(walls, Walls):
            raise ValueError(f"walls must be a Walls or None, got {walls!r}")
        cell = None
        if cell_size is not None:
            cell = check_positive("cell_size", cell_size, per_agent=False)
        contact = check_positive("skin", skin, per_agent=False)
        self._wall_friction = check_nonnegative("wall_friction", wall_friction, per_agent=False)
        for name in ("ax", "ay", "bx", "by"):
            values = getattr(walls, name)
            if values.size and np.abs(values).max() > COORDINATE_LIMIT:
                index = int(np.argmax(np.abs(values)))
                raise ValueError(
                    f"walls.{name}[{index}] must be within +-{COORDINATE_LIMIT:g} m, got "
                    f"{values[index]!r}"
                )
        grid = build_grid(walls.ax, walls.ay, walls.bx, walls.by, cell)
        origin_x, origin_y, height_cell, heights = terrain.kernel_arrays()
        self._terrain = terrain
        self._walls = walls
        # per batch of vehicles stepped here: their free discs (``free_space_of``)
        self._free_space: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._data = WorldData(
            height_origin_x=float(origin_x),
            height_origin_y=float(origin_y),
            height_cell=float(height_cell),
            heights=heights,
            grid_origin_x=float(grid.origin_x),
            grid_origin_y=float(grid.origin_y),
            grid_cell=float(grid.cell_size),
            grid_nx=int(grid.nx),
            grid_ny=int(grid.ny),
            grid_start=grid.cell_start,
            grid_segments=np.ascontiguousarray(
                np.column_stack((walls.ax, walls.ay, walls.bx, walls.by))[grid.cell_walls]
            ).reshape(-1, 4),
            skin=contact,
        )

    @classmethod
    def flat(cls) -> World:
        """Flat ground, no walls."""
        return cls()

    # -- data ---------------------------------------------------------------------------------

    @property
    def data(self) -> WorldData:
        """The packed arrays the kernels take."""
        return self._data

    @property
    def terrain(self) -> Heightfield:
        return self._terrain

    @property
    def walls(self) -> Walls:
        return self._walls

    @property
    def wall_friction(self) -> float:
        return self._wall_friction

    # -- vehicles -------------------------------------------------------------------------------

    def step_vehicle(self, params, state, command, dt: float):
        """One frame of a vehicle in this world; returns the new ``VehicleState``.

        A convenience entry point: the frame is ``steerlab.sim``'s (``steerlab.sim.step_vehicle``:
        terrain, gravity, the vehicle's dynamics, this world's contacts), which sits above both
        packages; imported here when called, never at module level (this package does not import
        ``steerlab.vehicles``). Called by ``Vehicle.step(..., world=self)``, which has validated
        ``state``, ``command`` and ``dt``; ``params`` a validated ``VehicleParams``. For the
        frame's contact, call ``steerlab.sim.step_vehicle``.
        """
        from steerlab.sim.vehicle_world import _step_vehicle

        return _step_vehicle(params, self, state, command, dt)[0]

    def step_vehicle_batch(self, params, batch, steer, throttle, dt: float) -> np.ndarray:
        """``step_vehicle`` for every vehicle of a ``VehicleBatch``, in place; returns each
        vehicle's wall contact of this frame (bool array).

        A convenience entry point into ``steerlab.sim.step_vehicles`` (imported when called),
        which also gives the contact normals. Called by ``Vehicle.step_batch(..., world=self)``,
        which has validated the commands (float64 arrays of the batch's size) and ``dt``;
        ``params`` a validated ``VehicleParams``.
        """
        from steerlab.sim.vehicle_world import _step_vehicles

        return _step_vehicles(params, self, batch, steer, throttle, dt).hit

    def free_space_of(self, batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each body's free disc in this world, ``(free_x, free_y, free_r)`` arrays of the
        batch's size (``collide._collide_move_cached``; ``free_r = 0``: none known yet).

        The memory of the contact phase of ``steerlab.sim.step_vehicles``: kept per batch (any
        object with a ``size`` that can be weakly referenced, e.g. a ``VehicleBatch``) as long as
        the batch lives, and valid whatever its bodies do meanwhile (a disc is a fact about the
        walls; each frame checks the body's move against it). Kernels update it in place.
        """
        discs = self._free_space.get(batch)
        if discs is None or discs[0].size != batch.size:
            discs = (np.zeros(batch.size), np.zeros(batch.size), np.zeros(batch.size))
            self._free_space[batch] = discs
        return discs

    @property
    def skin(self) -> float:
        """Contact offset [m]."""
        return self._data.skin

    def __repr__(self) -> str:
        return (
            f"World(terrain={self._terrain!r}, walls={self._walls!r}, "
            f"grid={self._data.grid_nx} x {self._data.grid_ny} cells of "
            f"{self._data.grid_cell:.6g} m, skin={self._data.skin!r})"
        )

    # -- terrain ------------------------------------------------------------------------------

    def height(self, x, y):
        """Ground height [m] at ``(x, y)`` [m]; floats or arrays (``Heightfield.height``)."""
        return self._terrain.height(x, y)

    def gradient(self, x, y):
        """``(dz/dx, dz/dy)`` of the ground at ``(x, y)`` [m]; floats or arrays."""
        return self._terrain.gradient(x, y)

    def slope_along(self, x, y, yaw):
        """Rise over run of the ground along heading ``yaw`` [rad] at ``(x, y)`` [m]."""
        return _slope(self._terrain.kernel_arrays(), x, y, yaw)

    def grade_along(self, x, y, yaw):
        """Grade angle [rad] of the ground along heading ``yaw`` [rad]: ``atan(slope_along)``."""
        return self._terrain.grade_along(x, y, yaw)

    def sample_batch(self, x, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(z, dz_dx, dz_dy)`` at many points through ``_terrain_sample`` (the kernel vehicles
        use): 1-D arrays of the same size."""
        xs = check_finite_array("x", x)
        ys = check_finite_array("y", y, size=xs.size)
        z = np.empty(xs.size)
        dz_dx = np.empty(xs.size)
        dz_dy = np.empty(xs.size)
        _terrain_sample_batch(
            np.ascontiguousarray(xs), np.ascontiguousarray(ys), self._data, z, dz_dx, dz_dy
        )
        return z, dz_dx, dz_dy

    # -- collisions ---------------------------------------------------------------------------

    def move(self, position, displacement, yaw, footprint: Footprint) -> Move:
        """Move a footprint among the walls (swept: never through a wall; slides along them).

        Parameters
        ----------
        position : (float, float)
            Centre of the footprint [m] at the start.
        displacement : (float, float)
            Wished displacement [m] over the frame (velocity times ``dt``).
        yaw : float
            Heading [rad] of the footprint during the move (a box's orientation).
        footprint : Footprint
            Circle or box.

        Returns
        -------
        Move
            ``(position, normal, hit)``: the final centre [m]; the unit normal of the last contact
            (from the wall towards the footprint; feed it to ``slide_velocity``), ``(0, 0)`` if
            none; whether a wall was touched. Without contact the position is exactly ``position +
            displacement``. Details: ``steerlab.world.collide``.
        """
        x, y = check_xy("position", position)
        dx, dy = check_xy("displacement", displacement)
        heading = check_finite("yaw", yaw, per_agent=False)
        for name, value in (("position", (x, y)), ("displacement", (dx, dy))):
            if max(abs(value[0]), abs(value[1])) > COORDINATE_LIMIT:
                raise ValueError(f"{name} must be within +-{COORDINATE_LIMIT:g} m, got {value!r}")
        if not isinstance(footprint, Footprint):
            raise ValueError(f"footprint must be a Footprint, got {footprint!r}")
        shape, half_length, half_width = footprint.kernel_arguments()
        out = _collide_move(self._data, x, y, dx, dy, heading, shape, half_length, half_width)
        return Move(np.array(out[:2]), np.array(out[2:4]), bool(out[4]))

    def move_batch(self, x, y, dx, dy, yaw, footprint, out: MoveBatch | None = None) -> MoveBatch:
        """``move`` for many footprints: ``x``, ``y`` (1-D float64, C-contiguous) updated in place.

        ``dx``, ``dy``, ``yaw``: arrays of the same size or scalars (broadcast). ``footprint``: one
        ``Footprint`` for all, or a sequence of them (one each). ``out`` reuses result arrays.
        Bit for bit the result of ``move`` for each footprint.
        """
        xs = _inplace_array("x", x)
        ys = _inplace_array("y", y, xs.size)
        size = xs.size
        dxs = _broadcast_array("dx", dx, size)
        dys = _broadcast_array("dy", dy, size)
        yaws = _broadcast_array("yaw", yaw, size)
        for name, values in (("x", xs), ("y", ys), ("dx", dxs), ("dy", dys)):
            if size and np.abs(values).max() > COORDINATE_LIMIT:
                index = int(np.argmax(np.abs(values)))
                raise ValueError(
                    f"{name}[{index}] must be within +-{COORDINATE_LIMIT:g} m, got "
                    f"{values[index]!r}"
                )
        shape, half_length, half_width = _footprint_arrays(footprint, size)
        if out is None:
            out = MoveBatch(np.empty(size), np.empty(size), np.empty(size, dtype=np.bool_))
        elif not (
            isinstance(out, MoveBatch)
            and all(a.shape == (size,) and a.flags.c_contiguous for a in out)
            and out.normal_x.dtype == out.normal_y.dtype == np.float64
            and out.hit.dtype == np.bool_
        ):
            raise ValueError(f"out must be a MoveBatch of {size} float, float, bool entries")
        _collide_move_batch(
            xs, ys, dxs, dys, yaws, shape, half_length, half_width, self._data, *out
        )
        return out


# --------------------------------------------------------------------------------------------------
# validation helpers


def _inplace_array(name: str, values: Any, size: int | None = None) -> np.ndarray:
    if not (
        isinstance(values, np.ndarray)
        and values.dtype == np.float64
        and values.ndim == 1
        and values.flags.c_contiguous
        and values.flags.writeable
    ):
        raise ValueError(
            f"{name} must be a writeable 1-D C-contiguous float64 array (updated in place), got "
            f"{type(values).__name__} {getattr(values, 'dtype', '')} {np.shape(values)}"
        )
    return check_finite_array(name, values, size=size)


def _broadcast_array(name: str, values: Any, size: int) -> np.ndarray:
    if np.ndim(values) == 0:
        return np.full(size, check_finite(name, values, per_agent=False))
    return np.ascontiguousarray(check_finite_array(name, values, size=size))


def _footprint_arrays(footprint, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if isinstance(footprint, Footprint):
        shape, half_length, half_width = footprint.kernel_arguments()
        return (
            np.full(size, shape, dtype=np.int64),
            np.full(size, half_length),
            np.full(size, half_width),
        )
    footprints = list(footprint)
    if len(footprints) != size:
        raise ValueError(
            f"footprint must be one Footprint or one per body ({size}), got {len(footprints)}"
        )
    rows = []
    for index, item in enumerate(footprints):
        if not isinstance(item, Footprint):
            raise ValueError(f"footprint[{index}] must be a Footprint, got {item!r}")
        try:
            rows.append(item.kernel_arguments())
        except ValueError as error:
            raise ValueError(f"footprint[{index}]: {error}") from None
    table = np.array(rows, dtype=np.float64).reshape(size, 3)
    return table[:, 0].astype(np.int64), table[:, 1].copy(), table[:, 2].copy()
