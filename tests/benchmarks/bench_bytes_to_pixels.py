"""Bytes to pixels, in JupyterLab and Chromium: from a model's SSE event to the DOM change it
causes (target: p99 <= 50 ms above the kernel's own IOPub round trip, at 100 events/s).

Run: ``.venv/bin/python tests/benchmarks/bench_bytes_to_pixels.py [--events 1000] [--rate 100]`` or
``pytest -m benchmark tests/benchmarks/bench_bytes_to_pixels.py`` (not part of the default run;
``.ci/bench`` skips it when ``CODEX_NB_SKIP_BROWSER=1``). Needs Chromium (``/usr/bin/chromium``).

One notebook in a real JupyterLab, one kernel, three figures measured one after the other:

* baseline: an idle comm. The kernel sets a trait of a bare anywidget whose view writes it into
  its element; kernel send time to that DOM change. This is the floor any widget pays.
* plan: a local ``ResponsesServer`` (in the kernel, on its own thread) streams ``update_plan``
  call items one by one; codex_nb's runtime runs each as its ``output_item.done`` arrives and the
  ``PlanChecklist`` shows it. SSE send time to the checklist's first step text/status in the DOM.
* text: the same server streams ``output_text.delta`` events; SSE send time to the delta's word
  in the ``Transcript``.
* the same two through the real ``codex app-server`` (``cx.CodexAppServer``, the pinned binary,
  pointed at a local ``ResponsesServer``; skipped with ``--no-app-server`` or without the binary)
  and through the pinned ``codex-acp`` (``cx.AcpAgent``; skipped with ``--no-acp`` or without it).

Each figure splits into shares, each stamped where it happens: for codex_nb's runtime the kernel
share (SSE send -> the widget's comm message sent, both stamped in the kernel) and the
comm/browser share (comm message sent -> DOM mutation, stamped by a MutationObserver in the page).
For app-server and codex-acp the kernel share splits again where the agent's JSON-RPC line
carrying the event is read by the kernel's loop (before parsing): SSE send -> line read is the
agent's own work (Codex in its process, and the pipe), line read -> comm sent is codex_nb's
(reading, parsing, mapping, the bus, the widget). The kernel and page clocks are joined by a
handshake over the probe widget's comm: the ping with the shortest round trip gives the offset,
and its half round trip bounds the error. An event the widgets coalesce away (the checklist
sends at most 60 updates a second, the transcript 20, the latest state winning) counts as drawn
when a later event's state reaches the DOM: that is when a person sees it or something newer.

Nothing sleeps except the event pacing; phases are joined by a sync message through the probe's
comm (ordered after the phase's last update), and the run ends on a DOM attribute.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _browser_bench import Figure, all_met, jupyterlab_notebook, percentile, skip_reason, table  # noqa: E402

ABOVE_BASELINE_MS = 50.0
RESULT = "bytes_to_pixels.json"
PINGS = 100  # handshake pings: under load only a few see an unloaded round trip

# The kernel side: the probe widget, the two runtime sessions and their widgets, and the run,
# started by a "start" message from the page once its observer and handshake are in place.
SETUP = r'''
import asyncio, json, os, re, tempfile, time
import anywidget, traitlets
import codex_nb as cx
from codex_nb.acp import transport as acp_transport
from codex_nb.app_server import rpc as app_server_rpc
from codex_nb.testing import ResponsesServer, Raw
from codex_nb.widgets.checklist import PlanChecklist

EVENTS, RATE, CODEX, ACP = {events}, {rate}, {codex!r}, {acp!r}
loop = asyncio.get_running_loop()


class Probe(anywidget.AnyWidget):
    _esm = """
    export default {{ render({{ model, el }}) {{
      el.className = "bench-probe";
      el.textContent = "0";
      model.on("change:seq", () => {{ el.textContent = String(model.get("seq")); }});
      model.on("change:done", () => {{ if (model.get("done")) el.dataset.done = "1"; }});
      model.on("msg:custom", (msg) => {{
        if (msg.kind === "sync") model.send({{ kind: "synced", token: msg.token }});
        else if (window.__probeReply) window.__probeReply(msg);
      }});
      window.__probe = {{ send: (m) => model.send(m), el }};
    }} }}
    """
    seq = traitlets.Int(0).tag(sync=True)
    done = traitlets.Bool(False).tag(sync=True)


probe = Probe()
synced = {{}}


def on_probe(_widget, content, _buffers):
    kind = content.get("kind")
    if kind == "ping":
        probe.send({{"kind": "pong", "k": content["k"], "t": time.time() * 1000}})
    elif kind == "start":  # comm handlers may run off the cells' loop thread: hand over to it
        loop.call_soon_threadsafe(lambda: loop.create_task(run()))
    elif kind == "synced":
        loop.call_soon_threadsafe(synced.pop(content["token"]).set)


probe.on_msg(on_probe)


async def sync(token):
    """Wait until the page has handled every comm message sent before this one."""
    synced[token] = asyncio.Event()
    probe.send({{"kind": "sync", "token": token}})
    await synced[token].wait()


def timed(widget, pick, out):
    """Stamp each comm update of ``widget`` (ms, kernel clock) with the event index it carries."""
    send = widget.comm.send

    def stamped(*args, **kwargs):
        send(*args, **kwargs)
        data = kwargs.get("data") if "data" in kwargs else (args[0] if args else None)
        state = (data or {{}}).get("state") or {{}}
        index = pick(state)
        if index is not None:
            out.append((index, time.time() * 1000))

    widget.comm.send = stamped


def plan_index(state):
    steps = state.get("steps") or []
    text = steps[0].get("step", "") if steps else ""
    return int(text.split()[1]) if text.startswith("event ") else None


def text_index(state):
    for entry in reversed(state.get("entries") or []):
        if entry.get("kind") == "assistant" and entry.get("text", "").strip():
            word = entry["text"].split()[-1]
            return int(word[1:]) if word.startswith("w") else None
    return None


def sse(event):
    return f"event: {{event['type']}}\ndata: {{json.dumps(event)}}\n\n".encode()


def paced(frames, sent):
    """SSE chunks at RATE a second on an absolute schedule (the pacing is the only wait)."""
    yield sse({{"type": "response.created", "response": {{"id": "r", "object": "response", "status": "in_progress"}}}})
    start = time.monotonic()
    for i, frame in enumerate(frames, 1):
        delay = start + i / RATE - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        sent.append((i, time.time() * 1000))
        yield frame
    usage = {{"input_tokens": 1, "output_tokens": len(frames), "total_tokens": len(frames) + 1}}
    done = {{"type": "response.completed", "response": {{"id": "r", "object": "response", "status": "completed", "usage": usage}}}}
    yield sse(done)


def plan_frames():
    for i in range(1, EVENTS + 1):
        plan = [{{"step": f"event {{i}}", "status": "in_progress" if i % 2 else "completed"}},
                {{"step": "Write code", "status": "pending"}}]
        call = cx.function_call("update_plan", {{"plan": plan}}, call_id=f"c{{i}}")
        added = {{"type": "response.output_item.added", "output_index": i - 1, "item": call}}
        done = {{"type": "response.output_item.done", "output_index": i - 1, "item": call}}
        yield sse(added) + sse(done)


def text_frames():
    item = {{"type": "message", "id": "m1", "role": "assistant", "status": "in_progress", "content": []}}
    frames = []
    for i in range(1, EVENTS + 1):
        delta = {{"type": "response.output_text.delta", "item_id": "m1", "output_index": 0,
                 "content_index": 0, "delta": f"w{{i}} "}}
        frames.append(sse(delta))
    text = "".join(f"w{{i}} " for i in range(1, EVENTS + 1))
    final = dict(item, status="completed", content=[{{"type": "output_text", "text": text, "annotations": []}}])
    frames[0] = sse({{"type": "response.output_item.added", "output_index": 0, "item": item}}) + frames[0]
    frames[-1] += sse({{"type": "response.output_item.done", "output_index": 0, "item": final}})
    return frames


SSE = {{"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}}
AGENTS = (["codex"] if CODEX else []) + (["acp"] if ACP else [])
FIGURES = ["plan", "text"] + [f"{{agent}}_{{kind}}" for agent in AGENTS for kind in ("plan", "text")]
sent = {{name: [] for name in FIGURES}}
comm = {{name: [] for name in FIGURES}}
arrived = {{name: [] for name in FIGURES}}
received = {{name: [] for name in FIGURES}}
baseline = []


def stamp_lines(module, name, agent, patterns):
    """Stamp each line ``agent`` sends as the kernel's loop reads it, before parsing (ms, kernel
    clock), with the event index it carries: where the agent's share ends and codex_nb's begins."""
    parse = getattr(module, name)

    def stamped(line):
        t = time.time() * 1000
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        for kind, pattern in patterns:
            m = pattern.search(text)
            if m:
                arrived[f"{{agent}}_{{kind}}"].append((int(m.group(1)), t))
                break
        return parse(line)

    setattr(module, name, stamped)


def stamp_bytes(reader, agent, patterns):
    """Stamp the bytes of ``agent``'s stdout as the kernel's loop receives them from the pipe, with
    the event indices they carry: the end of the agent's own share (a line read later waited in
    the kernel, behind the lines before it)."""
    feed = reader.feed_data

    def fed(data):
        t = time.time() * 1000
        text = data.decode("utf-8", "replace")
        for kind, pattern in patterns:
            for m in pattern.finditer(text):
                received[f"{{agent}}_{{kind}}"].append((int(m.group(1)), t))
        feed(data)

    reader.feed_data = fed


def tree_cpu(pid):
    """CPU seconds (user + system) of a process and its live descendants, from /proc."""
    total, todo, tick = 0.0, [pid], os.sysconf("SC_CLK_TCK")
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{{p}}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in os.listdir(f"/proc/{{p}}/task"):
                with open(f"/proc/{{p}}/task/{{task}}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, IndexError, ValueError):
            pass
    return total


cpu = {{}}


async def agent_phase(name, pid, run_turn):
    """Run one agent figure's turn, noting the agent's CPU seconds and the wall time it took."""
    before, start = tree_cpu(pid), time.monotonic()
    await run_turn()
    cpu[name] = {{"cpu_s": tree_cpu(pid) - before, "wall_s": time.monotonic() - start}}
    await sync(name)


def agent_script(agent):
    """One thread (session) per figure, answered in turn by one local Responses server."""
    return ResponsesServer([
        Raw(body=paced(list(plan_frames()), sent[f"{{agent}}_plan"]), headers=SSE),
        [cx.assistant_message("ok")],
        Raw(body=paced(text_frames(), sent[f"{{agent}}_text"]), headers=SSE),
    ]).start()


plans, texts = cx.Session(), cx.Session()
widgets = [PlanChecklist(plans), cx.Transcript(texts)]
if CODEX:
    # One app-server, one thread per figure (a transcript of the plan turn would carry its
    # thousand tool calls).
    codex_model = agent_script("codex")
    home = codex_model.write_codex_home(tempfile.mkdtemp(prefix="bench-codex-"), tools={{"update_plan": {{"enabled": True}}}})
    codex = await cx.CodexAppServer(binary=CODEX, codex_home=home, env={{**os.environ, "OPENAI_API_KEY": "sk-local"}}).start()
    codex_plans, codex_texts = await codex.start_thread(cwd=home), await codex.start_thread(cwd=home)
    widgets += [PlanChecklist(codex_plans), cx.Transcript(codex_texts)]
    CODEX_LINES = [("plan", re.compile(r'"step":\s*"event (\d+)"')), ("text", re.compile(r'"delta":\s*"w(\d+) "'))]
    stamp_lines(app_server_rpc, "loads", "codex", CODEX_LINES)
    stamp_bytes(codex.connection._reader, "codex", CODEX_LINES)
if ACP:
    from codex_nb.testing import write_codex_acp_home
    acp_model = agent_script("acp")
    acp_home = write_codex_acp_home(acp_model, tempfile.mkdtemp(prefix="bench-acp-"))
    acp_agent = await cx.AcpAgent(ACP, env={{"CODEX_HOME": str(acp_home), "OPENAI_API_KEY": "sk-local"}}).start()
    acp_plans, acp_texts = await acp_agent.new_session(acp_home), await acp_agent.new_session(acp_home)
    widgets += [PlanChecklist(acp_plans), cx.Transcript(acp_texts)]
    ACP_LINES = [("plan", re.compile(r'"content":\s*"event (\d+)"')), ("text", re.compile(r'"text":\s*"w(\d+) "'))]
    stamp_lines(acp_transport, "_check", "acp", ACP_LINES)
    stamp_bytes(acp_agent.process.process.stdout, "acp", ACP_LINES)
for name, widget in zip(FIGURES, widgets):
    timed(widget, plan_index if name.endswith("plan") else text_index, comm[name])


async def turn(session, script, name):
    async with ResponsesServer(script) as server:
        model = cx.ResponsesModel(model="bench", base_url=server.base_url, api_key="sk-local")
        await session.run_turn(name, model=model)
    await sync(name)


async def run():
    try:
        result = await measure()
    except BaseException:
        import traceback
        result = {{"error": traceback.format_exc()}}
    with open("{result}", "w") as f:
        json.dump(result, f)
    probe.done = True


async def measure():
    await sync("warm")
    start = time.monotonic()
    for i in range(1, EVENTS + 1):
        delay = start + i / RATE - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        baseline.append((i, time.time() * 1000))
        probe.seq = i
    await sync("baseline")
    plan_script = [Raw(body=paced(list(plan_frames()), sent["plan"]), headers=SSE), [cx.assistant_message("ok")]]
    await turn(plans, plan_script, "plan")
    await turn(texts, [Raw(body=paced(text_frames(), sent["text"]), headers=SSE)], "text")
    if CODEX:
        try:
            for name, thread in (("codex_plan", codex_plans), ("codex_text", codex_texts)):
                await agent_phase(name, codex.pid, lambda: thread.start_turn(name))
        finally:
            await codex.close()
            await asyncio.to_thread(codex_model.close)
        codex_model.check()
    if ACP:
        try:
            for name, session in (("acp_plan", acp_plans), ("acp_text", acp_texts)):
                await agent_phase(name, acp_agent.pid, lambda: session.prompt(name))
        finally:
            await acp_agent.aclose()
            await asyncio.to_thread(acp_model.close)
        acp_model.check()
    lines = {{"codex": codex.connection.received}} if CODEX else {{}}
    return {{"baseline": baseline, "sent": sent, "comm": comm, "arrived": arrived, "received": received, "lines": lines, "cpu": cpu}}


display(probe, *widgets)
'''

# The page side: a MutationObserver recording, per figure, the highest event index the DOM
# shows and when (epoch ms), and the clock handshake over the probe's comm.
OBSERVE = """(figures) => {
  const now = () => performance.timeOrigin + performance.now();
  const seen = {baseline: []}, last = {baseline: 0};
  for (const name of figures) { seen[name] = []; last[name] = 0; }
  const note = (name, value, t) => {
    if (Number.isFinite(value) && value > last[name]) { last[name] = value; seen[name].push([value, t]); }
  };
  // the widgets in display order: checklists and transcripts alternate, own runtime first
  const plans = [...document.querySelectorAll(".codex-plan")];
  const transcripts = [...document.querySelectorAll(".cx-transcript")];
  const roots = {};
  figures.forEach((name, i) => { roots[name] = (name.endsWith("plan") ? plans : transcripts)[i >> 1]; });
  const planIndex = (root) => {
    const step = root.querySelector(".codex-plan-text");
    const m = step && /^event (\\d+)$/.exec(step.textContent);
    return m ? parseInt(m[1], 10) : NaN;
  };
  const textIndex = (root) => {
    const texts = root.querySelectorAll(".cx-kind-assistant .cx-transcript-text");
    if (!texts.length) return NaN;
    const words = texts[texts.length - 1].textContent.trim().split(/\\s+/);
    const word = words[words.length - 1];
    return word.startsWith("w") ? parseInt(word.slice(1), 10) : NaN;
  };
  new MutationObserver(() => {
    const t = now();
    note("baseline", parseInt(window.__probe.el.textContent, 10), t);
    for (const name of figures) note(name, (name.endsWith("plan") ? planIndex : textIndex)(roots[name]), t);
  }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
  window.__seen = seen;
}"""

HANDSHAKE = """async (pings) => {
  const now = () => performance.timeOrigin + performance.now();
  const samples = [];
  for (let k = 0; k < pings; k++) {
    const t0 = now();
    const reply = await new Promise((resolve) => {
      window.__probeReply = (msg) => { if (msg.kind === "pong" && msg.k === k) resolve(msg); };
      window.__probe.send({kind: "ping", k});
    });
    const t1 = now();
    samples.push({rtt: t1 - t0, offset: reply.t - (t0 + t1) / 2});
  }
  samples.sort((a, b) => a.rtt - b.rtt);
  return samples[0];
}"""


def first_at_or_after(marks: list[list[float]], index: int) -> float | None:
    """When the first mark carrying ``index`` or a later index came (marks in time order)."""
    for value, t in marks:
        if value >= index:
            return t
    return None


def latencies(sent: list[list[float]], stages: list[list[list[float]]], dom: list[list[float]], offset: float) -> dict:
    """Per event: total (send -> DOM) and the share between each two stamps in turn (send, the
    ``stages`` stamped in the kernel, the DOM); an event missing a stage stamp has no shares."""
    dom_kernel = [[value, t + offset] for value, t in dom]  # page clock -> kernel clock
    total: list[float] = []
    shares: list[list[float]] = [[] for _ in range(len(stages) + 1)]
    lost = 0
    for index, t_send in sent:
        t_dom = first_at_or_after(dom_kernel, index)
        if t_dom is None:
            lost += 1
            continue
        total.append(t_dom - t_send)
        stamps = [first_at_or_after(stage, index) for stage in stages]
        if all(t is not None for t in stamps):
            points = [t_send, *stamps, t_dom]
            for k in range(len(points) - 1):
                shares[k].append(points[k + 1] - points[k])  # type: ignore[operator]
    return {"total": total, "shares": shares, "lost": lost}


def measure(events: int, rate: float, *, app_server: bool = True, acp: bool = True) -> dict[str, Any]:
    from codex_nb.testing.acp_agents import CodexAcpNotFound, codex_acp_binary
    from codex_nb.testing.codex_ref import CodexNotFound, codex_binary

    codex = acp_bin = None
    if app_server:
        try:
            codex = str(codex_binary())
        except CodexNotFound as err:
            print(f"app-server figures skipped: {err}")
    if acp:
        try:
            acp_bin = str(codex_acp_binary())
        except CodexAcpNotFound as err:
            print(f"codex-acp figures skipped: {err}")
    agents = (["codex"] if codex else []) + (["acp"] if acp_bin else [])
    names = ["plan", "text"] + [f"{agent}_{kind}" for agent in agents for kind in ("plan", "text")]

    setup = SETUP.format(events=events, rate=rate, codex=codex, acp=acp_bin, result=RESULT)
    with jupyterlab_notebook("bytes_to_pixels.ipynb", [setup]) as (server, page, notebook):
        widgets = len(names) // 2
        page.locator(".bench-probe").wait_for(timeout=120_000)
        for selector in (".codex-plan", ".cx-transcript"):
            page.locator(selector).nth(widgets - 1).wait_for(timeout=120_000)
        page.wait_for_function("() => !!window.__probe")
        page.evaluate(OBSERVE, names)
        before = page.evaluate(HANDSHAKE, PINGS)
        page.evaluate("() => window.__probe.send({kind: 'start'})")
        try:
            page.wait_for_selector(
                ".bench-probe[data-done]",
                state="attached",
                timeout=int(4 * len(names) / 2 * events / rate * 1000 + 120_000),
            )
        except Exception as exc:
            outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
            raise RuntimeError(
                f"the run did not end: {exc}\ncell outputs: {outputs}\npage console: {notebook.console[-20:]}\n"
                f"server log: {server.log()[-3000:]}"
            ) from None
        after = page.evaluate(HANDSHAKE, PINGS)
        seen = page.evaluate("() => window.__seen")
        errors = notebook.unplaced_page_errors()
        kernel = json.loads((server.root / RESULT).read_text())
    if "error" in kernel:
        raise RuntimeError(f"the kernel's run failed:\n{kernel['error']}")
    assert not errors, errors
    offset = before["offset"]

    def stages(name: str) -> list[list[list[float]]]:
        agent = name.split("_")[0] in agents
        line = [kernel["received"][name], kernel["arrived"][name]] if agent else []
        return [*line, kernel["comm"][name]]

    figures = {
        "baseline": latencies(kernel["baseline"], [], seen["baseline"], offset),
        **{name: latencies(kernel["sent"][name], stages(name), seen[name], offset) for name in names},
    }
    return {
        "events": events,
        "rate": rate,
        "figures": figures,
        "clock": {"rtt": before["rtt"], "drift": after["offset"] - before["offset"], "rtt_after": after["rtt"]},
        "comm_messages": {k: len(v) for k, v in kernel["comm"].items()},
        "agent_lines": kernel["lines"],
        "agent_cpu": kernel["cpu"],
        "load": os.getloadavg(),
    }


LABELS = {
    "baseline": "idle comm: kernel -> DOM (baseline)",
    "plan": "update_plan SSE -> checklist step",
    "text": "text delta SSE -> transcript text",
    "codex_plan": "app-server: update_plan SSE -> checklist",
    "codex_text": "app-server: text delta SSE -> transcript",
    "acp_plan": "codex-acp: update_plan SSE -> checklist",
    "acp_text": "codex-acp: text delta SSE -> transcript",
}
SHARES = {
    2: ("  SSE sent -> comm sent (kernel)", "  comm sent -> DOM"),
    4: (
        "  SSE sent -> its JSON-RPC bytes in the kernel (agent)",
        "  bytes in -> line read (waiting behind earlier lines)",
        "  line read -> comm sent (codex_nb: parse, map, widget)",
        "  comm sent -> DOM",
    ),
}


def figures(result: dict[str, Any]) -> list[Figure]:
    """One line a figure: p50 / p99 ms, the goal on p99, the in-run idle comm baseline."""
    figs = result["figures"]
    base = figs["baseline"]["total"]
    base_p50, base_p99 = percentile(base, 0.5), percentile(base, 0.99)
    baseline = f"{base_p50:.1f} / {base_p99:.1f}"
    out = [Figure(LABELS["baseline"] + " p50/p99", baseline)]
    for name, fig in figs.items():
        if name == "baseline":
            continue
        p50, p99 = percentile(fig["total"], 0.5), percentile(fig["total"], 0.99)
        met = p99 <= base_p99 + ABOVE_BASELINE_MS and fig["lost"] == 0
        out.append(
            Figure(LABELS[name], f"{p50:.1f} / {p99:.1f}", f"p99 <= {base_p99 + ABOVE_BASELINE_MS:.1f}", baseline, met)
        )
        parts = [share for share in fig["shares"] if share]
        for label, share in zip(SHARES.get(len(parts), ()), parts, strict=False):
            out.append(Figure(label, f"{percentile(share, 0.5):.1f} / {percentile(share, 0.99):.1f}", "", ""))
        used = result.get("agent_cpu", {}).get(name)
        if used:  # the agent's process tree: what it costs the cores the kernel and browser share
            per_event = used["cpu_s"] * 1000 / result["events"]
            out.append(
                Figure(
                    "  agent CPU per event (ms) / of the wall time",
                    f"{per_event:.2f} / {used['cpu_s'] / used['wall_s']:.0%}",
                    "",
                    "",
                )
            )
    return out


def report(result: dict[str, Any]) -> str:
    clock = result["clock"]
    lost = {k: v["lost"] for k, v in result["figures"].items() if v["lost"]}
    title = (
        f"bytes to pixels in JupyterLab + Chromium, {result['events']} events per figure at {result['rate']:.0f}/s, "
        f"p50 / p99 ms (load average {result['load'][0]:.2f} {result['load'][1]:.2f} {result['load'][2]:.2f}):"
    )
    return "\n".join(
        [
            table(title, figures(result)),
            f"  clock handshake: best round trip {clock['rtt']:.2f} ms (offset error <= {clock['rtt'] / 2:.2f} ms), "
            f"drift over the run {clock['drift']:+.2f} ms (a share below zero is within that error); "
            f"comm updates sent: {result['comm_messages']}; JSON-RPC lines from the app-server: {result['agent_lines']}"
            + (f"; NEVER DRAWN: {lost}" if lost else ""),
        ]
    )


def goals_met(result: dict[str, Any]) -> bool:
    return all_met(figures(result))


@pytest.mark.benchmark
@pytest.mark.browser
def test_model_events_reach_the_dom_within_50ms_of_the_idle_comm() -> None:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    result = measure(1000, 100.0)
    print(report(result))
    assert goals_met(result), report(result)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--no-app-server", action="store_true", help="no codex app-server figures")
    parser.add_argument("--no-acp", action="store_true", help="no codex-acp figures")
    parser.add_argument("--json", type=Path, help="also write the raw result here")
    args = parser.parse_args()
    reason = skip_reason()
    if reason:
        print(f"skipped: {reason}")
        return
    result = measure(args.events, args.rate, app_server=not args.no_app_server, acp=not args.no_acp)
    if args.json:
        args.json.write_text(json.dumps(result))
    print(report(result))
    if not goals_met(result):
        sys.exit(1)


if __name__ == "__main__":
    main()
