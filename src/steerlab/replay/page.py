"""The replay as one self-contained HTML page: data as JSON, the player as inline JavaScript.

The page (Jinja2 template ``templates/replay.html``, with ``replay.js`` and ``replay.css``
inlined) needs no server and no network: open the file. Its data are one JSON object in
``<script type="application/json" id="replay-data">`` (``REPLAY_FORMAT``):

- ``format``: ``"steerlab.replay/1"``; ``title``; ``time``: ``[t_start, t_end]`` [s];
  ``bounds``: ``[x_min, x_max, y_min, y_max]`` [m], the initial view;
- ``path``: ``null`` or ``{"points": [[x, y], ...], "corridor": [rectangle, ...], "edges":
  [[[x, y], [x, y]], ...]}`` (``steerlab.plot.backdrop.corridor_rectangles`` and
  ``corridor_edges``); ``walls``: the world's wall segments ``[[[ax, ay], [bx, by]], ...]``;
- ``terrain``: ``null`` (flat ground, or no world) or ``{"image": "data:image/png;base64,...",
  "extent": [x_min, x_max, y_min, y_max]}``: ``steerlab.plot.backdrop.draw_terrain``'s
  hillshade, drawn over that extent;
- ``agents``: per agent ``label``, ``color``, ``shape`` (``"box"`` or ``"circle"``),
  ``half_length``, ``half_width`` [m], ``source_frames`` (the trace's frames), ``stride``
  (``scene.kept_frames``: frames ``0, stride, 2 stride, ...`` and the last are kept), ``events``
  (``[{"t", "x", "y", "kind"}]``, exact times, not downsampled) and ``series``: ``t``, ``x``,
  ``y``, ``yaw``, ``speed``, and where known ``cross_track``, ``target_x``, ``target_y``,
  ``target_speed``, each the kept frames' values as base64 of little-endian IEEE 754 float64
  (``"encoding": "float64-le-base64"``): the trace's numbers bit for bit, NaN included (a frame
  without a target), in about 11 bytes each.

The player draws the scene once into an off-screen canvas and, each animation frame, the agents at
the current time: positions and headings interpolated linearly between kept frames (headings the
short way round), the other quantities at the last kept frame at or before it. URL parameters:
``?t=SECONDS`` opens at that time, ``play=0`` paused (default: playing), ``speed=`` a playback
speed (default 1).
"""

from __future__ import annotations

import base64
import io
from importlib import resources
from pathlib import Path

import numpy as np

from steerlab.plot.backdrop import corridor_edges, corridor_rectangles, draw_terrain
from steerlab.plot.canvas import new_figure
from steerlab.replay.scene import MAX_FPS, ReplayScene, kept_frames

__all__ = ["ENCODING", "REPLAY_FORMAT", "render_page", "replay_data"]

REPLAY_FORMAT = "steerlab.replay/1"
ENCODING = "float64-le-base64"
_TERRAIN_PIXELS = 800  # the hillshade image's longer side at most [px]


def _encode(values: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def _pairs(points: np.ndarray) -> list:
    return np.asarray(points, dtype=np.float64).tolist()


def _terrain_image(world) -> dict | None:
    """The world's hillshade as a PNG data URI over its extent, or None (flat ground)."""
    if world is None:
        return None
    terrain = world.terrain
    x0, x1, y0, y1 = (float(value) for value in terrain.extent)
    scale = _TERRAIN_PIXELS / max(x1 - x0, y1 - y0)  # [px/m]
    width = max(1, round((x1 - x0) * scale))
    height = max(1, round((y1 - y0) * scale))
    figure, grid = new_figure(width / 100.0, height / 100.0, layout=None)
    axes = grid[0, 0]
    axes.set_position((0.0, 0.0, 1.0, 1.0))
    axes.set_axis_off()
    if draw_terrain(axes, terrain) is None:
        figure.clear()
        return None
    axes.set_xlim(x0, x1)
    axes.set_ylim(y0, y1)
    axes.set_aspect("auto")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, transparent=True)
    figure.clear()
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return {"image": f"data:image/png;base64,{encoded}", "extent": [x0, x1, y0, y1]}


def replay_data(scene: ReplayScene, *, max_fps: float = MAX_FPS) -> dict:
    """The page's JSON object (module docstring) for ``scene``, frames kept at ``max_fps``."""
    agents = []
    for agent in scene.agents:
        index = kept_frames(agent.t, max_fps)
        series = {
            name: _encode(getattr(agent, name)[index]) for name in ("t", "x", "y", "yaw", "speed")
        }
        for name in ("cross_track", "target_x", "target_y", "target_speed"):
            values = getattr(agent, name)
            if values is not None:
                series[name] = _encode(values[index])
        stride = int(index[1] - index[0]) if index.size > 1 else 1
        agents.append(
            {
                "label": agent.label,
                "color": agent.color,
                "shape": agent.shape,
                "half_length": agent.half_length,
                "half_width": agent.half_width,
                "source_frames": int(agent.t.size),
                "stride": stride,
                "events": [event._asdict() for event in agent.events],
                "series": series,
            }
        )
    path = None
    if scene.path is not None:
        path = {
            "points": _pairs(scene.path.points[:, :2]),
            "corridor": [_pairs(corners) for corners in corridor_rectangles(scene.path)],
            "edges": _pairs(corridor_edges(scene.path)),
        }
    walls = [] if scene.world is None else _pairs(np.asarray(scene.world.walls.segments))
    return {
        "format": REPLAY_FORMAT,
        "encoding": ENCODING,
        "title": scene.title,
        "time": [scene.t_start, scene.t_end],
        "bounds": list(scene.bounds),
        "max_fps": float(max_fps),
        "path": path,
        "walls": walls,
        "terrain": _terrain_image(scene.world),
        "agents": agents,
    }


def _template_text(name: str) -> str:
    return resources.files("steerlab.replay").joinpath("templates", name).read_text("utf-8")


def render_page(scene: ReplayScene, *, max_fps: float = MAX_FPS) -> str:
    """The HTML page of ``scene`` (module docstring)."""
    import jinja2  # the page's template engine (a dependency of steerlab)
    from markupsafe import Markup  # jinja2's own dependency

    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(_template_text),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    template = environment.get_template("replay.html")
    data = replay_data(scene, max_fps=max_fps)
    return template.render(
        title=scene.title,
        data=data,
        agents=data["agents"],
        max_fps=max_fps,
        script=Markup(_template_text("replay.js")),
        style=Markup(_template_text("replay.css")),
    )


def write_page(scene: ReplayScene, out: Path, *, max_fps: float = MAX_FPS) -> Path:
    """Write ``render_page(scene)`` to ``out`` (UTF-8); return ``out``."""
    out.write_text(render_page(scene, max_fps=max_fps), encoding="utf-8")
    return out
