"""Walls and collisions (steerlab.world): no footprint ever crosses a wall; slide; push-out;
corridor walls; batch == scalar. Geometry is checked with helpers written independently here."""

import math

import numba
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from steerlab._jit import SERIAL_LIMIT
from steerlab.geometry import Polyline
from steerlab.world import Footprint, Walls, World, slide_velocity, walls_along
from steerlab.world.collide import (
    FREE_SPACE_NONE,
    FREE_SPACE_RADII,
    FREE_SPACE_UNKNOWN,
    _clearance,
    _collide_move,
    _collide_move_cached,
    _footprint_radius,
    _slide_velocity,
    _slide_velocity_batch,
)

SKIN = 1e-6  # the default contact offset [m]

# --------------------------------------------------------------------------------------------------
# independent geometry


def point_segment_distance(p, a, b):
    p, a, b = (np.asarray(v, dtype=float) for v in (p, a, b))
    e = b - a
    length2 = e @ e
    t = 0.0 if length2 == 0.0 else min(max((p - a) @ e / length2, 0.0), 1.0)
    return float(np.hypot(*(p - a - t * e)))


def segments_touch(p, q, a, b):
    """Whether closed segments p-q and a-b share a point (orientation tests)."""

    def orient(u, v, w):
        value = float((v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0]))
        return (value > 0.0) - (value < 0.0)

    def on(u, v, w):  # w on segment u-v, given collinear
        return min(u[0], v[0]) <= w[0] <= max(u[0], v[0]) and min(u[1], v[1]) <= w[1] <= max(
            u[1], v[1]
        )

    o1, o2, o3, o4 = orient(p, q, a), orient(p, q, b), orient(a, b, p), orient(a, b, q)
    if o1 != o2 and o3 != o4:
        return True
    return (
        (o1 == 0 and on(p, q, a))
        or (o2 == 0 and on(p, q, b))
        or (o3 == 0 and on(a, b, p))
        or (o4 == 0 and on(a, b, q))
    )


def segment_segment_distance(p, q, a, b):
    if segments_touch(p, q, a, b):
        return 0.0
    return min(
        point_segment_distance(p, a, b),
        point_segment_distance(q, a, b),
        point_segment_distance(a, p, q),
        point_segment_distance(b, p, q),
    )


def box_corners(position, yaw, half_length, half_width):
    c, s = math.cos(yaw), math.sin(yaw)
    forward, left = np.array((c, s)), np.array((-s, c))
    centre = np.asarray(position, dtype=float)
    return [
        centre + i * half_length * forward + j * half_width * left
        for i, j in ((1, 1), (-1, 1), (-1, -1), (1, -1))
    ]


def inside_convex(point, corners):
    signs = []
    for k in range(len(corners)):
        u, v = corners[k], corners[(k + 1) % len(corners)]
        signs.append((v[0] - u[0]) * (point[1] - u[1]) - (v[1] - u[1]) * (point[0] - u[0]))
    return all(value > 0 for value in signs) or all(value < 0 for value in signs)


def clearance(position, yaw, footprint, walls):
    """Smallest distance [m] between the footprint and the walls; negative if they overlap."""
    best = math.inf
    for a, b in walls.segments:
        if footprint.shape == "circle":
            best = min(best, point_segment_distance(position, a, b) - footprint.half_width)
            continue
        corners = box_corners(position, yaw, footprint.half_length, footprint.half_width)
        if inside_convex(a, corners) or inside_convex(b, corners):
            return -1.0
        edges = [segment_segment_distance(corners[k], corners[k - 1], a, b) for k in range(4)]
        if min(edges) == 0.0:
            return -1.0
        best = min(best, min(edges))
    return best


def inside_polygon(point, polygon):
    """Ray-casting parity."""
    inside = False
    for k in range(len(polygon)):
        (x1, y1), (x2, y2) = polygon[k], polygon[(k + 1) % len(polygon)]
        crosses = (y1 > point[1]) != (y2 > point[1])
        if crosses and point[0] < x1 + (point[1] - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def reach_x(yaw, footprint):
    """Half extent along x of the footprint."""
    if footprint.shape == "circle":
        return footprint.half_width
    return footprint.half_length * abs(math.cos(yaw)) + footprint.half_width * abs(math.sin(yaw))


# --------------------------------------------------------------------------------------------------
# strategies

lengths = st.floats(-6.0, 3.0).map(lambda exponent: 10.0**exponent)  # [m] 1e-6 to 1e3
angles = st.floats(-math.pi, math.pi)
speeds = st.floats(0.0, 1000.0)  # [m/s]
timesteps = st.floats(1e-4, 1.0)  # [s]
footprints = st.one_of(
    st.builds(Footprint.circle, st.floats(0.05, 2.0)),
    st.builds(Footprint.box, st.floats(0.05, 3.0), st.floats(0.05, 1.5)),
)
moves = st.lists(st.tuples(lengths, angles), min_size=1, max_size=4)
gaps = st.one_of(st.just(0.0), st.just(1e-9), st.just(SKIN), st.floats(0.0, 20.0))


def assert_clear(position, yaw, footprint, walls):
    assert clearance(position, yaw, footprint, walls) >= 0.5 * SKIN - 1e-12


# --------------------------------------------------------------------------------------------------
# never through a wall


LONG_WALL = Walls.from_segments([((0.0, -1e4), (0.0, 1e4))])
LONG_WORLD = World(walls=LONG_WALL)


@given(footprints, angles, gaps, st.floats(-100.0, 100.0), moves)
def test_a_long_wall_is_never_crossed_at_any_length_or_angle(footprint, yaw, gap, y, steps):
    x = -(reach_x(yaw, footprint) + gap)
    for length, angle in steps:
        start = (x, y)
        move = LONG_WORLD.move(
            start, (length * math.cos(angle), length * math.sin(angle)), yaw, footprint
        )
        x, y = move.position
        assert x < 0.0  # the centre stayed on its side
        assert_clear((x, y), yaw, footprint, LONG_WALL)
        if not move.hit:
            assert (x, y) == (
                start[0] + length * math.cos(angle),
                start[1] + length * math.sin(angle),
            )


@given(footprints, angles, speeds, timesteps, angles)
def test_speeds_and_frame_times_far_from_the_origin(footprint, yaw, speed, dt, angle):
    offset = np.array((1e4, -1e4))
    walls = Walls.from_segments([((offset[0], offset[1] - 1e4), (offset[0], offset[1] + 1e4))])
    world = World(walls=walls)
    start = offset + np.array((-(reach_x(yaw, footprint) + 0.5), 3.0))
    distance = speed * dt
    move = world.move(
        start, (distance * math.cos(angle), distance * math.sin(angle)), yaw, footprint
    )
    assert move.position[0] < offset[0]
    assert_clear(move.position, yaw, footprint, walls)


ROOM = np.array([(0, 0), (20, 0), (20, 10), (12, 10), (12, 14), (0, 14)], dtype=float)  # an L
PILLAR = np.array([(5, 5), (7, 5), (6, 7)], dtype=float)
ROOM_WALLS = Walls.from_polygons([ROOM, PILLAR]) + Walls.from_segments(
    [((15.0, 3.0), (15.0, 3.0)), ((3.0, 11.0), (9.0, 11.0))]  # a point and a free-standing wall
)
ROOM_WORLD = World(walls=ROOM_WALLS)


@given(footprints, angles, st.floats(0.0, 20.0), st.floats(0.0, 14.0), moves)
def test_a_room_keeps_the_footprint_inside_and_off_the_obstacles(footprint, yaw, x, y, steps):
    """A concave room (its reflex corner), a triangular pillar (its corners), a point wall and a
    free-standing wall (its ends)."""
    assume(inside_polygon((x, y), ROOM) and not inside_polygon((x, y), PILLAR))
    assume(clearance((x, y), yaw, footprint, ROOM_WALLS) > 0.0)
    for length, angle in steps:
        move = ROOM_WORLD.move(
            (x, y), (length * math.cos(angle), length * math.sin(angle)), yaw, footprint
        )
        x, y = move.position
        assert inside_polygon((x, y), ROOM)
        assert not inside_polygon((x, y), PILLAR)
        assert_clear((x, y), yaw, footprint, ROOM_WALLS)


@given(footprints, angles, st.floats(0.0, 1.0), st.floats(-0.25, 0.25), speeds, timesteps)
def test_wall_ends_and_corners_head_on(footprint, yaw, along, aim, speed, dt):
    """Aimed at the ends of a short wall and at the pillar's corners, from any distance."""
    targets = [(3.0, 11.0), (9.0, 11.0), (5.0, 5.0), (7.0, 5.0), (6.0, 7.0), (15.0, 3.0)]
    target = np.array(targets[int(along * (len(targets) - 1))])
    direction = np.array((math.cos(yaw + aim), math.sin(yaw + aim)))
    for back in (2.5, 4.0):
        start = target - back * np.array((math.cos(yaw), math.sin(yaw)))
        if not inside_polygon(start, ROOM) or inside_polygon(start, PILLAR):
            continue
        if clearance(start, yaw, footprint, ROOM_WALLS) <= 0.0:
            continue
        move = ROOM_WORLD.move(start, speed * dt * direction, yaw, footprint)
        assert inside_polygon(move.position, ROOM)
        assert not inside_polygon(move.position, PILLAR)
        assert_clear(move.position, yaw, footprint, ROOM_WALLS)


def l_corridor(width, margin):
    path = Polyline([(0.0, 0.0), (20.0, 0.0), (20.0, 20.0)], widths=width)
    half = width / 2 + margin
    ends = Walls.from_segments(
        [((0.0, -half), (0.0, half)), ((20.0 - half, 20.0), (20.0 + half, 20.0))]
    )
    return walls_along(path, margin) + ends, half


def in_l_corridor(point, half):
    x, y = point
    return (
        (0.0 <= x <= 20.0 and abs(y) <= half)  # first leg
        or (abs(x - 20.0) <= half and 0.0 <= y <= 20.0)  # second leg
        or (20.0 <= x <= 20.0 + half and -half <= y <= 0.0)  # the miter at the outer corner
    )


@given(
    footprints,
    st.floats(0.02, 0.6),
    st.floats(0.0, 1.0),
    st.lists(st.tuples(speeds, timesteps, angles), min_size=1, max_size=6),
)
def test_no_vehicle_crosses_a_narrow_corridor_with_a_turn(footprint, spare, margin, steps):
    """World: no vehicle crosses a wall (hypothesis over speeds, angles, dt)."""
    yaw = 0.0  # along the first leg: the footprint's half extent across it is its half width
    width = 2 * (footprint.half_width + spare - margin)  # wall to wall: the footprint + 2 spare
    assume(width > 0.0)
    walls, half = l_corridor(width, margin)
    world = World(walls=walls)
    x, y = 3.0 + reach_x(yaw, footprint), 0.0
    for speed, dt, angle in steps:
        distance = speed * dt
        move = world.move(
            (x, y), (distance * math.cos(angle), distance * math.sin(angle)), yaw, footprint
        )
        x, y = move.position
        assert in_l_corridor((x, y), half)
        assert_clear((x, y), yaw, footprint, walls)


# --------------------------------------------------------------------------------------------------
# slide, push-out, velocity


@given(footprints, angles, st.floats(0.0, 5.0), st.floats(0.0, 50.0), st.floats(-50.0, 50.0))
def test_sliding_keeps_the_tangential_displacement(footprint, yaw, gap, into, along):
    """Diagonally into a straight wall: the footprint ends against it (within the skin) and keeps
    the whole displacement along it (frictionless)."""
    reach = reach_x(yaw, footprint)
    start = (-(reach + gap), 7.0)
    move = LONG_WORLD.move(start, (gap + into + 1e-3, along), yaw, footprint)
    assert move.hit
    # against the wall: at least skin / 2 from it (the module's guarantee), at most about skin
    # (rounding of the 20 km wall's line can leave it a few 1e-9 m farther: found by hypothesis)
    assert -(reach + 2.0 * SKIN) <= move.position[0] <= -(reach + 0.5 * SKIN)
    assert move.position[1] == pytest.approx(7.0 + along, abs=1e-9 * (1 + abs(along)))
    assert move.normal == pytest.approx((-1.0, 0.0), abs=1e-9)


def test_a_corner_stops_the_slide():
    walls = Walls.from_segments([((0.0, -10.0), (0.0, 10.0)), ((-10.0, 10.0), (0.0, 10.0))])
    world = World(walls=walls)
    footprint = Footprint.circle(0.5)
    move = world.move((-3.0, 0.0), (100.0, 100.0), 0.0, footprint)
    assert move.position == pytest.approx((-0.5 - SKIN, 9.5 - SKIN), abs=1e-9)
    assert_clear(move.position, 0.0, footprint, walls)


def test_a_box_turned_against_a_wall_is_pushed_back_out():
    footprint = Footprint.box(2.0, 0.5)
    start = (-0.6, 0.0)  # clear when facing +y (0.5 m half extent along x)
    assert clearance(start, math.pi / 2, footprint, LONG_WALL) > 0.0
    move = LONG_WORLD.move(start, (0.0, 0.0), 0.0, footprint)  # turned to face the wall
    assert move.hit
    assert move.position[0] == pytest.approx(-2.0 - SKIN, abs=1e-12)
    assert move.position[1] == 0.0
    assert tuple(move.normal) == (-1.0, 0.0)
    assert_clear(move.position, 0.0, footprint, LONG_WALL)


def test_a_box_wedged_across_a_corridor_never_crosses_it():
    walls = Walls.from_segments([((-50.0, -1.0), (50.0, -1.0)), ((-50.0, 1.0), (50.0, 1.0))])
    world = World(walls=walls)
    footprint = Footprint.box(2.0, 0.5)  # 4 m long in a 2 m corridor
    for yaw in np.linspace(0.3, math.pi / 2, 7):
        move = world.move((0.0, 0.2), (1.0, 3.0), yaw, footprint)
        assert move.hit
        assert -1.0 < move.position[1] < 1.0


def test_a_free_move_is_exact_and_without_contact():
    for world in (World(), ROOM_WORLD):
        for footprint in (Footprint.circle(0.3), Footprint.box(0.4, 0.2)):
            move = world.move((10.0, 2.5), (1.25, -0.5), 0.3, footprint)
            assert not move.hit
            assert tuple(move.position) == (10.0 + 1.25, 2.5 - 0.5)
            assert tuple(move.normal) == (0.0, 0.0)


@given(st.floats(-50.0, 50.0), st.floats(-50.0, 50.0), angles, st.floats(0.0, 3.0))
def test_slide_velocity_law(vx, vy, normal_angle, friction):
    normal = (math.cos(normal_angle), math.sin(normal_angle))
    out = slide_velocity((vx, vy), normal, friction)
    normal_speed = vx * normal[0] + vy * normal[1]
    tangent = np.array((vx, vy)) - normal_speed * np.array(normal)
    if normal_speed >= 0.0:
        assert out == (vx, vy)  # leaving the wall: unchanged
        return
    assert out[0] * normal[0] + out[1] * normal[1] == pytest.approx(0.0, abs=1e-9)
    expected = max(np.hypot(*tangent) + friction * normal_speed, 0.0)  # |v_t| - mu |v_n|
    assert np.hypot(*out) == pytest.approx(expected, abs=1e-9)
    assert out[0] * tangent[0] + out[1] * tangent[1] >= 0.0  # never reversed


def test_slide_velocity_edge_cases_and_batch():
    assert slide_velocity((3.0, 4.0), (0.0, 0.0), 0.7) == (3.0, 4.0)  # no contact
    assert slide_velocity((-2.0, 1.0), (1.0, 0.0)) == (0.0, 1.0)  # frictionless
    assert slide_velocity((-2.0, 1.0), (1.0, 0.0), 1.0) == (0.0, 0.0)  # stopped, not reversed
    assert slide_velocity((-2.0, 0.0), (1.0, 0.0), 0.5) == (0.0, 0.0)  # head-on
    rng = np.random.default_rng(3)
    vx, vy = rng.normal(0, 10, 500), rng.normal(0, 10, 500)
    angle = rng.uniform(-math.pi, math.pi, 500)
    nx, ny = np.cos(angle), np.sin(angle)
    nx[:5] = ny[:5] = 0.0
    expected = [_slide_velocity(vx[i], vy[i], nx[i], ny[i], 0.4) for i in range(500)]
    _slide_velocity_batch(vx, vy, nx, ny, 0.4)
    assert [(vx[i], vy[i]) for i in range(500)] == expected


# --------------------------------------------------------------------------------------------------
# degenerate walls


def test_zero_length_walls_are_points_and_never_crash():
    walls = Walls.from_segments(
        [((2.0, 0.0), (2.0, 0.0)), ((2.0, 0.0), (2.0, 0.0)), ((5.0, 5.0), (5.0, 5.0))]
    )
    world = World(walls=walls)
    for footprint in (Footprint.circle(0.5), Footprint.box(1.0, 0.5)):
        move = world.move((0.0, 0.0), (10.0, 0.0), 0.0, footprint)
        assert move.hit
        assert move.position[0] == pytest.approx(2.0 - reach_x(0.0, footprint) - SKIN, abs=1e-9)
        assert_clear(move.position, 0.0, footprint, walls)
        world.move((2.0, 0.0), (0.0, 0.0), 0.0, footprint)  # centre on the point: no crash
    alone = World(walls=Walls.from_segments([((1.0, 1.0), (1.0, 1.0))]))  # grid of a single point
    assert alone.move((0.0, 0.0), (3.0, 3.0), 0.0, Footprint.circle(0.1)).hit
    empty = World(walls=Walls.from_segments([]))
    assert tuple(empty.move((0.0, 0.0), (1e3, 0.0), 0.0, Footprint.circle(1.0)).position) == (
        1e3,
        0.0,
    )


# --------------------------------------------------------------------------------------------------
# corridor walls


def centreline_clearance(path, walls):
    points = path.points[:, :2]
    return min(
        segment_segment_distance(points[i], points[i + 1], a, b)
        for i in range(len(points) - 1)
        for a, b in walls.segments
    )


CORRIDORS = {
    "90-degree turn": Polyline([(0, 0), (20, 0), (20, 20)], widths=3.0),
    "hairpin 180": Polyline([(0, 0), (20, 0), (5, 0)], widths=3.0),
    "U-turn, legs inside one corridor": Polyline([(0, 0), (20, 0), (20, 1), (0, 1)], widths=3.0),
    "170-degree turn": Polyline(
        [(0, 0), (20, 0), (20 - 15 * math.cos(0.17), 15 * math.sin(0.17))], widths=2.0
    ),
    "zigzag, widths change": Polyline(
        [(0, 0), (10, 0), (12, 8), (14, 0), (24, 6), (19, 6)], widths=[3, 2.5, 3, 4, 3]
    ),
    "3-D with a vertical segment": Polyline(
        [(0, 0, 0), (10, 0, 0), (10, 0, 4), (10, 10, 4)], widths=2.0
    ),
}


@pytest.mark.parametrize("name", list(CORRIDORS))
def test_corridor_walls_never_touch_the_centreline(name):
    path = CORRIDORS[name]
    for margin in (0.0, 0.5):
        walls = walls_along(path, margin)
        assert len(walls) > 0
        # no wall touches the centre line (one may pass close to the path's open ends: the
        # zigzag's end is 0.08 m from the outline of the leg before it with a 0.5 m margin)
        assert centreline_clearance(path, walls) > 1e-9


def test_corridor_walls_of_a_turn_are_at_the_width_and_closed():
    path = CORRIDORS["90-degree turn"]
    walls = walls_along(path, 0.5)
    half = 2.0
    for a, b in walls.segments:  # every wall point at least the half width from the centre line
        for t in np.linspace(0.0, 1.0, 11):
            point = a + t * (b - a)
            assert abs(path.project(point).cross_track) >= half - 1e-6
    # rays across the corridor from the centre line hit a wall at the half width on both sides
    world = World(walls=walls)
    for s in np.linspace(1.5, 38.5, 8):  # not at the vertex (s = 20)
        point = path.point_at(s)
        heading = path.heading_at(s)
        for side in (1.0, -1.0):
            direction = side * np.array((-math.sin(heading), math.cos(heading)))
            move = world.move(point, 10.0 * direction, heading, Footprint.circle(1e-3))
            assert move.hit
            assert np.hypot(*(move.position - point)) == pytest.approx(half - 1e-3 - SKIN, abs=1e-6)


@given(
    st.lists(st.tuples(st.floats(-20.0, 20.0), st.floats(-20.0, 20.0)), min_size=2, max_size=6),
    st.floats(0.2, 4.0),
    st.floats(0.0, 1.0),
)
def test_random_corridors_leave_the_centreline_free(points, width, margin):
    points = np.array(points)
    assume(np.all(np.hypot(*np.diff(points, axis=0).T) > 0.5))
    path = Polyline(points, widths=width)
    walls = walls_along(path, margin)
    assert centreline_clearance(path, walls) > 1e-9


# --------------------------------------------------------------------------------------------------
# the free disc: a move far from every wall skips the grid, with the same result


@given(st.floats(-5.0, 25.0), st.floats(-5.0, 19.0), st.floats(0.0, 30.0))
def test_clearance_is_the_distance_to_the_nearest_wall_up_to_the_limit(x, y, limit):
    expected = min([limit] + [point_segment_distance((x, y), a, b) for a, b in ROOM_WALLS.segments])
    assert math.isclose(_clearance(ROOM_WORLD.data, x, y, limit), expected, abs_tol=1e-12)


def test_clearance_without_walls_is_infinite():
    assert _clearance(World().data, 3.0, 4.0, 10.0) == math.inf


def _kernel_footprint(footprint):
    shape, half_length, half_width = footprint.kernel_arguments()
    return shape, half_length, half_width


@given(
    footprints,
    angles,
    st.floats(0.0, 20.0),
    st.floats(0.0, 14.0),
    st.floats(-3.0, 3.0),
    st.floats(-3.0, 3.0),
    moves,
)
def test_a_remembered_free_disc_gives_the_swept_move_bit_for_bit(
    footprint, yaw, x, y, offset_x, offset_y, steps
):
    """Frames of a body in the room: the move with the disc remembered from the frame before is
    ``_collide_move``'s, bit for bit, whether the disc proves the move free or not."""
    shape, half_length, half_width = _kernel_footprint(footprint)
    data = ROOM_WORLD.data
    # a disc measured somewhere near the body (as after a frame that ended there)
    cx, cy = x + offset_x, y + offset_y
    disc = (cx, cy, _clearance(data, cx, cy, FREE_SPACE_RADII * 2.0))
    for length, angle in steps:
        dx, dy = length * math.cos(angle), length * math.sin(angle)
        cached = _collide_move_cached(
            data, x, y, dx, dy, yaw, shape, half_length, half_width, *disc
        )
        plain = _collide_move(data, x, y, dx, dy, yaw, shape, half_length, half_width)
        assert cached[:5] == plain
        x, y, disc = cached[0], cached[1], cached[5:]
        # the disc handed on holds no wall
        assert all(
            point_segment_distance(disc[:2], a, b) >= disc[2] - 1e-12
            for a, b in ROOM_WALLS.segments
        )


def test_a_free_disc_skips_the_walls_and_a_move_near_one_measures_a_new_disc():
    footprint = Footprint.box(1.0, 0.5)
    shape, half_length, half_width = _kernel_footprint(footprint)
    radius = _footprint_radius(shape, half_length, half_width)
    data = ROOM_WORLD.data
    # nothing known yet: swept, then a disc around the end point (walls of the room within reach)
    first = _collide_move_cached(
        data, 10.0, 3.0, 0.1, 0.0, 0.0, shape, 1.0, 0.5, *FREE_SPACE_UNKNOWN
    )
    assert first[:5] == (10.1, 3.0, 0.0, 0.0, False)
    expected = min(point_segment_distance((10.1, 3.0), a, b) for a, b in ROOM_WALLS.segments)
    assert first[5:7] == (10.1, 3.0) and math.isclose(first[7], expected, rel_tol=1e-12)
    assert first[7] > radius + 0.2  # room to move: the next small move is proven free
    second = _collide_move_cached(data, 10.1, 3.0, 0.1, 0.0, 0.0, shape, 1.0, 0.5, *first[5:])
    assert second[:5] == (10.1 + 0.1, 3.0, 0.0, 0.0, False)
    assert second[5:] == first[5:]  # the same disc: the grid was not read
    # a move that leaves the disc is swept and hits the room's wall at y = 0
    third = _collide_move_cached(data, 10.2, 3.0, 0.0, -5.0, 0.0, shape, 1.0, 0.5, *second[5:])
    assert third[4] and third[5:7] == third[:2] != second[5:7]
    # none wanted (free_r < 0): the plain move, the disc returned as given
    none = _collide_move_cached(data, 10.0, 3.0, 0.1, 0.0, 0.0, shape, 1.0, 0.5, *FREE_SPACE_NONE)
    assert none[:5] == first[:5] and none[5:] == FREE_SPACE_NONE


def test_a_move_leaving_the_disc_by_its_length_or_by_the_skin_is_swept():
    """The disc of radius 5 at the origin touches the wall x = 5; two moves whose midpoint is
    well inside it still reach the wall: by their length, or within the skin (the sweep's
    reach counts both)."""
    data = World(walls=Walls.from_segments([((5.0, -100.0), (5.0, 100.0))])).data
    disc = (0.0, 0.0, _clearance(data, 0.0, 0.0, 10.0))
    assert disc[2] == 5.0
    # centred on the disc's centre, 9 m long: its end takes the circle of radius 1 into the wall
    long_move = _collide_move_cached(data, -4.5, 0.0, 9.0, 0.0, 0.0, 0, 1.0, 1.0, *disc)
    assert long_move[4] and long_move[0] < 4.0
    assert long_move[:5] == _collide_move(data, -4.5, 0.0, 9.0, 0.0, 0.0, 0, 1.0, 1.0)
    # ending half a skin short of the wall: the circle grown by the skin touches it
    short = 0.1 - 0.5 * SKIN
    near = _collide_move_cached(data, 3.9, 0.0, short, 0.0, 0.0, 0, 1.0, 1.0, *disc)
    assert near[4] and near[:5] == _collide_move(data, 3.9, 0.0, short, 0.0, 0.0, 0, 1.0, 1.0)


def test_a_disc_too_small_to_prove_a_move_free_is_kept_until_the_body_may_have_left_it():
    """A box in a corridor narrower than its bounding circle: the nearest wall is nearer than
    the footprint's radius, so no disc measured there could prove a move free. The first frame
    measures one (nothing known); the next ones keep it, as long as the distance to the nearest
    wall, which changes by at most the distance moved, stays below the radius: then a new one is
    measured. The moves are ``_collide_move``'s bit for bit throughout."""
    walls = Walls.from_segments([((-50.0, -1.0), (50.0, -1.0)), ((-50.0, 1.0), (50.0, 1.0))])
    data = World(walls=walls).data
    shape, half_length, half_width = 1, 2.0, 0.5  # a box, bounding radius sqrt(4.25)
    radius = math.sqrt(half_length**2 + half_width**2)
    x, y, step = 0.0, 0.0, 0.25
    disc = FREE_SPACE_UNKNOWN
    measured = []
    for frame in range(12):
        out = _collide_move_cached(
            data, x, y, step, 0.0, 0.0, shape, half_length, half_width, *disc
        )
        assert out[:5] == _collide_move(data, x, y, step, 0.0, 0.0, shape, half_length, half_width)
        assert out[:2] == (x + step, 0.0) and not out[4]  # the corridor is straight: no contact
        if out[5:] != disc:
            measured.append(frame)
            # a new disc: centred on the body, of radius its distance to the nearest wall (1 m)
            assert out[5:7] == out[:2] and math.isclose(out[7], 1.0, rel_tol=1e-12)
        x, y, disc = out[0], out[1], out[5:]
    # measured at frame 0, then again once 1 m + the distance moved since reaches the radius
    # (frame k ends (k + 1) steps from the start)
    again = math.ceil((radius - 1.0) / step)
    assert measured[:2] == [0, again]


def test_a_free_zero_move_keeps_the_position_as_it_is():
    data = World(walls=Walls.from_segments([((5.0, -1.0), (5.0, 1.0))])).data
    disc = (-0.0, 0.0, _clearance(data, -0.0, 0.0, 3.0))
    out = _collide_move_cached(data, -0.0, 0.0, 0.0, 0.0, 0.0, 1, 1.0, 0.5, *disc)
    plain = _collide_move(data, -0.0, 0.0, 0.0, 0.0, 0.0, 1, 1.0, 0.5)
    assert out[:5] == plain and math.copysign(1.0, out[0]) == -1.0
    assert out[5:] == disc


# --------------------------------------------------------------------------------------------------
# the grid only speeds the queries up: any cell size, the same moves


ARENA = Walls.from_polygons([[(0.0, 0.0), (20.0, 0.0), (20.0, 20.0), (0.0, 20.0)]])
CELL_SIZES = (1e-3, None, 1e3)  # tiny (grown to the grid's bound on cells), default, one cell
scene_points = st.tuples(st.floats(0.0, 20.0), st.floats(0.0, 20.0))
scene_segments = st.lists(
    st.one_of(
        st.builds(  # short walls, up to 5 m
            lambda a, angle, length: (
                a,
                (a[0] + length * math.cos(angle), a[1] + length * math.sin(angle)),
            ),
            scene_points,
            angles,
            st.floats(0.0, 5.0),
        ),
        st.tuples(scene_points, scene_points),  # long ones, across the scene
        scene_points.map(lambda point: (point, point)),  # point walls
    ),
    min_size=10,
    max_size=50,
)
scene_polygons = st.lists(  # convex rings: corners shared by two walls
    st.builds(
        lambda centre, radius, sides, turn: [
            (
                centre[0] + radius * math.cos(turn + 2 * math.pi * k / sides),
                centre[1] + radius * math.sin(turn + 2 * math.pi * k / sides),
            )
            for k in range(sides)
        ],
        scene_points,
        st.floats(0.3, 5.0),
        st.integers(3, 6),
        angles,
    ),
    max_size=4,
)
scene_moves = st.lists(
    st.tuples(
        footprints,
        angles,
        st.tuples(st.floats(-2.0, 22.0), st.floats(-2.0, 22.0)),
        speeds,
        timesteps,
        angles,
    ),
    min_size=1,
    max_size=8,
)


def move_bits(move):
    """A move's result, every float as its exact bits."""
    return (
        tuple(float(v).hex() for v in move.position),
        tuple(float(v).hex() for v in move.normal),
        move.hit,
    )


@given(scene_segments, scene_polygons, scene_moves)
def test_the_cell_size_never_changes_a_move_from_clear_of_the_walls(segments, polygons, bodies):
    """Among many random walls (segments, point walls, polygons in a walled square), a world of
    tiny cells, one whose single cell holds every wall and the default one move a footprint that
    starts clear of the walls (by more than two skins) to the same place, with the same normal
    and contact, bit for bit, for any displacement (speed x dt, any direction)."""
    walls = ARENA + Walls.from_segments(segments) + Walls.from_polygons(polygons)
    worlds = [World(walls=walls, cell_size=size) for size in CELL_SIZES]
    cells = [world.data.grid_cell for world in worlds]
    assert cells[0] < cells[2] and cells[1] < cells[2]
    assert worlds[0].data.grid_nx * worlds[0].data.grid_ny > 100
    assert worlds[2].data.grid_nx * worlds[2].data.grid_ny <= 4  # every wall in one cell
    clear = [body for body in bodies if clearance(body[2], body[1], body[0], walls) > 2 * SKIN]
    assume(clear)
    for footprint, yaw, start, speed, dt, angle in clear:
        displacement = (speed * dt * math.cos(angle), speed * dt * math.sin(angle))
        moves = [world.move(start, displacement, yaw, footprint) for world in worlds]
        assert move_bits(moves[1]) == move_bits(moves[0]) == move_bits(moves[2])


WEDGE = Walls.from_segments(  # two walls at 120 degrees, meeting at the origin
    [((-10.0, 0.0), (10.0, 0.0)), ((5.0, -5.0 * math.sqrt(3.0)), (-5.0, 5.0 * math.sqrt(3.0)))]
)


def test_the_cell_size_never_changes_a_move_within_the_skin_of_two_walls():
    """A circle in a 120-degree corner, within the skin of both walls (where a frame that pushed
    it into the corner can leave it), pushed into the corner again: the same move for any cell
    size."""
    footprint = Footprint.circle(1.0)
    distance = (1.0 + 0.5 * SKIN) / math.sin(math.radians(60.0))  # on the bisector
    start = (distance * math.cos(math.radians(60.0)), distance * math.sin(math.radians(60.0)))
    for a, b in WEDGE.segments:
        assert 0.0 < point_segment_distance(start, a, b) - 1.0 < SKIN
    into = (-2.5, -2.5 * math.sqrt(3.0))  # towards the corner
    moves = [
        World(walls=WEDGE, cell_size=size).move(start, into, 0.0, footprint)
        for size in (1e-3, None, 3.0, 7.0, 1e3)
    ]
    assert all(move_bits(move) == move_bits(moves[0]) for move in moves)


@given(scene_segments, scene_polygons, scene_moves)
def test_a_move_never_carries_the_footprint_backwards(segments, polygons, bodies):
    """Sliding only removes the part of the move that goes into a wall, and stops where the rest
    would turn back against the move asked for (a corner wider than 90 degrees; Quake's
    ``SV_FlyMove`` checks its "primal velocity" likewise): from clear of the walls (no push-out),
    the footprint's displacement never has a negative component along the displacement asked
    for."""
    walls = ARENA + Walls.from_segments(segments) + Walls.from_polygons(polygons)
    world = World(walls=walls)
    clear = [body for body in bodies if clearance(body[2], body[1], body[0], walls) > 2 * SKIN]
    assume(clear)
    for footprint, yaw, start, speed, dt, angle in clear:
        asked = (speed * dt * math.cos(angle), speed * dt * math.sin(angle))
        move = world.move(start, asked, yaw, footprint)
        moved = (move.position[0] - start[0], move.position[1] - start[1])
        rounding = 1e-12 * math.hypot(*asked)
        assert moved[0] * asked[0] + moved[1] * asked[1] >= -rounding


def test_pushed_into_a_wide_corner_a_circle_stays_wedged_and_never_bounces_back():
    """A circle pushed into a 120-degree corner frame after frame: it slides into the corner and
    stays there, touching both walls, instead of sliding back out along one of them (a slide
    against the push) and bouncing between the walls."""
    footprint = Footprint.circle(1.0)
    world = World(walls=WEDGE)
    push = (-3.0, -5.0)
    position = (2.0, 3.0)
    for frame in range(6):
        move = world.move(position, push, 0.0, footprint)
        moved = (move.position[0] - position[0], move.position[1] - position[1])
        assert moved[0] * push[0] + moved[1] * push[1] >= 0.0
        position = move.position
        if frame >= 1:  # wedged: both walls at the skin, and it does not move any more
            for a, b in WEDGE.segments:
                assert point_segment_distance(position, a, b) - 1.0 == pytest.approx(SKIN, abs=SKIN)
            assert math.hypot(*moved) < 10.0 * SKIN


# --------------------------------------------------------------------------------------------------
# batch == scalar


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("size", [300, SERIAL_LIMIT + 5], ids=["serial", "parallel"])
def test_move_batch_equals_move_bit_for_bit(threads, size):
    walls, _ = l_corridor(2.5, 0.25)
    world = World(walls=walls + ROOM_WALLS)
    rng = np.random.default_rng(11)
    x = rng.uniform(-2.0, 22.0, size)
    y = rng.uniform(-2.0, 15.0, size)
    yaw = rng.uniform(-math.pi, math.pi, size)
    length = 10.0 ** rng.uniform(-6.0, 2.5, size)
    angle = rng.uniform(-math.pi, math.pi, size)
    dx, dy = length * np.cos(angle), length * np.sin(angle)
    dx[:3] = dy[:3] = 0.0  # in place: push-out only
    prints = [
        Footprint.circle(r) if k % 2 else Footprint.box(r, 0.6 * r)
        for k, r in enumerate(rng.uniform(0.1, 1.5, size))
    ]
    expected = [world.move((x[i], y[i]), (dx[i], dy[i]), yaw[i], prints[i]) for i in range(size)]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        out = world.move_batch(x, y, dx, dy, yaw, prints)
    finally:
        numba.set_num_threads(previous)
    for i in range(size):
        move = expected[i]
        assert (x[i], y[i]) == tuple(move.position), i
        assert (out.normal_x[i], out.normal_y[i]) == tuple(move.normal), i
        assert bool(out.hit[i]) == move.hit, i
    assert out.hit.any() and not out.hit.all()


def test_move_batch_with_one_footprint_and_scalars():
    world = ROOM_WORLD
    x = np.array([2.0, 10.0, 18.0])
    y = np.array([2.0, 2.0, 8.0])
    out = world.move_batch(x, y, 100.0, 0.0, 0.0, Footprint.circle(0.5))  # to the east wall
    assert x.tolist() == pytest.approx([20.0 - 0.5 - SKIN] * 3, abs=1e-9)
    assert y.tolist() == [2.0, 2.0, 8.0]
    assert out.hit.all()
    assert out.normal_x.tolist() == [-1.0] * 3


# --------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: World(skin=0.0), "skin"),
        (lambda: World(skin=math.nan), "skin"),
        (lambda: World(cell_size=-1.0), "cell_size"),
        (lambda: World(walls=[((0, 0), (1, 1))]), "walls"),
        (
            lambda: Walls.from_segments([((0, 0), (1, 1)), ((0, math.nan), (1, 1))]),
            r"segments\[1\]",
        ),
        (lambda: Walls.from_segments([(0, 0, 1)]), r"shape \(n, 2, 2\)"),
        (lambda: Walls.from_polygons([[(0, 0), (1, 1), (2, 2)]]), r"polygons\[0\] is degenerate"),
        (
            lambda: Walls.from_polygons([[(0, 0), (1, 0), (1, 1)], [(0, 0), (1, 0), (0, 0)]]),
            r"polygons\[1\]",
        ),
        (lambda: Walls.from_polygons([[(0, 0), (1, 0), (1, math.inf)]]), r"polygons\[0\]\[2\]"),
        (lambda: Walls.from_polygons(np.zeros((4, 2))), "list of"),
        (lambda: walls_along(CORRIDORS["90-degree turn"], -1.0), "margin"),
        (lambda: walls_along(Polyline([(0, 0), (1, 0)]), 0.5), "widths"),
        (
            lambda: walls_along(Polyline([(0, 0), (1, 0), (1, 1)], widths=[2.0, math.inf]), 0.0),
            r"widths\[1\]",
        ),
        (
            lambda: walls_along(Polyline([(0, 0), (1, 0)], widths=0.0), 0.0),
            r"widths\[0\] / 2 \+ margin",
        ),
        (lambda: walls_along([(0, 0), (1, 0)], 0.0), "polyline"),
        (lambda: ROOM_WORLD.move((math.nan, 1.0), (0.0, 0.0), 0.0, Footprint()), r"position\[0\]"),
        (
            lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, math.inf), 0.0, Footprint()),
            r"displacement\[1\]",
        ),
        (lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, 0.0), math.nan, Footprint()), "yaw"),
        (
            lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, 0.0), 0.0, Footprint.circle(0.0)),
            "footprint.half_width",
        ),
        (
            lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, 0.0), 0.0, Footprint.box(-1.0, 1.0)),
            "footprint.half_length",
        ),
        (
            lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, 0.0), 0.0, Footprint("triangle")),
            "footprint.shape",
        ),
        (lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, 0.0), 0.0, (0.5, 0.5)), "footprint must be"),
        (
            lambda: ROOM_WORLD.move_batch([1.0], np.zeros(1), 0.0, 0.0, 0.0, Footprint()),
            "x must be",
        ),
        (
            lambda: ROOM_WORLD.move_batch(np.zeros(2), np.zeros(2), 0.0, 0.0, 0.0, [Footprint()]),
            "footprint must be one",
        ),
        (
            lambda: ROOM_WORLD.move_batch(
                np.zeros(2), np.zeros(2), [0.0, math.nan], 0.0, 0.0, Footprint()
            ),
            r"dx\[1\]",
        ),
        (lambda: ROOM_WORLD.move((1e13, 1.0), (0.0, 0.0), 0.0, Footprint()), "position"),
        (lambda: ROOM_WORLD.move((1.0, 1.0), (0.0, -1e200), 0.0, Footprint()), "displacement"),
        (lambda: World(walls=Walls.from_segments([((0, 0), (2e12, 0))])), r"walls.bx\[0\]"),
        (
            lambda: ROOM_WORLD.move_batch(
                np.zeros(2), np.zeros(2), 0.0, 0.0, 0.0, Footprint(), out=(np.zeros(2),) * 3
            ),
            "out must be",
        ),
        (lambda: slide_velocity((1.0, 0.0), (1.0, 0.0), -0.1), "friction"),
        (lambda: slide_velocity((1.0, 0.0), (2.0, 0.0)), "normal"),
    ],
)
def test_bad_input_raises_naming_the_argument(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_a_cell_far_below_the_walls_extent_is_grown_and_moves_are_unchanged():
    """A cell of 1e-300 m overflowed the grid's cell count; the grid grows it, and a swept move
    does not depend on the grid's cell (the same walls, the default cell: the same result)."""
    walls = walls_along(Polyline(np.array([[0.0, 0.0], [40.0, 0.0], [60.0, 30.0]]), 6.0), 0.5)
    tiny, default = World(walls=walls, cell_size=1e-300), World(walls=walls)
    for start, step in (((5.0, 0.0), (0.0, 9.0)), ((30.0, -1.0), (20.0, 3.0))):
        moved = tiny.move(start, step, 0.0, Footprint())
        expected = default.move(start, step, 0.0, Footprint())
        assert all(np.array_equal(a, b) for a, b in zip(moved, expected, strict=True))
