"""The world vehicles drive in: terrain heights and slopes, walls, collisions.

- ``Heightfield`` / ``Flat``: bilinear terrain, height, gradient, slope along a heading;
  ``hill``, ``ramp``, ``plane``: named terrains of a given steepest slope.
- ``Walls``: wall segments (from segments or polygons); ``walls_along``: the walls of a path's
  corridor.
- ``World``: terrain + walls + a uniform grid over the walls, packed as ``WorldData`` for the
  kernels; ``World.move`` sweeps a ``Footprint`` (circle or box) through the walls and slides it
  along them; ``slide_velocity`` applies the matching velocity response.

Kernels for composites (one ``WorldData`` argument): ``terrain._terrain_sample``,
``collide._collide_move``, ``collide._slide_velocity`` and their batch loops;
``vehicle_step._box_wall_contact``, the contact phase of ``steerlab.sim``'s vehicle frame.
"""

from steerlab.world.collide import slide_velocity
from steerlab.world.corridor import walls_along
from steerlab.world.terrain import Flat, Heightfield, hill, plane, ramp
from steerlab.world.walls import Walls
from steerlab.world.world import Footprint, Move, MoveBatch, World, WorldData

__all__ = [
    "Flat",
    "Footprint",
    "Heightfield",
    "Move",
    "MoveBatch",
    "Walls",
    "World",
    "WorldData",
    "hill",
    "plane",
    "ramp",
    "slide_velocity",
    "walls_along",
]
