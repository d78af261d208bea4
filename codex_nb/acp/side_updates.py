"""What an ACP agent tells about a session beside its turns: the session's title, its notices,
context compactions and subagents, as each last stood.

The updates come checked and bounded from ``unstable_updates`` (notices, compactions, subagents:
the kinds the SDK's schema lacks) and from ``session_info_update`` (the title); ``SideUpdates``
keeps the latest of each for its session (``session.notices``, ``compactions``, ``subagents``,
``title``), shows each change as an event, and counts what it drops: past ``MAX_NOTICES`` notices
and compactions, past ``unstable_updates.MAX_SUBAGENTS`` subagents, and malformed updates (the
first ``MALFORMED_WARNINGS`` are said in a warning).
"""

from __future__ import annotations

import collections
from typing import Any, Protocol

from ..protocol.events import Event, EventMsg, WarningEvent
from . import unstable_updates
from .acp_events import AcpCompaction, AcpNotice, AcpSessionTitle, AcpSubagent
from .mapping import content_text
from .port import AgentPort

MAX_NOTICES = 100
"""Notices and compactions a session keeps (``notices``, ``compactions``); older ones are dropped."""
MALFORMED_WARNINGS = 5
"""Malformed updates said in a warning; the rest are only counted."""


class SideUpdatesHost(Protocol):
    """What ``SideUpdates`` needs of its session."""

    session_id: str
    agent: AgentPort

    def emit(self, msg: EventMsg) -> Event: ...


class SideUpdates:
    """One session's title, notices, compactions and subagents."""

    def __init__(self, host: SideUpdatesHost) -> None:
        self.host = host
        self.title: str | None = None
        """The session's title as the agent last set it (``session_info_update``), or None."""
        self.notices: collections.deque[AcpNotice] = collections.deque(maxlen=MAX_NOTICES)
        """The agent's latest ``MAX_NOTICES`` notices, oldest first."""
        self.compactions: dict[str, AcpCompaction] = {}
        """The agent's latest ``MAX_NOTICES`` context compactions by id, as each last stood."""
        self.subagents: dict[str, AcpSubagent] = {}
        """The subagents working for this session (at most ``MAX_SUBAGENTS``) by session id, as each stands."""
        self.subagents_dropped = 0
        """Subagents past ``MAX_SUBAGENTS``: announced by the agent, neither kept nor shown."""
        self.malformed_updates = 0
        """Notices, compactions and subagent updates dropped because they were malformed."""
        self._subagent_talk: dict[str, str | None] = {}
        """Per subagent, the kind of its latest update (a new message starts after another kind)."""

    def set_title(self, title: Any) -> None:
        """The agent's ``session_info_update`` title (``None``: cleared), shown once per change."""
        if title is not None and not isinstance(title, str):
            return
        shown = None if title is None else unstable_updates.cut(" ".join(title.split()), unstable_updates.MAX_TITLE)
        if shown == self.title:
            return
        self.title = shown or None
        self.host.emit(AcpSessionTitle(title=self.title))

    def _malformed(self, problem: str | None) -> None:
        """One line for each of the first malformed unstable updates; the rest are only counted."""
        self.malformed_updates += 1
        if self.malformed_updates <= MALFORMED_WARNINGS:
            more = (
                " (more are only counted in session.malformed_updates)"
                if self.malformed_updates == MALFORMED_WARNINGS
                else ""
            )
            self.host.emit(WarningEvent(message=f"the ACP agent sent {problem}{more}"))

    def apply(self, kind: str, update: dict[str, Any]) -> None:
        """Apply one of ``unstable_updates.UPDATES``: a notice, compaction or subagent update is checked
        there (a malformed one is counted and said); a ``session_message`` is read and not kept."""
        if kind == "notice":
            notice, problem = unstable_updates.notice(update)
            if notice is None:
                self._malformed(problem)
                return
            self.notices.append(notice)
            self.host.emit(notice)
        elif kind in ("compaction_update", "compaction_summary_chunk"):
            self._compaction(kind, update)
        elif kind == "subagent_update":
            self._subagent(update)
        # a session_message (a subagent's task or its reply) is read and not shown: the subagent's
        # entry already has its task (its description) and its answer (its last message)

    def _compaction(self, kind: str, update: dict[str, Any]) -> None:
        compaction_id = update.get("compactionId")
        before = self.compactions.get(compaction_id) if isinstance(compaction_id, str) else None
        summary = before.summary if before is not None else ""
        if kind == "compaction_summary_chunk":
            content = update.get("content")
            text = content.get("text") if isinstance(content, dict) else None
            if before is None or not isinstance(text, str):
                self._malformed("a compaction_summary_chunk of no compaction it announced, or without text; dropped")
                return
            event, problem = unstable_updates.compaction(
                {"compactionId": compaction_id, "status": before.status, "error": before.error}, summary + text
            )
        else:
            summary += unstable_updates.summary_text(update.get("summary"))
            event, problem = unstable_updates.compaction(update, summary)
        if event is None:
            self._malformed(problem)
            return
        if event == before:
            return  # said again as it was (claude-agent-acp 0.101 repeats a compaction's end): nothing new
        self.compactions.pop(event.compaction_id, None)  # re-inserted last: the dict's order is their age
        self.compactions[event.compaction_id] = event
        while len(self.compactions) > MAX_NOTICES:
            del self.compactions[next(iter(self.compactions))]
        self.host.emit(event)

    def _subagent(self, update: dict[str, Any]) -> None:
        child = update.get("sessionId")
        before = self.subagents.get(child) if isinstance(child, str) else None
        if before is None and isinstance(child, str) and len(self.subagents) >= unstable_updates.MAX_SUBAGENTS:
            self.subagents_dropped += 1
            if self.subagents_dropped == 1:
                self.host.emit(
                    WarningEvent(
                        message=f"the ACP agent started more than {unstable_updates.MAX_SUBAGENTS} subagents in "
                        f"this session; later ones are counted in session.subagents_dropped, not shown"
                    )
                )
            return
        event, problem = unstable_updates.subagent(update, before)
        if event is None:
            self._malformed(problem)
            return
        self.subagents[event.session_id] = event
        if event.session_id not in self.host.agent.sessions:  # its own updates and requests come here
            self.host.agent.subagent_parents[event.session_id] = self.host.session_id
        self.host.emit(event)

    def subagent_activity(self, child: str, kind: Any, update: Any) -> None:
        """An update the agent sent under a subagent's session id: what that subagent did, counted on its
        entry (its tool calls, its messages, the last of each), not shown as this session's own."""
        if kind == "subagent_update" and isinstance(update, dict):  # a subagent of the subagent: ours too
            self._subagent(update)
            return
        before = self.subagents.get(child)
        if before is None:
            return
        fields: dict[str, Any] = {}
        if kind == "agent_message_chunk":
            text = content_text(getattr(update, "content", None))
            if text is None:
                return
            said = text if self._subagent_talk.get(child) != kind else before.last_message + text
            fields["last_message"] = said[-unstable_updates.MAX_TEXT :]
            if self._subagent_talk.get(child) != kind:
                fields["messages"] = before.messages + 1
        elif kind == "tool_call":
            fields["tool_calls"] = before.tool_calls + 1
            title = getattr(update, "title", None)
            fields["last_tool"] = (
                unstable_updates.cut(title, unstable_updates.MAX_TITLE) if isinstance(title, str) else ""
            )
        elif kind == "session_info_update" and isinstance(getattr(update, "title", None), str) and update.title.strip():
            fields["name"] = unstable_updates.cut(update.title.strip(), unstable_updates.MAX_TITLE)
        self._subagent_talk[child] = kind if isinstance(kind, str) else None
        if fields:
            event = before.model_copy(update=fields)
            self.subagents[child] = event
            self.host.emit(event)
