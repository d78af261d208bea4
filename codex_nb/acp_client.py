"""Any Agent Client Protocol agent as a source: ``AcpAgent`` (also ``cx.AcpAgent``), its sessions,
turn results, events and errors. The other direction, codex_nb served *as* an ACP agent, is
``codex_nb.acp_server``. The implementation is ``codex_nb.sources.acp``.
"""

from .sources.acp import (
    AcpAgent,
    AcpAuthError,
    AcpError,
    AcpPlanUpdate,
    AcpSession,
    AcpToolCall,
    AcpTurnHandle,
    AcpTurnResult,
    AgentMessageDelta,
    AgentReasoningDelta,
    UserMessage,
)

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
