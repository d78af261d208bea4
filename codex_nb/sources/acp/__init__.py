"""An Agent Client Protocol (ACP) client: any ACP agent's plan, tool calls, messages and
permission requests as codex_nb events, so the checklist, prompts and Stop widgets show it.

    agent = cx.AcpAgent("codex-acp", env={"CODEX_HOME": home})
    session = await agent.new_session(cwd)
    handle = session.prompt("Fix the failing test")
    result = await handle            # result.status: completed | interrupted | failed

Modules:

* ``agent``: ``AcpAgent``: the agent subprocess and its sessions.
* ``client``: what the agent may ask of us, routed to its session.
* ``errors``: the client's errors.
* ``events``: the event payloads only ACP sessions emit.
* ``files``: ``fs/*`` confined to one directory.
* ``mapping``: pure ACP update to codex_nb event translations.
* ``permissions``: ``session/request_permission`` as a prompt.
* ``port``: what a session needs from its agent.
* ``process``: the agent subprocess.
* ``quirks``: where an agent differs from the protocol, mapped in one place.
* ``session``: one ACP session as an event source.
* ``terminals``: ``terminal/*``, when enabled.
* ``transport``: newline-delimited JSON framing with clear errors.

Layer: part of ``sources/``.
"""

from .agent import AcpAgent
from .errors import AcpAuthError, AcpError
from .events import AcpPlanUpdate, AcpToolCall, AgentMessageDelta, AgentReasoningDelta, UserMessage
from .session import AcpSession, AcpTurnHandle, AcpTurnResult

__all__ = [
    "AcpAgent",
    "AcpAuthError",
    "AcpError",
    "AcpPlanUpdate",
    "AcpSession",
    "AcpToolCall",
    "AcpTurnHandle",
    "AcpTurnResult",
    "AgentMessageDelta",
    "AgentReasoningDelta",
    "UserMessage",
]
