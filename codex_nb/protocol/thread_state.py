"""``thread_status``, ``thread_settings`` and ``queue_changed``: the real Codex's own account of a
thread, read from its wire shapes into small bounded values.

Codex's app-server says what a thread is doing (``thread/status/changed``: idle, active, active
and waiting on the person's approval or answer, a system error), which settings its next turn
runs with (``thread/settings/updated``: model, effort, approvals, sandbox, collaboration mode...)
and that its queue of pending input changed (``thread/queue/changed``, the thread's id and nothing
else). ``thread/start`` and ``thread/resume`` answer with the same status and most of the settings.
The turn controls, their saved fallback and ``CodexThread`` read the same values, so their reading
and their wording live here, below all of them.

The server is a peer: a value of the wrong shape raises ``ThreadStateError`` naming the field,
every string is cut to a bound, and what a person does not need (the collaboration mode's
developer instructions, thousands of characters, resent on every change) is never copied.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .events import EventMsg

MAX_SETTING_CHARS = 200
"""Characters of a setting kept (a model name, an effort, a policy); a longer one is cut with ``…``."""
MAX_CWD_CHARS = 1_000
"""Characters of the working directory kept (its head)."""
MAX_FLAGS = 8
"""Active flags kept of one status (Codex 0.171 has two)."""

STATUS_KINDS = ("notLoaded", "idle", "systemError", "active")
"""Codex's ``ThreadStatus`` types."""

FLAG_TEXT = {"waitingOnApproval": "your approval", "waitingOnUserInput": "your answer"}
"""The active flags a person acts on, and how the status line names them."""

SANDBOX_TEXT = {
    "dangerFullAccess": "full access (no sandbox)",
    "readOnly": "read-only",
    "workspaceWrite": "workspace-write",
    "externalSandbox": "external",
}
"""How each ``SandboxPolicy`` type reads in the settings line."""


class ThreadStateError(ValueError):
    """A status or settings value from Codex that is not the shape its protocol defines."""


def _cut(text: str, limit: int = MAX_SETTING_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


class ThreadStatus(BaseModel):
    """A thread's status as Codex last reported it: ``kind`` (``idle``, ``active``,
    ``systemError``, ``notLoaded``) and, while active, what it waits on (``flags``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["notLoaded", "idle", "systemError", "active"]
    flags: tuple[str, ...] = ()
    """Codex's active flags (``waitingOnApproval``, ``waitingOnUserInput``; a later release's
    others are kept, cut, but not worded)."""

    @property
    def waiting_on_approval(self) -> bool:
        return "waitingOnApproval" in self.flags

    @property
    def waiting_on_user_input(self) -> bool:
        return "waitingOnUserInput" in self.flags

    def text(self) -> str:
        """What a person needs to know, in one line (``Waiting on your approval``, ``Codex reported a
        system error``); the empty string when the turn status says it all (idle, running)."""
        if self.kind == "systemError":
            return "Codex reported a system error"
        waits = [words for flag, words in FLAG_TEXT.items() if flag in self.flags]
        return f"Waiting on {' and '.join(waits)}" if self.kind == "active" and waits else ""


class ThreadSettings(BaseModel):
    """The settings a thread's next turn runs with, as Codex last reported them (a bounded subset
    of its ``ThreadSettings``; None: not reported, e.g. the mode in a ``thread/start`` answer)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    model_provider: str | None = None
    effort: str | None = None
    """Reasoning effort (``low``, ``medium``, ``high``...); None: the model's default."""
    summary: str | None = None
    """Reasoning summary (``auto``, ``concise``, ``detailed``, ``none``); None: the default."""
    approval_policy: str | None = None
    """``untrusted``, ``on-request``, ``never``, or ``granular`` (per-kind rules, not kept)."""
    approvals_reviewer: str | None = None
    """Who reviews approval requests: ``user``, ``auto_review`` (``guardian_subagent``)."""
    sandbox: str | None = None
    """The sandbox policy's type: ``readOnly``, ``workspaceWrite``, ``dangerFullAccess``, ``externalSandbox``."""
    network_access: bool | None = None
    """Whether the sandbox lets commands reach the network (None: not said)."""
    mode: str | None = None
    """The collaboration mode: ``default`` or ``plan`` (its developer instructions are never kept)."""
    cwd: str | None = None
    service_tier: str | None = None

    def text(self) -> str:
        """The settings in one line: ``gpt-5.1-codex · effort high · Plan mode · approvals:
        on-request · sandbox: workspace-write (network on)``; what was not reported is left out."""
        parts = [self.model or ""]
        if self.effort:
            parts.append(f"effort {self.effort}")
        if self.mode:
            parts.append("Plan mode" if self.mode == "plan" else f"{self.mode.capitalize()} mode")
        if self.approval_policy:
            parts.append(f"approvals: {self.approval_policy}")
        if self.approvals_reviewer and self.approvals_reviewer != "user":
            parts.append(f"reviewer: {self.approvals_reviewer.replace('_', ' ')}")
        if self.sandbox:
            network = " (network on)" if self.network_access and self.sandbox != "dangerFullAccess" else ""
            parts.append(f"sandbox: {SANDBOX_TEXT.get(self.sandbox, self.sandbox)}{network}")
        return " \u00b7 ".join(part for part in parts if part)


class ThreadStatusChanged(EventMsg):
    """``thread_status``: Codex's status of the thread changed (``thread/status/changed``)."""

    type: Literal["thread_status"] = "thread_status"
    status: ThreadStatus


class ThreadSettingsUpdated(EventMsg):
    """``thread_settings``: the settings of the thread's next turn changed (``thread/settings/updated``)."""

    type: Literal["thread_settings"] = "thread_settings"
    settings: ThreadSettings


class QueueChanged(EventMsg):
    """``queue_changed``: Codex's queue of pending input for the thread changed
    (``thread/queue/changed`` says no more: its contents are not known here)."""

    type: Literal["queue_changed"] = "queue_changed"
    count: int
    """How many queue changes the thread has seen, this one included."""


def thread_status(value: Any) -> ThreadStatus:
    """The ``ThreadStatus`` of Codex's wire ``{type, activeFlags?}``; raises ``ThreadStateError``."""
    kind = value.get("type") if isinstance(value, dict) else None
    if kind not in STATUS_KINDS:
        raise ThreadStateError(f"thread status is not {{type: {'|'.join(STATUS_KINDS)}}}: {str(value)[:200]}")
    flags = value.get("activeFlags") if kind == "active" else []
    if not isinstance(flags, list) or not all(type(flag) is str for flag in flags):
        raise ThreadStateError(f"thread status `activeFlags` is not a list of strings: {str(flags)[:200]}")
    return ThreadStatus(kind=kind, flags=tuple(_cut(flag, 64) for flag in flags[:MAX_FLAGS]))


def _text(settings: dict[str, Any], key: str, *, required: bool = False, limit: int = MAX_SETTING_CHARS) -> str | None:
    value = settings.get(key)
    if value is None and not required:
        return None
    if type(value) is not str:
        raise ThreadStateError(f"thread settings `{key}` is not a string: {str(value)[:200]}")
    return _cut(value, limit)


def _sandbox(policy: Any) -> tuple[str | None, bool | None]:
    if policy is None:
        return None, None
    kind = policy.get("type") if isinstance(policy, dict) else None
    if type(kind) is not str:
        raise ThreadStateError(f"thread settings `sandboxPolicy` is not {{type: string, ...}}: {str(policy)[:200]}")
    network = policy.get("networkAccess")
    # externalSandbox says "restricted" or "enabled"; the others a boolean
    if network is not None and type(network) is not bool and network not in ("restricted", "enabled"):
        raise ThreadStateError(f"thread settings sandbox `networkAccess` is not a boolean: {str(network)[:200]}")
    return _cut(kind, 64), None if network is None else network in (True, "enabled")


def _approval(policy: Any) -> str | None:
    if policy is None or type(policy) is str:
        return None if policy is None else _cut(policy, 64)
    if isinstance(policy, dict) and "granular" in policy:
        return "granular"
    raise ThreadStateError(
        f"thread settings `approvalPolicy` is not a string or {{granular: ...}}: {str(policy)[:200]}"
    )


def thread_settings(value: Any) -> ThreadSettings:
    """The ``ThreadSettings`` of a ``thread/settings/updated``'s ``threadSettings``; raises
    ``ThreadStateError`` naming the first field of the wrong shape."""
    if not isinstance(value, dict):
        raise ThreadStateError(f"`threadSettings` is not an object: {str(value)[:200]}")
    mode = value.get("collaborationMode")
    if mode is not None and not (isinstance(mode, dict) and type(mode.get("mode")) is str):
        raise ThreadStateError(f"thread settings `collaborationMode` is not {{mode: string, ...}}: {str(mode)[:200]}")
    sandbox, network = _sandbox(value.get("sandboxPolicy"))
    return ThreadSettings(
        model=_text(value, "model"),
        model_provider=_text(value, "modelProvider"),
        effort=_text(value, "effort"),
        summary=_text(value, "summary"),
        approval_policy=_approval(value.get("approvalPolicy")),
        approvals_reviewer=_text(value, "approvalsReviewer"),
        sandbox=sandbox,
        network_access=network,
        mode=None if mode is None else _cut(mode["mode"], 64),
        cwd=_text(value, "cwd", limit=MAX_CWD_CHARS),
        service_tier=_text(value, "serviceTier"),
    )


def response_settings(response: dict[str, Any]) -> ThreadSettings:
    """The settings a ``thread/start`` / ``thread/resume`` / ``thread/fork`` answer reports (its
    ``model``, ``reasoningEffort``, ``approvalPolicy``, ``sandbox``...; no collaboration mode);
    raises ``ThreadStateError`` as ``thread_settings`` does."""
    return thread_settings(
        {
            key: response.get(wire)
            for key, wire in (
                ("model", "model"),
                ("modelProvider", "modelProvider"),
                ("effort", "reasoningEffort"),
                ("approvalPolicy", "approvalPolicy"),
                ("approvalsReviewer", "approvalsReviewer"),
                ("sandboxPolicy", "sandbox"),
                ("cwd", "cwd"),
                ("serviceTier", "serviceTier"),
            )
        }
    )


__all__ = [
    "FLAG_TEXT",
    "MAX_CWD_CHARS",
    "MAX_FLAGS",
    "MAX_SETTING_CHARS",
    "STATUS_KINDS",
    "QueueChanged",
    "ThreadSettings",
    "ThreadSettingsUpdated",
    "ThreadStateError",
    "ThreadStatus",
    "ThreadStatusChanged",
    "response_settings",
    "thread_settings",
    "thread_status",
]
