"""Kernel code that starts the REAL Codex (``codex app-server``, the pinned version) offline in a
browser test's notebook, shared by every browser test that drives it through a widget or ``%%codex
--source``: Codex samples from a local scripted Responses server (``ResponsesServer``), so what the
model received is asserted on in the page.

``START`` defines ``codex_on(script)`` (the scripted server and a Codex thread on it) and
``carried(srv, text)``. ``STEERED`` adds the button-held script of a turn the person answers while
it runs (``steered_answers``) and the label that reports how that answer went in (``report_steered``).
"""

from __future__ import annotations

from .harness import gate_cell

START = """\
import json, os, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer
from codex_nb.timeline import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget


def plan(*steps):
    return cx.function_call("update_plan", {"plan": [{"step": s, "status": t} for s, t in steps]})


async def codex_on(script):
    srv = ResponsesServer(script, allow_leftover=True).start()
    home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), tools={"update_plan": {"enabled": True}})
    server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
    await server.start()
    return srv, await server.start_thread(cwd=tempfile.gettempdir())


def carried(srv, text):  # did a request the scripted server received hold `text`, as it stands in the JSON?
    wanted = json.dumps(text, ensure_ascii=False)[1:-1]
    return any(wanted in json.dumps(b["input"], ensure_ascii=False) for b in srv.requests)
"""

STEERED = (
    gate_cell("Let the model answer")
    + START
    + """\


def steered_answers(first, marker, then):
    \"\"\"The script of a turn the person answers while it runs: `first` plan, then each answer waits
    for the button and repeats `first` until a request holds `marker`, answers `then` to that one,
    and ends the turn after.\"\"\"
    seen = []

    def answer(body):  # on the scripted server's thread
        gate.wait(120)
        if seen:
            return [cx.assistant_message("done")]
        if marker in json.dumps(body["input"], ensure_ascii=False):
            seen.append(1)
            return [then]
        return [first]

    return [[first]] + [answer] * 3


def report_steered(srv, thread, records, message):
    \"\"\"A label that says, when the first turn ends, how the first of `records()` went in and
    whether a request Codex sent carried its `message(record)`.\"\"\"
    label = widgets.Label(value="turn running")

    def on_event(event):
        if event.msg.type == "turn_complete" and label.value == "turn running":
            record = records()[0] if records() else None
            in_turn = record is not None and record.turn_id == event.msg.turn_id
            delivery = record.delivery if record else "none"
            got = record is not None and carried(srv, message(record))
            label.value = f"turn ended | {delivery} in this turn: {in_turn} | model received it: {got}"

    thread.subscribe(on_event)
    return label
"""
)
