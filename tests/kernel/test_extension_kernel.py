"""``%load_ext codex_nb`` in a real kernel (nbclient): a ``%%codex`` cell runs a scripted turn
in the background, its output holds the live widgets, and unloading leaves nothing behind."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.kernels import start_kernel

pytestmark = pytest.mark.kernel

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

SETUP = """\
import asyncio, os
import codex_nb as cx
%load_ext codex_nb
gate = asyncio.Event()
agent = cx.extension.agent()
planned = asyncio.Event()
agent.source().subscribe(lambda e: planned.set() if e.msg.type == "plan_update" else None)

@agent.source().tool
async def wait_for_gate() -> str:
    "Waits for a later cell."
    await gate.wait()
    return "released"

script = [
    [cx.function_call("update_plan", {"plan": [{"step": "Wait", "status": "in_progress"}]}, call_id="p1"),
     cx.function_call("wait_for_gate", {}, call_id="g")],
    [cx.function_call("update_plan", {"plan": [{"step": "Wait", "status": "completed"}]}, call_id="p2")],
    [cx.assistant_message("All done.")],
]
"""

CODEX_CELL = """\
%%codex --model script --out turn
Wait for the gate, then finish.
"""

CHECK_RUNNING = """\
view = agent.widgets[-1]
await planned.wait()
await view.checklist.settled()
print(turn.done(), view.controls.status, view.checklist.steps)
gate.set()
result = await turn
await view.checklist.settled()
print(result.status, result.last_agent_message, view.checklist.steps, view.controls.status)
print(view.outcome.value)
print(view.transcript.text().splitlines()[-1])
"""

UNLOAD = '''\
import tempfile
fifo = os.path.join(tempfile.mkdtemp(), "hook-started")
os.mkfifo(fifo)
hang_script = [[cx.function_call("update_plan", {"plan": [{"step": "Hang", "status": "in_progress"}]}, call_id="h")]]
get_ipython().run_cell_magic("codex_config", "", f"""
[tools.update_plan]
enabled = true
[[hooks.PreToolUse]]
matcher = "update_plan"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo started > {fifo}; exec sleep 600"
""")
agent = cx.extension.agent()
'''

HANG_CELL = """\
%%codex --model hang_script --out stuck
Hang until unloaded.
"""

HOOK_RUNNING = """\
await asyncio.to_thread(lambda: open(fifo).read())  # the hook process has started
def children():
    return open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()
print(len(children()))
"""

AFTER_UNLOAD = """\
%unload_ext codex_nb
await cx.extension.wait_closed()
stuck_result = await stuck
leftover = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and "codex_nb" in repr(t.get_coro())]
print(stuck_result.status, leftover, children(), cx.extension.agent(), all(w.comm is None for w in agent.widgets))
print("codex" in get_ipython().magics_manager.magics["cell"])
"""


def _run(cells: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True)
    client.execute()
    return nb


def _stream(cell: nbformat.NotebookNode) -> str:
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, "\n".join(errors[0].traceback)
    return "".join(o.text for o in cell.outputs if o.output_type == "stream")


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    return _run(
        [
            SETUP,
            CODEX_CELL,
            CHECK_RUNNING,
            UNLOAD,
            HANG_CELL,
            HOOK_RUNNING,
            AFTER_UNLOAD,
            "%codex_plan --bogus",
            "%load_ext codex_nb\n%codex_plan --bogus",
        ]
    )


def test_codex_cell_returns_at_once_and_shows_the_widgets(executed: nbformat.NotebookNode) -> None:
    cell = executed.cells[1]
    assert _stream(cell) == ""
    (display,) = [o for o in cell.outputs if o.output_type == "display_data"]
    assert WIDGET_VIEW in display.data
    # shown while the turn ran, stored as it ended: updated in place when a later cell ended
    assert display.data["text/plain"] == (
        "codex · session default\nTurn: completed\n• Updated Plan\n  └ ✔ Wait\n"
        "Transcript: completed\nyou: Wait for the gate, then finish.\nassistant: All done.\nTurn completed: All done."
    )
    assert "cx-turn-view-static" in display.data["text/html"] and "Turn: completed" in display.data["text/html"]


def test_the_turn_ran_in_the_background_and_the_widgets_followed_it(executed: nbformat.NotebookNode) -> None:
    lines = _stream(executed.cells[2]).splitlines()
    assert lines[0] == "False running [{'step': 'Wait', 'status': 'in_progress'}]"
    assert lines[1] == "completed All done. [{'step': 'Wait', 'status': 'completed'}] completed"
    assert lines[2] == "Turn completed: All done."
    assert lines[3] == "assistant: All done."  # the transcript


def test_unload_interrupts_the_turn_and_leaves_no_task_process_or_magic(executed: nbformat.NotebookNode) -> None:
    assert _stream(executed.cells[5]) == "1\n"  # the PreToolUse hook's process runs before the unload
    assert _stream(executed.cells[6]).splitlines() == ["interrupted [] [] None True", "False"]


def test_bad_flags_are_one_line_errors(executed: nbformat.NotebookNode) -> None:
    # IPython prints a UsageError as one stderr line, without a traceback
    assert executed.cells[7].outputs == [
        {
            "output_type": "stream",
            "name": "stderr",
            "text": "UsageError: Line magic function `%codex_plan` not found.\n",
        }
    ]
    assert executed.cells[8].outputs == [
        {
            "output_type": "stream",
            "name": "stderr",
            "text": "UsageError: unrecognized arguments: --bogus; usage: %codex_plan "
            "[-h] [--panel] [--close] [--session NAME] [--source VAR]\n",
        }
    ]


def test_loaded_from_kernel_config_with_extension_settings() -> None:
    """`c.InteractiveShellApp.extensions` (here its command-line alias) loads it at kernel start,
    and `c.CodexNbExtension.*` settings apply."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%codex_config")]
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        extra_arguments=[
            "--ext=codex_nb",
            "--CodexNbExtension.open_plan_panel=True",
            "--CodexNbExtension.default_model=script",
        ],
    ).execute()
    lines = _stream(nb.cells[0]).splitlines()
    assert lines[:2] == [
        "session: default",
        "default --model: script (not defined yet: define it in a cell before running %%codex)",
    ]
    assert lines[-1] == "auto plan panel: on"


INTERRUPT_SETUP = """\
import asyncio
import codex_nb as cx
%load_ext codex_nb
never = asyncio.Event()

@cx.extension.agent().source().tool
async def wait_forever() -> str:
    "Waits until the turn is stopped."
    print("tool started", flush=True)
    await never.wait()
    return "unreachable"

script = [[cx.function_call("wait_forever", {}, call_id="w")]]
"""

INTERRUPTED_CELL = """\
%codex --model script --out turn Wait.
result = await turn
"""

AFTER_INTERRUPT = """\
result = await turn
print(result.status, [(i["type"], i.get("output", "")[:15]) for i in result.items if i.get("call_id") == "w"])
"""


def _execute(
    kc: Any, code: str, *, on_output: Callable[[dict[str, Any]], None] = lambda _: None, timeout: float = 60
) -> list[dict[str, Any]]:
    """Run ``code``; the iopub outputs of that request, until the kernel is idle again."""
    msg_id = kc.execute(code)
    outputs: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(0.0, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return outputs
        if msg["msg_type"] in ("stream", "error", "execute_result"):
            outputs.append({"type": msg["msg_type"], **msg["content"]})
            on_output(outputs[-1])


def test_the_kernel_interrupt_stops_an_awaited_turn_like_stop() -> None:
    """The interrupt button during `await turn`: the turn stops at once (first-party, paired
    outputs) and the cell ends with one line, not a CancelledError traceback after the loop's
    next wake-up."""
    km, kc = start_kernel()
    try:
        assert not [o for o in _execute(kc, INTERRUPT_SETUP) if o["type"] == "error"]
        sent: list[float] = []
        printed: list[str] = []

        def interrupt_once_started(output: dict[str, Any]) -> None:
            printed.append(output.get("text", ""))
            if "tool started" in "".join(printed) and not sent:  # the await is under way
                km.interrupt_kernel()
                sent.append(time.monotonic())

        outputs = _execute(kc, INTERRUPTED_CELL, on_output=interrupt_once_started, timeout=60)
        assert sent, outputs
        assert time.monotonic() - sent[0] < 10  # it waited for no timer (before: forever)
        errors = [o for o in outputs if o["type"] == "error"]
        assert len(errors) == 1 and errors[0]["ename"] == "TurnInterrupted", outputs
        (line,) = errors[0]["traceback"]
        assert (
            line.startswith("TurnInterrupted: turn ") and "interrupted (Ctrl-C / the kernel's interrupt button)" in line
        )
        (out,) = [o for o in _execute(kc, AFTER_INTERRUPT) if o["type"] == "stream"]
        assert out["text"] == ("interrupted [('function_call', ''), ('function_call_output', 'aborted by user')]\n")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


MCP_SETUP = """\
import asyncio, json, os, sys
import codex_nb as cx
from pathlib import Path
%load_ext codex_nb
notes = Path(cx.__file__).resolve().parents[1] / "tests" / "mcp_servers" / "notes_server.py"
get_ipython().run_cell_magic("codex_config", "", f'''
[mcp_servers.notes]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(notes))}]
startup_timeout_sec = 60
[mcp_servers.missing]
command = "/no/such/mcp-server"
''')
session = cx.extension.agent().source()
print(session.mcp_servers.begun)
"""

MCP_READY = """\
await session.mcp_ready()
def children():
    return open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()
print(session.mcp_servers.status(), len(children()))
"""

MCP_UNLOAD = """\
%unload_ext codex_nb
await cx.extension.wait_closed()
print(session.mcp_servers.status(), children())
"""


def test_the_extension_session_starts_the_configs_mcp_servers_and_ends_them_on_unload() -> None:
    nb = _run([MCP_SETUP, MCP_READY, "%codex_tools", MCP_UNLOAD])
    setup = _stream(nb.cells[0]).splitlines()
    assert setup[-1] == "False"  # the startup runs in the background, after the cell
    assert _stream(nb.cells[1]) == "{'notes': 'ready', 'missing': 'failed'} 1\n"
    tools = _stream(nb.cells[2])
    assert "notes       ready" in tools and "/no/such/mcp-server" in tools
    assert _stream(nb.cells[3]) == "{'notes': 'stopped', 'missing': 'failed'} []\n"
