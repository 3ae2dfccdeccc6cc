"""The page that plays a `minigrad.viz_trace.BackwardTrace`: one self-contained HTML file.

`write_page` puts the trace's events (as JSON), the graph drawn by Graphviz (inline SVG) and a
small player written in plain JavaScript into one file: no network, no server, nothing
vendored. The player steps through the events (buttons, arrow keys, a slider, play/pause) and
shows, at each step:

* the graph, with the running node and the edge carrying a gradient highlighted, nodes that ran,
  nodes in the ready queue and the edges already used marked, and saved tensors greyed once
  they are freed;
* a side panel: the event in words and its data, the ready queue (newest first), the nodes
  still waiting for gradients with their dependency counts, the hook calls so far (each links
  to its step and its node) and, when backward failed, the step where it failed;
* with two traces (minigrad and PyTorch), both side by side, stepped together on the events both
  show, with the first event where they differ marked.

The JavaScript only toggles classes on elements made once at load, so a step costs a replay of
the events up to it (plain arrays) and a few class changes, also for graphs of hundreds of
nodes.
"""

from __future__ import annotations

import html
import json

__all__ = ["write_page", "page_html"]

CSS = """
body{font-family:system-ui,sans-serif;margin:0;font-size:14px;color:#222}
header{position:sticky;top:0;background:#f7f7f7;border-bottom:1px solid #ccc;padding:6px 12px;
z-index:2}
h1{font-size:17px;margin:2px 0 6px}
#controls{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
#controls button{font-size:14px;min-width:2.4em}
#slider{flex:1;min-width:200px}
#marks{position:relative;height:6px;margin:0 0 0 0}
#marks span{position:absolute;top:0;width:3px;height:6px}
#marks .fail{background:#c62828} #marks .diff{background:#6a1b9a}
.banner{margin:4px 0;padding:3px 8px;border-radius:4px;display:inline-block}
.banner.diff{background:#f3e5f5;border:1px solid #6a1b9a}
.banner.fail{background:#ffebee;border:1px solid #c62828}
.banner.same{background:#e8f5e9;border:1px solid #2e7d32}
main{display:flex;gap:8px;padding:8px}
.side{flex:1;min-width:0;border:1px solid #ddd;border-radius:6px;padding:6px}
.side h2{font-size:15px;margin:2px 0 6px}
.cols{display:flex;gap:8px}
.two .cols{flex-direction:column}
.graph{flex:3;min-width:0;overflow:auto;max-height:78vh;border:1px solid #eee}
.two .graph{max-height:55vh}
.graph svg{max-width:100%;height:auto}
aside{flex:2;min-width:260px;max-height:78vh;overflow:auto}
aside h3{font-size:13px;margin:8px 0 2px;color:#555}
aside ol,aside ul{margin:0;padding-left:1.6em}
.event{font-weight:600;padding:4px;border:2px solid transparent;border-radius:4px}
.event.differs{border-color:#6a1b9a;background:#f3e5f5}
.event.failed{border-color:#c62828;background:#ffebee}
pre.data{font-size:11px;background:#fafafa;max-height:160px;overflow:auto;margin:2px 0;
white-space:pre-wrap;word-break:break-all}
.hooks li{cursor:pointer} .hooks li.future{display:none} .hooks li.current{background:#fff3c4}
.hooks li:hover{text-decoration:underline}
.savedlist li.freed{color:#999;text-decoration:line-through}
.notes{font-size:12px;color:#555}
.fn polygon,.fn ellipse{transition:none}
.fn.done polygon{fill:#c8e6c9}
.fn.queued polygon{fill:#bbdefb;stroke:#1565c0;stroke-width:2}
.fn.waiting polygon{fill:#fff9c4}
.fn.target polygon{stroke:#ef6c00;stroke-width:3}
.fn.active polygon{fill:#ffb74d;stroke:#e65100;stroke-width:3}
.fn.failed polygon{fill:#ef9a9a;stroke:#b71c1c;stroke-width:3}
.fn.pick polygon{stroke:#6a1b9a;stroke-width:4}
.flow.sent path{stroke:#66bb6a;stroke-width:2}
.flow.active path{stroke:#e65100;stroke-width:4}
.flow.active polygon{fill:#e65100;stroke:#e65100}
.saved.freed{opacity:.35} .saved.freed polygon{fill:#ddd}
.nograph li.active{background:#ffb74d} .nograph li.done{color:#2e7d32}
@media (max-width:900px){main{flex-direction:column} .cols{flex-direction:column}
aside{max-height:none}}
"""

JS = r"""
(function () {
  "use strict";
  const DATA = JSON.parse(document.getElementById("trace-data").textContent);
  const slider = document.getElementById("slider");
  const stepno = document.getElementById("stepno");
  const playBtn = document.getElementById("play");
  const sides = [];

  function seqKey(tr, n) {
    const s = tr.graph.nodes[n].seq;
    return s === null ? Infinity : s;
  }

  function setup(el, si) {
    const tr = DATA.traces[si];
    const side = {el: el, tr: tr, nodes: {}, edges: {}, saved: [], hookItems: [],
                  cls: {}, ecls: {}, step: -1, hookShown: -1,
                  eventBox: el.querySelector(".event"), dataBox: el.querySelector(".data"),
                  queue: el.querySelector(".queue"), waiting: el.querySelector(".waiting"),
                  savedItems: {}};
    el.querySelectorAll("[data-n]").forEach(function (g) { side.nodes[g.dataset.n] = g; });
    el.querySelectorAll("[data-e]").forEach(function (g) { side.edges[g.dataset.e] = g; });
    el.querySelectorAll("[data-fns]").forEach(function (g) {
      side.saved.push([g, g.dataset.fns.split(" ").map(Number), false]);
    });
    const log = el.querySelector(".hooks");
    tr.events.forEach(function (e, i) {
      if (e.type !== "hook" && e.type !== "error") return;
      const li = document.createElement("li");
      li.textContent = "step " + i + ": " + tr.text[i];
      li.className = "future";
      li.dataset.step = i;
      li.onclick = function () { goTo(si, i, e.node); };
      log.appendChild(li);
      side.hookItems.push([i, li]);
    });
    const savedList = el.querySelector(".savedlist");
    tr.graph.nodes.forEach(function (n) {
      if (!n.saved.length) return;
      const li = document.createElement("li");
      li.textContent = n.label + ": " + n.saved.join(", ");
      savedList.appendChild(li);
      side.savedItems[n.id] = li;
    });
    // observable index of each step, and the step of each observable index
    side.lastObs = [];
    side.obsStep = [];
    let last = -1;
    tr.obs.forEach(function (o, i) {
      if (o !== null) { last = o; side.obsStep[o] = i; }
      side.lastObs.push(last);
    });
    return side;
  }

  function stateAt(tr, k) {
    const deps = {}, got = {}, done = new Set(), sent = new Set();
    const freed = new Set(tr.graph.nodes.filter(function (n) { return n.freed; })
      .map(function (n) { return n.id; }));
    let current = null, lastNode = null, fresh = [], error = null;
    for (let i = 0; i <= k; i++) {
      const e = tr.events[i];
      if (e.type === "begin") {
        e.deps.forEach(function (d) { deps[d[0]] = d[1]; });
        fresh = e.roots.slice();
      } else if (e.type === "node") {
        if (current !== null) done.add(current);
        current = e.node; lastNode = e; fresh = [];
      } else if (e.type === "send") {
        deps[e.to] = e.deps_left; got[e.to] = true; sent.add(e.edge);
        if (e.deps_left === 0) fresh.push(e.to);
      } else if (e.type === "release") {
        freed.add(e.node);
      } else if (e.type === "error") {
        error = e;
      } else if (e.type === "end") {
        if (current !== null && !error) done.add(current);
        if (!error) current = null;
      }
    }
    let queue = (lastNode ? lastNode.queue : []).concat(fresh);
    queue = queue.filter(function (n, i) { return queue.indexOf(n) === i && n !== current; });
    queue.sort(function (a, b) { return seqKey(tr, b) - seqKey(tr, a); });
    return {deps: deps, got: got, done: done, freed: freed, sent: sent, current: current,
            queue: queue, error: error, event: tr.events[k]};
  }

  function label(tr, n) { return n === null || n === undefined ? "-" : tr.graph.nodes[n].label; }

  function render(side, k, pick) {
    const tr = side.tr;
    k = Math.max(0, Math.min(k, tr.events.length - 1));
    side.step = k;
    const st = stateAt(tr, k);
    const e = st.event;
    const queued = new Set(st.queue);
    const target = e.type === "send" ? e.to : null;
    const want = {};
    tr.graph.nodes.forEach(function (n) {
      const id = n.id;
      let c = "";
      if (st.error && st.error.node === id) c = "failed";
      else if (id === st.current) c = "active";
      else if (st.done.has(id)) c = "done";
      else if (queued.has(id)) c = "queued";
      else if (st.got[id]) c = "waiting";
      if (id === target) c += " target";
      if (pick !== undefined && pick === id) c += " pick";
      want[id] = c;
    });
    for (const id in want) {
      if (side.cls[id] !== want[id]) {
        const g = side.nodes[id];
        if (g) {
          ["failed", "active", "done", "queued", "waiting", "target", "pick"].forEach(
            function (c) { g.classList.remove(c); });
          want[id].split(" ").forEach(function (c) { if (c) g.classList.add(c); });
        }
        side.cls[id] = want[id];
      }
    }
    tr.graph.edges.forEach(function (ed) {
      const c = (e.type === "send" && e.edge === ed.id) ? "active"
        : st.sent.has(ed.id) ? "sent" : "";
      if (side.ecls[ed.id] !== c) {
        const g = side.edges[ed.id];
        if (g) {
          g.classList.remove("active", "sent");
          if (c) g.classList.add(c);
        }
        side.ecls[ed.id] = c;
      }
    });
    side.saved.forEach(function (s) {
      const freed = s[1].every(function (n) { return st.freed.has(n); });
      if (freed !== s[2]) { s[0].classList.toggle("freed", freed); s[2] = freed; }
    });
    for (const id in side.savedItems) {
      side.savedItems[id].classList.toggle("freed", st.freed.has(Number(id)));
    }
    side.eventBox.textContent = "step " + k + "/" + (tr.events.length - 1) + ": " + tr.text[k];
    side.eventBox.classList.toggle("failed", e.type === "error");
    const differs = DATA.diff !== null && side.lastObs[k] === DATA.diff && tr.obs[k] !== null;
    side.eventBox.classList.toggle("differs", differs);
    const shown = {};
    for (const key in e) if (key !== "type" && key !== "step") shown[key] = e[key];
    side.dataBox.textContent = JSON.stringify(shown);
    side.queue.innerHTML = "";
    st.queue.forEach(function (n) {
      const li = document.createElement("li");
      const s = tr.graph.nodes[n].seq;
      li.textContent = label(tr, n) + " (seq " + (s === null ? "max" : s) + ", deps 0)";
      side.queue.appendChild(li);
    });
    if (!st.queue.length) side.queue.innerHTML = "<li><i>empty</i></li>";
    side.waiting.innerHTML = "";
    tr.graph.nodes.forEach(function (n) {
      if (st.got[n.id] && st.deps[n.id] > 0) {
        const li = document.createElement("li");
        li.textContent = n.label + ": " + st.deps[n.id] + " of " + n.deps + " gradients to come";
        side.waiting.appendChild(li);
      }
    });
    if (!side.waiting.children.length) side.waiting.innerHTML = "<li><i>none</i></li>";
    side.hookItems.forEach(function (h) {
      h[1].classList.toggle("future", h[0] > k);
      h[1].classList.toggle("current", h[0] === k);
    });
    const focus = pick !== undefined ? pick : st.current;
    if (DATA.follow && focus !== null && side.nodes[focus]) {
      side.nodes[focus].scrollIntoView({block: "nearest", inline: "nearest"});
    }
  }

  function aligned(other, o) {
    if (o < 0) return 0;
    const s = other.obsStep[o];
    return s === undefined ? other.tr.events.length - 1 : s;
  }

  function goTo(si, k, pick) {
    const side = sides[si];
    render(side, k, pick);
    sides.forEach(function (other, oi) {
      if (oi !== si) render(other, aligned(other, side.lastObs[side.step]), pick);
    });
    slider.value = sides[0].step;
    stepno.textContent = "step " + sides[0].step + " of " + (sides[0].tr.events.length - 1);
  }

  let timer = null;
  function play() {
    if (timer) { clearInterval(timer); timer = null; playBtn.textContent = "play"; return; }
    playBtn.textContent = "pause";
    timer = setInterval(function () {
      if (sides[0].step >= sides[0].tr.events.length - 1) { play(); return; }
      goTo(0, sides[0].step + 1);
    }, Number(document.getElementById("speed").value));
  }

  document.querySelectorAll(".side").forEach(function (el, si) { sides.push(setup(el, si)); });
  slider.max = sides[0].tr.events.length - 1;
  slider.oninput = function () { goTo(0, Number(slider.value)); };
  document.getElementById("first").onclick = function () { goTo(0, 0); };
  document.getElementById("prev").onclick = function () { goTo(0, sides[0].step - 1); };
  document.getElementById("next").onclick = function () { goTo(0, sides[0].step + 1); };
  document.getElementById("last").onclick = function () {
    goTo(0, sides[0].tr.events.length - 1);
  };
  playBtn.onclick = play;
  document.getElementById("follow").onchange = function (ev) { DATA.follow = ev.target.checked; };
  document.addEventListener("keydown", function (ev) {
    if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
    if (ev.key === "ArrowRight") { goTo(0, sides[0].step + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { goTo(0, sides[0].step - 1); ev.preventDefault(); }
    else if (ev.key === " ") { play(); ev.preventDefault(); }
  });
  const marks = document.getElementById("marks");
  const n0 = Math.max(1, sides[0].tr.events.length - 1);
  function mark(step, cls, text) {
    const span = document.createElement("span");
    span.className = cls; span.title = text;
    span.style.left = (100 * step / n0) + "%";
    marks.appendChild(span);
  }
  document.querySelectorAll("[data-goto]").forEach(function (b) {
    const s = b.dataset.goto.split(":").map(Number);
    b.onclick = function () { goTo(s[0], s[1]); };
    if (s[0] === 0) mark(s[1], b.dataset.kind, b.textContent);
  });
  window.minigradTrace = {
    count: sides[0].tr.events.length,
    go: function (k) { goTo(0, k); return sides[0].step; },
    next: function () { goTo(0, sides[0].step + 1); return sides[0].step; },
    sides: sides,
    state: function (si) {
      const side = sides[si || 0];
      const act = side.el.querySelector(".fn.active, .fn.failed");
      return {step: side.step, active: act ? Number(act.dataset.n) : null,
              queue: Array.from(side.queue.querySelectorAll("li")).map(function (li) {
                return li.textContent; }),
              event: side.eventBox.textContent};
    }
  };
  goTo(0, 0);
})();
"""


def _script_json(data) -> str:
    """JSON safe inside ``<script>`` (no ``</``, no ``<!--``)."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")


def _trace_data(trace) -> dict:
    from .viz_trace import describe_event

    return {"library": trace.library, "version": trace.version, "graph": trace.graph,
            "events": trace.events, "notes": trace.notes, "error": trace.error,
            "obs": trace.observable_steps(),
            "text": [describe_event(trace.graph, e) for e in trace.events]}


def _nograph(trace) -> str:
    items = "".join(f'<li data-n="{n["id"]}" class="fn">{html.escape(n["label"])}</li>'
                    for n in trace.graph["nodes"])
    return (f'<p>Graphviz\'s <code>dot</code> was not found, so the graph is listed, not drawn.'
            f'</p><ol class="nograph" start="0">{items}</ol>')


def _side(trace, si: int, fail_step) -> str:
    title = f"{trace.library} {trace.version}"
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in trace.notes)
    fail = ""
    if trace.error is not None:
        fail = (f'<button class="banner fail" data-kind="fail" data-goto="{si}:{fail_step}">'
                f"backward fails at step {fail_step}: {html.escape(trace.error['type'])}: "
                f"{html.escape(trace.error['message'][:120])}</button>")
    return f"""<section class="side" data-lib="{html.escape(trace.library)}">
<h2>{html.escape(title)}</h2>{fail}
<div class="cols"><div class="graph">{trace.svg or _nograph(trace)}</div>
<aside><div class="event"></div><pre class="data"></pre>
<h3>Ready queue (runs next: first)</h3><ol class="queue"></ol>
<h3>Waiting for gradients (dependency counts)</h3><ul class="waiting"></ul>
<h3>Hook calls (click: go to the step)</h3><ol class="hooks"></ol>
<h3>Saved tensors (struck out: freed)</h3><ul class="savedlist"></ul>
<h3>What this trace sees</h3><ul class="notes">{notes}</ul>
</aside></div></section>"""


def page_html(traces, title: str | None = None) -> str:
    """The page's HTML for one trace or two (shown side by side, the first one leading)."""
    traces = list(traces)
    if not 1 <= len(traces) <= 2:
        raise ValueError(f"page_html(): expected one or two traces, got {len(traces)}")
    diff = traces[0].first_difference(traces[1]) if len(traces) == 2 else None
    title = title or "Backward, step by step: " + " vs ".join(t.library for t in traces)
    banner = ""
    if len(traces) == 2:
        if diff is None:
            banner = ('<span class="banner same">Both traces show the same events (nodes, '
                      "hooks, gradients).</span>")
        else:
            steps = []
            for t in traces:
                obs = t.observable_steps()
                steps.append(obs.index(diff) if diff in obs else len(obs) - 1)
            a, b = (t.describe(s) for t, s in zip(traces, steps))
            banner = (f'<button class="banner diff" data-kind="diff" data-goto="0:{steps[0]}">'
                      f"First difference at step {steps[0]}: {html.escape(traces[0].library)}: "
                      f"{html.escape(a)} / {html.escape(traces[1].library)}: {html.escape(b)}"
                      "</button>")
    sides = "\n".join(_side(t, i, t.error["step"] if t.error else None)
                      for i, t in enumerate(traces))
    data = {"traces": [_trace_data(t) for t in traces], "diff": diff, "follow": True}
    two = " two" if len(traces) == 2 else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{CSS}</style></head>
<body>
<header><h1>{html.escape(title)}</h1>
<div id="controls"><button id="first" title="first step">|&lt;</button>
<button id="prev" title="previous step (left arrow)">&lt;</button>
<button id="play" title="play / pause (space)">play</button>
<button id="next" title="next step (right arrow)">&gt;</button>
<button id="last" title="last step">&gt;|</button>
<input type="range" id="slider" min="0" max="0" value="0" aria-label="step">
<span id="stepno"></span>
<label>speed <select id="speed"><option value="1000">slow</option>
<option value="400" selected>normal</option><option value="100">fast</option></select></label>
<label><input type="checkbox" id="follow" checked> follow the node</label></div>
<div id="marks"></div>{banner}
</header>
<main class="sides{two}">
{sides}
</main>
<script type="application/json" id="trace-data">{_script_json(data)}</script>
<script>{JS}</script>
</body></html>
"""


def write_page(path, traces, title: str | None = None) -> str:
    """Write `page_html` of ``traces`` to ``path`` (UTF-8); returns ``str(path)``."""
    text = page_html(traces, title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)
