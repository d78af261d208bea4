"""The unstable ACP updates codex_nb reads, which the pinned SDK's schema lacks.

``notice``, ``compaction_update`` (with ``compaction_summary_chunk``) and ``subagent_update`` (with
``session_message``) are sent only to a client that says it reads them in ``initialize`` (codex-acp
2.6 and claude-agent-acp 0.101 check ``clientCapabilities.session.notices`` and
``.session.compaction`` to be objects, and ``clientCapabilities.subagents``); without them codex-acp
writes its warnings into the model's answer as text. The SDK (``agent-client-protocol`` 0.12.1) has
none of these fields nor updates: its ``ClientCapabilities`` would drop the fields and its
``SessionNotification`` would reject the updates. So, as ``draft_v2`` does for the v2 draft, the
transport adds ``CAPABILITIES`` to the ``initialize`` it sends and hands these updates to the
session as the extension notification ``_codex_nb/v2_update``, never through SDK privates.

Everything here is pure: an update (a JSON object from the peer) becomes a checked, bounded event
or the one-line reason it was not one.
"""

from __future__ import annotations

import copy
from typing import Any

from .acp_events import AcpCompaction, AcpNotice, AcpSubagent

CAPABILITIES: dict[str, Any] = {"session": {"notices": {}, "compaction": {}}, "subagents": {}}
"""What codex_nb adds to its ``clientCapabilities``: it shows notices, compactions and subagents."""

UPDATES = frozenset({"notice", "compaction_update", "compaction_summary_chunk", "subagent_update", "session_message"})
"""The ``session/update`` kinds of ``CAPABILITIES`` the SDK's schema lacks. ``session_message`` comes
with ``subagents``: claude-agent-acp 0.101 sends the task a session gives its subagent and the
subagent's reply that way, in place of its Agent tool call."""

MAX_TITLE = 200
"""A notice's or a subagent's name, or a session title, is cut to this many characters."""
MAX_TEXT = 2_000
"""A notice's description, a compaction's error or summary, a subagent's last message: cut here."""
MAX_SUBAGENTS = 100
"""Subagents kept per session; later ones are counted, not shown."""
MAX_ID = 200
"""A compaction's or a subagent's id past this many characters makes its update malformed (an id is
kept whole: it is how the agent's next update of it is found)."""


def with_capabilities(message: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` request ``message`` with ``CAPABILITIES`` added to what it offers (a copy;
    any other message as it is)."""
    if message.get("method") != "initialize" or not isinstance(message.get("params"), dict):
        return message
    params = dict(message["params"])
    offered = copy.deepcopy(params.get("clientCapabilities") or {})
    for key, value in CAPABILITIES.items():
        if isinstance(value, dict) and isinstance(offered.get(key), dict):
            offered[key] = {**offered[key], **copy.deepcopy(value)}
        else:
            offered[key] = copy.deepcopy(value)
    params["clientCapabilities"] = offered
    return {**message, "params": params}


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were."""
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def _text(value: Any, limit: int) -> str | None:
    return cut(value, limit) if isinstance(value, str) else None


def notice(update: dict[str, Any]) -> tuple[AcpNotice | None, str | None]:
    """The event of a ``notice`` update, or None and why it is not one."""
    title = update.get("title")
    severity = update.get("severity")
    if not isinstance(title, str) or not title.strip():
        return None, "a notice without a title (a non-empty string) was dropped"
    if not isinstance(severity, str) or not severity:
        return None, f"the notice {cut(title, 80)!r} has no severity (info, warning or error); dropped"
    description = update.get("description")
    return (
        AcpNotice(
            severity=cut(severity, 40),
            title=cut(title.strip(), MAX_TITLE),
            description=_text(description, MAX_TEXT) or None,
        ),
        None,
    )


def summary_text(blocks: Any) -> str:
    """The text of a compaction's ``summary`` content blocks (text blocks only)."""
    if not isinstance(blocks, list):
        return ""
    return "".join(b["text"] for b in blocks[:100] if isinstance(b, dict) and isinstance(b.get("text"), str))


def compaction(update: dict[str, Any], summary: str) -> tuple[AcpCompaction | None, str | None]:
    """The event of a ``compaction_update`` (``summary``: the text gathered for it so far)."""
    compaction_id = update.get("compactionId")
    status = update.get("status")
    if not isinstance(compaction_id, str) or not compaction_id:
        return None, "a compaction_update without a compactionId (a string) was dropped"
    if len(compaction_id) > MAX_ID:  # kept whole: a cut id would not match the next update's
        return None, f"a compaction_update whose compactionId is over {MAX_ID} characters was dropped"
    if not isinstance(status, str) or not status:
        return None, f"the compaction_update {cut(compaction_id, 80)!r} has no status; dropped"
    return (
        AcpCompaction(
            compaction_id=compaction_id,
            status=cut(status, 40),
            summary=cut(summary, MAX_TEXT),
            error=_text(update.get("error"), MAX_TEXT),
        ),
        None,
    )


STATES = ("running", "idle", "requires_action", "unknown")


def subagent_state(value: Any) -> str | None:
    """The state word of a ``subagent_update``'s ``state`` (an object tagged ``state``), if any."""
    word = value.get("state") if isinstance(value, dict) else None
    return cut(word, 40) if isinstance(word, str) and word else None


def subagent(update: dict[str, Any], before: AcpSubagent | None) -> tuple[AcpSubagent | None, str | None]:
    """``before`` (or a new subagent) with a ``subagent_update`` applied: a field that is present
    replaces the old value, an absent one leaves it (ACP's partial-update rule)."""
    child = update.get("sessionId")
    if not isinstance(child, str) or not child:
        return None, "a subagent_update without a sessionId (a string) was dropped"
    if len(child) > MAX_ID:  # kept whole: a cut id would match neither its updates nor its requests
        return None, f"a subagent_update whose sessionId is over {MAX_ID} characters was dropped"
    fields: dict[str, Any] = {}
    title = update.get("title")
    if isinstance(title, str) and title.strip():
        fields["name"] = cut(title.strip(), MAX_TITLE)
    description = update.get("description")
    if isinstance(description, str):
        fields["description"] = cut(description, MAX_TEXT) or None
    state = subagent_state(update.get("state"))
    if state is not None:
        fields["state"] = state
    if before is None:
        # untitled, it is named by its id's last part (codex-acp's are "<parent>:subagent:<thread>"),
        # never "subagent ...": the transcript already says "subagent <name>"
        fields.setdefault("name", cut(child.rsplit(":", 1)[-1] or child, 40))
        return AcpSubagent(session_id=child, **fields), None
    return before.model_copy(update=fields), None
