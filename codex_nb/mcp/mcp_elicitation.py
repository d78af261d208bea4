"""codex_nb's own MCP client answers ``elicitation/create`` through the session's prompts.

``Elicitor(session)`` is the ``mcp`` SDK's elicitation callback for every server of a
session (``McpServers.attach`` installs it, so the client declares the ``form`` and ``url``
elicitation capabilities). A request becomes an ``elicitation_request`` event and a
request in the session's broker, routed like every other prompt: an explicit answer
policy, else a rendered prompts widget, else ``$CODEX_NB_ANSWER_POLICY``, else declined
with a warning. A form whose schema cannot be shown whole is declined at once, with a
warning naming the field. The server always gets exactly one answer.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

from ..frontend.answer_policy import ask_and_wait
from ..frontend.elicitation import UnsupportedSchema, event_from_params
from ..frontend.requests import Outcome, RequestKind
from ..protocol.capabilities import capabilities_of
from ..protocol.events import WarningEvent

log = logging.getLogger("codex_nb.mcp.elicitation")
TOOL = "an MCP elicitation"


class Elicitor:
    """Answers one session's MCP elicitations (a callable per server: ``for_server(name)``)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._ids = itertools.count(1)

    def for_server(self, server: str) -> Any:
        async def callback(context: Any, params: Any) -> Any:
            return await self.answer(server, params)

        return callback

    def _turn_id(self) -> str:
        active = self.session.active_turn if capabilities_of(self.session).runs_turns else None
        return active.turn_id if active is not None else ""

    def _emit(self, msg: Any, turn_id: str) -> None:
        self.session.bus.emit(msg, id=turn_id or self.session.thread_id, turn_id=turn_id or None)

    async def answer(self, server: str, params: Any) -> Any:
        from mcp import types

        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        call_id = f"elicitation-{server}-{next(self._ids)}"
        turn_id = self._turn_id()
        broker = self.session.frontend_requests
        try:
            msg = event_from_params(raw, call_id=call_id, turn_id=turn_id, server_name=server)
        except UnsupportedSchema as err:
            self._emit(
                WarningEvent(message=f"codex_nb declined the elicitation of MCP server `{server}`: {err}"), turn_id
            )
            broker.record_unshown(
                RequestKind.ELICITATION,
                turn_id=turn_id,
                call_id=call_id,
                request={"serverName": server, "mode": str(raw.get("mode"))[:100]},
                answer={"action": "decline"},
                reason=str(err),
            )
            return types.ElicitResult(action="decline")
        response = await self._ask(msg, turn_id)
        return types.ElicitResult(action=response["action"], content=response.get("content"))

    async def _ask(self, msg: Any, turn_id: str) -> dict[str, Any]:
        broker = self.session.frontend_requests
        request = broker.open(RequestKind.ELICITATION, turn_id=turn_id, call_id=msg.call_id, msg=msg)
        settlement = await ask_and_wait(broker, request, emit=lambda m: self._emit(m, turn_id), what=TOOL)
        if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY):
            return dict(settlement.response)
        if settlement.outcome == Outcome.UNANSWERABLE:
            self._emit(WarningEvent(message=f"{settlement.response}; codex_nb declined the request"), turn_id)
            return {"action": "decline"}
        return {"action": "cancel"}
