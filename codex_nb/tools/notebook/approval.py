"""Asking the person before a notebook tool runs code or changes the document.

Each asking tool opens a command approval (``exec_approval_request``: the code or the cell's
source) or a file-change approval (``apply_patch_approval_request``: a unified diff of the cell),
through the same broker and prompts widget as every other request, so a policy, a scripted
answer or a person at the widget answers it. ``approve_for_session`` stops asking for that tool
in this session; a decline, or nobody able to answer, fails the call with a message the model
reads.
"""

from __future__ import annotations

import difflib

from ...frontend.requests import Outcome, RequestKind
from ...protocol.frontend import ApplyPatchApprovalRequestEvent, ExecApprovalRequestEvent, FileChange
from ..tool_errors import RespondToModel
from ..handlers.ask import ask
from ..invocation import ToolInvocation

CELL_PATH = "notebook cell {cell_id}"


def cell_diff(cell_id: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{cell_id}", f"b/{cell_id}"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def exec_request(invocation: ToolInvocation, command: str, reason: str) -> ExecApprovalRequestEvent:
    turn = invocation.turn
    return ExecApprovalRequestEvent(
        call_id=invocation.call_id, turn_id=turn.turn_id, command=command, cwd=turn.cwd, reason=reason
    )


def change_request(
    invocation: ToolInvocation, *, cell_id: str, kind: str, before: str, after: str, reason: str
) -> ApplyPatchApprovalRequestEvent:
    change = FileChange(path=CELL_PATH.format(cell_id=cell_id), kind=kind, diff=cell_diff(cell_id, before, after))
    return ApplyPatchApprovalRequestEvent(
        call_id=invocation.call_id, turn_id=invocation.turn.turn_id, changes=[change], reason=reason
    )


async def require_approval(
    invocation: ToolInvocation,
    tool: str,
    msg: ExecApprovalRequestEvent | ApplyPatchApprovalRequestEvent,
    *,
    session_approved: set[str],
) -> None:
    """Return when approved; raise ``RespondToModel`` with the reason otherwise."""
    if tool in session_approved:
        return
    if invocation.turn.config.approval_policy == "never":
        raise RespondToModel(
            f"notebook.{tool} needs approval and approval_policy is never; a person can allow it without asking "
            f"with [codex_nb.notebook_tools.approve] {tool} = false"
        )
    settlement = await ask(invocation, RequestKind.APPROVAL, msg, f"notebook.{tool}")
    if settlement.outcome == Outcome.UNANSWERABLE:
        raise RespondToModel(f"notebook.{tool} was not run: {settlement.response}")
    decision = settlement.response.get("decision") if isinstance(settlement.response, dict) else None
    if decision == "approve_for_session":
        session_approved.add(tool)
        return
    if decision != "approve":
        raise RespondToModel(f"notebook.{tool} rejected by user")
