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


COMMAND_SHOWN = 60
"""Characters of a hook's command the heartbeat shows (a long command ends in an ellipsis)."""


def running_hook(run: Any, source: Any = None) -> str:
    """What the heartbeat says while a hook runs: ``running hook PreToolUse: ./check.sh``.

    A command hook is named by its command (looked up in ``source``'s hook configuration, since
    a run carries only where its config came from): it runs through the login shell, so a slow
    shell profile shows up here as a hook that takes seconds on every tool call."""
    name = getattr(run, "status_message", None) or _command(run, source) or handler_name(run)
    name = " ".join(str(name).split())
    if len(name) > COMMAND_SHOWN:
        name = name[: COMMAND_SHOWN - 1] + "…"
    return f"running hook {EVENT_LABEL.get(run.event_name, run.event_name)}: {name}"


def _command(run: Any, source: Any) -> str | None:
    specs = getattr(getattr(source, "hooks", None), "specs", None)
    if not isinstance(specs, list):
        return None  # not codex_nb's engine (an app-server's hooks run inside Codex)
    try:
        spec = specs[run.display_order]  # a run's display order is its index among the specs
    except (IndexError, TypeError):
        return None
    if getattr(spec, "source_path", None) != run.source_path:
        return None  # the configuration changed since the run started
    command = getattr(spec.handler, "command", None)
    return command if isinstance(command, str) and command.strip() else None


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
