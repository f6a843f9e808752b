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


@pytest.fixture
def agg():
    """matplotlib on its Agg backend, as on a machine without a display."""
    import matplotlib

    matplotlib.use("Agg")


def _check_env_strict(env, **options):
    """Gymnasium's ``check_env`` with every warning an error (the checker warns, not raises,
    about infinite bounds, missing render fps, observations outside the space ...)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, **options)


def test_check_env_passes_without_a_warning(test_suite, agg):
    """The default environment (suite ``train``, a path drawn per reset) and another (the test
    suite, the hovercraft, 3 curvatures, rendering): made by ``gym.make`` so that the checker
    also makes and renders every declared render mode."""
    _check_env_strict(gym.make(ENV_ID).unwrapped)
    other = gym.make(
        ENV_ID,
        suite=test_suite,
        vehicle="hovercraft",
        curvature_samples=3,
        cross_track_limit=4.0,
        render_mode="rgb_array",
    )
    _check_env_strict(other.unwrapped)
    # made directly, without a spec: the checker cannot make the other render modes
    _check_env_strict(PathFollowingEnv(suite=test_suite, path="straight"), skip_render_check=True)


def test_registered_with_gymnasium(test_suite):
    env = gym.make(ENV_ID, suite=test_suite, path="straight")
    assert isinstance(env.unwrapped, PathFollowingEnv)
    vector = gym.make_vec(
        ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", suite=test_suite
    )
    assert isinstance(vector, PathFollowingVectorEnv)
    assert vector.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP


def _sync(count, **kwargs):
    """Gymnasium's own vector env of ``count`` single envs (its default autoreset mode)."""
    return gym.vector.SyncVectorEnv([lambda: PathFollowingEnv(**kwargs) for _ in range(count)])


def _assert_same_step(ours, theirs):
    """Two vector envs' step (or reset) results equal: observations, rewards and flags bit for
    bit, infos by Gymnasium's ``data_equivalence`` with ``exact=True`` (keys, masks, dtypes)."""
    from gymnasium.utils.env_checker import data_equivalence

    assert len(ours) == len(theirs)
    for mine, expected in zip(ours[:-1], theirs[:-1], strict=True):
        assert mine.dtype == expected.dtype
        np.testing.assert_array_equal(mine, expected)
    assert ours[-1].keys() == theirs[-1].keys()
    assert data_equivalence(ours[-1], theirs[-1], exact=True), (ours[-1], theirs[-1])


def test_sync_vector_env_uses_the_default_autoreset_mode():
    """The convention matched: SyncVectorEnv's default mode is the one the vector env declares."""
    sync = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")])
    assert sync.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    assert PathFollowingVectorEnv.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"]


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    count=st.integers(1, 4),
    time_limit=st.sampled_from([0.1, 0.26]),
    actions=st.lists(
        st.lists(st.tuples(st.floats(-1.5, 1.5), st.floats(-1.5, 1.5)), min_size=4, max_size=4),
        min_size=1,
        max_size=40,
    ),
)
def test_vector_env_equals_sync_vector_env(test_suite, seed, count, time_limit, actions):
    """By default (a path drawn per reset, per copy), for any seed and actions (out of the box
    too: clipped), the vector env's resets and steps equal SyncVectorEnv's of the single env,
    through truncations and NEXT_STEP autoresets, infos included."""
    kwargs = {"suite": test_suite, "time_limit": time_limit}
    ours, theirs = PathFollowingVectorEnv(count, **kwargs), _sync(count, **kwargs)
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    _assert_same_step(ours.reset(seed=seed), theirs.reset(seed=seed))
    for action in actions:
        batch = np.array(action[:count], dtype=np.float32)
        result = ours.step(batch)
        _assert_same_step(result, theirs.step(batch))
        assert ours.observation_space.contains(result[0])
    _assert_same_step(ours.reset(), theirs.reset())  # no seed: the generators go on


def test_vector_env_equals_sync_vector_env_through_arrivals_and_partial_resets(test_suite):
    """Long episodes ending by arrival on the straight road, a partial reset (``reset_mask``) and
    a reset on a chosen path in the middle; both paths of the suite drawn by the copies."""
    count = 4
    kwargs = {"suite": test_suite}
    ours, theirs = PathFollowingVectorEnv(count, **kwargs), _sync(count, **kwargs)
    _assert_same_step(ours.reset(seed=7), theirs.reset(seed=7))
    rng = np.random.default_rng(1)
    paths, arrivals = set(), 0
    for step in range(1200):
        actions = np.column_stack(
            (rng.uniform(-0.05, 0.05, count), rng.uniform(0.5, 1.0, count))
        ).astype(np.float32)
        result = ours.step(actions)
        _assert_same_step(result, theirs.step(actions))
        arrivals += int(result[2].sum())
        paths.update(result[-1]["path"])
        if step == 300:
            mask = np.array([True, False, True, False])
            options = {"reset_mask": mask}
            _assert_same_step(
                ours.reset(seed=3, options=dict(options)), theirs.reset(seed=3, options=options)
            )
        if step == 600:
            options = {"path": "straight"}
            _assert_same_step(ours.reset(options=dict(options)), theirs.reset(options=options))
    assert paths == {"straight", "circle"}
    assert arrivals >= count


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
    # a copy whose simulation explodes: a finite speed whose drag overflows (a NaN written into
    # the batch is refused before the step, as in any batch)
    vector.batch.v[1] = 1e308
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


# -- observation bounds ---------------------------------------------------------------------------


def test_observation_bounds_are_what_the_quantities_can_be(test_suite):
    """Speed within the preset's governed limits, heading error within [-pi, pi], curvature
    within the suite's largest (the circle's 1/R), target speed within the follower's."""
    from steerlab.follower.params import FollowerParams
    from steerlab.vehicles import PRESETS

    env = PathFollowingEnv(suite=test_suite, vehicle="zaha", cross_track_limit=7.0)
    space = env.observation_space
    params, follower = PRESETS["zaha"], FollowerParams()
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    assert (space.low[0], space.high[0]) == (-params.max_reverse_speed, params.max_speed)
    assert (space.low[1], space.high[1]) == (-7.0, 7.0)
    assert (space.low[2], space.high[2]) == (np.float32(-math.pi), np.float32(math.pi))
    np.testing.assert_allclose(space.high[3:-1], 1.0 / RADIUS, rtol=0.01)
    np.testing.assert_array_equal(space.low[3:-1], -space.high[3:-1])
    assert (space.low[-1], space.high[-1]) == (follower.v_min, follower.v_max)


def test_cross_track_beyond_its_limit_is_clipped_in_the_observation_not_the_reward(test_suite):
    """A vehicle 20 m left of the straight road, at rest: the observation says the limit (5 m),
    the reward pays for the 20 m (and for standing still)."""
    env = PathFollowingEnv(suite=test_suite, path="straight", cross_track_limit=5.0)
    env.reset(seed=0)
    env.state = VehicleState(x=30.0, y=20.0)
    env._s, env._segment = 30.0, 0
    observation, reward, _, _, _ = env.step(np.array([0.0, 0.0]))
    dt = env.task.dt
    assert observation[1] == 5.0
    assert Polyline([[0.0, 0.0], [60.0, 0.0]]).project((30.0, 20.0)).cross_track == 20.0
    # at rest: no progress; cross-track and stuck penalties with the default weights (1, 1)
    assert reward == pytest.approx(-20.0 * dt - 1.0 * dt, abs=1e-12)
    assert env.observation_space.contains(observation)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    steer=st.floats(-1.0, 1.0),
    throttle=st.floats(-1.0, 1.0),
)
def test_observations_stay_in_the_box_while_driving_off(test_suite, seed, steer, throttle):
    """Any constant command for 15 s (out of the corridor, in reverse, in circles): every
    observation lies in the space."""
    env = PathFollowingEnv(suite=test_suite, cross_track_limit=3.0, time_limit=15.0)
    observation, _ = env.reset(seed=seed)
    action = np.array([steer, throttle], dtype=np.float32)
    done = False
    while not done:
        assert env.observation_space.contains(observation), observation
        observation, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    assert env.observation_space.contains(observation), observation


# -- the episode's order, the path option -----------------------------------------------------


def test_step_before_reset_is_an_error(test_suite):
    env = PathFollowingEnv(suite=test_suite, path="straight", render_mode="rgb_array")
    with pytest.raises(RuntimeError, match=r"before reset\(\): call reset\(\) first"):
        env.step(np.array([0.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.render()
    vector = PathFollowingVectorEnv(2, suite=test_suite, render_mode="rgb_array")
    with pytest.raises(RuntimeError, match=r"before reset\(\): call reset\(\) first"):
        vector.step(np.zeros((2, 2)))
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        vector.render()
    env.reset(seed=0)
    env.step(np.array([0.0, 1.0]))
    vector.reset(seed=0)
    vector.step(np.zeros((2, 2)))


def test_a_path_option_holds_for_one_episode(test_suite):
    env = PathFollowingEnv(suite=test_suite, path="straight")
    assert env.reset(seed=0, options={"path": "circle"})[1]["path"] == "circle"
    assert env.reset()[1]["path"] == "straight"
    with pytest.raises(ValueError, match=r"nope.*straight.*circle"):
        env.reset(options={"path": "nope"})
    with pytest.raises(ValueError, match="unknown keys"):
        env.reset(options={"paths": "circle"})


def test_default_path_is_drawn_per_reset_in_both_envs(test_suite):
    """No ``path``: the single env and each copy of the vector env draw one at every reset."""
    env = PathFollowingEnv(suite=test_suite)
    assert {env.reset(seed=seed)[1]["path"] for seed in range(20)} == {"straight", "circle"}
    vector = PathFollowingVectorEnv(20, suite=test_suite)
    assert set(vector.reset(seed=0)[1]["path"]) == {"straight", "circle"}


@pytest.mark.parametrize("mode", ["ansi", "rgb", "", 3])
def test_unknown_render_mode_names_it_and_the_allowed_ones(test_suite, mode):
    with pytest.raises(ValueError, match=r"render_mode.*" + repr(mode) + r".*'human', 'rgb_array'"):
        PathFollowingEnv(suite=test_suite, render_mode=mode)
    with pytest.raises(ValueError, match=r"render_mode.*" + repr(mode) + r".*'rgb_array'"):
        PathFollowingVectorEnv(2, suite=test_suite, render_mode=mode)


def test_vector_env_renders_rgb_array_only(test_suite):
    with pytest.raises(ValueError, match=r"render_mode.*'human'.*allowed.*\['rgb_array'\]"):
        PathFollowingVectorEnv(2, suite=test_suite, render_mode="human")


# -- rendering ------------------------------------------------------------------------------------


def _vehicle_pixels(frame):
    """Rows and columns of the pixels of the vehicle's colour (its footprint's fill)."""
    from steerlab.envs.render import VEHICLE_COLOR

    rows, columns = np.nonzero(np.all(frame == np.array(VEHICLE_COLOR, dtype=np.uint8), axis=2))
    assert rows.size > 20, "the vehicle is not in the frame"
    return rows, columns


def _principal_angle(rows, columns):
    """Direction [rad] of the longest axis of a pixel blob, in world orientation (up = +y)."""
    x, y = columns - columns.mean(), -(rows - rows.mean())
    values, vectors = np.linalg.eigh(np.cov(np.vstack((x, y))))
    major = vectors[:, np.argmax(values)]
    return math.atan2(major[1], major[0])


def test_rgb_array_frames_follow_the_vehicle(test_suite):
    """Frames are (480, 640, 3) uint8; as the vehicle drives round the circle, the centroid of
    its colour moves the way the vehicle moved (world y up = rows up), by the same number of
    pixels per metre in every direction, and the footprint's long axis lies along the yaw."""
    from steerlab.envs.render import FRAME_SIZE

    env = PathFollowingEnv(suite=test_suite, path="circle", render_mode="rgb_array")
    env.reset(seed=0)
    positions, centroids, frames = [], [], []
    for block in range(4):
        if block:
            for _ in range(100):
                env.step(np.array([0.12, 0.6]))
        frame = env.render()
        assert frame.shape == (FRAME_SIZE[1], FRAME_SIZE[0], 3) and frame.dtype == np.uint8
        rows, columns = _vehicle_pixels(frame)
        frames.append(frame)
        centroids.append((columns.mean(), rows.mean()))
        positions.append((env.state.x, env.state.y))
        if block:
            angle = _principal_angle(rows, columns)
            # an axis, not a direction: compare modulo pi
            assert abs(math.remainder(angle - env.state.yaw, math.pi)) < math.radians(6.0)
    assert not np.array_equal(frames[0], frames[1])
    moved = np.diff(np.array(positions), axis=0)  # [m]
    shifted = np.diff(np.array(centroids), axis=0) * np.array([1.0, -1.0])  # [px], y up
    scales = []
    for world, pixels in zip(moved, shifted, strict=True):
        assert np.hypot(*world) > 5.0
        cosine = world @ pixels / (np.hypot(*world) * np.hypot(*pixels))
        assert cosine > 0.995, (world, pixels)
        scales.append(np.hypot(*pixels) / np.hypot(*world))
    assert max(scales) / min(scales) < 1.05
    assert abs(moved[:, 1]).max() > 5.0  # the circle made the vehicle move up the frame too
    # the frame's own world -> pixel mapping puts the centre of mass on the centroid
    column, row = env._frame.world_to_pixel(env.state.x, env.state.y)
    rows, columns = _vehicle_pixels(env.render())
    assert np.hypot(column - columns.mean(), row - rows.mean()) < 1.5


def test_rgb_array_frame_draws_the_corridor_and_the_target(test_suite):
    """On the straight road (corridor 6 m): the corridor's edges 3 m either side of the centre
    line are drawn (dark pixels along them), and the target point's colour lies ahead of the
    vehicle (+x: columns to the right)."""
    from steerlab.envs.render import TARGET_COLOR

    env = PathFollowingEnv(suite=test_suite, path="straight", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    mapping = env._frame.world_to_pixel
    for side in (3.0, -3.0):
        dark = 0
        for x in np.linspace(5.0, 55.0, 41):
            column, row = (round(value) for value in mapping(x, side))
            dark += int(frame[row - 1 : row + 2, column].min() < 160)
        assert dark > 20  # a dashed line: most samples hit a dash
    column, row = (round(value) for value in mapping(30.0, 1.5))
    assert frame[row, column].min() > 250  # between the centre line and an edge: nothing
    rows, columns = np.nonzero(np.all(frame == np.array(TARGET_COLOR, dtype=np.uint8), axis=2))
    _, vehicle_columns = _vehicle_pixels(frame)
    assert rows.size and columns.mean() > vehicle_columns.max()


def test_human_mode_runs_headless(test_suite, agg):
    """With the Agg backend (no display): reset and steps draw the window's figure, render()
    returns None, nothing warns, close() twice is fine."""
    import warnings

    env = PathFollowingEnv(suite=test_suite, path="circle", render_mode="human")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0)
        for _ in range(5):
            env.step(np.array([0.0, 1.0]))
        assert env.render() is None
    image = env._window.image.get_array()
    np.testing.assert_array_equal(image, env._draw())  # the window shows the current frame
    env.close()
    env.close()


def test_vector_env_frames_are_sync_vector_env_frames(test_suite):
    kwargs = {"suite": test_suite, "render_mode": "rgb_array"}
    ours, theirs = PathFollowingVectorEnv(3, **kwargs), _sync(3, **kwargs)
    ours.reset(seed=5)
    theirs.reset(seed=5)
    for _ in range(30):
        actions = np.tile(np.array([0.2, 1.0], dtype=np.float32), (3, 1))
        ours.step(actions)
        theirs.step(actions)
    mine, expected = ours.render(), theirs.render()
    assert len(mine) == len(expected) == 3
    for frame, other in zip(mine, expected, strict=True):
        np.testing.assert_array_equal(frame, other)
