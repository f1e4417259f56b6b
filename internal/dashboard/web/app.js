// goeq's live view: the state arrives as server-sent events (/events).
"use strict";
const TASKS = [["clear", "#666"], ["draw", "#3cb44b"], ["readback", "#ffe119"], ["compress", "#f58231"],
  ["transmit", "#4363d8"], ["wait", "#555a66"], ["assemble", "#f032e6"]];
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let last = null, lastTime = 0;

function el(tag, attrs, parent) {
  const e = document.createElementNS(tag === "svgroot" ? SVG : SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// shown says whether the recent frames drew destination id: those of a
// layout not shown draw nothing (all are, before the first frame)
function shown(st, id) {
  return !st.shown || st.shown.includes(id);
}

function colorOf(st, channel, dest) {
  const c = st.channels.find((c) => c.id === channel && c.destination === dest);
  return c ? c.color : "#fff";
}

// overlaps says whether two areas of a canvas share more than a sliver
// (segments of a projection wall overlap a little where they blend)
function overlaps(a, b) {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 && w * h > 0.25 * Math.min(a[2] * a[3], b[2] * b[3]);
}

// walls: the boxes the frames go in, in the order of their first
// destination. A destination of a canvas lies where the canvas shows it,
// beside the other destinations of that canvas shown; one of no canvas
// has a box of its own. Destinations of one canvas that cover the same
// area (a passive stereo wall's projectors of one eye each) go in boxes
// of their own, one layer each, so that neither hides the other.
function walls(st) {
  const boxes = [], byCanvas = new Map();
  for (const d of st.destinations) {
    if (d.canvas < 0) {
      boxes.push({ key: `dest ${d.id}`, dests: [d], label: "" });
      continue;
    }
    let layers = byCanvas.get(d.canvas);
    if (!layers) {
      layers = [];
      byCanvas.set(d.canvas, layers);
    }
    // a destination not shown stays in the first layer, hidden
    let layer = shown(st, d.id) ? layers.find((l) => !l.dests.some((o) => shown(st, o.id) && overlaps(o.area, d.area))) : layers[0];
    if (!layer) {
      layer = { key: `canvas ${d.canvas} ${layers.length}`, dests: [], canvas: d, layer: layers.length };
      layers.push(layer);
      boxes.push(layer);
    }
    layer.dests.push(d);
  }
  for (const layers of byCanvas.values()) {
    for (const l of layers) {
      const name = l.canvas.canvas_name || `canvas ${l.canvas.canvas}`;
      // the cyclop eye beside a stereo one is the same segment's mono picture
      const eyes = l.dests.filter((d) => shown(st, d.id)).map((d) => {
        const e = d.eyes || [];
        return (e.length > 1 ? e.filter((x) => x !== "cyclop") : e).join(" and ");
      });
      const same = eyes.length > 0 && eyes.every((e) => e && e === eyes[0]);
      // a layer of one destination is named by it (placeFrames), as a
      // cave's walls, which share the canvas's area, are
      const many = eyes.length > 1 && layers.length > 1;
      l.label = same ? `${name}, ${eyes[0] === "cyclop" ? "mono" : eyes[0] + " eye"}` : many ? `${name}, layer ${l.layer + 1}` : name;
    }
  }
  return boxes;
}

// the size a canvas box is drawn at: its destinations' pixels, scaled to
// at most maxWall wide
const maxWall = 1000;
function wallSize(dests) {
  let w = 1, h = 1;
  for (const d of dests) {
    if (d.area[2] > 0) w = Math.max(w, d.width / d.area[2]);
    if (d.area[3] > 0) h = Math.max(h, d.height / d.area[3]);
  }
  const scale = Math.min(1, maxWall / w);
  return [Math.round(w * scale), Math.round(h * scale)];
}

// destElement makes a destination's element: its label, image and the
// split drawn over it
function destElement(d) {
  const div = document.createElement("div");
  div.className = "dest";
  div.dataset.destination = d.id;
  div.title = d.label;
  div.innerHTML = `<div class="label"></div><div class="image"><img width="${d.width}" height="${d.height}" alt="frame of ${d.label}"><svg viewBox="0 0 ${d.width} ${d.height}" preserveAspectRatio="none"></svg></div>`;
  div.querySelector(".label").textContent = d.label;
  return div;
}

// placeFrames puts every destination's element in its box, once the
// destinations shown change
let placed = "";
function placeFrames(st) {
  const key = JSON.stringify(st.shown);
  if (key === placed) return;
  placed = key;
  const frames = $("frames");
  const old = new Map([...frames.querySelectorAll(".dest")].map((e) => [e.dataset.destination, e]));
  const kept = new Set();
  for (const b of walls(st)) {
    let box = frames.querySelector(`[data-box="${CSS.escape(b.key)}"]`);
    if (!box) {
      box = document.createElement("div");
      box.dataset.box = b.key;
      if (b.canvas) {
        box.className = "wall";
        box.innerHTML = `<div class="wall-label"></div><div class="wall-area"></div>`;
      }
    }
    frames.appendChild(box); // in order
    kept.add(box);
    const area = b.canvas ? box.querySelector(".wall-area") : box;
    const [wallW, wallH] = b.canvas ? wallSize(b.dests) : [0, 0];
    // a canvas one destination fills shows its name beside the canvas's
    const seen = b.dests.filter((d) => shown(st, d.id));
    const alone = seen.length === 1 && seen[0].area.every((v, i) => Math.abs(v - [0, 0, 1, 1][i]) < 1e-6) ? seen[0] : null;
    if (b.canvas) {
      box.querySelector(".wall-label").textContent = alone ? `${b.label}: ${alone.label}` : b.label;
      area.style.width = `${wallW}px`;
      area.style.height = `${wallH}px`;
    }
    for (const d of b.dests) {
      const div = old.get(d.id) || destElement(d);
      if (b.canvas) {
        // areas count from the bottom left, as OpenGL does
        const [x, y, w, h] = d.area;
        Object.assign(div.style, { left: `${x * 100}%`, top: `${(1 - y - h) * 100}%`, width: `${w * 100}%`, height: `${h * 100}%` });
        // a small segment's name would hide it: its tooltip names it
        div.classList.toggle("small", w * wallW < 120 || h * wallH < 40 || d === alone);
      }
      area.appendChild(div);
    }
    box.hidden = !b.dests.some((d) => shown(st, d.id));
  }
  for (const box of frames.querySelectorAll("[data-box]")) {
    if (!kept.has(box)) box.remove();
  }
}

// frames: each destination's latest image with the split drawn over it
function drawFrames(st) {
  placeFrames(st);
  const box = $("frames");
  st.destinations.forEach((d) => {
    const div = box.querySelector(`[data-destination="${CSS.escape(d.id)}"]`);
    div.hidden = !shown(st, d.id);
    const img = div.querySelector("img");
    const latest = st.previews[d.id];
    if (latest !== undefined && img.dataset.frame !== String(latest)) {
      img.dataset.frame = latest;
      img.src = `frame?id=${encodeURIComponent(d.id)}&f=${latest}`;
    }
    const svg = div.querySelector("svg");
    svg.replaceChildren();
    let ranges = 0;
    for (const p of st.parts) {
      if (p.destination !== d.id) continue;
      const [start, end] = p.range;
      if (end > start && (start > 0 || end < 1)) {
        // a database range: a bar along the bottom, one row per part
        el("rect", {
          class: "range", "data-channel": p.channel, "data-range": p.range.join(","),
          x: start * d.width, y: d.height - 8 - 7 * ranges++, width: (end - start) * d.width, height: 5,
          fill: colorOf(st, p.channel, d.id),
        }, svg);
      }
      const [x, y, w, h] = p.viewport;
      // viewports count from the bottom left, as OpenGL does
      el("rect", {
        class: "split", "data-channel": p.channel, "data-viewport": p.viewport.join(","),
        x: x * d.width, y: (1 - y - h) * d.height, width: w * d.width, height: h * d.height,
        fill: "none", stroke: colorOf(st, p.channel, d.id), "stroke-width": 2, "vector-effect": "non-scaling-stroke",
      }, svg);
    }
  });
}

// the Gantt chart: one row per channel of a destination shown, its tasks
// of the last frame in order
function drawGantt(st) {
  const svg = $("gantt"), rowH = 20, labelW = 220, width = 900;
  svg.replaceChildren();
  const rows = st.channels.filter((c) => shown(st, c.destination)).map((c) => {
    const sum = {};
    let tiles = 0;
    for (const p of st.parts) {
      if (p.channel !== c.id || p.destination !== c.destination) continue;
      for (const [k, v] of Object.entries(p.times)) sum[k] = (sum[k] || 0) + v;
      tiles += p.tiles || 0;
    }
    return { c, sum, tiles, total: TASKS.reduce((a, [k]) => a + (sum[k] || 0), 0) };
  });
  // a source of several destinations has a row for each: its name alone
  // would not say which
  const named = new Map();
  for (const r of rows) named.set(r.c.label, (named.get(r.c.label) || 0) + 1);
  const destLabel = new Map(st.destinations.map((d) => [d.id, d.label]));
  const most = Math.max(1, ...rows.map((r) => r.total));
  const scale = (width - labelW - 60) / most;
  svg.setAttribute("viewBox", `0 0 ${width} ${rows.length * rowH + 4}`);
  rows.forEach((r, i) => {
    const g = el("g", { class: "row", "data-channel": r.c.id, "data-tiles": r.tiles, transform: `translate(0 ${i * rowH})` }, svg);
    el("rect", { x: 0, y: 4, width: 8, height: rowH - 8, fill: r.c.color }, g);
    const t = el("text", { x: 14, y: rowH - 6, fill: "#ccc", "font-size": 12 }, g);
    t.textContent = named.get(r.c.label) > 1 && r.c.id !== r.c.destination ? `${r.c.label} → ${destLabel.get(r.c.destination)}` : r.c.label;
    let x = labelW;
    for (const [k, color] of TASKS) {
      const v = r.sum[k] || 0;
      if (v <= 0) continue;
      const seg = el("rect", { class: "task", "data-task": k, x, y: 3, width: Math.max(1, v * scale), height: rowH - 6, fill: color }, g);
      el("title", {}, seg).textContent = `${k} ${v.toFixed(2)} ms`;
      x += v * scale;
    }
    const tt = el("text", { x: x + 6, y: rowH - 6, fill: "#888", "font-size": 11 }, g);
    // a tile queue's sources: how many tiles each drew (one the others
    // outpace draws none)
    tt.textContent = `${r.total.toFixed(1)} ms` + (r.tiles ? `, ${r.tiles} tiles` : "");
  });
  $("legend").innerHTML = TASKS.map(([k, c]) => `<span><i style="background:${c}"></i>${k}</span>`).join("");
}

function plot(svg, values, fmt) {
  const w = 420, h = 120;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  if (values.length < 2) return;
  const most = Math.max(...values, 1e-9);
  const pts = values.map((v, i) => `${(i / (values.length - 1)) * w},${h - 4 - (v / most) * (h - 20)}`).join(" ");
  el("polyline", { points: pts, fill: "none", stroke: "#6cf", "stroke-width": 1.5 }, svg);
  el("text", { x: 4, y: 12, fill: "#888", "font-size": 11 }, svg).textContent = `max ${fmt(most)}`;
}

function fillTable(id, rows) {
  const body = $(id).querySelector("tbody");
  body.replaceChildren();
  for (const cells of rows) {
    const tr = document.createElement("tr");
    for (const c of cells) {
      const td = document.createElement("td");
      if (typeof c === "object") { td.textContent = c.text; td.className = c.cls; } else td.textContent = c;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

function human(bytes) {
  const u = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (bytes >= 1000 && i < u.length - 1) { bytes /= 1000; i++; }
  return `${bytes.toFixed(i ? 1 : 0)} ${u[i]}`;
}

// the compound tree, each compound with what it did in the last frame
function drawTree(st) {
  const list = $("tree");
  list.replaceChildren();
  for (const c of st.compounds || []) {
    const li = document.createElement("li");
    li.style.paddingLeft = `${c.depth * 18}px`;
    li.dataset.path = c.path;
    const part = st.parts.find((p) => p.compound === c.path);
    let text = `${c.path} ${c.label || ""}`;
    if (c.what) text += ` (${c.what})`;
    if (part) {
      const [x, y, w, h] = part.viewport.map((v) => v.toFixed(3));
      text += `: viewport [${x} ${y} ${w} ${h}]`;
      const [a, b] = part.range;
      if (a > 0 || b < 1) text += ` range [${a.toFixed(3)} ${b.toFixed(3)}]`;
    }
    li.textContent = text;
    li.classList.toggle("idle", !!c.destination && !shown(st, c.destination));
    if (part) {
      const sw = document.createElement("i");
      sw.className = "swatch";
      sw.style.background = colorOf(st, part.channel, part.destination);
      li.prepend(sw);
    }
    list.appendChild(li);
  }
}

function show(st) {
  const now = performance.now();
  $("config").textContent = st.config;
  $("frame").textContent = st.frame;
  $("fps").textContent = st.fps.toFixed(1);
  $("degraded").textContent = st.degraded_frames;
  drawFrames(st);
  drawGantt(st);
  drawTree(st);
  plot($("plot-time"), st.history.map((p) => p.seconds * 1000), (v) => `${v.toFixed(1)} ms`);
  plot($("plot-imbalance"), st.history.map((p) => p.imbalance), (v) => v.toFixed(2));
  const nodeStatus = (n) => n.setting_up ? `${n.status}: ${n.setting_up}` : n.lacks ? `${n.status}, without ${n.lacks.join(", ")}` : n.status;
  fillTable("nodes", (st.nodes || []).map((n) => [n.node, { text: nodeStatus(n), cls: n.status }, `${Math.round(n.heartbeat_age_ms)} ms`,
    n.goroutines || "", n.rss_bytes ? human(n.rss_bytes) : ""]));
  const before = new Map((last ? last.links || [] : []).map((l) => [`${l.from}|${l.to}|${l.codec}`, l.bytes]));
  const dt = (now - lastTime) / 1000;
  fillTable("links", (st.links || []).map((l) => {
    const prev = before.get(`${l.from}|${l.to}|${l.codec}`);
    const rate = prev !== undefined && dt > 0 ? `${human((l.bytes - prev) / dt)}/s` : "";
    return [l.from, l.to, l.codec, human(l.bytes), rate];
  }));
  fillTable("policies", (st.policies || []).filter((p) => shown(st, p.destination)).map((p) => [p.compound, p.kind, p.policy]));
  document.body.dataset.frame = st.frame;
  last = st;
  lastTime = now;
  if (st.ended) {
    // the run is over: no more states will come
    source.close();
    say(`The run ${st.ended}. The page shows its last state.`, "ended");
  }
}

// say puts a line about the connection to the run above the page (none:
// takes it away)
function say(text, kind) {
  const p = $("connection");
  p.hidden = !text;
  p.textContent = text || "";
  p.className = kind || "";
  document.body.dataset.connection = kind || "live";
}

const source = new EventSource("events");
source.onmessage = (e) => show(JSON.parse(e.data));
source.onopen = () => say("");
// the browser tries again by itself while the source is not closed
source.onerror = () => {
  if (last && last.ended) return;
  const since = new Date().toLocaleTimeString();
  if (source.readyState === EventSource.CLOSED) {
    // refused (the server's stream bound) or not a stream: no retries
    say(`The run's server refused the page its updates at ${since}; load the page again to try again. It shows the last state it got.`, "lost");
  } else {
    say(`No connection to the run since ${since}: it ended, or its server cannot be reached. Trying again; the page shows the last state it got.`, "lost");
  }
};
