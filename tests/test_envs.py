"""The Gymnasium environment ``steerlab/PathFollowing-v0`` and its batch-kernel vector version."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import steerlab._jit

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from steerlab.envs import ENV_ID, PathFollowingEnv, PathFollowingVectorEnv  # noqa: E402
from steerlab.geometry import Polyline  # noqa: E402
from steerlab.vehicles import VehicleState  # noqa: E402

RADIUS = 30.0  # [m] the circle of the test suite


@pytest.fixture(scope="module")
def test_suite(tmp_path_factory):
    """A suite file with a straight road and a counter-clockwise circle (no terrain, no walls)."""
    angles = np.linspace(0.0, 1.5 * math.pi, 109)
    circle = [[RADIUS * math.sin(a), RADIUS * (1.0 - math.cos(a))] for a in angles]
    text = (
        'name = "envtest"\nversion = 1\ndt = 0.02\ntime_limit = 30.0\n'
        "[spawn_jitter]\nlateral = 0.5\nyaw_deg = 5.0\n"
        '[[paths]]\nname = "straight"\nwaypoints = [[0, 0], [60, 0]]\ncorridor_width = 6.0\n'
        f'[[paths]]\nname = "circle"\nwaypoints = {circle!r}\ncorridor_width = 6.0\n'
    )
    path = tmp_path_factory.mktemp("suite") / "envtest.toml"
    path.write_text(text)
    return str(path)


# cross-track error, speed and curvature have no bound (documented): the checker's warning is
# expected, not a failure
@pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum) value")
def test_check_env_passes(test_suite):
    check_env(PathFollowingEnv(suite=test_suite, path="straight"), skip_render_check=True)
    check_env(PathFollowingEnv(suite=test_suite), skip_render_check=True)  # path drawn per reset


def test_registered_with_gymnasium(test_suite):
    env = gym.make(ENV_ID, suite=test_suite, path="straight")
    assert isinstance(env.unwrapped, PathFollowingEnv)
    vector = gym.make_vec(
        ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", suite=test_suite
    )
    assert isinstance(vector, PathFollowingVectorEnv)
    assert vector.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP


@pytest.mark.parametrize(
    ("path", "time_limit", "steps", "flag"),
    [("circle", 0.5, 60, 3), ("straight", None, 900, 2)],  # truncations; arrivals (terminated)
)
@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_vector_equals_single_envs_step_for_step(
    test_suite, path, time_limit, steps, flag, parallel, monkeypatch
):
    """Same seeds, same actions: the vector env's observations, rewards and flags equal N single
    envs', through episode ends (truncated, or terminated on arrival) and NEXT_STEP autoresets;
    with the batch kernels' serial and parallel builds."""
    if parallel:
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the prange builds, even for 3
    count, seed = 3, 11
    kwargs = {"suite": test_suite, "path": path, "time_limit": time_limit}
    vector = PathFollowingVectorEnv(count, **kwargs)
    singles = [PathFollowingEnv(**kwargs) for _ in range(count)]
    observations, _ = vector.reset(seed=seed)
    for i, env in enumerate(singles):
        single_observation, _ = env.reset(seed=seed + i)
        np.testing.assert_array_equal(observations[i], single_observation)
    rng = np.random.default_rng(0)
    ended = [False] * count
    ends = 0
    for _ in range(steps):
        actions = rng.uniform(-1.0, 1.0, size=(count, 2))
        actions[:, 0] *= 0.05  # nearly straight: the straight road is driven to its end
        actions[:, 1] = np.abs(actions[:, 1])
        observations, rewards, terminated, truncated, _ = vector.step(actions)
        for i, env in enumerate(singles):
            # NEXT_STEP autoreset: the step after an episode ended resets it
            expected = (env.reset()[0], 0.0, False, False) if ended[i] else env.step(actions[i])[:4]
            np.testing.assert_array_equal(observations[i], expected[0])
            assert rewards[i] == expected[1]
            assert (terminated[i], truncated[i]) == (expected[2], expected[3])
            ended[i] = expected[2] or expected[3]
            ends += expected[flag]
    assert ends >= count  # the comparison went through an episode end and an autoreset each


def test_truncated_at_time_limit(test_suite):
    env = PathFollowingEnv(suite=test_suite, path="straight", time_limit=0.1)  # 5 frames of 0.02 s
    env.reset(seed=0)
    flags = [env.step(np.array([0.0, 1.0]))[2:4] for _ in range(5)]
    assert flags == [(False, False)] * 4 + [(False, True)]
    with pytest.raises(RuntimeError):
        env.step(np.array([0.0, 1.0]))


def test_terminated_at_path_end(test_suite):
    """Full throttle down a 60 m straight: the episode terminates (arrival), before the limit."""
    env = PathFollowingEnv(suite=test_suite, path="straight")
    env.reset(seed=1)
    for _ in range(env.task.max_steps):
        _, _, terminated, truncated, info = env.step(np.array([0.0, 1.0]))
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert info["s"] >= 60.0 - 2.0  # Table I's arrival radius
    assert "failed" not in info


def test_reward_sign_follows_progress(test_suite):
    """Once moving, driving forward along the path earns, reversing away from it costs."""
    env = PathFollowingEnv(suite=test_suite, path="straight")
    for throttle, sign in ((1.0, 1.0), (-1.0, -1.0)):
        env.reset(seed=2)
        if throttle < 0.0:
            state = env.unwrapped.state
            env.unwrapped.state = state._replace(x=30.0, y=0.0, yaw=0.0)  # mid-road, room behind
            env.unwrapped._s = 30.0
        rewards = [env.step(np.array([0.0, throttle]))[1] for _ in range(150)]
        assert sign * np.sum(rewards[-50:]) > 0.0
        assert abs(env.unwrapped.state.v) > 1.0


def test_observation_reads_the_path(test_suite):
    """On a counter-clockwise circle the curvatures ahead are +1/R; at the spawn the heading and
    cross-track errors are the spawn jitter (|e| <= 0.5 m, |heading error| <= 5 degrees)."""
    env = PathFollowingEnv(suite=test_suite, path="circle")
    observation, _ = env.reset(seed=3)
    curvatures = observation[3:-1]
    np.testing.assert_allclose(curvatures, 1.0 / RADIUS, rtol=0.01)
    assert abs(observation[1]) <= 0.5 + 1e-6
    assert abs(observation[2]) <= math.radians(5.0) + 1e-6
    assert observation[0] == 0.0  # at rest
    # Algorithm 1 on a circle: sqrt(a_lat g R) clamped to [1, 10] m/s
    assert observation[-1] == pytest.approx(min(math.sqrt(0.4 * 9.81 * RADIUS), 10.0), rel=0.02)


def test_seeding_is_deterministic(test_suite):
    def run(seed):
        env = PathFollowingEnv(suite=test_suite)
        observations = [env.reset(seed=seed)[0]]
        observations += [env.step(np.array([0.3, 0.8]))[0] for _ in range(20)]
        return np.array(observations), env.task.path_name

    first, path_first = run(5)
    again, path_again = run(5)
    np.testing.assert_array_equal(first, again)
    assert path_first == path_again
    other = [run(seed)[0][0] for seed in range(6, 10)]
    # reset() without a seed goes on with the generator: the vector env as a single one
    vector = PathFollowingVectorEnv(2, suite=test_suite, path="straight")
    single = PathFollowingEnv(suite=test_suite, path="straight")
    vector.reset(seed=4)
    single.reset(seed=4)
    np.testing.assert_array_equal(vector.reset()[0][0], single.reset()[0])
    assert any(not np.array_equal(first[0], observation) for observation in other)


def test_failed_state_terminates(test_suite):
    env = PathFollowingEnv(suite=test_suite, path="straight")
    env.reset(seed=0)
    env.unwrapped.state = VehicleState(x=math.nan)
    _, reward, terminated, _, info = env.unwrapped.step(np.array([0.0, 0.0]))
    assert terminated and info["failed"] and reward == 0.0


def test_vector_failed_copy_ends_and_resets(test_suite):
    vector = PathFollowingVectorEnv(3, suite=test_suite, path="straight")
    vector.reset(seed=0)
    vector.batch.x[1] = math.nan
    actions = np.tile([0.0, 1.0], (3, 1))
    observations, rewards, terminated, truncated, infos = vector.step(actions)
    assert terminated.tolist() == [False, True, False] and not truncated.any()
    assert infos["failed"].tolist() == [False, True, False]
    # the zero vector clipped into the box: the target speed at its lowest, v_min
    space = vector.single_observation_space
    expected = np.clip(np.zeros(space.shape), space.low, space.high)
    np.testing.assert_array_equal(observations[1], expected)
    assert rewards[1] == 0.0 and observations[1, -1] == space.low[-1] > 0.0
    observations, rewards, terminated, _, _ = vector.step(actions)  # autoreset of copy 1
    assert not terminated.any() and rewards[1] == 0.0
    assert np.isfinite(observations).all() and observations[1, 0] == 0.0  # a new spawn, at rest


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"vehicle": "nope"}, "vehicle"),
        ({"path": "nope"}, "nope"),
        ({"curvature_samples": 0}, "curvature_samples"),
        ({"curvature_spacing": -1.0}, "curvature_spacing"),
        ({"cross_track_weight": math.nan}, "cross_track_weight"),
    ],
)
def test_bad_input_names_the_argument(test_suite, kwargs, word):
    with pytest.raises(ValueError, match=word):
        PathFollowingEnv(suite=test_suite, **kwargs)


def test_vector_bad_input(test_suite):
    with pytest.raises(ValueError, match="num_envs"):
        PathFollowingVectorEnv(0, suite=test_suite)
    vector = PathFollowingVectorEnv(2, suite=test_suite)
    vector.reset(seed=0)
    with pytest.raises(ValueError, match="actions"):
        vector.step(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"^actions must be"):
        vector.step(np.array([[object(), 1.0], [0.0, 0.0]], dtype=object))
    for seed in (1.5, True, [0, 1.5], [0], "0"):
        with pytest.raises(ValueError, match=r"^seed must be"):
            vector.reset(seed=seed)
    vector.reset(seed=[3, None])  # one seed per copy, None: that copy's generator goes on
    vector.reset(seed=np.array([3, 4]))  # NumPy integers too


def test_single_env_bad_seed_and_action_name_the_argument(test_suite):
    env = PathFollowingEnv(suite=test_suite, path="straight")
    for seed in (1.5, True, "0"):
        with pytest.raises(ValueError, match=r"^seed must be None or an int"):
            env.reset(seed=seed)
    env.reset(seed=np.int64(4))
    with pytest.raises(ValueError, match=r"^action must be"):
        env.step(np.array([object(), 1.0], dtype=object))


# -- cross-track error: the library's definition (Polyline.project) ----------------------------


def _observe_many(task, polyline, x, y, s_last, yaw=None):
    """The observation kernel (``_observe_batch``, as the vector env calls it) for vehicles at
    ``(x, y)`` on ``polyline``, with the settings of ``task``; returns the observations."""
    from steerlab.envs._kernels import Outcome, Progress, _observe_batch
    from steerlab.envs.path_following import observe_path

    size = len(x)
    state = VehicleState(
        np.array(x, dtype=float),
        np.array(y, dtype=float),
        np.zeros(size) if yaw is None else np.array(yaw, dtype=float),
        np.ones(size),
        np.zeros(size),
        np.zeros(size),
        np.zeros(size),
    )
    segment = np.array([polyline.segment_at(s) for s in s_last], dtype=np.int64)
    progress = Progress(np.array(s_last, dtype=float), segment)
    observation = np.zeros((size, 4 + task.curvature_samples))
    outcome = Outcome(np.zeros(size), np.zeros(size, dtype=np.int8))
    path = observe_path(polyline, task.spacing)
    _observe_batch(state, progress, task.settings, path, task.dt, observation, outcome)
    return observation


@pytest.fixture(scope="module")
def task(test_suite):
    return PathFollowingVectorEnv(1, suite=test_suite, path="straight").task


def test_cross_track_at_a_vertex_takes_the_neighbour_segment(task):
    """Past the outside of a left corner, on the extension of the first segment: the point is
    right of the path (``Polyline.project``'s vertex-neighbour rule), though the closest point's
    own segment alone puts it on the line (zero cross product: "left" by a bare sign test)."""
    polyline = Polyline([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]])
    projection = polyline.project((12.0, 0.0))
    tangent, offset = np.array([10.0, 0.0]), np.array([2.0, 0.0])
    assert tangent[0] * offset[1] - tangent[1] * offset[0] == 0.0  # the bare test: "left"
    assert projection.cross_track == -2.0
    observation = _observe_many(task, polyline, [12.0], [0.0], [10.0])
    assert observation[0, 1] == -2.0


def test_cross_track_beyond_the_tracked_arc_is_the_distance_to_the_path(task):
    """The progress is tracked on [s - 2 m, s + 20 m]; the cross-track error is the distance to
    the nearest point of the whole path, as Table I's observer measures it (3 m here, not the
    30 m to the end of the tracked arc)."""
    polyline = Polyline([[0.0, 0.0], [60.0, 0.0]])
    observation = _observe_many(task, polyline, [50.0], [3.0], [0.0])
    assert observation[0, 1] == 3.0 == polyline.project((50.0, 3.0)).cross_track


coordinate = st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(
    waypoints=st.lists(st.tuples(coordinate, coordinate), min_size=2, max_size=8),
    positions=st.lists(st.tuples(coordinate, coordinate), min_size=1, max_size=8),
    fraction=st.floats(0.0, 1.0),
    integral=st.booleans(),
)
def test_cross_track_is_polyline_project(task, waypoints, positions, fraction, integral):
    """For any path and positions (integer ones too: vertices, path extensions, ties) and any
    tracked arc, the environment's cross-track error is ``Polyline.project(...)[3]``."""
    points = np.array(waypoints)
    if integral:
        points = np.round(points)
        positions = [(round(x), round(y)) for x, y in positions]
    assume(np.linalg.norm(np.diff(points, axis=0), axis=1).sum() > 1e-3)
    polyline = Polyline(points)
    x, y = (list(column) for column in zip(*positions, strict=True))
    s_last = [fraction * polyline.length] * len(x)
    observation = _observe_many(task, polyline, x, y, s_last)
    expected = [polyline.project(position)[3] for position in positions]
    np.testing.assert_array_equal(observation[:, 1], expected)
