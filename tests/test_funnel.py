"""Funnelling control (seed 003): orientation reached where seek fails, Figure 5's modes, moving
and successive targets, the mu bound, batch == scalar, bad input."""

import itertools
import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import steerlab._jit
from steerlab.engines import Unicycle, UnicycleParams, UnicycleState
from steerlab.engines.unicycle import UnicycleBatch
from steerlab.funnel import EtaTable, Funnel, Mode, SeekController, SeekParams, mu_bound
from steerlab.funnel.funnel import HOLD_FACTOR
from steerlab.funnel.modes import _choose_mode

DT = 1.0 / 60.0
D_TOL = 0.25
EPS_TOL = math.radians(10.0)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The default table, built once per session (the cache directory test_funnel_table uses)."""
    return EtaTable.load_or_build(
        UnicycleParams(), SeekParams(), tmp_path_factory.getbasetemp() / "eta-cache"
    )


def wrap(angle):
    return math.remainder(angle, 2 * math.pi)


def run(controller, plant, state, seconds, target=None):
    """States and modes per frame; ``target(k)`` gives the target (x, y, course) at frame k."""
    states, modes = [state], []
    for _ in range(int(seconds / DT)):
        command = controller.step(state, DT)
        modes.append(getattr(controller, "mode", None))
        state = plant.step(state, command, DT)
        states.append(state)
    return states, modes


def arrival_error(states, x, y, course):
    """Orientation error [rad] on first entering the position tolerance (None: never)."""
    for state in states:
        if math.hypot(x - state.x, y - state.y) < D_TOL:
            return abs(wrap(course - state.yaw))
    return None


CASES = [  # target (x, y, course) from rest at the origin heading +x
    (10.0, 5.0, math.pi / 2),
    (10.0, 0.0, math.pi / 2),
    (5.0, -5.0, math.pi),
    (20.0, 3.0, -math.pi / 2),
    (3.0, 3.0, -math.pi / 2),
    (8.0, -2.0, -2.5),
    (-5.0, 2.0, 0.0),
    (0.0, 12.0, 0.0),
]


def test_funnelling_reaches_position_and_orientation_where_seek_arrives_wrong(table):
    plant = Unicycle(table.unicycle)
    seek_errors, funnel_errors = [], []
    for x, y, course in CASES:
        seek_states, _ = run(SeekController((x, y), table=table), plant, UnicycleState(), 30.0)
        seek_error = arrival_error(seek_states, x, y, course)
        assert seek_error > math.radians(45)  # the set: seek arrives with the wrong orientation
        funnel = Funnel(table, (x, y), course, d_tol=D_TOL, eps_tol=EPS_TOL)
        states, modes = run(funnel, plant, UnicycleState(), 40.0)
        final = states[-1]
        # position and orientation within tolerance, halted, steering ended
        assert math.hypot(x - final.x, y - final.y) < D_TOL
        assert abs(wrap(course - final.yaw)) < EPS_TOL
        assert final.v < 1e-6 and modes[-1] == Mode.END_OF_STEERING
        error = arrival_error(states, x, y, course)
        assert error < seek_error  # funnelling, not the final turn on the spot, did most of it
        seek_errors.append(seek_error)
        funnel_errors.append(error)
    assert np.median(funnel_errors) < 0.3 * np.median(seek_errors)
    assert np.median(funnel_errors) < math.radians(30)


def figure_5(distance, error, d_tol, d_eta, eps_tol):
    """Figure 5 as printed in the seed, with |alpha + eta + delta_eta| = |error|."""
    mode = Mode.FUNNELLING
    if distance < d_tol and abs(error) < eps_tol:
        mode = Mode.END_OF_STEERING
    elif distance < d_tol:
        mode = Mode.ORIENTATION_ONLY
    elif distance < d_eta or abs(error) < eps_tol:
        mode = Mode.POSITION_ONLY
    return mode


@given(
    st.floats(0.0, 50.0),
    st.floats(-math.pi, math.pi),
    st.floats(0.01, 2.0),
    st.floats(0.01, 2.0),
    st.floats(0.01, 3.0),
)
def test_mode_choice_is_figure_5(distance, error, d_tol, d_eta, eps_tol):
    assert _choose_mode(distance, error, d_tol, d_eta, eps_tol) == figure_5(
        distance, error, d_tol, d_eta, eps_tol
    )


def test_modes_of_a_run_follow_figure_5_and_end_in_end_of_steering(table):
    plant = Unicycle(table.unicycle)
    x, y, course = 6.0, 4.0, -math.pi / 2
    funnel = Funnel(table, (x, y), course, d_tol=D_TOL, eps_tol=EPS_TOL)
    states, modes = run(funnel, plant, UnicycleState(), 30.0)
    for state, mode in zip(states, modes, strict=False):
        distance = math.hypot(x - state.x, y - state.y)
        assert mode == figure_5(distance, wrap(course - state.yaw), D_TOL, table.d_eta, EPS_TOL)
    seen = list(dict.fromkeys(modes))
    assert seen[0] == Mode.FUNNELLING and modes[-1] == Mode.END_OF_STEERING
    assert Mode.POSITION_ONLY in seen  # inside D_eta, seek (sequential near the target)


@pytest.mark.parametrize("velocity", [(0.6, 0.0), (0.3, 0.3), (1.0, 0.0)])
def test_a_moving_target_is_met_and_kept(table, velocity):
    """A target with its own velocity, to be met heading its way: End_of_Steering is reached
    (position and orientation within the tolerances), then the entity keeps pace with it."""
    plant = Unicycle(table.unicycle)
    course = math.atan2(velocity[1], velocity[0])
    funnel = Funnel(table, (6.0, 8.0), course, target_velocity=velocity, d_tol=0.4)
    state = UnicycleState(yaw=-1.0)
    met, ended, farthest = None, 0, 0.0
    for k in range(int(60.0 / DT)):
        x, y, _ = funnel.current_target()  # where the target is for this update
        assert (x, y) == pytest.approx((6.0 + velocity[0] * k * DT, 8.0 + velocity[1] * k * DT))
        command = funnel.step(state, DT)
        if funnel.mode == Mode.END_OF_STEERING:
            assert math.hypot(x - state.x, y - state.y) < 0.4
            assert abs(wrap(course - state.yaw)) < EPS_TOL
            met = k if met is None else met
            ended += 1
        state = plant.step(state, command, DT)
        if met is not None:
            x, y, _ = funnel.current_target()
            farthest = max(farthest, math.hypot(x - state.x, y - state.y))
    assert met is not None and met * DT < 15.0
    assert farthest < 0.5  # kept up with the target
    assert ended > 0.8 * (int(60.0 / DT) - met)  # mostly at the end of steering, moving along


@settings(max_examples=8, deadline=None)
@given(
    speed=st.floats(0.2, 1.5),
    course=st.floats(-math.pi, math.pi),
    start_x=st.floats(-10.0, 10.0),
    start_y=st.floats(-10.0, 10.0),
    yaw=st.floats(-math.pi, math.pi),
)
def test_a_target_moving_along_its_course_is_held_without_flicker(
    table, speed, course, start_x, start_y, yaw
):
    """A target moving along its course, once met, is held in End_of_Steering every frame of the
    last 10 s of a minute (no flicker), within HOLD_FACTOR D_tol of the target and HOLD_FACTOR
    eps_tol of its course."""
    plant = Unicycle(table.unicycle)
    velocity = (speed * math.cos(course), speed * math.sin(course))
    funnel = Funnel(table, (start_x, start_y), course, target_velocity=velocity)
    state = UnicycleState(yaw=yaw)
    frames = int(60.0 / DT)
    last_modes = []
    for k in range(frames):
        x, y, _ = funnel.current_target()
        command = funnel.step(state, DT)
        if k >= frames - int(10.0 / DT):
            last_modes.append(funnel.mode)
            assert math.hypot(x - state.x, y - state.y) < HOLD_FACTOR * D_TOL
            assert abs(wrap(course - state.yaw)) < HOLD_FACTOR * EPS_TOL
        state = plant.step(state, command, DT)
    assert all(mode == Mode.END_OF_STEERING for mode in last_modes)


@settings(max_examples=8, deadline=None)
@given(
    speed=st.floats(0.2, 1.5),
    course=st.floats(-math.pi, math.pi),
    start_x=st.floats(-10.0, 10.0),
    start_y=st.floats(-10.0, 10.0),
    yaw=st.floats(-math.pi, math.pi),
)
def test_a_target_moving_across_its_course_is_reached(table, speed, course, start_x, start_y, yaw):
    """The seed's "(possible mobile) target" moving across its own course (it cannot be held: a
    unicycle heading along the course cannot move across it) is reached at least once, within
    D_tol, in a minute."""
    plant = Unicycle(table.unicycle)
    across = course + math.pi / 2
    velocity = (speed * math.cos(across), speed * math.sin(across))
    funnel = Funnel(table, (start_x, start_y), course, target_velocity=velocity)
    state = UnicycleState(yaw=yaw)
    for _ in range(int(60.0 / DT)):
        x, y, _ = funnel.current_target()
        if math.hypot(x - state.x, y - state.y) < D_TOL:
            return
        state = plant.step(state, funnel.step(state, DT), DT)
    raise AssertionError("never came within D_tol of the target")


def test_shake_hands_pairs_meet_face_to_face_and_halt(table):
    """Seed 003, Figure 6: a pair attracted to each other meets face to face and halts. Each
    entity's target moves with the pair: half a gap from their midpoint towards itself, facing
    the other."""
    plant = Unicycle(table.unicycle)
    gap = 1.0
    starts = [
        (UnicycleState(0.0, 0.0, math.pi / 2), UnicycleState(8.0, 3.0, -math.pi / 2)),
        (UnicycleState(0.0, 0.0, 0.0), UnicycleState(10.0, 0.0, 0.0)),
        (UnicycleState(0.0, 0.0, 2.0), UnicycleState(-3.0, 6.0, 1.0)),
    ]
    for a, b in starts:
        funnels = [Funnel(table, (0.0, 0.0), 0.0, d_tol=0.3) for _ in range(2)]
        for _ in range(int(40.0 / DT)):
            facing = math.atan2(b.y - a.y, b.x - a.x)
            half = (0.5 * gap * math.cos(facing), 0.5 * gap * math.sin(facing))
            middle = (0.5 * (a.x + b.x), 0.5 * (a.y + b.y))
            funnels[0].set_target((middle[0] - half[0], middle[1] - half[1]), facing)
            funnels[1].set_target((middle[0] + half[0], middle[1] + half[1]), facing + math.pi)
            commands = funnels[0].step(a, DT), funnels[1].step(b, DT)
            a, b = plant.step(a, commands[0], DT), plant.step(b, commands[1], DT)
        facing = math.atan2(b.y - a.y, b.x - a.x)
        assert abs(wrap(facing - a.yaw)) < EPS_TOL and abs(wrap(facing + math.pi - b.yaw)) < EPS_TOL
        assert gap - 2 * 0.3 < math.hypot(a.x - b.x, a.y - b.y) < gap + 2 * 0.3
        assert a.v < 1e-6 and b.v < 1e-6  # halted
        assert funnels[0].mode == funnels[1].mode == Mode.END_OF_STEERING


def test_successive_targets_are_reached_in_order(table):
    plant = Unicycle(table.unicycle)
    targets = [(6.0, 0.0, math.pi / 2), (6.0, 8.0, math.pi), (-4.0, 6.0, -math.pi / 2)]
    funnel = Funnel.successive(table, targets, d_tol=0.3)
    state = UnicycleState()
    indices = []
    for _ in range(int(60.0 / DT)):
        before = state
        command = funnel.step(state, DT)
        index = funnel.target_index
        if indices and index != indices[-1]:  # switched: the previous one was done
            x, y, course = targets[indices[-1]]
            assert math.hypot(x - before.x, y - before.y) < 0.3
            assert abs(wrap(course - before.yaw)) < EPS_TOL
        indices.append(index)
        state = plant.step(state, command, DT)
    assert indices[0] == 0 and indices[-1] == 2
    assert (np.diff(indices) >= 0).all() and set(indices) == {0, 1, 2}
    assert funnel.mode == Mode.END_OF_STEERING
    x, y, course = targets[-1]
    assert math.hypot(x - state.x, y - state.y) < 0.3


def test_mu_bound_goes_to_zero_as_distance_grows(table):
    """Section 4: the retained bound converges to zero when D grows to infinity. Checked where
    the table was simulated (its sampled distances from 2 u to its last, 30 u), not only in the
    far field, whose 1/D decay is the extrapolation's construction: the bound falls at every
    sampled distance and by at least ten times over that range."""
    sampled = [float(d) for d in table.data.distances if d >= 2.0]
    assert sampled[-1] == table.data.distances[-1]  # up to the last simulated distance
    for delta_eta in (0.3, 1.0, 2.0, -1.5):
        bounds = [mu_bound(table, d, delta_eta, 1.0, 2.0) for d in sampled]
        assert all(b1 > b2 for b1, b2 in itertools.pairwise(bounds))
        assert bounds[-1] < bounds[0] / 10.0
        # beyond the table, the extrapolation's 1/D
        far = table.data.distances[-1]
        assert mu_bound(table, 2.0 * far, delta_eta, 1.0, 2.0) == pytest.approx(
            mu_bound(table, far, delta_eta, 1.0, 2.0) / 2
        )
    # close in, the bound allows a correction of the size of the error itself
    assert max(mu_bound(table, 2.0, e, 1.0, 2.0) for e in (0.5, 1.0, 2.0, 3.0)) > 0.5
    assert max(mu_bound(table, 30.0, e, 1.0, 2.0) for e in (0.5, 1.0, 2.0, 3.0)) < 0.05


@pytest.mark.parametrize("target", [(0.0, 1.0), (0.0, 1.5), (0.5, 1.5), (1.0, 1.5)])
def test_pure_seek_orbits_and_the_table_speed_relaxation_reaches(table, target):
    """Section 3: from full speed, pure seek settles on an endless orbit around a close target
    (never within the table's reach tolerance); with the table's stored speeds it reaches it."""
    plant = Unicycle(table.unicycle)
    start = UnicycleState(v=table.unicycle.speed_max)
    tolerance = table.grid.reach_tolerance

    def closest(states):
        return min(math.hypot(s.x - target[0], s.y - target[1]) for s in states)

    pure = SeekController(target, unicycle=table.unicycle, seek=table.seek)
    states, _ = run(pure, plant, start, 20.0)
    assert pure.orbiting and closest(states) > tolerance
    assert closest(states[-120:]) > tolerance  # still circling at the end
    relaxed = SeekController(target, table=table)
    assert closest(run(relaxed, plant, start, 20.0)[0]) <= tolerance


def random_entities(size, seed):
    rng = np.random.default_rng(seed)
    p = UnicycleParams()
    v = rng.uniform(0, p.speed_max, size)
    v[:3] = 0.0
    limit = np.minimum(p.angular_speed_max, p.normal_accel_max / np.maximum(v, 1e-300))
    batch = UnicycleBatch(
        rng.uniform(-20, 20, size),
        rng.uniform(-20, 20, size),
        rng.uniform(-3, 3, size),
        v,
        rng.uniform(-1, 1, size) * limit,
    )
    targets = rng.uniform(-20, 20, (size, 2))
    targets[0] = batch.x[0], batch.y[0]  # one entity exactly on its target
    targets[1] = batch.x[1] + 0.2, batch.y[1]  # one inside D_tol
    return batch, targets, rng.uniform(-3, 3, size), rng.uniform(-0.5, 0.5, (size, 2))


@pytest.mark.parametrize("build", ["serial", "prange-1", "prange-2"])
def test_batch_equals_scalar_bit_for_bit(table, build, monkeypatch):
    if build != "serial":
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    size, frames, dt = 40, 60, 0.05
    batch, targets, courses, velocities = random_entities(size, 4)
    velocities[: size // 2] = 0.0
    plant = Unicycle(table.unicycle)
    options = {"desired_speed": 1.5, "d_tol": 0.3}
    funnel = Funnel(table, targets, courses, target_velocity=velocities, **options)
    singles = [
        Funnel(table, targets[i], courses[i], target_velocity=velocities[i], **options)
        for i in range(size)
    ]
    states = [batch.state(i) for i in range(size)]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(2 if build == "prange-2" else 1, numba.config.NUMBA_NUM_THREADS))
    seen = set()
    try:
        out = None
        for _ in range(frames):
            out = funnel.step_batch(batch, dt, out)
            commands = [
                single.step(state, dt) for single, state in zip(singles, states, strict=True)
            ]
            for i, command in enumerate(commands):
                assert (out.accel[i], out.angular_accel[i]) == tuple(command), i
                assert out.mode[i] == singles[i].mode
            seen |= set(out.mode.tolist())
            plant.step_batch(batch, out.accel, out.angular_accel, dt)
            states = [plant.step(s, c, dt) for s, c in zip(states, commands, strict=True)]
    finally:
        numba.set_num_threads(previous)
    assert batch.state(7) == states[7]
    assert seen == {0, 1, 2, 3}  # every mode exercised


def test_batch_successive_targets_equal_scalar(table):
    rng = np.random.default_rng(8)
    sequences = [
        [tuple(row) for row in np.column_stack([rng.uniform(-6, 6, (k, 2)), rng.uniform(-3, 3, k)])]
        for k in (1, 3, 2, 4)
    ]
    funnel = Funnel.successive(table, sequences, d_tol=0.4, eps_tol=0.3)
    singles = [Funnel.successive(table, seq, d_tol=0.4, eps_tol=0.3) for seq in sequences]
    plant = Unicycle(table.unicycle)
    batch = UnicycleBatch(np.zeros(4), np.zeros(4), np.zeros(4))
    states = [batch.state(i) for i in range(4)]
    for _ in range(int(40.0 / 0.05)):
        out = funnel.step_batch(batch, 0.05)
        commands = [s.step(state, 0.05) for s, state in zip(singles, states, strict=True)]
        assert np.array_equal(out.accel, [c.accel for c in commands])
        assert list(funnel.batch_target_index) == [s.target_index for s in singles]
        plant.step_batch(batch, out.accel, out.angular_accel, 0.05)
        states = [plant.step(s, c, 0.05) for s, c in zip(states, commands, strict=True)]
    assert list(funnel.batch_target_index) == [0, 2, 1, 3]  # every entity reached its last


def test_degenerate_cases_give_finite_commands(table):
    funnel = Funnel(table, (0.0, 0.0), 1.0)
    for state in (UnicycleState(), UnicycleState(v=2.0, w=1.0), UnicycleState(1e-300, 0, 0)):
        for dt in (1e-4, 0.1, 10.0):
            command = funnel.step(state, dt)
            assert math.isfinite(command.accel) and math.isfinite(command.angular_accel)
    far = Funnel(table, (1e6, -1e6), 2.0)
    command = far.step(UnicycleState(), 0.02)
    assert far.mode == Mode.FUNNELLING and math.isfinite(command.angular_accel)


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda t: Funnel(t, (1.0, 2.0), math.nan), "course"),
        (lambda t: Funnel(t, (1.0, 2.0), [0.0, math.inf]), "course"),
        (lambda t: Funnel(t, (math.nan, 2.0), 0.0), "target"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, d_tol=0.0), "d_tol"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, d_tol=-1.0), "d_tol"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, eps_tol=0.0), "eps_tol"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, eps_tol=-0.1), "eps_tol"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, eps_tol=4.0), "eps_tol"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, desired_speed=5.0), "desired_speed"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, arrival_decel=0.0), "arrival_decel"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0, target_velocity=(math.nan, 0)), "target_velocity"),
        (lambda t: Funnel(t, np.zeros((3, 2)), np.zeros(2)), "course"),
        (lambda t: Funnel("table", (1.0, 2.0), 0.0), "table"),
        (lambda t: Funnel.successive(t, [(0, 0)]), "targets"),
        (lambda t: Funnel.successive(t, [(0, 0, math.nan)]), "course"),
        (lambda t: Funnel(t, np.zeros((3, 2)), 0.0).step(UnicycleState(), 0.1), "step_batch"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0).step(UnicycleState(v=-1.0), 0.1), "v"),
        (lambda t: Funnel(t, (1.0, 2.0), 0.0).step(UnicycleState(), 0.0), "dt"),
        (
            lambda t: Funnel(t, np.zeros((3, 2)), 0.0).step_batch(
                UnicycleBatch(np.zeros(2), np.zeros(2), np.zeros(2)), 0.1
            ),
            "batch has 2",
        ),
        (lambda t: SeekController((0, 0), unicycle=UnicycleParams(normal_accel_max=0.0)), "normal"),
        (lambda t: SeekController((0, 0), table=t, unicycle=UnicycleParams(speed_max=1)), "table"),
    ],
)
def test_bad_input_names_the_argument(table, build, name):
    with pytest.raises(ValueError, match=name):
        build(table)


# -- Dubins reference, command line ---------------------------------------------------------


def follow_dubins(start, word, segments, radius):
    """End pose of a Dubins path followed segment by segment (L: left turn, R: right, S)."""
    x, y, heading = start
    for kind, amount in zip(word, segments, strict=True):
        if kind == "S":
            x += amount * radius * math.cos(heading)
            y += amount * radius * math.sin(heading)
            continue
        side = 1.0 if kind == "L" else -1.0
        centre = (x - side * radius * math.sin(heading), y + side * radius * math.cos(heading))
        heading += side * amount
        x = centre[0] + side * radius * math.sin(heading)
        y = centre[1] - side * radius * math.cos(heading)
    return x, y, heading


@given(
    st.floats(-math.pi, math.pi),
    st.floats(-20.0, 20.0),
    st.floats(-20.0, 20.0),
    st.floats(-math.pi, math.pi),
    st.floats(0.2, 5.0),
)
def test_dubins_path_ends_on_the_goal_and_is_no_shorter_than_the_chord(h0, x1, y1, h1, radius):
    from steerlab.experiments.fidelity.funnelling import dubins_path

    length, word, segments = dubins_path((0.0, 0.0, h0), (x1, y1, h1), radius)
    x, y, heading = follow_dubins((0.0, 0.0, h0), word, segments, radius)
    assert math.hypot(x - x1, y - y1) < 1e-6 * max(1.0, radius)
    assert abs(wrap(heading - h1)) < 1e-6
    assert length >= math.hypot(x1, y1) - 1e-6 * radius  # cancellation in the closed forms
    assert length == pytest.approx(radius * sum(segments))


def test_dubins_known_lengths():
    from steerlab.experiments.fidelity.funnelling import dubins_length

    assert dubins_length((0, 0, 0), (10, 0, 0), 1.0) == pytest.approx(10.0)
    assert dubins_length((0, 0, 0), (0, 0, math.pi), 1.0) == pytest.approx(7 * math.pi / 3)
    assert dubins_length((0, 0, 0), (0, 2, math.pi), 1.0) == pytest.approx(math.pi)  # a half turn


def test_command_line_table_figures_and_fidelity(table, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from steerlab.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["funnel", "build-table", "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    assert "built in" in result.output and list((tmp_path / "cache").glob("eta-*.npz"))
    result = runner.invoke(app, ["funnel", "build-table", "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0 and "found in the cache" in result.output
    monkeypatch.setenv("STEERLAB_CACHE_DIR", str(tmp_path / "cache"))
    result = runner.invoke(app, ["figures", "003", "--out", str(tmp_path / "figures")])
    assert result.exit_code == 0, result.output
    for name in ("funnel_1c", "funnel_2", "funnel_3b", "funnel_6", "funnel_7", "funnel_8"):
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 0, name
    out = tmp_path / "fidelity.md"
    result = runner.invoke(app, ["fidelity", "003", "--fast", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("## Seed 003")
    for key in (
        "table.1",
        "table.2",
        "seek.1",
        "funnel.1 static",
        "funnel.1 mobile",
        "funnel.2",
        "funnel.3",
        "cost.1",
    ):
        assert f"| {key} |" in text, key
