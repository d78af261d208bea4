"""Event payloads an ACP session emits beyond the core ones.

Message chunks use the core ``agent_message_delta`` (Codex's streaming event), so a
transcript that renders Codex deltas renders ACP agents too; thought chunks use
Codex's ``agent_reasoning_delta``.
``acp_tool_call`` carries the merged state of one ACP tool call after each
``tool_call`` / ``tool_call_update``: ACP sends partial updates, consumers want the
whole picture; each call also opens and closes a v2 ``dynamicToolCall`` item
(``item_started`` / ``item_completed``), the shape a transcript shows for any source.
``AcpPlanUpdate`` is a ``plan_update`` whose wire form is Codex's, with
the ACP ``priority`` of each step and where the plan came from kept outside the wire payload.
``AcpPermissionRequest`` is the ``request_user_input`` question an agent's ``session/request_permission``
becomes, with what the request is about (its paths, command and diffs) kept outside the wire payload
for the prompts widget to draw as a card.
``acp_notice``, ``acp_compaction``, ``acp_session_title`` and ``acp_subagent`` carry the unstable
updates a client reads only when it says so in ``initialize`` (``unstable_updates``), already
checked and cut to bounds: a transcript shows them as entries, a timeline records them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..protocol.events import AgentMessageDelta, EventMsg, PlanUpdate, UserMessage  # UserMessage: its old import path
from ..protocol.frontend import RequestUserInputEvent
from ..protocol.model_stream import AgentReasoningDelta


class AcpPlanUpdate(PlanUpdate):
    """A ``plan_update`` from an ACP agent; ``priorities[i]`` is step *i*'s ACP priority."""

    priorities: tuple[str, ...] = Field(default=(), exclude=True)
    origin: str | None = Field(default=None, exclude=True)
    """None for an ACP ``plan`` update; the tool's name (``"write_todos"``) for a plan taken from the
    arguments of an agent's todo tool (``mapping.todo_plan``). Kept outside the wire payload."""


class AcpPermissionRequest(RequestUserInputEvent):
    """An agent's permission request as Codex's ``request_user_input`` question. ``details`` is what
    the request is about as bounded JSON (``PermissionDetails.to_json()`` and ``text``, the question's
    text without the lines the card draws), kept outside the wire payload: the question's text
    carries the same details as lines, for a saved notebook and an answer policy."""

    details: dict[str, Any] | None = Field(default=None, exclude=True)


class AcpOptionsUpdated(EventMsg):
    """``options_updated`` (codex_nb's own event): the session's options changed, by the agent's
    ``config_option_update`` or mode update, or a ``set_option`` it answered. ``options`` is every
    option, in the agent's order, as ``AgentOption.to_json()`` gives it (bounded by ``options.py``),
    so a picker redraws from this one event."""

    type: Literal["options_updated"] = "options_updated"
    options: list[dict[str, Any]]


class AcpToolCall(EventMsg):
    """One ACP tool call as it stands now (``phase`` says which message changed it)."""

    type: Literal["acp_tool_call"] = "acp_tool_call"
    phase: Literal["started", "updated"]
    call_id: str
    title: str
    kind: str | None = None
    status: str
    """pending | in_progress | completed | failed (ACP ``ToolCallStatus``)."""
    content: list[dict[str, Any]] = Field(default_factory=list)
    locations: list[dict[str, Any]] = Field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None


class AcpNotice(EventMsg):
    """The agent's ``notice``: something for the person that is not the model's answer (a warning of
    Codex, a rerouted model, a dropped answer). ``severity`` is info | warning | error or the agent's word."""

    type: Literal["acp_notice"] = "acp_notice"
    severity: str
    title: str
    description: str | None = None


class AcpCompaction(EventMsg):
    """The agent's ``compaction_update``: its context is being (or was) compacted. ``status`` is
    in_progress | completed | failed | cancelled or the agent's word; ``summary`` is the text of the
    summary it sent (its ``summary`` blocks and ``compaction_summary_chunk`` text), cut to bounds."""

    type: Literal["acp_compaction"] = "acp_compaction"
    compaction_id: str
    status: str
    summary: str = ""
    error: str | None = None


class AcpSessionTitle(EventMsg):
    """The session's title as the agent set it (``session_info_update.title``; None: cleared)."""

    type: Literal["acp_session_title"] = "acp_session_title"
    title: str | None


class AcpSubagent(EventMsg):
    """One subagent of the session as it stands now (``subagent_update`` and what the agent said under
    its session id): its name, its state (running | idle | requires_action | unknown | the agent's
    word | "" before it said one) and what it did, counted and with its last message cut to bounds."""

    type: Literal["acp_subagent"] = "acp_subagent"
    session_id: str
    name: str
    description: str | None = None
    state: str = ""
    tool_calls: int = 0
    messages: int = 0
    last_message: str = ""
    last_tool: str = ""


__all__ = [
    "AcpCompaction",
    "AcpNotice",
    "AcpSessionTitle",
    "AcpSubagent",
    "AcpPermissionRequest",
    "AcpPlanUpdate",
    "AcpToolCall",
    "AgentMessageDelta",
    "AgentReasoningDelta",
    "UserMessage",
]
