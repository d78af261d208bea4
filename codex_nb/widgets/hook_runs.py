"""One hook run in words: event, handler, duration and outcome, as the transcript and heartbeat say it.

A hook that blocks a call or adds context changes what the model reads, so a person must see
that it ran. ``hook_completed`` (from codex_nb's own engine, or the app-server's
``hook/completed``) carries a ``HookRunSummary``; these helpers turn it into the transcript's
line: ``PreToolUse: check-plan.sh · blocked · 0.4 s`` with the reason or the context added.
"""

from __future__ import annotations

import os
from typing import Any

EVENT_LABEL = {"pre_tool_use": "PreToolUse", "post_tool_use": "PostToolUse"}


def handler_name(run: Any) -> str:
    """The hook's handler as a person names it: its status message, a Python hook's name, or its file."""
    if getattr(run, "status_message", None):
        return str(run.status_message)
    path = str(getattr(run, "source_path", "") or "")
    if path.startswith("python:"):
        return path.removeprefix("python:").rpartition(".")[2]  # the function's own name, not its qualname
    return os.path.basename(path) or "hook"


def hook_title(run: Any) -> str:
    """``PreToolUse: check-plan.sh``."""
    return f"{EVENT_LABEL.get(run.event_name, run.event_name)}: {handler_name(run)}"


def seconds(ms: int | None) -> str:
    """``0.4 s`` (``""`` when unknown)."""
    return "" if ms is None else f"{ms / 1000:.1f} s"


def hook_outcome(run: Any) -> tuple[str, str]:
    """``(outcome, text)``: ``allowed`` / ``blocked`` / ``failed`` / ``stopped`` / ``running``, and what
    it said (the block's reason, the context added, warnings)."""
    lines = []
    context = False
    for entry in getattr(run, "entries", None) or []:
        if entry.kind == "context":
            context = True
            lines.append(f"additional context added: {entry.text}")
        else:
            lines.append(f"{entry.kind}: {entry.text}")
    status = run.status
    outcome = {"completed": "allowed", "blocked": "blocked"}.get(status, status)
    if context and outcome == "allowed":
        outcome = "allowed, context added"
    return outcome, "\n".join(lines)
