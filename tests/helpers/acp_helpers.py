"""Shared pieces of the ACP client tests: the plan-then-approved-command conversation codex-acp is
scripted through, and an event log that notes when a tool call completes (the handshake the
model's next answer waits for)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import codex_nb as cx

PLAN_1 = {"plan": [{"step": "Read the code", "status": "in_progress"}, {"step": "Write f.txt", "status": "pending"}]}
PLAN_2 = {"plan": [{"step": "Read the code", "status": "completed"}, {"step": "Write f.txt", "status": "completed"}]}
ESCALATED = {"cmd": "echo hi > f.txt", "sandbox_permissions": "require_escalated", "justification": "write f.txt"}


def after(gate: threading.Event, entry: Any) -> Any:
    """A script entry answered only once ``gate`` is open (the client saw what it waits for)."""

    def answer(_body: dict[str, Any]) -> Any:
        assert gate.wait(60), "the client never saw the event this model answer waits for"
        return entry

    return answer


def approved_write_script(tool_done: threading.Event) -> list[Any]:
    """A plan, a command that needs approval (it writes f.txt), the plan completed, a message.

    Codex reports a command's end on its own schedule, and codex-acp drops the report if it
    comes after the turn completed; so the model's next answer waits until the client has
    seen the command's completion (``tool_done``), or the turn could end before it."""
    return [
        [cx.function_call("update_plan", PLAN_1, call_id="p1")],
        [cx.function_call("exec_command", ESCALATED, call_id="x1")],
        after(tool_done, [cx.function_call("update_plan", PLAN_2, call_id="p2")]),
        [cx.assistant_message("All done.")],
    ]


def record_events(source: cx.events.EventSource, on_tool_done: Callable[[], object]) -> list[cx.events.Event]:
    """The events ``source`` emits from now on; ``on_tool_done`` runs when a tool call completes."""
    seen: list[cx.events.Event] = []

    def record(event: cx.events.Event) -> None:
        seen.append(event)
        if event.msg.type == "acp_tool_call" and event.msg.status == "completed":
            on_tool_done()

    source.subscribe(record)
    return seen
