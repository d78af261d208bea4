"""The Agent Client Protocol (ACP) client: any ACP agent's plan, tool calls, messages and
permission requests as codex_nb events, so the checklist, prompts and Stop widgets show it.

    agent = cx.AcpAgent("codex-acp", env={"CODEX_HOME": home})
    session = await agent.new_session(cwd)
    handle = session.prompt("Fix the failing test")
    result = await handle            # result.status: completed | interrupted | failed

Modules:

* ``agent``: ``AcpAgent``: the agent subprocess and its sessions.
* ``client``: what the agent may ask of us, routed to its session.
* ``draft_v2``: the ACP v2 draft's acknowledged prompts and whole messages, adapted for the v1 SDK.
* ``acp_errors``: the client's errors.
* ``acp_events``: the event payloads only ACP sessions emit.
* ``elicitations``: a session's ``elicitation/create`` questions (forms and URLs) and their answers.
* ``form_questions``: an agent's form elicitation as Codex's question card, and the answer back.
* ``fs``: ``fs/*`` confined to one directory.
* ``listing``: ``SessionListing``, what ``list_sessions()`` read and why it stopped.
* ``mapping``: pure ACP update to codex_nb event translations.
* ``permissions``: ``session/request_permission`` as a prompt.
* ``plan_files``: the text of a plan an agent names by its file (Gemini CLI), read only where it is safe.
* ``plan_review``: an agent's plan-review permission (a ``switch_mode`` call with ``rawInput.plan``)
  and its Markdown plans by id, as the proposed plan ``PlanAnswers`` answers.
* ``permission_details``: the paths (marked outside the session folder), command and diffs a
  permission request is about, as the question's lines and as the prompts widget card's JSON.
* ``options``: ``AgentOption``, the agent's config options and modes as one bounded list.
* ``port``: what a session needs from its agent.
* ``agent_process``: the agent subprocess.
* ``acp_session``: one ACP session as an event source.
* ``acp_turn``: ``AcpTurnHandle``, a running prompt, and ``AcpTurnResult``, how it ended.
* ``side_updates``: the session's title, notices, compactions and subagents, as the agent last sent them.
* ``quirks``: where an agent differs from the protocol, mapped in one place.
* ``terminals``: ``terminal/*``, when enabled.
* ``transport``: newline-delimited JSON framing with clear errors.
* ``unstable_updates``: the notices, compactions and subagent updates the SDK's schema lacks, checked and bounded.

Layer: an adapter, with ``app_server/``, ``acp/``, ``responses/``, ``mcp/``, ``rollouts/`` and
``cassettes/`` (above ``tools/``, which it may import with everything below); ``runtime/`` and the
layers above may import it.
"""

from .agent import AcpAgent
from .acp_errors import AcpAuthError, AcpError
from .acp_events import (
    AcpCompaction,
    AcpNotice,
    AcpPlanUpdate,
    AcpSessionTitle,
    AcpSubagent,
    AcpToolCall,
    AgentMessageDelta,
    AgentReasoningDelta,
    UserMessage,
)
from .acp_session import AcpSession
from .acp_turn import AcpTurnHandle, AcpTurnResult
from .listing import SessionListing
from .options import AgentOption, OptionChoice

__all__ = [
    "AcpAgent",
    "AcpAuthError",
    "AcpCompaction",
    "AcpError",
    "AcpNotice",
    "AcpPlanUpdate",
    "AcpSession",
    "AcpSessionTitle",
    "AcpSubagent",
    "AcpToolCall",
    "AcpTurnHandle",
    "AcpTurnResult",
    "AgentOption",
    "AgentMessageDelta",
    "AgentReasoningDelta",
    "OptionChoice",
    "SessionListing",
    "UserMessage",
]
