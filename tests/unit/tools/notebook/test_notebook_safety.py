"""The notebook tools go through the runtime like any tool: approvals (the request shows the code or
the cell's diff), PreToolUse hooks that block or rewrite, lifecycle records, and Stop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import MemoryNotebook
from helpers.notebook_workspace import ON, session_with, trusting


async def test_run_code_asks_and_the_request_shows_the_code() -> None:
    session, ns = session_with(namespace={})
    seen = []
    session.answer_policy = cx.AnswerPolicy.callback(lambda request: seen.append(request.msg) or "approve")
    result = await session.call_tool("notebook.run_code", {"code": "ran = True"})
    assert ns["ran"] is True and "Process exited with code 0" in result.output
    assert [(m.type, m.command, m.reason) for m in seen] == [
        ("exec_approval_request", "ran = True", "run Python in the notebook's kernel")
    ]
    kinds = [e.msg.type for e in result.events]
    assert kinds.index("exec_approval_request") < kinds.index("frontend_request_resolved")


async def test_a_declined_run_never_runs() -> None:
    session, ns = session_with(namespace={})
    session.answer_policy = cx.AnswerPolicy.deny()
    result = await session.call_tool("notebook.run_code", {"code": "ran = True"})
    assert result.output == "notebook.run_code rejected by user" and result.success is False
    assert "ran" not in ns


async def test_nobody_to_ask_fails_with_how_to_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEX_NB_ANSWER_POLICY", raising=False)
    session, ns = session_with(namespace={})
    result = await session.call_tool("notebook.run_code", {"code": "ran = True"})
    assert result.output.startswith("notebook.run_code was not run: notebook.run_code could not be answered")
    assert "ran" not in ns


async def test_approve_for_session_stops_asking() -> None:
    session, ns = session_with(namespace={"n": 0})
    session.answer_policy = cx.AnswerPolicy.scripted(["approve_for_session"])
    for _ in range(3):
        await session.call_tool("notebook.run_code", {"code": "n += 1"})
    assert ns["n"] == 3 and session.answer_policy.remaining() == 0


async def test_approval_policy_never_refuses_instead_of_asking() -> None:
    session, ns = session_with('approval_policy = "never"\n' + ON, namespace={})
    result = await session.call_tool("notebook.run_code", {"code": "ran = True"})
    assert result.output == (
        "notebook.run_code needs approval and approval_policy is never; a person can allow it without asking "
        "with [codex_nb.notebook_tools.approve] run_code = false"
    )
    assert "ran" not in ns


async def test_an_edit_asks_with_the_cells_diff() -> None:
    doc = MemoryNotebook.of("x = 1\nprint(x)\n")
    session, _ = session_with(document=doc)
    seen = []
    session.answer_policy = cx.AnswerPolicy.callback(lambda request: seen.append(request.msg) or "approve")
    await session.call_tool("notebook.read_cell", {"cell_id": "cell-0"})
    result = await session.call_tool("notebook.edit_cell", {"cell_id": "cell-0", "source": "x = 2\nprint(x)\n"})
    assert result.output == "Edited cell cell-0 (index 0)"
    (msg,) = seen
    assert msg.type == "apply_patch_approval_request"
    assert [(c.path, c.kind) for c in msg.changes] == [("notebook cell cell-0", "update")]
    assert msg.changes[0].diff == "--- a/cell-0\n+++ b/cell-0\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n print(x)\n"


async def test_a_pre_tool_use_hook_blocks_and_the_tool_never_runs() -> None:
    session, ns = session_with(trusting(), namespace={})
    inputs = []

    @session.pre_tool_use(matcher="^notebook__")
    def no_deleting(hook_input: Any) -> dict | None:
        inputs.append((hook_input.tool_name, hook_input.tool_input))
        if "del " in hook_input.tool_input.get("code", ""):
            return {"decision": "block", "reason": "deleting is not allowed here"}
        return None

    ns["keep"] = 1
    blocked = await session.call_tool("notebook.run_code", {"code": "del keep"})
    assert blocked.output == (
        "Tool call blocked by PreToolUse hook: deleting is not allowed here. Tool: notebook__run_code"
    )
    assert ns["keep"] == 1
    allowed = await session.call_tool("notebook.run_code", {"code": "keep + 1"})
    assert allowed.output.endswith("Out: 2")
    assert inputs == [("notebook__run_code", {"code": "del keep"}), ("notebook__run_code", {"code": "keep + 1"})]


async def test_lifecycle_records_name_the_notebook_tool() -> None:
    session, _ = session_with(trusting(), namespace={"v": [1, 2]})
    await session.call_tool("notebook.inspect_variable", {"name": "v"})
    assert [(r.phase, str(r.tool_name)) for r in session.lifecycle_log][-2:] == [
        ("start", "notebook.inspect_variable"),
        ("finish", "notebook.inspect_variable"),
    ]


async def test_stop_interrupts_running_code_and_the_call_is_aborted() -> None:
    started = threading.Event()
    session, ns = session_with(trusting(), namespace={"started": started, "ticks": [0]})
    code = "started.set()\nwhile True:\n    ticks[0] += 1"
    model = cx.ScriptedModel([[cx.function_call("run_code", {"code": code}, call_id="spin", namespace="notebook")]])
    handle = session.start_turn("spin forever", model=model)
    assert await asyncio.to_thread(started.wait, 30)
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted"
    (output,) = [i for i in result.items if i.get("type") == "function_call_output"]
    assert output["output"].startswith("aborted by user after ")
    for thread in [t for t in threading.enumerate() if t.name == "codex-nb-run-code"]:
        thread.join(5)
    assert not [t for t in threading.enumerate() if t.name == "codex-nb-run-code"]
