// steerlab.replay: plays the run whose data are the JSON of #replay-data (steerlab.replay.page).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);

  function decode(text) {
    // base64 of little-endian float64 -> Float64Array
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var view = new DataView(bytes.buffer);
    var out = new Float64Array(bytes.length / 8);
    for (var k = 0; k < out.length; k++) out[k] = view.getFloat64(8 * k, true);
    return out;
  }

  var agents = data.agents.map(function (agent) {
    var series = {};
    Object.keys(agent.series).forEach(function (name) { series[name] = decode(agent.series[name]); });
    return { meta: agent, s: series, n: series.t.length };
  });
  var t0 = data.time[0], t1 = data.time[1];

  // ---------------------------------------------------------------------------------------------
  // state, from the URL: ?t=SECONDS&play=0&speed=2

  var params = new URLSearchParams(window.location.search);
  function number(name, fallback) {
    var value = parseFloat(params.get(name));
    return isFinite(value) ? value : fallback;
  }
  var time = Math.min(Math.max(number("t", t0), t0), t1);
  var playing = params.get("play") !== "0" && time < t1;
  var speed = number("speed", 1);
  if (!(speed > 0)) speed = 1;

  var canvas = document.getElementById("scene");
  var context = canvas.getContext("2d");
  var slider = document.getElementById("time");
  var playButton = document.getElementById("play");
  var speedSelect = document.getElementById("speed");
  var clock = document.getElementById("clock");
  var link = document.getElementById("link");
  var rows = document.querySelectorAll("#readout tbody tr");
  var terrain = null;
  var layer = document.createElement("canvas");  // the static scene, redrawn on resize and zoom
  var view = null;  // {scale [px/m], x, y: the world point at the canvas's centre}
  var ratio = window.devicePixelRatio || 1;

  // ---------------------------------------------------------------------------------------------
  // view: world (x east, y north) to canvas pixels, equal scales

  function fit() {
    var b = data.bounds;
    var width = canvas.width, height = canvas.height;
    var scale = Math.min(width / (b[1] - b[0]), height / (b[3] - b[2]));
    view = { scale: scale, x: 0.5 * (b[0] + b[1]), y: 0.5 * (b[2] + b[3]) };
  }
  function px(x, y) {
    return [0.5 * canvas.width + (x - view.x) * view.scale,
            0.5 * canvas.height - (y - view.y) * view.scale];
  }
  function toWorld(cx, cy) {
    return [view.x + (cx - 0.5 * canvas.width) / view.scale,
            view.y - (cy - 0.5 * canvas.height) / view.scale];
  }

  function polyline(ctx, points) {
    ctx.beginPath();
    for (var i = 0; i < points.length; i++) {
      var p = px(points[i][0], points[i][1]);
      if (i === 0) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]);
    }
  }

  function drawStatic() {
    layer.width = canvas.width;
    layer.height = canvas.height;
    var ctx = layer.getContext("2d");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, layer.width, layer.height);
    if (terrain && data.terrain) {
      var e = data.terrain.extent, a = px(e[0], e[3]), b = px(e[1], e[2]);
      ctx.drawImage(terrain, a[0], a[1], b[0] - a[0], b[1] - a[1]);
    }
    var path = data.path;
    if (path) {
      ctx.fillStyle = "rgba(240, 230, 140, 0.25)";  // khaki, as steerlab.plot.backdrop
      path.corridor.forEach(function (corners) { polyline(ctx, corners); ctx.closePath(); ctx.fill(); });
      ctx.strokeStyle = "#696969";
      ctx.lineWidth = 1 * ratio;
      ctx.setLineDash([5 * ratio, 4 * ratio]);
      path.edges.forEach(function (edge) { polyline(ctx, edge); ctx.stroke(); });
      ctx.setLineDash([]);
      ctx.strokeStyle = "rgba(0, 0, 0, 0.6)";
      ctx.lineWidth = 1.2 * ratio;
      polyline(ctx, path.points);
      ctx.stroke();
      var first = path.points[0], last = path.points[path.points.length - 1];
      var start = px(first[0], first[1]), end = px(last[0], last[1]);
      ctx.fillStyle = "#000000";
      ctx.beginPath(); ctx.arc(start[0], start[1], 3.5 * ratio, 0, 2 * Math.PI); ctx.fill();
      star(ctx, end[0], end[1], 7 * ratio);
    }
    ctx.strokeStyle = "#000000";
    ctx.lineWidth = 2 * ratio;
    data.walls.forEach(function (wall) { polyline(ctx, wall); ctx.stroke(); });
    // each agent's whole trajectory, faint
    agents.forEach(function (agent) {
      ctx.strokeStyle = agent.meta.color;
      ctx.globalAlpha = 0.25;
      ctx.lineWidth = 1 * ratio;
      ctx.beginPath();
      for (var i = 0; i < agent.n; i++) {
        var p = px(agent.s.x[i], agent.s.y[i]);
        if (i === 0) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]);
      }
      ctx.stroke();
      ctx.globalAlpha = 1;
    });
  }

  function star(ctx, x, y, r) {
    ctx.beginPath();
    for (var i = 0; i < 10; i++) {
      var radius = i % 2 ? 0.45 * r : r, angle = -Math.PI / 2 + i * Math.PI / 5;
      ctx.lineTo(x + radius * Math.cos(angle), y + radius * Math.sin(angle));
    }
    ctx.closePath();
    ctx.fill();
  }

  function cross(ctx, x, y, r) {
    ctx.beginPath();
    ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r);
    ctx.moveTo(x - r, y + r); ctx.lineTo(x + r, y - r);
    ctx.stroke();
  }

  // ---------------------------------------------------------------------------------------------
  // an agent at a time

  function frameAt(agent, t) {
    // the last kept frame at or before t (-1 before the first)
    var t_ = agent.s.t, lo = 0, hi = agent.n - 1;
    if (t < t_[0]) return -1;
    if (t >= t_[hi]) return hi;
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (t_[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
  }

  function pose(agent, t) {
    var i = frameAt(agent, t), s = agent.s;
    if (i < 0) return null;
    if (i >= agent.n - 1) return { i: i, x: s.x[i], y: s.y[i], yaw: s.yaw[i] };
    var u = (t - s.t[i]) / (s.t[i + 1] - s.t[i]);
    var turn = s.yaw[i + 1] - s.yaw[i];
    turn -= 2 * Math.PI * Math.round(turn / (2 * Math.PI));  // the short way round
    return { i: i, x: s.x[i] + u * (s.x[i + 1] - s.x[i]), y: s.y[i] + u * (s.y[i + 1] - s.y[i]),
             yaw: s.yaw[i] + u * turn };
  }

  function drawAgent(agent, t) {
    var p = pose(agent, t);
    if (!p) return;
    var s = agent.s, meta = agent.meta, ctx = context;
    // travelled part of the trajectory
    ctx.strokeStyle = meta.color;
    ctx.globalAlpha = 0.7;
    ctx.lineWidth = 1.5 * ratio;
    ctx.beginPath();
    for (var i = 0; i <= p.i; i++) {
      var q = px(s.x[i], s.y[i]);
      if (i === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]);
    }
    var here = px(p.x, p.y);
    ctx.lineTo(here[0], here[1]);
    ctx.stroke();
    ctx.globalAlpha = 1;
    // target point and the line of sight to it
    if (s.target_x && isFinite(s.target_x[p.i]) && isFinite(s.target_y[p.i])) {
      var target = px(s.target_x[p.i], s.target_y[p.i]);
      ctx.strokeStyle = "#2ca02c";
      ctx.lineWidth = 1 * ratio;
      ctx.setLineDash([2 * ratio, 3 * ratio]);
      ctx.beginPath(); ctx.moveTo(here[0], here[1]); ctx.lineTo(target[0], target[1]); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = "#2ca02c";
      ctx.beginPath(); ctx.arc(target[0], target[1], 3.5 * ratio, 0, 2 * Math.PI); ctx.fill();
    }
    // footprint
    var c = Math.cos(p.yaw), n = Math.sin(p.yaw), L = meta.half_length, W = meta.half_width;
    ctx.fillStyle = meta.color;
    ctx.strokeStyle = "#000000";
    ctx.lineWidth = 1 * ratio;
    ctx.beginPath();
    if (meta.shape === "circle") {
      ctx.arc(here[0], here[1], W * view.scale, 0, 2 * Math.PI);
    } else {
      [[L, W], [-L, W], [-L, -W], [L, -W]].forEach(function (corner, k) {
        var q = px(p.x + corner[0] * c - corner[1] * n, p.y + corner[0] * n + corner[1] * c);
        if (k === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]);
      });
      ctx.closePath();
    }
    ctx.fill();
    ctx.stroke();
    // heading: centre to front, and on past it
    var front = px(p.x + 1.6 * L * c, p.y + 1.6 * L * n);
    ctx.lineWidth = 2 * ratio;
    ctx.beginPath(); ctx.moveTo(here[0], here[1]); ctx.lineTo(front[0], front[1]); ctx.stroke();
  }

  function drawEvents(t) {
    var ctx = context;
    agents.forEach(function (agent) {
      agent.meta.events.forEach(function (event) {
        var q = px(event.x, event.y);
        ctx.strokeStyle = event.t <= t ? "#d62728" : "rgba(214, 39, 40, 0.35)";
        ctx.lineWidth = 2.5 * ratio;
        cross(ctx, q[0], q[1], 6 * ratio);
      });
    });
  }

  function format(value, digits) {
    return isFinite(value) ? value.toFixed(digits) : "\u2013";
  }

  function render() {
    context.drawImage(layer, 0, 0);
    drawEvents(time);
    agents.forEach(function (agent) { drawAgent(agent, time); });
    slider.value = String(time);
    clock.textContent = "t = " + time.toFixed(2) + " s / " + t1.toFixed(2) + " s";
    agents.forEach(function (agent, k) {
      var i = frameAt(agent, time), s = agent.s, cells = rows[k].children;
      cells[2].textContent = i < 0 ? "\u2013" : format(s.speed[i], 2);
      cells[3].textContent = i < 0 || !s.cross_track ? "\u2013" : format(s.cross_track[i], 2);
      cells[4].textContent = i < 0 || !s.target_speed ? "\u2013" : format(s.target_speed[i], 2);
    });
    link.href = "?t=" + time.toFixed(3) + "&play=0";
    playButton.innerHTML = playing ? "&#10074;&#10074;" : "&#9654;";
  }

  // ---------------------------------------------------------------------------------------------
  // controls

  function seek(t) {
    time = Math.min(Math.max(t, t0), t1);
    render();
  }

  var last = null;
  function tick(now) {
    if (!playing) { last = null; return; }
    if (last !== null) time += (now - last) / 1000 * speed;
    last = now;
    if (time >= t1) { time = t1; playing = false; }
    render();
    if (playing) window.requestAnimationFrame(tick);
  }
  function setPlaying(on) {
    playing = on;
    if (playing && time >= t1) time = t0;
    render();
    if (playing) { last = null; window.requestAnimationFrame(tick); }
  }

  playButton.addEventListener("click", function () { setPlaying(!playing); });
  slider.addEventListener("input", function () { seek(parseFloat(slider.value)); });
  speedSelect.addEventListener("change", function () { speed = parseFloat(speedSelect.value); });
  Array.prototype.forEach.call(speedSelect.options, function (option) {
    if (parseFloat(option.value) === speed) option.selected = true;
  });

  var step = Infinity;
  agents.forEach(function (agent) {
    if (agent.n > 1) step = Math.min(step, (agent.s.t[agent.n - 1] - agent.s.t[0]) / (agent.n - 1));
  });
  if (!isFinite(step)) step = 0.1;
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "SELECT" || event.target.tagName === "INPUT") return;
    if (event.key === " ") { setPlaying(!playing); event.preventDefault(); }
    else if (event.key === "ArrowRight") { playing = false; seek(time + step); }
    else if (event.key === "ArrowLeft") { playing = false; seek(time - step); }
    else if (event.key === "Home") seek(t0);
    else if (event.key === "End") seek(t1);
  });

  // events: listed, marked on the timeline; a click jumps there, paused
  var list = document.getElementById("events");
  var timeline = document.getElementById("timeline");
  var all = [];
  agents.forEach(function (agent) {
    agent.meta.events.forEach(function (event) { all.push({ agent: agent.meta, event: event }); });
  });
  all.sort(function (a, b) { return a.event.t - b.event.t; });
  if (!all.length) {
    var none = document.createElement("li");
    none.className = "none";
    none.textContent = "none";
    list.appendChild(none);
  }
  all.forEach(function (item) {
    function jump() { playing = false; seek(item.event.t); }
    var entry = document.createElement("li");
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = item.agent.label + ": " + item.event.kind + " at t = " + item.event.t.toFixed(2) + " s";
    button.addEventListener("click", jump);
    entry.appendChild(button);
    list.appendChild(entry);
    var mark = document.createElement("button");
    mark.type = "button";
    mark.title = button.textContent;
    mark.style.left = (t1 > t0 ? 100 * (item.event.t - t0) / (t1 - t0) : 0) + "%";
    mark.style.background = "#d62728";
    mark.addEventListener("click", jump);
    timeline.appendChild(mark);
  });

  // zoom (wheel, about the cursor), pan (drag), fit (double-click)
  canvas.addEventListener("wheel", function (event) {
    event.preventDefault();
    var r = canvas.getBoundingClientRect();
    var cx = (event.clientX - r.left) * ratio, cy = (event.clientY - r.top) * ratio;
    var before = toWorld(cx, cy);
    view.scale *= Math.exp(-event.deltaY * 0.0015);
    var after = toWorld(cx, cy);
    view.x += before[0] - after[0];
    view.y += before[1] - after[1];
    drawStatic();
    render();
  }, { passive: false });
  var drag = null;
  canvas.addEventListener("mousedown", function (event) { drag = [event.clientX, event.clientY]; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (event) {
    if (!drag) return;
    view.x -= (event.clientX - drag[0]) * ratio / view.scale;
    view.y += (event.clientY - drag[1]) * ratio / view.scale;
    drag = [event.clientX, event.clientY];
    drawStatic();
    render();
  });
  canvas.addEventListener("dblclick", function () { fit(); drawStatic(); render(); });

  function resize() {
    var r = canvas.getBoundingClientRect();
    var width = Math.max(1, Math.round(r.width * ratio)), height = Math.max(1, Math.round(r.height * ratio));
    var keep = view && canvas.width === width && canvas.height === height;
    canvas.width = width;
    canvas.height = height;
    if (!keep) fit();
    drawStatic();
    render();
  }
  window.addEventListener("resize", resize);

  function start() {
    resize();
    if (playing) setPlaying(true);
  }
  if (data.terrain) {
    terrain = new Image();
    terrain.onload = start;
    terrain.onerror = start;
    terrain.src = data.terrain.image;
  } else {
    start();
  }
})();
