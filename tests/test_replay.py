"""Replays: the page's data equal the trace it came from, the page needs no
network, a real browser plays it (two times, two pictures; one time, one picture), the CLI
replays a trial, the GIF holds the frames.

The page is read back here from the format's description (``steerlab.replay.page``'s docstring):
the HTML parsed by the standard library, the JSON of ``<script id="replay-data">``, each series
base64 of little-endian float64, frames kept every ``stride = ceil(1 / (max_fps * mean
interval))``-th from the first, plus the last.
"""

import base64
import json
import math
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("jinja2")

from typer.testing import CliRunner

from steerlab.cli import app
from steerlab.follower import StuckEvent
from steerlab.geometry import Polyline
from steerlab.replay import write_replay, write_trial_replay
from steerlab.sim import Trace
from steerlab.trials.trial import TrialSpec, simulate_trial
from steerlab.vehicles import PRESETS
from steerlab.world import World, hill

SUITE = """
name = "replays"
version = 1
dt = 0.02
time_limit = 12.0
[spawn_jitter]
lateral = 0.5
yaw_deg = 5.0

[[paths]]
name = "short"
waypoints = [[0, 0], [30, 0], [45, 12]]
corridor_width = 8.0
walled = true

# a wall across the road at x = 20: the vehicle is stuck from about t = 3 s
[[paths]]
name = "blocked"
waypoints = [[0, 0], [60, 0]]
corridor_width = 8.0
time_limit = 12.0
wall_segments = [[[20, -20], [20, 20]]]
"""


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "replays.toml"
    path.write_text(SUITE, encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------------------------------
# reading a page back, from the format's description


class _Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.data_text = None
        self._inside = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self._inside = tag == "script" and attributes.get("id") == "replay-data"
        if self._inside:
            assert attributes.get("type") == "application/json"

    def handle_data(self, data):
        if self._inside:
            self.data_text = (self.data_text or "") + data

    def handle_endtag(self, tag):
        self._inside = False


def read_page(path) -> dict:
    parser = _Scripts()
    parser.feed(Path(path).read_text(encoding="utf-8"))
    assert parser.data_text is not None, "no <script id='replay-data'>"
    data = json.loads(parser.data_text)
    assert data["format"] == "steerlab.replay/1"
    assert data["encoding"] == "float64-le-base64"
    for agent in data["agents"]:
        agent["series"] = {
            name: np.frombuffer(base64.b64decode(text), dtype="<f8")
            for name, text in agent["series"].items()
        }
    return data


def expected_frames(t: np.ndarray, max_fps: float) -> np.ndarray:
    if t.size <= 2:
        return np.arange(t.size)
    stride = max(1, math.ceil(1.0 / (max_fps * (t[-1] - t[0]) / (t.size - 1)) - 1e-9))
    return np.unique(np.r_[np.arange(0, t.size, stride), t.size - 1])


def straight_trace(frames=101, dt=0.1, speed=3.0, yaw=0.3):
    t = dt * np.arange(frames)
    return Trace(
        t,
        {
            "x": speed * math.cos(yaw) * t,
            "y": speed * math.sin(yaw) * t,
            "yaw": np.full(frames, yaw),
            "v": np.full(frames, speed),
        },
        {},
    )


# --------------------------------------------------------------------------------------------------
# the data equal the trace


@settings(max_examples=25, deadline=None)
@given(
    frames=st.integers(1, 400),
    dt=st.sampled_from([0.001, 0.01, 1 / 60, 0.02, 0.05, 0.5]),
    max_fps=st.sampled_from([10.0, 30.0, 60.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_page_holds_the_traces_numbers_bit_for_bit(tmp_path_factory, frames, dt, max_fps, seed):
    rng = np.random.default_rng(seed)
    t = dt * np.arange(frames)
    x, y = np.cumsum(rng.normal(size=(2, frames)), axis=1)
    yaw = rng.uniform(-math.pi, math.pi, frames)
    vx, vy = rng.normal(size=(2, frames))
    trace = Trace(t, {"x": x, "y": y, "yaw": yaw, "vx": vx, "vy": vy}, {})
    targets = rng.normal(size=(frames, 2))
    targets[rng.random(frames) < 0.3] = np.nan  # frames without a target
    target_speed = rng.uniform(0.0, 10.0, frames)
    out = tmp_path_factory.mktemp("page") / "run.html"
    write_replay(
        out, trace, targets=targets, target_speeds=target_speed, max_fps=max_fps, title="<run>"
    )
    data = read_page(out)
    (agent,) = data["agents"]
    kept = expected_frames(t, max_fps)
    series = agent["series"]
    assert agent["source_frames"] == frames
    np.testing.assert_array_equal(series["t"], t[kept])
    np.testing.assert_array_equal(series["x"], x[kept])
    np.testing.assert_array_equal(series["y"], y[kept])
    np.testing.assert_array_equal(series["yaw"], yaw[kept])
    np.testing.assert_array_equal(series["speed"], np.hypot(vx, vy)[kept])  # |(vx, vy)|
    np.testing.assert_array_equal(series["target_x"], targets[kept, 0])  # NaN where none
    np.testing.assert_array_equal(series["target_y"], targets[kept, 1])
    np.testing.assert_array_equal(series["target_speed"], target_speed[kept])
    assert "cross_track" not in series  # no path given
    # at most max_fps frames per second of the run's time (plus the last frame)
    if frames > 2:
        assert (kept.size - 2) / (t[-1] - t[0]) <= max_fps + 1e-9
    assert data["title"] == "<run>"
    assert data["time"] == [t[0], t[-1]]


def test_the_cross_track_error_is_the_signed_distance_to_the_path(tmp_path):
    # a path along y = 0 then x = 50: the left of travel is +y, then -x
    path = Polyline([(0, 0), (50, 0), (50, 50)], widths=6.0)
    t = np.arange(5.0)
    x = np.array([10.0, 20.0, 30.0, 53.0, 48.0])
    y = np.array([1.5, -2.0, 0.0, 20.0, 30.0])
    trace = Trace(t, {"x": x, "y": y, "yaw": np.zeros(5), "v": np.ones(5)}, {})
    write_replay(tmp_path / "r.html", trace, path=path)
    series = read_page(tmp_path / "r.html")["agents"][0]["series"]
    np.testing.assert_allclose(series["cross_track"], [1.5, -2.0, 0.0, -3.0, 2.0], atol=1e-12)


def test_a_batch_trace_and_a_list_of_traces_are_agents(tmp_path):
    frames, agents = 30, 3
    t = 0.1 * np.arange(frames)
    x = np.add.outer(t, np.arange(agents, dtype=float))
    y = np.add.outer(-t, 2.0 * np.arange(agents))
    batch = Trace(t, {"x": x, "y": y, "yaw": np.zeros_like(x), "v": np.ones_like(x)}, {})
    events = [StuckEvent(2, 1.0, 0.0, 0.0, 0.0, False), StuckEvent(0, 2.55, 0.0, 0.0, 0.0, False)]
    write_replay(tmp_path / "b.html", batch, labels=["a", "b", "c"], events=events)
    data = read_page(tmp_path / "b.html")
    assert [agent["label"] for agent in data["agents"]] == ["a", "b", "c"]
    for column, agent in enumerate(data["agents"]):
        np.testing.assert_array_equal(agent["series"]["x"], x[:, column])
        np.testing.assert_array_equal(agent["series"]["y"], y[:, column])
    # each event where its agent was at its last frame at or before the event
    (event_c,) = data["agents"][2]["events"]
    assert (event_c["t"], event_c["x"], event_c["y"]) == (1.0, x[10, 2], y[10, 2])
    (event_a,) = data["agents"][0]["events"]
    assert (event_a["t"], event_a["x"], event_a["y"]) == (2.55, x[25, 0], y[25, 0])
    assert data["agents"][1]["events"] == []

    first, second = straight_trace(20, 0.1), straight_trace(40, 0.05, yaw=-1.0)
    write_replay(tmp_path / "l.html", [first, second], footprints=[(2.0, 1.0), PRESETS["zaha"]])
    listed = read_page(tmp_path / "l.html")["agents"]
    assert [(a["half_length"], a["half_width"]) for a in listed] == [
        (2.0, 1.0),
        (PRESETS["zaha"].half_length, PRESETS["zaha"].half_width),
    ]
    np.testing.assert_array_equal(listed[1]["series"]["yaw"], second.yaw)


def test_a_trial_replay_holds_the_trials_records_and_stuck_events(tmp_path, suite_file):
    spec = TrialSpec(suite_file, "blocked", "storm", "ours", 0)
    row, records = simulate_trial(spec)
    assert row["stuck_events"] >= 2
    out = write_trial_replay(tmp_path / "trial.html", spec)
    data = read_page(out)
    (agent,) = data["agents"]
    series = agent["series"]
    # 50 frames per second: every frame kept
    for name in ("t", "x", "y", "yaw", "target_speed", "target_x", "target_y"):
        np.testing.assert_array_equal(series[name], getattr(records, name))
    np.testing.assert_array_equal(series["speed"], records.v)
    np.testing.assert_array_equal(series["cross_track"], records.metrics.cross_track)
    stuck = np.flatnonzero(records.metrics.stuck_event)
    assert [event["t"] for event in agent["events"]] == list(records.t[stuck])
    assert [event["x"] for event in agent["events"]] == list(records.x[stuck])
    assert (agent["half_length"], agent["half_width"]) == (
        PRESETS["storm"].half_length,
        PRESETS["storm"].half_width,
    )
    # the path with its corridor, the world's walls (the one across the road among them)
    assert data["path"]["points"] == [[0.0, 0.0], [60.0, 0.0]]
    assert len(data["path"]["corridor"]) == 1 and data["path"]["edges"]
    assert [[20.0, -20.0], [20.0, 20.0]] in data["walls"]


def test_the_records_target_point_is_on_the_path_ahead_of_the_vehicle(suite_file):
    _, records = simulate_trial(TrialSpec(suite_file, "blocked", "bolte", "ours", 1))
    commanded = slice(0, records.t.size - 1)  # the last frame has no command
    assert np.all(records.target_y[commanded] == 0.0)  # the path is the x axis
    assert np.all(records.target_x[commanded] >= records.x[commanded])
    assert np.isnan(records.target_x[-1])


# --------------------------------------------------------------------------------------------------
# self-contained


def _urls(text: str) -> list[str]:
    found = re.findall(r"(?i)https?:|//cdn|\bsrc\s*=\s*[\"']?//|@import|<link\b", text)
    found += [
        u for u in re.findall(r"(?i)url\(\s*['\"]?([^'\")]*)", text) if not u.startswith("data:")
    ]
    return found


def test_the_page_names_no_external_url(tmp_path, suite_file):
    world = World(hill((20.0, 5.0), 6.0, 0.3, 1.0))
    out = write_replay(tmp_path / "r.html", straight_trace(), path=[(0, 0), (40, 10)], world=world)
    text = out.read_text(encoding="utf-8")
    assert _urls(text) == []
    assert read_page(out)["terrain"]["image"].startswith("data:image/png;base64,")
    trial = write_trial_replay(
        tmp_path / "t.html", TrialSpec(suite_file, "short", "armata", "baseline", 0)
    )
    assert _urls(trial.read_text(encoding="utf-8")) == []
    # the check itself finds what it must
    assert _urls('<script src="https://cdn.example/x.js"></script>') != []
    assert _urls("a { background: url(//x/y.png) }") != []


def test_a_title_cannot_break_out_of_the_page(tmp_path):
    title = "</script><script>alert(1)</script> & <b>"
    out = write_replay(tmp_path / "r.html", straight_trace(), title=title)
    text = out.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text
    assert read_page(out)["title"] == title


# --------------------------------------------------------------------------------------------------
# a real browser plays it


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def _screenshot(browser: str, page: Path, query: str, out: Path) -> np.ndarray:
    from PIL import Image

    command = [
        browser,
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--virtual-time-budget=3000",  # the embedded terrain image decodes before the picture
        "--window-size=1000,640",
        f"--screenshot={out}",
        f"{page.resolve().as_uri()}?{query}",
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    with Image.open(out) as image:
        return np.asarray(image.convert("RGB"))


def _agent_centre(picture: np.ndarray, color: str) -> np.ndarray:
    """(column, row) centroid of the pixels of exactly the agent's colour (its footprint's fill;
    trails and swatches are drawn translucent)."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    rows, columns = np.nonzero((picture == rgb).all(axis=2))
    assert rows.size > 20, "the agent's footprint is not on the picture"
    return np.array([columns.mean(), rows.mean()])


def test_a_browser_plays_the_replay(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium installed (.ci/run installs Debian's chromium)")
    trace = straight_trace(frames=201, dt=0.1, speed=3.0, yaw=0.3)  # 60 m along a line
    world = World(hill((30.0, 0.0), 5.0, 0.3, 1.0))
    page = write_replay(
        tmp_path / "r.html",
        trace,
        path=[(0, -5), (60, 15)],
        world=world,
        footprints=(1.5, 0.8),
        events=[5.0],
    )
    shots = {}
    for name, query in (
        ("a", "t=2&play=0"),
        ("a_again", "t=2&play=0"),
        ("b", "t=10&play=0"),
        ("c", "t=16&play=0"),
    ):
        shots[name] = _screenshot(browser, page, query, tmp_path / f"{name}.png")
    assert not np.array_equal(shots["a"], shots["b"])  # two times, two pictures
    np.testing.assert_array_equal(shots["a"], shots["a_again"])  # one time, one picture
    # the footprint is drawn where the trace puts it: the screen is a similarity of the world
    # (equal scales, y up), fitted on two times and checked on the third
    color = read_page(page)["agents"][0]["color"]
    centres = [_agent_centre(shots[name], color) for name in ("a", "b", "c")]
    world_at = [np.array([trace.x[k], trace.y[k]]) for k in (20, 100, 160)]
    moved_screen = centres[1] - centres[0]
    moved_world = (world_at[1] - world_at[0]) * (1.0, -1.0)
    scale = np.linalg.norm(moved_screen) / np.linalg.norm(moved_world)
    assert scale > 1.0
    np.testing.assert_allclose(moved_screen, scale * moved_world, atol=2.0)
    predicted = centres[0] + scale * (world_at[2] - world_at[0]) * (1.0, -1.0)
    np.testing.assert_allclose(centres[2], predicted, atol=2.0)


# --------------------------------------------------------------------------------------------------
# the command line

runner = CliRunner()


def test_the_cli_replays_a_trial(tmp_path, suite_file):
    out = tmp_path / "short.html"
    arguments = ["replay", "--suite", suite_file, "--path", "short", "--vehicle", "storm"]
    result = runner.invoke(app, [*arguments, "--follower", "ours", "--seed", "2", "--out", out])
    assert result.exit_code == 0, result.output
    _, records = simulate_trial(TrialSpec(suite_file, "short", "storm", "ours", 2))
    series = read_page(out)["agents"][0]["series"]
    np.testing.assert_array_equal(series["x"], records.x)
    np.testing.assert_array_equal(series["y"], records.y)


@pytest.mark.parametrize(
    ("change", "named", "allowed"),
    [
        (("--suite", "nope"), "'nope'", "table1"),
        (("--suite", "external"), "'external'", "table1"),
        (("--path", "nope"), "'nope'", "blocked"),
        (("--vehicle", "nope"), "'nope'", "hovercraft"),
        (("--follower", "nope"), "'nope'", "regulated_pure_pursuit"),
        (("--format", "avi"), "'avi'", "gif"),
        (("--out", "run.txt"), "run.txt", ".html"),
        (("--format", "gif"), "'gif'", ".gif"),  # the suffix disagrees
        (("--tuned-dir", "/nonexistent/presets"), "/nonexistent/presets", "not found"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(tmp_path, suite_file, change, named, allowed):
    options = {
        "--suite": suite_file,
        "--path": "short",
        "--vehicle": "storm",
        "--follower": "ours",
        "--out": str(tmp_path / "r.html"),
    }
    options[change[0]] = change[1]
    arguments = ["replay", *[part for pair in options.items() for part in pair]]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert named in lines[0] and allowed in lines[0]
    assert not (tmp_path / "r.html").exists()


# --------------------------------------------------------------------------------------------------
# video


def test_a_gif_replay_holds_one_frame_per_video_frame(tmp_path):
    from PIL import Image

    trace = straight_trace(frames=41, dt=0.1)  # 4 s
    out = write_replay(tmp_path / "r.gif", trace, path=[(0, 0), (12, 4)], fps=5.0, speed=2.0)
    with Image.open(out) as image:
        assert image.format == "GIF"
        assert image.n_frames == math.floor(4.0 * 5.0 / 2.0) + 1  # t = 0, 0.4, ..., 4 s
        image.seek(0)
        first = np.asarray(image.convert("RGB"))
        image.seek(image.n_frames - 1)
        last = np.asarray(image.convert("RGB"))
    assert not np.array_equal(first, last)


def test_mp4_without_ffmpeg_says_ffmpeg_is_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    with pytest.raises(ValueError, match="ffmpeg"):
        write_replay(tmp_path / "r.mp4", straight_trace())
    assert not (tmp_path / "r.mp4").exists()


# --------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"traces": "run"}, "traces must be"),
        ({"traces": []}, "traces must be"),
        ({"path_out": "run.png"}, "must end in .html, .gif or .mp4"),
        ({"format": "gif"}, "must end in .gif"),
        ({"format": "webm"}, "format must be one of"),
        ({"labels": ["a", "b"]}, "labels must be one string per agent"),
        ({"footprints": (0.0, 1.0)}, "half_length must be > 0"),
        ({"footprints": "big"}, "footprints must be"),
        ({"targets": np.zeros((5, 2))}, r"targets \(agent 0\) must have shape \(11, 2\)"),
        ({"target_speeds": np.zeros(12)}, r"must have shape \(11,\)"),
        ({"events": [2.0, 99.0]}, "within the agent's frames"),
        ({"world": "flat"}, "world must be"),
        ({"path": [(0, 0)]}, "path"),
        ({"max_fps": 0}, "max_fps must be > 0"),
        ({"title": 3}, "title must be"),
    ],
)
def test_bad_input_is_a_value_error_naming_it(tmp_path, change, message):
    arguments = {"path_out": tmp_path / "r.html", "traces": straight_trace(11)}
    arguments.update(change)
    path_out, traces = arguments.pop("path_out"), arguments.pop("traces")
    if isinstance(path_out, str):
        path_out = tmp_path / path_out
    with pytest.raises(ValueError, match=message):
        write_replay(path_out, traces, **arguments)


def test_a_trace_without_a_heading_or_with_a_nan_position_is_refused(tmp_path):
    t = np.arange(3.0)
    with pytest.raises(ValueError, match="missing"):
        write_replay(tmp_path / "r.html", Trace(t, {"x": t, "y": t}, {}))
    x = np.array([0.0, np.nan, 1.0])
    bad = Trace(t, {"x": x, "y": t, "yaw": t, "v": t}, {})
    with pytest.raises(ValueError, match=r"x\[1\] must be finite"):
        write_replay(tmp_path / "r.html", bad)
