"""An Agent Client Protocol (ACP) client: any ACP agent's plan, tool calls, messages and
permission requests as codex_nb events, so the checklist, prompts and Stop widgets show it.

    agent = cx.AcpAgent("codex-acp", env={"CODEX_HOME": home})
    session = await agent.new_session(cwd)
    handle = session.prompt("Fix the failing test")
    result = await handle            # result.status: completed | interrupted | failed
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
